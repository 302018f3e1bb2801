//! Changing a JSONC text in place: only the bytes of the member that changes are rewritten, so the user's comments,
//! blank lines and layout around it stay as they were. What is written follows the file's indentation in the layout
//! serde_json's pretty printer uses, so a file Wharf wrote itself comes out as a whole re-print would have made it.
//!
//! An edit that would have to drop a comment (replacing an array or a string that has one inside) is refused with
//! an error saying so; removing a member keeps the comments that were inside it, on lines of their own.

use std::ops::Range;

use serde_json::Value;

use super::{Lexed, Member, Node};

/// Why an edit was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

/// `path`'s member set to `value`: replaced where it is, else added at the end of its object, with the objects on
/// the way created when missing. A value equal to the one there leaves the text as it is; an object that has comments
/// inside is changed member by member so that they stay.
pub fn set(text: &str, path: &[&str], value: &Value) -> Result<String, EditError> {
    let (doc, root) = open(text)?;
    let Some((last, parents)) = path.split_last() else {
        return Err(EditError("nothing to set".into()));
    };
    let mut object = &root;
    for (depth, key) in parents.iter().enumerate() {
        let Some(member) = object.member(key) else {
            // The missing objects are created around the value, in one insertion.
            let nested = path[depth + 1..]
                .iter()
                .rev()
                .fold(value.clone(), |inner, k| {
                    Value::Object([(k.to_string(), inner)].into_iter().collect())
                });
            return Ok(insert(text, &doc, object, key, &nested));
        };
        if member.value.members.is_none() {
            return Err(EditError(format!(
                "\"{}\" is not an object",
                path[..=depth].join(".")
            )));
        }
        object = &member.value;
    }
    let Some(member) = object.member(last) else {
        return Ok(insert(text, &doc, object, last, value));
    };
    let old: Value = super::parse(&text[member.value.span.clone()])
        .map_err(|e| EditError(format!("{}: {e}", path.join("."))))?;
    if &old == value {
        return Ok(text.to_string());
    }
    if doc.comments_in(member.value.span.clone()).next().is_none() {
        let indent = line_indent(text, member.key_span.start);
        let rendered = render(value, &indent, &indent_unit(text));
        return Ok(splice(text, vec![(member.value.span.clone(), rendered)]));
    }
    match (&old, value) {
        (Value::Object(old), Value::Object(new)) => {
            let mut text = text.to_string();
            let mut inner: Vec<&str> = path.to_vec();
            for key in old.keys().filter(|k| !new.contains_key(*k)) {
                inner.push(key);
                text = remove(&text, &inner)?;
                inner.pop();
            }
            for (key, v) in new {
                inner.push(key);
                text = set(&text, &inner, v)?;
                inner.pop();
            }
            Ok(text)
        }
        _ => Err(EditError(format!(
            "\"{}\" has comments inside it that this change would drop; change it in the file itself",
            path.join(".")
        ))),
    }
}

/// The text without `path`'s member (unchanged if there is none). Comments inside the member are kept where it was;
/// an object left with nothing in it becomes `{}`.
pub fn remove(text: &str, path: &[&str]) -> Result<String, EditError> {
    let (doc, root) = open(text)?;
    let Some((last, parents)) = path.split_last() else {
        return Err(EditError("nothing to remove".into()));
    };
    let mut object = &root;
    for key in parents {
        match object.member(key) {
            Some(member) if member.value.members.is_some() => object = &member.value,
            _ => return Ok(text.to_string()),
        }
    }
    let members = object.members.as_deref().unwrap_or_default();
    let Some(index) = members.iter().position(|m| m.key == *last) else {
        return Ok(text.to_string());
    };
    let member = &members[index];
    let bytes = text.as_bytes();
    let line_start = text[..member.key_span.start]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let mut end = member.comma.map_or(member.value.span.end, |c| c + 1);
    while matches!(bytes.get(end), Some(b' ' | b'\t')) {
        end += 1;
    }
    let alone_on_its_lines = text[line_start..member.key_span.start].trim().is_empty()
        && matches!(bytes.get(end), None | Some(b'\n' | b'\r'));
    let mut edits = Vec::new();
    let previous = index.checked_sub(1).map(|i| &members[i]);
    let range = if alone_on_its_lines {
        let newline = bytes[end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| end + n + 1);
        line_start..newline
    } else {
        match (previous, member.comma) {
            // `{"a": 1, "b": 2}` loses `, "b": 2`.
            (Some(previous), None) => previous.comma.unwrap_or(member.key_span.start)..end,
            _ => member.key_span.start..end,
        }
    };
    // The last member goes with the comma before it (a trailing comma of its own stays the object's).
    if let (Some(previous), None, true) = (previous, member.comma, alone_on_its_lines) {
        if let Some(comma) = previous.comma {
            edits.push((comma..comma + 1, String::new()));
        }
    }
    let indent = line_indent(text, member.key_span.start);
    let kept: String = doc
        .comments_in(range.clone())
        .map(|c| {
            let comment = &text[c.clone()];
            match (alone_on_its_lines, comment.starts_with("//")) {
                (true, _) => format!("{indent}{comment}\n"),
                (false, true) => format!("{comment}\n{indent}"),
                (false, false) => format!("{comment} "),
            }
        })
        .collect();
    edits.push((range, kept));
    let text = splice(text, edits);
    // What a member-less object becomes, as serde_json prints it: `{}`.
    let (_, root) = open(&text)?;
    let mut object = &root;
    for key in parents {
        match object.member(key) {
            Some(member) => object = &member.value,
            None => return Ok(text),
        }
    }
    let inside = object.span.start + 1..object.span.end - 1;
    if object.members.as_ref().is_some_and(Vec::is_empty) && text[inside.clone()].trim().is_empty()
    {
        return Ok(splice(&text, vec![(inside, String::new())]));
    }
    Ok(text)
}

