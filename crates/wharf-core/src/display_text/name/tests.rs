use proptest::prelude::*;

use super::*;

#[test]
fn a_plain_name_is_quoted_and_not_flagged() {
    assert_eq!(quoted("read_file"), "\"read_file\"");
    assert_eq!(flagged("fs.read-file_2"), "\"fs.read-file_2\"");
    assert!(oddities(&"a".repeat(MAX_TOOL_NAME_CHARS)).is_empty());
}

#[test]
fn a_name_of_words_cannot_read_as_another_servers_tool() {
    let name = "note on trusted-docs";
    assert_eq!(
        flagged(name),
        "\"note on trusted-docs\" (an unusual name: spaces)"
    );
    // A quote in the name cannot end the quoted name early.
    assert_eq!(
        quoted("note\" on \"trusted-docs"),
        "\"note\\\" on \\\"trusted-docs\""
    );
    assert_eq!(
        oddities("note\" on \"trusted-docs"),
        [NameOddity::Spaces, NameOddity::Quotes]
    );
    // Nor can a backslash make a real quote look escaped.
    assert_eq!(quoted("a\\"), "\"a\\\\\"");
}

#[test]
fn hidden_characters_are_escaped_and_flagged() {
    for (name, shown) in [
        ("read\u{202e}elif", "\"read\\u{202e}elif\""),
        ("re\u{200b}ad", "\"re\\u{200b}ad\""),
        ("x\u{1b}[31mred", "\"x\\x1b[31mred\""),
        ("tab\tname", "\"tab\\tname\""),
        ("sel\u{fe0f}", "\"sel\\u{fe0f}\""),
        ("e\u{301}", "\"e\\u{301}\""),
    ] {
        assert_eq!(quoted(name), shown, "{name:?}");
        assert!(
            oddities(name).contains(&NameOddity::Hidden)
                || oddities(name).contains(&NameOddity::OtherCharacters),
            "{name:?}"
        );
    }
    assert_eq!(oddities("re\u{200b}ad"), [NameOddity::Hidden]);
    assert_eq!(oddities(""), [NameOddity::Empty]);
    assert_eq!(oddities("caf\u{e9}"), [NameOddity::OtherCharacters]);
}

#[test]
fn a_long_name_is_cut_after_its_closing_quote_and_says_so() {
    let long = "n".repeat(1000);
    let shown = quoted(&long);
    assert_eq!(
        shown,
        format!("\"{}\"… [800 more characters]", "n".repeat(200))
    );
    assert_eq!(oddities(&long), [NameOddity::TooLong]);
}

#[test]
fn the_apps_form_is_escaped_without_quotes() {
    let shown = ShownName::of("note on \"x\"\u{202e}");
    assert_eq!(shown.escaped, "note on \\\"x\\\"\\u{202e}");
    assert_eq!(
        shown.oddities,
        [NameOddity::Spaces, NameOddity::Quotes, NameOddity::Hidden]
    );
}

/// The name inside the outer quotes, read back: `\"` and `\\` undone, nothing else.
fn unquote(shown: &str) -> Option<String> {
    let inner = shown.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return chars.as_str().is_empty().then_some(out),
            c => out.push(c),
        }
    }
    None
}

proptest! {
    /// Whatever a server names its tool, the quoted form is one safe line whose quotes close exactly at its end,
    /// and two names that differ are shown differently.
    #[test]
    fn fuzz_quoted_names_are_safe_and_unambiguous(a in "\\PC{0,12}|[\"\\\\ a\u{202e}\u{200b}]{0,8}", b in "\\PC{0,12}") {
        let shown = quoted(&a);
        prop_assert!(!shown.chars().any(|c| is_hazard(c) || super::super::is_default_ignorable(c)), "{shown:?}");
        let inner = unquote(&shown);
        prop_assert!(inner.is_some(), "quotes do not close at the end: {shown:?}");
        if a != b {
            prop_assert_ne!(shown, quoted(&b));
        }
        prop_assert_eq!(oddities(&a).is_empty(), a.chars().all(is_plain_char) && !a.is_empty() && a.chars().count() <= MAX_TOOL_NAME_CHARS);
    }
}
