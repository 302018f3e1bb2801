//! Closed sets of codes written on the wire by name: one list gives the enum (exported to the UI's types), its
//! `as_str` and its `Display`, so a code's name is written once.

/// `wire_codes! { /// doc  pub enum Name { Variant = "wire_name", ... } }`
macro_rules! wire_codes {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $wire:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
        #[ts(export)]
        pub enum $name {
            $($(#[$variant_meta])* #[serde(rename = $wire)] $variant,)*
        }

        impl $name {
            /// The code as it is written on the wire (the same as its JSON).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