/// The text with `path`'s member's key changed to `new_key`, its value and place kept.
pub fn rename(text: &str, path: &[&str], new_key: &str) -> Result<String, EditError> {
    let (_, root) = open(text)?;
    let mut member: Option<&Member> = None;
    let mut object = &root;
    for key in path {
        let found = object
            .member(key)
            .ok_or_else(|| EditError(format!("there is no \"{}\"", path.join("."))))?;
        object = &found.value;
        member = Some(found);
    }
    let member = member.ok_or_else(|| EditError("nothing to rename".into()))?;
    let key = serde_json::to_string(new_key).map_err(|e| EditError(e.to_string()))?;
    Ok(splice(text, vec![(member.key_span.clone(), key)]))
}

fn open(text: &str) -> Result<(Lexed, Node), EditError> {
    let doc = Lexed::new(text).map_err(|e| EditError(e.to_string()))?;
    super::parse(text).map_err(|e| EditError(e.to_string()))?;
    let root = Node::parse(&doc.blanked)
        .filter(|n| n.members.is_some())
        .ok_or_else(|| EditError("the top level must be a JSON object".into()))?;
    Ok((doc, root))
}

/// `"key": value` added at the end of `object`.
fn insert(text: &str, doc: &Lexed, object: &Node, key: &str, value: &Value) -> String {
    let unit = indent_unit(text);
    let key = serde_json::to_string(key).unwrap_or_default();
    let members = object.members.as_deref().unwrap_or_default();
    let close = object.span.end - 1;
    let Some(last) = members.last() else {
        let indent = line_indent(text, object.span.start);
        let inner = format!("{indent}{unit}");
        let member = format!("{key}: {}", render(value, &inner, &unit));
        let inside = object.span.start + 1..close;
        if text[inside.clone()].trim().is_empty() {
            return splice(text, vec![(inside, format!("\n{inner}{member}\n{indent}"))]);
        }
        // Only comments inside: the member goes after them, before the closing brace.
        let close_line = text[..close].rfind('\n').map_or(0, |i| i + 1);
        if text[close_line..close].trim().is_empty() {
            return splice(
                text,
                vec![(close_line..close_line, format!("{inner}{member}\n"))],
            );
        }
        return splice(
            text,
            vec![(close..close, format!("\n{inner}{member}\n{indent}"))],
        );
    };
    // A compact object, or a last member sharing its line: one more on the same line.
    let last_line = text[..last.key_span.start].rfind('\n').map_or(0, |i| i + 1);
    if !text[object.span.clone()].contains('\n')
        || !text[last_line..last.key_span.start].trim().is_empty()
    {
        let member = format!(
            "{key}: {}",
            serde_json::to_string(value).unwrap_or_default()
        );
        return match last.comma {
            Some(comma) => splice(text, vec![(comma + 1..comma + 1, format!(" {member},"))]),
            None => {
                let at = last.value.span.end;
                splice(text, vec![(at..at, format!(", {member}"))])
            }
        };
    }
    let indent = line_indent(text, last.key_span.start);
    let member = format!("{key}: {}", render(value, &indent, &unit));
    let after = last.comma.map_or(last.value.span.end, |c| c + 1);
    // After the comments that end the last member's line: they are about it.
    let at = line_tail(text, doc, after);
    let mut edits = vec![(
        at..at,
        format!(
            "\n{indent}{member}{}",
            if last.comma.is_some() { "," } else { "" }
        ),
    )];
    if last.comma.is_none() {
        edits.push((after..after, ",".into()));
    }
    splice(text, edits)
}

/// Where the line that `from` is on ends, past spaces and comments that start on it.
fn line_tail(text: &str, doc: &Lexed, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        match doc.comments.iter().find(|c| c.start == at) {
            Some(comment) if !text[comment.clone()].contains('\n') => at = comment.end,
            _ => return at,
        }
    }
}

/// The spaces and tabs that start the line `at` is on.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// One level of the file's indentation: that of its first indented line, else two spaces (serde_json's).
fn indent_unit(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|line| {
            line.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect::<String>()
        })
        .find(|indent| !indent.is_empty())
        .unwrap_or_else(|| "  ".into())
}

/// `value` pretty-printed as serde_json does, one `unit` per level, continuing lines indented by `indent`.
fn render(value: &Value, indent: &str, unit: &str) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    if serde::Serialize::serialize(value, &mut serializer).is_err() {
        return value.to_string();
    }
    // A newline inside a string is escaped, so every raw one starts a line of the value.
    String::from_utf8_lossy(&out).replace('\n', &format!("\n{indent}"))
}

/// The text with each range replaced; the ranges do not overlap.
fn splice(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_string();
    for (range, with) in edits {
        out.replace_range(range, &with);
    }
    out
}
