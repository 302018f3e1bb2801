//! The credential detector of form fields: a secret's name disguised as a hostile server would disguise it (case,
//! separators, invisible characters, fullwidth, mathematical and look-alike letters, digits and symbols for letters)
//! is still found, in a field's name and through `parse_form` whatever its description says; ordinary field words
//! disguised the same way raise no alarm; and no text makes the detector panic.

use proptest::prelude::*;
use serde_json::json;
use wharf_core::elicitation::form::{
    description_asks_for_credential, looks_like_credential, parse_form,
};

/// Names of secrets, each a term whole (so that any split of it joins back into it).
const SECRETS: &[&str] = &[
    "password",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "bearer",
    "credential",
    "apikey",
    "privatekey",
    "seedphrase",
    "passwort",
    "kennwort",
    "wachtwoord",
    "contrasena",
    "senha",
    "mnemonic",
];

/// Ordinary words of form fields: no run of them, however written, names a secret.
const ORDINARY: &[&str] = &[
    "user", "name", "email", "city", "color", "size", "date", "value", "your", "the", "first",
    "last", "phone", "street", "count", "age", "title", "note", "model", "country", "zip", "day",
    "time", "url", "id",
];

/// Characters drawn as nothing, which a server may put anywhere in a word.
const INVISIBLE: &[char] = &[
    '\u{200B}',
    '\u{200C}',
    '\u{200D}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{AD}',
    '\u{200E}',
    '\u{200F}',
    '\u{202A}',
    '\u{202C}',
    '\u{202E}',
    '\u{2066}',
    '\u{2069}',
    '\u{FE0F}',
    '\u{180E}',
    '\u{E0041}',
];

const SEPARATORS: &[&str] = &["-", "_", ".", " ", "/", "  ", " - ", "·", "\u{3000}", "\t"];

/// Letters of other scripts that Unicode's confusables table folds to each Latin letter.
fn look_alikes(c: char) -> &'static [char] {
    match c {
        'a' => &['а', 'ɑ', 'α'],
        'b' => &['Ь', 'Ꮟ'],
        'c' => &['с', 'ϲ', 'ᴄ', 'Ϲ'],
        'd' => &['ԁ', 'ᑯ'],
        'e' => &['е', 'ҽ'],
        'h' => &['һ', 'Һ'],
        'i' => &['і', 'ι', 'ɩ'],
        'j' => &['ј', 'ϳ'],
        'k' => &['κ', 'К', 'Κ'],
        'l' => &['ӏ', 'Ι', 'ⅼ'],
        'm' => &['М', 'Μ'],
        'n' => &['ո', 'Ν'],
        'o' => &['о', 'ο', 'օ', 'ᴏ'],
        'p' => &['р', 'ρ', 'ᴘ'],
        'r' => &['г', 'ᴦ'],
        's' => &['ѕ', 'ꜱ'],
        't' => &['Т', 'Τ', 'ᴛ'],
        'u' => &['ս', 'ᴜ'],
        'v' => &['ν', 'ѵ'],
        'w' => &['ԝ', 'ᴡ', 'ա'],
        'x' => &['х', 'х'],
        'y' => &['у', 'ү'],
        'z' => &['ᴢ'],
        _ => &[],
    }
}

/// Digits and symbols read as each letter; `1` only where the word does not hold both `i` and `l` (it is read one
/// way throughout a text).
fn leet(c: char, word: &str) -> &'static [char] {
    let both = word.contains('i') && word.contains('l');
    match c {
        'a' => &['4', '@'],
        'e' => &['3'],
        'i' | 'l' if !both => &['1'],
        'o' => &['0'],
        's' => &['5', '$'],
        't' => &['7'],
        _ => &[],
    }
}

/// One letter of `word` as a server might write it.
fn disguise(c: char, word: &'static str) -> BoxedStrategy<String> {
    let upper = c.to_ascii_uppercase();
    let fullwidth = char::from_u32(c as u32 - 'a' as u32 + 0xFF41).unwrap_or(c);
    let bold = char::from_u32(c as u32 - 'a' as u32 + 0x1D41A).unwrap_or(c);
    let mut forms = vec![c, upper, fullwidth, bold];
    // A look-alike of `i` or `l` is read as either, one way throughout: only where the word does not hold both.
    if !(matches!(c, 'i' | 'l') && word.contains('i') && word.contains('l')) {
        forms.extend(look_alikes(c));
    }
    forms.extend(leet(c, word));
    prop::sample::select(forms).prop_map(String::from).boxed()
}

