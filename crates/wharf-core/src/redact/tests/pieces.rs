//! Cuts and pieces: a secret across a cut, what is left of one at a text's edge, a secret split across the pieces
//! of a streamed text.

use super::*;

const KEY: &str = "sk-piece-test-4f9a2c7e1b";

fn knowing(secret: &str) -> Redactor {
    let redactor = Redactor::default();
    redactor.learn_values(vec![secret.to_string()], vec!["/w/project".to_string()]);
    redactor
}

/// Every piece of `secret` at least `len` bytes long found in `text`.
fn pieces_in(text: &str, secret: &str, len: usize) -> Vec<String> {
    secret
        .as_bytes()
        .windows(len)
        .filter_map(|w| std::str::from_utf8(w).ok())
        .filter(|w| text.contains(w))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_secret_across_the_cut_is_masked_whole_at_every_position() {
    let redactor = knowing(KEY);
    for at in 0..KEY.len() + 2 {
        let text = format!("{}{KEY} and more after it", "e".repeat(300 - at));
        let cut = redactor.cut_secrets(&text, 300);
        assert!(pieces_in(&cut, KEY, 4).is_empty(), "{at}: {cut}");
        assert!(cut.ends_with('…'), "{cut}");
        assert!(cut.chars().count() <= 301, "{cut}");
    }
    // A text within the limit is only masked, and ordinary text is left as it is.
    assert_eq!(redactor.cut_secrets("short", 300), "short");
    assert_eq!(
        redactor.cut_secrets(&format!("key {KEY}"), 300),
        "key [redacted]"
    );
    assert_eq!(redactor.cut_secrets("é".repeat(10).as_str(), 4), "éééé…");
}

#[test]
fn what_is_left_of_a_secret_at_a_cut_edge_is_masked() {
    let redactor = knowing(KEY);
    // A tail that dropped the secret's start, a head that lost its end, a piece from its middle.
    let tail = format!("{} then the log went on", &KEY[9..]);
    assert_eq!(
        redactor.redact_piece(&tail, Cut::Start),
        "[redacted] then the log went on"
    );
    let head = format!("the key was {}", &KEY[..12]);
    assert_eq!(
        redactor.redact_piece(&head, Cut::End),
        "the key was [redacted]"
    );
    assert_eq!(redactor.redact_piece(&KEY[3..15], Cut::Both), "[redacted]");
    // Both edges of one piece.
    let both = format!("{} middle {}", &KEY[15..], &KEY[..8]);
    assert_eq!(
        redactor.redact_piece(&both, Cut::Both),
        "[redacted] middle [redacted]"
    );
    // Too short to tell anything (a public `sk-` prefix), or at an edge that was not cut: kept.
    assert_eq!(redactor.redact_piece("ask sk-", Cut::End), "ask sk-");
    assert_eq!(redactor.redact_piece(&head, Cut::Start), head);
    assert_eq!(redactor.redact_piece("plain text", Cut::Both), "plain text");
}

#[test]
fn a_secret_split_across_streamed_pieces_never_gets_out() {
    let redactor = knowing(KEY);
    let text = format!("Here it is: {KEY}. Done.");
    for at in 1..text.len() {
        if !text.is_char_boundary(at) {
            continue;
        }
        let mut stream = StreamRedactor::new(redactor.clone());
        let mut out = stream.push(&text[..at]);
        out.push_str(&stream.push(&text[at..]));
        out.push_str(&stream.finish());
        assert_eq!(out, "Here it is: [redacted]. Done.", "split at {at}");
    }
    // Ordinary text goes out at once; a likely start waits for the next piece, then goes too.
    let mut stream = StreamRedactor::new(redactor.clone());
    assert_eq!(stream.push("Hello there. "), "Hello there. ");
    assert_eq!(stream.push("sk-pie"), "");
    assert_eq!(stream.push("ce of cake"), "sk-piece of cake");
    assert_eq!(stream.finish(), "");
    // Stopped in the middle of a secret: what was held is masked.
    let mut stream = StreamRedactor::new(redactor);
    assert_eq!(stream.push(&format!("now {}", &KEY[..10])), "now ");
    assert_eq!(stream.finish(), "[redacted]");
}

#[test]
fn a_credential_split_after_its_scheme_or_field_name_is_masked() {
    let redactor = Redactor::default();
    for pieces in [
        &["Authorization: Bea", "rer abc123", "def456 done"][..],
        &["Authorization: Bearer ", "abc123def456", " done"],
        &[
            "{\"access_to",
            "ken\": \"abc123",
            "def456\", \"n\": 1} done",
        ],
        &["password=", "abc123def456", " done"],
    ] {
        let mut stream = StreamRedactor::new(redactor.clone());
        let mut out: String = pieces.iter().map(|p| stream.push(p)).collect();
        out.push_str(&stream.finish());
        assert!(
            !out.contains("abc123") && !out.contains("def456"),
            "{pieces:?} -> {out}"
        );
        assert!(out.contains(MASK) && out.ends_with(" done"), "{out}");
    }
    // Prose about passwords is held a moment, not lost.
    let mut stream = StreamRedactor::new(redactor);
    let mut out = stream.push("change the password");
    out.push_str(&stream.push(" now"));
    out.push_str(&stream.finish());
    assert_eq!(out, "change the password now");
}

#[test]
fn a_key_learned_at_run_time_is_masked_across_a_cut_by_any_redactor() {
    let key = "sk-runtime-cut-7d1e0a9c33";
    learn_runtime_secret(key);
    let redactor = Redactor::default();
    for at in 0..key.len() {
        let quoted = format!("{}{key}", "x".repeat(20 - at.min(20)));
        let cut = redactor.cut_secrets(&quoted, 20);
        assert!(pieces_in(&cut, key, 4).is_empty(), "{cut}");
        let tail = &key[at..];
        let piece = redactor.redact_piece(tail, Cut::Start);
        assert!(pieces_in(&piece, key, 4).is_empty(), "{tail} -> {piece}");
    }
}

#[test]
fn header_values_are_secret_unless_the_header_is_an_ordinary_one() {
    let config = Config::parse(
        std::path::Path::new("c.json"),
        r#"{"servers": {"web": {"url": "http://h/mcp", "headers": {"X-Tenant": "acme-tenant-one",
            "Accept-Language": "en-GB,en;q=0.8", "User-Agent": "wharf-test-agent"}}}}"#,
        &|_| None,
    )
    .unwrap();
    let redactor = Redactor::default();
    redactor.learn(&config);
    let line = "tenant acme-tenant-one, language en-GB,en;q=0.8, agent wharf-test-agent";
    assert_eq!(
        redactor.redact_secrets(line),
        "tenant [redacted], language en-GB,en;q=0.8, agent wharf-test-agent"
    );
}

