use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

/// Every trick a server's message can play on a terminal, each with a character that would carry it out.
const TRICKS: &[(&str, &str)] = &[
    ("SGR conceal", "\u{1b}[8mhidden\u{1b}[0m"),
    ("cursor up and erase line", "\u{1b}[1A\u{1b}[2K"),
    (
        "OSC 8 hyperlink",
        "\u{1b}]8;;file:///etc/passwd\u{1b}\\click\u{1b}]8;;\u{7}",
    ),
    ("OSC 52 clipboard", "\u{1b}]52;c;cm0gLXJmIH4=\u{7}"),
    ("OSC 0 title", "\u{1b}]0;wharf\u{7}"),
    ("carriage return", "real\rfake"),
    ("C1 CSI", "\u{9b}2K"),
    ("C1 OSC", "\u{9d}0;t\u{9c}"),
    ("DEL", "a\u{7f}b"),
    ("bidi override", "moc.live\u{202e}"),
    ("bidi isolate", "\u{2066}x\u{2069}"),
    ("marks", "\u{200e}\u{200f}\u{61c}"),
    ("zero width", "a\u{200b}b\u{200d}c\u{2060}d\u{feff}"),
    ("separators", "a\u{2028}b\u{2029}c"),
    ("tags", "\u{e0041}\u{e007f}"),
    ("hangul filler", "\u{3164}\u{115f}"),
    ("backspace", "abc\u{8}\u{8}\u{8}xyz"),
];

fn is_terminal_safe(line: &str) -> bool {
    !line.chars().any(is_hazard)
}

/// Pretty JSON's own line breaks are layout; nothing else may be a hazard.
fn is_terminal_safe_json(text: &str) -> bool {
    text.lines().all(is_terminal_safe)
}

#[test]
fn every_trick_is_shown_not_interpreted() {
    for (name, trick) in TRICKS {
        let shown = one_line(trick, 1000);
        assert!(is_terminal_safe(&shown), "{name}: {shown:?}");
        assert!(!shown.contains('\u{1b}') && !shown.contains('\r'), "{name}");
        // The trick is still readable: something stands in for each hazard.
        assert!(shown.contains('\\'), "{name}: {shown:?}");
    }
    assert_eq!(one_line("\u{1b}[8m", 100), "\\x1b[8m");
    assert_eq!(one_line("\u{9b}", 100), "\\x9b");
    assert_eq!(one_line("a\u{202e}b", 100), "a\\u{202e}b");
    assert_eq!(one_line("a\r\nb\tc", 100), "a\\r\\nb\\tc");
    assert_eq!(one_line("a\u{e0041}", 100), "a\\u{e0041}");
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "Please sign in at example.com",
        "Grüße, 你好, مرحبا, שלום, привет",
        "C:\\Users\\ada\\file.txt",
        "emoji 🚀 and accents é (e\u{301})",
        "Vietnamese: Tiếng Việt",
    ] {
        assert_eq!(one_line(text, 1000), text);
    }
}

#[test]
fn long_text_is_cut_and_says_how_much() {
    let text = "x".repeat(1000);
    let shown = one_line(&text, 100);
    assert!(shown.starts_with(&"x".repeat(100)), "{shown}");
    assert!(shown.ends_with("… [900 more characters]"), "{shown}");
    // An escape is never cut in half.
    let shown = one_line(&format!("{}\u{1b}", "x".repeat(99)), 100);
    assert_eq!(shown, format!("{}… [1 more characters]", "x".repeat(99)));
}

#[test]
fn a_pile_of_combining_marks_is_escaped_past_a_few() {
    let zalgo = format!("a{}", "\u{301}".repeat(50));
    let shown = one_line(&zalgo, 10_000);
    assert!(shown.starts_with(&format!("a{}", "\u{301}".repeat(MAX_COMBINING_RUN))));
    assert_eq!(shown.matches("\\u{301}").count(), 50 - MAX_COMBINING_RUN);
}

