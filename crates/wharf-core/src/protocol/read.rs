//! The lenient reading every protocol type shares: a field of the wrong type is a field not given.

use serde_json::Value;

/// `json[key]` when it is a string.
pub(super) fn text(json: &Value, key: &str) -> Option<String> {
    json.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// `json[key]` is `true` (anything else, or nothing, is false).
pub(super) fn is_true(json: &Value, key: &str) -> bool {
    json.get(key).and_then(Value::as_bool) == Some(true)
}

/// `json[key]` as a list: its items when it is one, none otherwise.
pub(super) fn items<'a>(json: &'a Value, key: &str) -> &'a [Value] {
    match json.get(key) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// Serializes a type as the JSON it was read from (its `sent` field): what is written is what the server sent.
macro_rules! as_sent {
    ($($kind:ty),+ $(,)?) => {$(
        impl serde::Serialize for $kind {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.sent.serialize(serializer)
            }
        }

        impl $kind {
            /// The JSON this was read from, as the server sent it.
            pub fn sent(&self) -> &serde_json::Value {
                &self.sent
            }

            pub fn into_sent(self) -> serde_json::Value {
                self.sent
            }
        }
    )+};
}

pub(super) use as_sent;
