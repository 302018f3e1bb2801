//! A model's tool call on the terminal: the card shows everything the user approves, and nothing is cut. The tool's
//! and the server's names are quoted (and flagged when unusual), so that neither can read as the other; the size of
//! the arguments is said first; the diff of each part that changed, the description, the annotations and every line
//! of the arguments follow, long lines wrapped rather than cut. A card longer than a page is shown a page at a time:
//! the user may deny at any page, and the allow choices come only once the last page was shown. The whole text of
//! each changed part, before and after, can be shown too.
//!
//! The server's words are quoted behind `  | ` (a wrapped row goes on behind `  |↳ `), a diff's lines behind
//! `  | - `, `  | + ` and `  |   `, so none of them can pass for Wharf's own lines.

use std::io::Write;

use serde_json::Value;
use wharf_core::approval::ToolCallChoice;
use wharf_core::chat::approve::{ToolCallAnswer, ToolCallView};
use wharf_core::display_text::name::flagged;
use wharf_core::display_text::{json as safe_json, wrapped};
use wharf_core::question::tool_call::{DiffLineKind, ToolChange, ToolPart};
use wharf_core::question::InputAnswer;

use super::Tty;

/// Characters of a row before it wraps: a line of text on a wide terminal, a screen row on most.
pub const ROW_CHARS: usize = 100;
/// Rows of the card shown at a time.
pub const PAGE_ROWS: usize = 40;

const QUOTE: &str = "  | ";
const WRAPPED: &str = "  |↳ ";

/// `text`'s lines quoted behind `prefix`, each made safe and wrapped; every character is there.
fn quoted_rows(text: &str, prefix: &str, rows: &mut Vec<String>) {
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for (i, row) in wrapped(line, ROW_CHARS).into_iter().enumerate() {
            let lead = if i == 0 { prefix } else { WRAPPED };
            rows.push(format!("{lead}{row}"));
        }
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn part_words(part: ToolPart) -> &'static str {
    match part {
        ToolPart::Title => "the title",
        ToolPart::Description => "the description",
        ToolPart::InputSchema => "the input schema",
        ToolPart::OutputSchema => "the output schema",
        ToolPart::Annotations => "the annotations",
        ToolPart::Server => "the server's command, arguments or URL",
    }
}

/// Every row of the card, in order, down to the last line of the arguments.
pub fn card_rows(view: &ToolCallView) -> Vec<String> {
    let mut rows = Vec::new();
    let size = view.arguments_size;
    rows.push(format!(
        "  the model wants to call tool {} on server {}{}",
        flagged(&view.tool),
        flagged(&view.server),
        if view.new_tool {
            " (a tool new in this conversation)"
        } else {
            ""
        }
    ));
    rows.push(format!(
        "  its arguments: {}, {}, {}, all shown below",
        count(size.bytes, "byte", "bytes"),
        count(size.lines, "line", "lines"),
        count(size.keys, "key", "keys")
    ));
    // What changed comes first: a change deep in a long description is seen before anything else.
    for change in &view.changes {
        change_rows(change, &mut rows);
    }
    if let Some(title) = &view.title {
        rows.push("  the tool's title:".into());
        quoted_rows(title, QUOTE, &mut rows);
    }
    if let Some(description) = &view.description {
        let lines = description.trim_end().split('\n').count();
        rows.push(format!(
            "  the tool's description ({}):",
            count(lines, "line", "lines")
        ));
        quoted_rows(description.trim_end(), QUOTE, &mut rows);
    }
    if let Some(annotations) = &view.annotations {
        let trust = if view.trusted {
            "trusted server"
        } else {
            "untrusted: the server says so, nothing checks it"
        };
        rows.push(format!("  annotations ({trust}):"));
        quoted_rows(
            &safe_json::to_string_pretty(annotations).unwrap_or_default(),
            QUOTE,
            &mut rows,
        );
    }
    if view.destructive {
        rows.push("  WARNING: the server says this tool is destructive.".into());
    }
    rows.push("  arguments:".into());
    let text = if view.arguments_text.is_empty() {
        safe_json::to_string_pretty(&view.arguments).unwrap_or_default()
    } else {
        view.arguments_text.clone()
    };
    quoted_rows(&text, QUOTE, &mut rows);
    rows
}

/// A changed part: what it is, then each hunk of its diff, where it is in the text before and after.
fn change_rows(change: &ToolChange, rows: &mut Vec<String>) {
    rows.push(format!(
        "  CHANGED since you allowed it: {} ({} of changes; [f]ull text before and after at the question)",
        part_words(change.part),
        count(change.hunks.len(), "place", "places")
    ));
    for hunk in &change.hunks {
        rows.push(format!(
            "  at line {} before, line {} after (- before, + after):",
            hunk.before_line, hunk.after_line
        ));
        for line in &hunk.lines {
            let prefix = match line.kind {
                DiffLineKind::Same => "  |   ",
                DiffLineKind::Removed => "  | - ",
                DiffLineKind::Added => "  | + ",
            };
            quoted_rows(&line.text, prefix, rows);
        }
    }
}