#[test]
fn lines_keep_the_layout_but_no_line_carries_a_control() {
    let shown = lines("first\r\nsecond\rover\u{1b}[1A\nthird", 10, 100);
    assert_eq!(shown, vec!["first", "second\\rover\\x1b[1A", "third"]);
    let many = lines(&"l\n".repeat(50), 5, 100);
    assert_eq!(many.len(), 6);
    assert_eq!(many[5], "… [46 more lines]");
}

#[test]
fn json_escapes_hazards_and_keeps_the_value() {
    let value = json!({
        "stderr": "\u{1b}[2Jwiped \u{9b}31m \u{202e}txt.exe \u{7f} \u{2028} \u{e0041}",
        "k\u{200b}ey": ["\u{85}", "plain é"],
    });
    for text in [
        json::to_string(&value).unwrap(),
        json::to_string_pretty(&value).unwrap(),
    ] {
        assert!(is_terminal_safe_json(&text), "{text:?}");
        assert!(
            text.contains("\\u009b") && text.contains("\\u202e"),
            "{text}"
        );
        assert!(text.contains("\\udb40\\udc41"), "astral as a pair: {text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
    assert_eq!(
        json::to_string_pretty(&json!({"a": [1]})).unwrap(),
        serde_json::to_string_pretty(&json!({"a": [1]})).unwrap()
    );
}

fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z0-9 :/.]{0,8}",
        2 => prop::sample::select(TRICKS.iter().map(|(_, t)| *t).collect::<Vec<_>>()).prop_map(str::to_string),
        2 => any::<char>().prop_map(String::from),
        1 => "\\PC{0,4}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

#[test]
fn a_wrapped_line_keeps_every_character_and_never_splits_an_escape() {
    let line = format!("{}\u{202e}{}; rm -rf ~", "a".repeat(18), "b".repeat(5000));
    let rows = wrapped(&line, 20);
    assert_eq!(rows[0], "a".repeat(18));
    assert_eq!(rows[1], format!("\\u{{202e}}{}", "b".repeat(12)));
    assert_eq!(rows.concat(), one_line(&line, usize::MAX));
    assert!(rows.last().unwrap().ends_with("; rm -rf ~"));
    assert_eq!(wrapped("", 20), [""]);
}

proptest! {
    #[test]
    fn fuzz_wrapped_rows_are_safe_bounded_and_whole(text in hostile_text(), width in 0usize..40) {
        let rows = wrapped(&text, width);
        prop_assert!(!rows.is_empty());
        for row in &rows {
            prop_assert!(is_terminal_safe(row), "{row:?}");
            prop_assert!(row.chars().count() <= width.max(12), "{row:?}");
        }
        prop_assert_eq!(rows.concat(), one_line(&text, usize::MAX));
    }

    #[test]
    fn fuzz_one_line_is_safe_and_bounded(text in hostile_text(), max in 0usize..200) {
        let shown = one_line(&text, max);
        prop_assert!(is_terminal_safe(&shown), "{:?}", shown);
        prop_assert!(!shown.contains('\n'));
        let marker = "… [] more characters".chars().count() + 20;
        prop_assert!(shown.chars().count() <= max + marker, "{} > {}", shown.chars().count(), max);
    }

    #[test]
    fn fuzz_lines_are_safe_and_bounded(text in hostile_text(), max_lines in 0usize..6) {
        let shown = lines(&text, max_lines, 50);
        prop_assert!(shown.len() <= max_lines + 1);
        for line in &shown {
            prop_assert!(is_terminal_safe(line), "{:?}", line);
        }
    }

    #[test]
    fn fuzz_json_is_safe_and_round_trips(a in hostile_text(), b in hostile_text()) {
        let value = json!({ a.clone(): [b.clone(), {"x": a}] });
        let text = json::to_string_pretty(&value).unwrap();
        prop_assert!(is_terminal_safe_json(&text), "{:?}", text);
        prop_assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