/// What may follow a letter: nothing, mostly, or invisible characters, or a separator.
fn gap() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just(String::new()),
        2 => prop::collection::vec(prop::sample::select(INVISIBLE), 1..3)
            .prop_map(|cs| cs.into_iter().collect()),
        2 => prop::sample::select(SEPARATORS).prop_map(str::to_string),
    ]
}

/// `word` disguised letter by letter.
fn disguised(word: &'static str) -> BoxedStrategy<String> {
    let letters: Vec<_> = word.chars().map(|c| (disguise(c, word), gap())).collect();
    letters
        .prop_map(|parts| parts.into_iter().map(|(l, g)| l + &g).collect::<String>())
        .boxed()
}

fn disguised_secret() -> impl Strategy<Value = (&'static str, String)> {
    prop::sample::select(SECRETS).prop_flat_map(|w| (Just(w), disguised(w)))
}

/// A few ordinary words, each disguised, between separators.
fn disguised_ordinary() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(ORDINARY).prop_flat_map(disguised),
            prop::sample::select(SEPARATORS),
        ),
        1..4,
    )
    .prop_map(|words| words.into_iter().map(|(w, s)| w + s).collect())
}

/// Descriptions that try to talk the detector out of a named secret.
fn negating_description() -> impl Strategy<Value = String> {
    const PHRASES: &[&str] = &[
        "Do not enter your password here.",
        "We never ask for secrets",
        "no password, no token, no PIN",
        "Not a credential",
        "don't give us your API key",
        "",
    ];
    (prop::sample::select(PHRASES), "\\PC{0,20}").prop_map(|(p, tail)| format!("{p} {tail}"))
}

proptest! {
    #[test]
    fn a_disguised_secret_name_is_still_a_credential(
        (word, name) in disguised_secret(),
        before in prop::sample::select(&["", "new_", "db ", "my-", "The "][..]),
        after in prop::sample::select(&["", "_field", " here", "2", "!"][..]),
    ) {
        let text = format!("{before}{name}{after}");
        prop_assert!(looks_like_credential(&text), "{word}: {text:?}");
    }

    /// Whatever the description says, a field named a secret is flagged, and its warning names it.
    #[test]
    fn a_negation_never_hides_a_field_named_a_secret(
        (word, name) in disguised_secret(),
        description in negating_description(),
    ) {
        let schema = json!({
            "type": "object",
            "properties": {name.clone(): {"type": "string", "description": description}},
        });
        let spec = parse_form(&schema).unwrap();
        prop_assert!(spec.fields[0].credential, "{word}: {name:?} / {description:?}");
    }

    #[test]
    fn a_disguised_secret_in_a_description_is_found(
        (word, name) in prop::sample::select(&SECRETS[..SECRETS.len() - 1]).prop_flat_map(|w| (Just(w), disguised(w))),
    ) {
        let description = format!("Please type your {name} below");
        prop_assert!(description_asks_for_credential(&description), "{word}: {description:?}");
    }

    #[test]
    fn ordinary_words_however_written_raise_no_alarm(text in disguised_ordinary()) {
        prop_assert!(!looks_like_credential(&text), "{text:?}");
        prop_assert!(!description_asks_for_credential(&text), "{text:?}");
    }

    #[test]
    fn the_detector_never_panics(text in prop_oneof![any::<String>(), "\\PC{0,60}", "[a-zA-Z0-9@$ ._-]{0,40}"]) {
        let _ = looks_like_credential(&text);
        let _ = description_asks_for_credential(&text);
        let schema = json!({
            "type": "object",
            "properties": {text.clone(): {"type": "string", "title": text.clone(), "description": text.clone(), "format": text}},
        });
        let _ = parse_form(&schema);
    }
}