/// The whole text of each changed part, before and after.
pub fn full_change_rows(view: &ToolCallView) -> Vec<String> {
    let mut rows = Vec::new();
    for change in &view.changes {
        for (when, text) in [("before", &change.before), ("after", &change.after)] {
            rows.push(format!(
                "  {} {when} ({}):",
                part_words(change.part),
                count(text.split('\n').count(), "line", "lines")
            ));
            quoted_rows(text, QUOTE, &mut rows);
        }
    }
    rows
}

/// What the user did while the pages were shown.
#[derive(Debug, PartialEq, Eq)]
pub enum Paged {
    /// Every page was shown.
    Read,
    Deny,
    /// End of input.
    Gone,
}

/// The prompt after page `shown` of `pages` (from 1).
pub fn page_prompt(shown: usize, pages: usize) -> String {
    format!("  -- page {shown} of {pages}: Enter for the next page, or [d]eny -- ")
}

/// Shows `rows` a page at a time; between pages the user presses Enter, or denies.
fn show_paged(tty: &mut Tty, rows: &[String]) -> std::io::Result<Paged> {
    let pages: Vec<&[String]> = rows.chunks(PAGE_ROWS).collect();
    for (i, page) in pages.iter().enumerate() {
        for row in page.iter() {
            writeln!(tty.out, "{row}")?;
        }
        if i + 1 == pages.len() {
            break;
        }
        loop {
            match tty.line(&page_prompt(i + 1, pages.len()))?.as_deref() {
                None => return Ok(Paged::Gone),
                Some("") => break,
                Some("d" | "deny") => return Ok(Paged::Deny),
                Some(_) => writeln!(tty.out, "  please press Enter, or answer d")?,
            }
        }
    }
    Ok(Paged::Read)
}

fn deny(tty: &mut Tty) -> std::io::Result<InputAnswer> {
    let reason = tty.line("a reason for the model (Enter for none): ")?;
    let answer = ToolCallAnswer {
        action: ToolCallChoice::Deny,
        arguments: None,
        reason: reason.filter(|r| !r.is_empty()),
    };
    Ok(answer.into_input_answer())
}

/// The card, then the question. The arguments may be replaced by a JSON object typed on one line; wharf-core checks
/// it against the tool's schema before anything is sent.
pub fn ask_tool_call(tty: &mut Tty, view: &ToolCallView) -> std::io::Result<InputAnswer> {
    match show_paged(tty, &card_rows(view))? {
        Paged::Read => {}
        Paged::Deny => return deny(tty),
        Paged::Gone => return Ok(InputAnswer::Cancel),
    }
    let full = if view.changes.is_empty() {
        ""
    } else {
        " [f]ull text of what changed,"
    };
    let prompt = format!(
        "allow [o]nce, for this [c]onversation, [a]lways, [e]dit the arguments,{full} or [d]eny? "
    );
    let mut arguments = None;
    loop {
        let action = match tty.line(&prompt)?.as_deref() {
            Some("o" | "once") => ToolCallChoice::AllowOnce,
            Some("c" | "conversation") => ToolCallChoice::AllowConversation,
            Some("a" | "always") => ToolCallChoice::AllowAlways,
            None | Some("d" | "deny" | "") => return deny(tty),
            Some("f" | "full") if !view.changes.is_empty() => {
                match show_paged(tty, &full_change_rows(view))? {
                    Paged::Read => continue,
                    Paged::Deny => return deny(tty),
                    Paged::Gone => return Ok(InputAnswer::Cancel),
                }
            }
            Some("e" | "edit") => {
                match tty.line("the arguments, as one JSON object: ")? {
                    None => return Ok(InputAnswer::Cancel),
                    Some(text) => match serde_json::from_str::<Value>(&text) {
                        Ok(Value::Object(map)) => arguments = Some(map),
                        _ => writeln!(
                            tty.out,
                            "that is not a JSON object; the model's arguments stand"
                        )?,
                    },
                }
                continue;
            }
            Some(_) => {
                writeln!(tty.out, "please answer o, c, a, e or d")?;
                continue;
            }
        };
        let answer = ToolCallAnswer {
            action,
            arguments,
            reason: None,
        };
        return Ok(answer.into_input_answer());
    }
}

#[cfg(test)]
mod tests;
