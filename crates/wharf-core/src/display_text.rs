//! Text that a server (or a model speaking for one) wrote, made safe to show on a terminal or in a log line.
//!
//! A terminal interprets what it is sent: ESC starts CSI and OSC sequences (colours, concealed text, cursor moves,
//! line erasure, `file://` hyperlinks, clipboard writes, the window title), C1 controls do the same in one byte, `\r`
//! returns to the start of the line, and bidi overrides or invisible format characters make a line read differently
//! from what it holds. Any of them in a server's message can draw a fake URL over the real one, so every such
//! character is shown as an escape (`\x1b`, `\u{202e}`) and never passed on. The text is bounded too: a server
//! cannot push Wharf's own lines off the screen.

pub mod json;
pub mod name;

use unicode_general_category::{get_general_category, GeneralCategory};

/// Combining marks shown in a row before the rest are escaped: enough for any script's stacked accents, too few to
/// smear a glyph over the lines around it.
const MAX_COMBINING_RUN: usize = 4;

/// Letters that render as nothing at all (Hangul fillers, the combining grapheme joiner) and the ideographic
/// variation selectors, which carry hidden data after any character. Format characters are caught by category.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{034f}' | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{e0100}'..='\u{e01ef}'
    )
}

/// Unicode's Default_Ignorable_Code_Point (characters drawn as nothing: zero-width characters, bidi controls, soft
/// hyphen, Hangul fillers, variation selectors, tag characters) and the interlinear annotation controls. What makes
/// a word or a URL read differently from what it holds, wherever Wharf reads or shows server text.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c` must be shown as an escape rather than as itself: controls (C0, DEL, C1), format characters (bidi
/// embeddings, overrides and isolates, marks, zero-width characters, tags, the BOM), line and paragraph separators,
/// and invisible letters.
pub fn is_hazard(c: char) -> bool {
    // Most text is ASCII: no table lookup for it.
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::Surrogate
    ) || is_invisible(c)
}

fn is_combining(c: char) -> bool {
    !c.is_ascii()
        && matches!(
            get_general_category(c),
            GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
        )
}

/// The visible form of a hazard: `\n`, `\r`, `\t`, `\xNN` up to U+00FF, `\u{...}` above.
fn escape(c: char, out: &mut String) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        c if (c as u32) <= 0xff => write!(out, "\\x{:02x}", c as u32),
        c => write!(out, "\\u{{{:x}}}", c as u32),
    };
}

/// `c` as a line shows it, into `piece` (cleared first): itself, or its escape when it is a hazard or one combining
/// mark too many in a run (`combining` counts the run so far).
fn safe_piece(c: char, combining: &mut usize, piece: &mut String) {
    piece.clear();
    if is_hazard(c) {
        escape(c, piece);
        *combining = 0;
    } else if is_combining(c) {
        *combining += 1;
        if *combining > MAX_COMBINING_RUN {
            escape(c, piece);
        } else {
            piece.push(c);
        }
    } else {
        *combining = 0;
        piece.push(c);
    }
}

/// `text` as one line: every hazard (newlines included) escaped, at most `max_chars` characters written; what is cut
/// is counted at the end (`… [120 more characters]`).
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut written = 0usize;
    let mut combining = 0usize;
    let mut chars = text.chars();
    let mut piece = String::new();
    while let Some(c) = chars.next() {
        safe_piece(c, &mut combining, &mut piece);
        let len = piece.chars().count();
        if written + len > max_chars {
            let left = 1 + chars.count();
            out.push_str(&format!("… [{left} more characters]"));
            return out;
        }
        written += len;
        out.push_str(&piece);
    }
    out
}

/// `line` made safe as [`one_line`] makes it, whole, in rows of at most `width` characters (one row at least): for a
/// screen that must show every character and wraps long lines rather than cutting them. An escape is never split
/// between two rows, so a row holds at most `width.max(12)` characters (the longest escape is 10).
pub fn wrapped(line: &str, width: usize) -> Vec<String> {
    let width = width.max(12);
    let mut rows = vec![String::new()];
    let mut in_row = 0usize;
    let mut combining = 0usize;
    let mut piece = String::new();
    for c in line.chars() {
        safe_piece(c, &mut combining, &mut piece);
        let len = piece.chars().count();
        if in_row + len > width {
            rows.push(String::new());
            in_row = 0;
        }
        in_row += len;
        if let Some(row) = rows.last_mut() {
            row.push_str(&piece);
        }
    }
    rows
}

/// `text` with its line breaks kept (a `\r\n` as `\n`) and every other hazard escaped, unbounded: a document the
/// user keeps (an exported conversation), safe to print on a terminal.
pub fn document(text: &str) -> String {
    text.split('\n')
        .map(|line| one_line(line.strip_suffix('\r').unwrap_or(line), usize::MAX))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as at most `max_lines` lines, each made safe by [`one_line`] (so no line holds a newline, a `\r` or an
/// escape sequence). A `\r\n` line ending counts as `\n`. When lines are left out, the last one says how many.
pub fn lines(text: &str, max_lines: usize, max_line_chars: usize) -> Vec<String> {
    let all: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut out: Vec<String> = all
        .iter()
        .take(max_lines)
        .map(|line| one_line(line, max_line_chars))
        .collect();
    if all.len() > max_lines {
        out.push(format!("… [{} more lines]", all.len() - max_lines));
    }
    out
}

#[cfg(test)]
mod tests;
