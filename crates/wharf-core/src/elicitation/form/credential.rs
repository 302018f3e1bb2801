//! Whether a form field asks for a credential, which the spec forbids in form mode: the user is warned and told the
//! server should have used URL mode. A warning, never a refusal, so a false alarm costs little; a miss lets a secret
//! through a form unremarked, so the words are matched generously but as whole words.
//!
//! The rule. The text (a field's name, title or description) is cut into words at anything not a letter or digit
//! (`api_key`, `API-KEY`, "API key") and where lower case turns to upper (`apiKey`; `APIKey` before its last
//! capital), then lower-cased with trailing digits dropped (`cvv2`, `pin1`). It is a credential when its words contain
//! one of the runs of `RUNS`, or a run written as one word (`apikey`, `creditcard`, `onetimecode`), the last word
//! possibly plural (`api keys`). Whole words only: `tokenizer`, `keyboard`, `pinned`, `secretary` are other words, and
//! a lone `key` or `card` is no secret (`sort key`, `card title`). The abbreviations `pw` and `pwd` count: a form
//! field so named asks for a password (the contract's own example is `pw`). Two exceptions:
//! - `token` beside a word of quantity, and the plural `tokens`, are about language models, not credentials ("max
//!   tokens", "token count", "token budget"); likewise `pins` (map pins) is not a PIN;
//! - a word merely containing `password`, `passwd`, `passphrase` or `passcode` counts (`dbpassword`,
//!   `newpasscode`): no innocent word contains them.
//!
//! Descriptions are read sentence by sentence, and a sentence that negates ("do not give us your PIN") is no request.

/// Runs of words, space-separated.
const RUNS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pin",
    "token",
    "secret",
    "api key",
    "private key",
    "access key",
    "card number",
    "credit card",
    "debit card",
    "cc number",
    "cvv",
    "cvc",
    "security code",
    "iban",
    "ssn",
    "social security number",
    "otp",
    "totp",
    "one time code",
    "one time pin",
];

const INSIDE_WORDS: &[&str] = &["password", "passwd", "passphrase", "passcode"];

/// Abbreviations that count only as whole words: inside a word they are other letters (`upward`).
const SHORT_WORDS: &[&str] = &["pw", "pwd"];

/// Words that, in a sentence of a description, say the secret is NOT asked for ("do not give us your PIN").
const NEGATIONS: &[&str] = &["not", "never", "no", "don", "dont", "without", "avoid"];

/// A field's description asks for a credential when one of its sentences (or parenthesised asides) names one and
/// does not say the opposite: "Your favorite integer (do not give us your phone number, pin, or other sensitive
/// info)" is about an integer.
pub fn description_asks_for_credential(description: &str) -> bool {
    description
        .split(['.', ';', '(', ')', '!', '?', '\n'])
        .filter(|sentence| {
            let words = words(sentence);
            !words.iter().any(|w| NEGATIONS.contains(&w.as_str()))
        })
        .any(looks_like_credential)
}

const QUANTITY_WORDS: &[&str] = &[
    "count", "limit", "max", "min", "maximum", "minimum", "budget", "usage", "length",
];

pub fn looks_like_credential(text: &str) -> bool {
    let words = words(text);
    let word = |i: usize| words.get(i).map(String::as_str);
    if words
        .iter()
        .any(|w| INSIDE_WORDS.iter().any(|s| w.contains(s)) || SHORT_WORDS.contains(&w.as_str()))
    {
        return true;
    }
    (0..words.len()).any(|i| {
        RUNS.iter().any(|run| {
            let run: Vec<&str> = run.split(' ').collect();
            let last = run.len().saturating_sub(1);
            let plural_ok = !matches!(run.last(), Some(&"token" | &"pin"));
            let same = |w: Option<&str>, expected: &str, may_be_plural: bool| {
                w == Some(expected)
                    || (may_be_plural && w.and_then(|w| w.strip_suffix('s')) == Some(expected))
            };
            let spelled = run
                .iter()
                .enumerate()
                .all(|(k, r)| same(word(i + k), r, plural_ok && k == last));
            let glued = run.len() > 1 && same(word(i), &run.concat(), plural_ok);
            let about_quantity = run == ["token"]
                && [i.checked_sub(1).and_then(word), word(i + 1)]
                    .into_iter()
                    .flatten()
                    .any(|w| QUANTITY_WORDS.contains(&w));
            (spelled || glued) && !about_quantity
        })
    })
}

fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j));
        let next = chars.get(i + 1);
        let case_turn = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if !c.is_alphanumeric() || case_turn {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
    }
    words.push(current);
    words
        .into_iter()
        .map(|w| w.trim_end_matches(|c: char| c.is_ascii_digit()).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}