mod fuzz {
    use proptest::prelude::*;

    use super::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "\\PC{0,12}",
            prop::sample::select(vec![
                "Bearer ",
                "password=",
                " ",
                "é",
                "sk-",
                "\n",
                "\"",
                "[redacted]"
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        #[test]
        fn fuzz_no_piece_of_a_secret_survives_a_cut_or_a_stream(
            before in text(),
            after in text(),
            cut in 0usize..60,
            splits in prop::collection::vec(0usize..60, 0..6),
            from in 0usize..KEY.len(),
        ) {
            let redactor = knowing(KEY);
            let text = format!("{before}{KEY}{after}");
            let masked = redactor.cut_secrets(&text, cut);
            prop_assert!(pieces_in(&masked, KEY, 6).is_empty(), "{:?} cut at {} -> {:?}", text, cut, masked);
            // Streamed in pieces split anywhere.
            let mut stream = StreamRedactor::new(redactor.clone());
            let mut out = String::new();
            let mut at = 0;
            let mut points: Vec<usize> = splits.iter().map(|s| s % (text.len() + 1)).collect();
            points.sort_unstable();
            for point in points.into_iter().chain([text.len()]) {
                if point < at || !text.is_char_boundary(point) {
                    continue;
                }
                out.push_str(&stream.push(&text[at..point]));
                at = point;
            }
            out.push_str(&stream.finish());
            prop_assert!(pieces_in(&out, KEY, 6).is_empty(), "{:?} -> {:?}", text, out);
            // A tail that begins inside the secret, and a head that ends inside it.
            let tail = format!("{}{after}", &KEY[from..]);
            let shown = redactor.redact_piece(&tail, Cut::Start);
            prop_assert!(pieces_in(&shown, KEY, 6).is_empty(), "{:?} -> {:?}", tail, shown);
            let head = format!("{before}{}", &KEY[..from]);
            let shown = redactor.redact_piece(&head, Cut::End);
            prop_assert!(pieces_in(&shown, KEY, 6).is_empty(), "{:?} -> {:?}", head, shown);
        }
    }
}
