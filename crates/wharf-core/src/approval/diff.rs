//! What changed in a part of a tool, line by line: the hunks of a diff of its text before and after, each changed
//! line with up to three unchanged lines around it, so that a line changed deep in a long description is shown
//! without the rest of it. `similar` computes it, bounded in time: a hostile pair of texts made to be slow to diff
//! gets an approximate diff (still every changed line, with fewer lines matched) instead of holding the card.

use std::time::{Duration, Instant};

use similar::{capture_diff_slices_deadline, group_diff_ops, Algorithm, DiffTag};

use crate::question::tool_call::{DiffHunk, DiffLine, DiffLineKind, ToolChange, ToolPart};

/// Unchanged lines shown around each change.
const CONTEXT_LINES: usize = 3;
/// The longest a diff may take before it settles for an approximate one.
const DIFF_TIME: Duration = Duration::from_millis(200);

impl ToolChange {
    pub fn new(part: ToolPart, before: String, after: String) -> ToolChange {
        let hunks = hunks(&before, &after);
        ToolChange {
            part,
            before,
            after,
            hunks,
        }
    }
}

/// The lines of `text`, split at `\n` only: a `\r` stays in its line, where the card shows it as an escape, rather
/// than ending a line unseen. An empty text has no lines.
fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    }
}

/// The hunks of the line diff from `before` to `after`; none when they are equal.
pub fn hunks(before: &str, after: &str) -> Vec<DiffHunk> {
    let (old, new) = (lines_of(before), lines_of(after));
    let ops = capture_diff_slices_deadline(
        Algorithm::Myers,
        &old,
        &new,
        Instant::now().checked_add(DIFF_TIME),
    );
    let line = |kind: DiffLineKind, text: &str| DiffLine {
        kind,
        text: text.to_string(),
    };
    group_diff_ops(ops, CONTEXT_LINES)
        .into_iter()
        // A group of equal lines alone (two equal texts) shows nothing that changed.
        .filter(|group| group.iter().any(|op| op.tag() != DiffTag::Equal))
        .filter_map(|group| {
            let first = group.first()?;
            let (before_line, after_line) =
                (first.old_range().start + 1, first.new_range().start + 1);
            let mut lines = Vec::new();
            for op in &group {
                let (tag, old_range, new_range) = op.as_tag_tuple();
                let removed = old.get(old_range).unwrap_or_default();
                let added = new.get(new_range).unwrap_or_default();
                match tag {
                    DiffTag::Equal => {
                        lines.extend(removed.iter().map(|t| line(DiffLineKind::Same, t)))
                    }
                    DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                        lines.extend(removed.iter().map(|t| line(DiffLineKind::Removed, t)));
                        lines.extend(added.iter().map(|t| line(DiffLineKind::Added, t)));
                    }
                }
            }
            Some(DiffHunk {
                before_line,
                after_line,
                lines,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
