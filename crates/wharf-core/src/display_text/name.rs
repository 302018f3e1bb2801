//! A name (a tool's, a server's) shown so that it can never read as something else. A server picks its tools' names,
//! and a name such as `note on trusted-docs` set in a sentence ("the model wants to call note on trusted-docs on
//! evil") reads as a tool of another server. So a name is always shown between quotes, with the quote and the
//! backslash escaped inside it (no name can close its quotes early), every hazard escaped as [`super::one_line`] does,
//! and its length bounded with the rest counted after the closing quote. A name that breaks the MCP rule for tool
//! names (`[A-Za-z0-9_.-]{1,128}`) is flagged, with what makes it unusual.

use serde::Serialize;

use super::{escape, is_combining, is_hazard};

/// The MCP spec's bound on a tool name's length.
pub const MAX_TOOL_NAME_CHARS: usize = 128;
/// The characters of a name shown before the rest is counted: every name the MCP rule allows, whole.
const SHOWN_NAME_CHARS: usize = 200;

/// What makes a name break the MCP rule for tool names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum NameOddity {
    Empty,
    /// Over 128 characters.
    TooLong,
    /// Spaces (or other white space): the name reads as several words.
    Spaces,
    /// Quotes, which could seem to end a quoted name.
    Quotes,
    /// Controls, format characters (bidi overrides, zero-width characters) or invisible letters.
    Hidden,
    /// Any other character outside `A-Z a-z 0-9 _ . -`.
    OtherCharacters,
}

impl NameOddity {
    /// The card's words for it.
    pub fn as_words(self) -> &'static str {
        match self {
            NameOddity::Empty => "empty",
            NameOddity::TooLong => "over 128 characters",
            NameOddity::Spaces => "spaces",
            NameOddity::Quotes => "quotes",
            NameOddity::Hidden => "hidden or control characters",
            NameOddity::OtherCharacters => "characters outside A-Z a-z 0-9 _ . -",
        }
    }
}

/// A name as the app shows it: escaped as inside [`quoted`] (without the quotes, which the app draws as a token's
/// boundaries), and what makes it unusual.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ShownName {
    pub escaped: String,
    pub oddities: Vec<NameOddity>,
}

impl ShownName {
    pub fn of(name: &str) -> ShownName {
        ShownName {
            escaped: escaped(name, usize::MAX).0,
            oddities: oddities(name),
        }
    }
}

fn is_plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// What breaks the MCP rule in `name`, each kind once, in a fixed order; empty for a plain name.
pub fn oddities(name: &str) -> Vec<NameOddity> {
    let mut found = Vec::new();
    if name.is_empty() {
        found.push(NameOddity::Empty);
    }
    if name.chars().count() > MAX_TOOL_NAME_CHARS {
        found.push(NameOddity::TooLong);
    }
    for c in name.chars().filter(|c| !is_plain_char(*c)) {
        let oddity = if is_hazard(c) || super::is_default_ignorable(c) {
            NameOddity::Hidden
        } else if c.is_whitespace() {
            NameOddity::Spaces
        } else if matches!(
            c,
            '"' | '\'' | '`' | '\u{2018}'..='\u{201f}' | '\u{ab}' | '\u{bb}'
        ) {
            NameOddity::Quotes
        } else {
            NameOddity::OtherCharacters
        };
        if !found.contains(&oddity) {
            found.push(oddity);
        }
    }
    found.sort();
    found
}

/// `name` with `"` and `\` escaped and every hazard as [`super::one_line`] escapes it, at most `max_chars` characters
/// of it, and how many characters were left out.
fn escaped(name: &str, max_chars: usize) -> (String, usize) {
    let mut out = String::with_capacity(name.len().min(max_chars.saturating_mul(4)));
    let mut chars = name.chars();
    for c in chars.by_ref().take(max_chars) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            // Every default-ignorable character and combining mark too: a variation selector or an accent is no
            // hazard in prose, but in a name it hides a difference between two names that look the same.
            c if is_hazard(c) || super::is_default_ignorable(c) || is_combining(c) => {
                escape(c, &mut out)
            }
            c => out.push(c),
        }
    }
    (out, chars.count())
}

/// `name` between double quotes, escaped inside, bounded: `"note on trusted-docs"`. A cut name ends in the count of
/// the characters left out, after the closing quote, outside anything a name could hold: `"aaaa"… [12 more
/// characters]`.
pub fn quoted(name: &str) -> String {
    match escaped(name, SHOWN_NAME_CHARS) {
        (inner, 0) => format!("\"{inner}\""),
        (inner, left) => format!("\"{inner}\"… [{left} more characters]"),
    }
}

/// [`quoted`], followed by what makes the name unusual when it breaks the MCP rule:
/// `"note on trusted-docs" (an unusual name: spaces)`.
pub fn flagged(name: &str) -> String {
    let found = oddities(name);
    if found.is_empty() {
        return quoted(name);
    }
    let words: Vec<&str> = found.iter().map(|o| o.as_words()).collect();
    format!("{} (an unusual name: {})", quoted(name), words.join(", "))
}

#[cfg(test)]
mod tests;
