//! JSONC, the JSON that VS Code reads mcp.json as: `//` and `/* */` comments and trailing commas.
//!
//! Parsing blanks the comments (each byte becomes a space, line breaks stay) and the trailing commas, then hands the
//! text to serde_json: every byte keeps its offset, so serde_json's line and column are the original file's. The
//! same blanked text gives the byte spans that [`edit`] uses to change a file in place without touching its comments.

use std::ops::Range;

use serde_json::Value;

pub mod edit;

/// A syntax error at the line and column (1-based, counted in characters as editors count) an editor shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Parses JSONC text into a value.
pub fn parse(text: &str) -> Result<Value, SyntaxError> {
    let lexed = Lexed::new(text)?;
    serde_json::from_str(&lexed.strict()).map_err(|e| serde_error(text, &e))
}

/// The text with comments blanked, where the comments and trailing commas were.
pub(crate) struct Lexed {
    /// Comments blanked, trailing commas kept (the span parser accepts them).
    pub blanked: String,
    pub comments: Vec<Range<usize>>,
    pub trailing_commas: Vec<usize>,
}

impl Lexed {
    pub fn new(text: &str) -> Result<Lexed, SyntaxError> {
        let bytes = text.as_bytes();
        let mut out = bytes.to_vec();
        let mut comments = Vec::new();
        let mut trailing_commas = Vec::new();
        // The last significant byte before here and a comma that a closing bracket would make a trailing one.
        let mut previous = 0u8;
        let mut pending_comma = None;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    i += 1;
                    continue;
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    let end = bytes[i..]
                        .iter()
                        .position(|&c| c == b'\n' || c == b'\r')
                        .map_or(bytes.len(), |n| i + n);
                    blank(&mut out[i..end]);
                    comments.push(i..end);
                    i = end;
                    continue;
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    let Some(n) = text[i + 2..].find("*/") else {
                        return Err(error_at(text, i, "unterminated /* comment".into()));
                    };
                    let end = i + 2 + n + 2;
                    blank(&mut out[i..end]);
                    comments.push(i..end);
                    i = end;
                    continue;
                }
                _ => {}
            }
            if (b == b'}' || b == b']') && pending_comma.is_some() {
                trailing_commas.extend(pending_comma);
            }
            // `[,]` and `{"a": ,}` stay errors: only a comma after a value may trail.
            pending_comma =
                (b == b',' && !matches!(previous, 0 | b'{' | b'[' | b',' | b':')).then_some(i);
            previous = b;
            if b == b'"' {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            i += 1;
        }
        // Only ASCII bytes were written over whole comments, so the text is still UTF-8.
        let blanked = String::from_utf8(out)
            .map_err(|_| error_at(text, 0, "the text is not UTF-8".into()))?;
        Ok(Lexed {
            blanked,
            comments,
            trailing_commas,
        })
    }

    /// What serde_json reads: the trailing commas blanked too.
    pub fn strict(&self) -> String {
        let mut strict = self.blanked.clone().into_bytes();
        for &at in &self.trailing_commas {
            strict[at] = b' ';
        }
        String::from_utf8(strict).unwrap_or_default()
    }

    /// The comments lying wholly inside `range`.
    pub fn comments_in(&self, range: Range<usize>) -> impl Iterator<Item = &Range<usize>> {
        self.comments
            .iter()
            .filter(move |c| c.start >= range.start && c.end <= range.end)
    }
}

fn blank(bytes: &mut [u8]) {
    for b in bytes.iter_mut().filter(|b| **b != b'\n' && **b != b'\r') {
        *b = b' ';
    }
}

/// The error at byte `offset` of `text`.
fn error_at(text: &str, offset: usize, message: String) -> SyntaxError {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    SyntaxError {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
        message,
    }
}

/// serde_json counts the column in bytes, editors in characters, so on a line with non-ASCII text its column would
/// point past the mistake (or past the line's end).
fn serde_error(text: &str, e: &serde_json::Error) -> SyntaxError {
    let column = text
        .split('\n')
        .nth(e.line().saturating_sub(1))
        .map(|line| {
            line.char_indices()
                .take_while(|(i, _)| *i < e.column())
                .count()
        })
        .unwrap_or(e.column());
    let message = e.to_string();
    // serde_json appends " at line L column C"; the position is reported separately.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    SyntaxError {
        line: e.line(),
        column,
        message,
    }
}

/// A value's bytes in the text, and for an object its members.
#[derive(Debug)]
pub(crate) struct Node {
    pub span: Range<usize>,
    /// `None` for anything but an object.
    pub members: Option<Vec<Member>>,
}

#[derive(Debug)]
pub(crate) struct Member {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Node,
    /// The comma after the value, if any (a trailing one included).
    pub comma: Option<usize>,
}

impl Node {
    /// The spans of the blanked text, which must be valid (trailing commas allowed); `None` where it is not.
    pub fn parse(blanked: &str) -> Option<Node> {
        let mut parser = Spans {
            text: blanked,
            i: 0,
        };
        parser.value()
    }

    pub fn member(&self, key: &str) -> Option<&Member> {
        self.members.as_ref()?.iter().find(|m| m.key == key)
    }
}

struct Spans<'a> {
    text: &'a str,
    i: usize,
}

impl Spans<'_> {
    fn peek(&mut self) -> Option<u8> {
        while let Some(b) = self.text.as_bytes().get(self.i) {
            if !b" \t\r\n".contains(b) {
                return Some(*b);
            }
            self.i += 1;
        }
        None
    }

    fn eat(&mut self, expected: u8) -> Option<()> {
        (self.peek()? == expected).then(|| self.i += 1)
    }

    fn value(&mut self) -> Option<Node> {
        let first = self.peek()?;
        let start = self.i;
        let bytes = self.text.as_bytes();
        let mut members = None;
        match first {
            b'{' => {
                self.i += 1;
                let mut list = Vec::new();
                while self.peek()? != b'}' {
                    let key_start = self.i;
                    self.string()?;
                    let key_span = key_start..self.i;
                    let key = serde_json::from_str(self.text.get(key_span.clone())?).ok()?;
                    self.eat(b':')?;
                    let value = self.value()?;
                    let comma = (self.peek()? == b',').then_some(self.i);
                    list.push(Member {
                        key,
                        key_span,
                        value,
                        comma,
                    });
                    if comma.is_none() {
                        break;
                    }
                    self.i += 1;
                }
                self.eat(b'}')?;
                members = Some(list);
            }
            b'[' => {
                self.i += 1;
                while self.peek()? != b']' {
                    self.value()?;
                    if self.peek()? != b',' {
                        break;
                    }
                    self.i += 1;
                }
                self.eat(b']')?;
            }
            b'"' => self.string()?,
            _ => {
                while bytes
                    .get(self.i)
                    .is_some_and(|b| !b" \t\r\n,:{}[]\"".contains(b))
                {
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
            }
        }
        Some(Node {
            span: start..self.i,
            members,
        })
    }

    fn string(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        loop {
            match bytes.get(self.i)? {
                b'"' => break,
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
        self.i += 1;
        Some(())
    }
}

#[cfg(test)]
mod tests;
