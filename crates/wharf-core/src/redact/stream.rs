//! Text that arrives in pieces (a model's reply, streamed): a secret may be split across two of them, and masking
//! each piece alone would let both halves out. What could be the start of a secret, or of a credential after its
//! scheme or field name, is held back until the next piece shows whether it is one, or until the end.

use super::{credential_len, field_value_start, Redactor, SCHEMES, SECRET_FIELDS};

/// The most text held back: no secret or credential is this long, so a longer run is let out (masked as it is).
const MAX_HELD: usize = 16 * 1024;

/// Masks a text given in pieces, each piece's safe part given back at once.
#[derive(Debug)]
pub struct StreamRedactor {
    redactor: Redactor,
    /// Already masked; its end may be the start of a secret.
    held: String,
}

impl StreamRedactor {
    pub fn new(redactor: Redactor) -> StreamRedactor {
        StreamRedactor {
            redactor,
            held: String::new(),
        }
    }

    /// The next piece: what of the text so far may be shown now, masked (empty while all of it is held back).
    pub fn push(&mut self, piece: &str) -> String {
        let mut text = std::mem::take(&mut self.held);
        text.push_str(piece);
        let masked = self.redactor.redact_secrets(&text).into_owned();
        let at = hold_from(&self.redactor, &masked);
        self.held = masked[at..].to_string();
        let mut out = masked;
        out.truncate(at);
        out
    }

    /// The end of the text (or the text stopped): what was held back, with a secret's start there masked.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        self.redactor
            .redact_piece(&held, super::Cut::End)
            .into_owned()
    }
}

/// Where the part of `masked` to hold back begins (its length when nothing is held).
fn hold_from(redactor: &Redactor, masked: &str) -> usize {
    let secret = masked.len() - redactor.start_of_value_at_end(masked, false, 1);
    let at = open_credential(masked).map_or(secret, |c| c.min(secret));
    if masked.len() - at > MAX_HELD {
        masked.len()
    } else {
        at
    }
}

/// Where a credential that may still be arriving begins: a scheme or field name whose value runs to the end of the
/// text, or the start of such a name cut off by the end.
fn open_credential(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut open: Option<usize> = None;
    let mut consider = |at: usize| open = Some(open.map_or(at, |o| o.min(at)));
    for scheme in SCHEMES {
        for (i, _) in lower.match_indices(scheme) {
            let start = i + scheme.len();
            if start + credential_len(&text[start..]) == text.len() {
                consider(i);
            }
        }
    }
    for field in SECRET_FIELDS {
        for (i, _) in lower.match_indices(field) {
            let after = &text[i + field.len()..];
            let still_open = match field_value_start(after) {
                Some(v) => v + credential_len(&after[v..]) == after.len(),
                // Nothing but the separator's characters yet: the value may follow.
                None => after.chars().all(|c| matches!(c, ' ' | '"' | '\'')),
            };
            if still_open {
                consider(i);
            }
        }
    }
    for name in SCHEMES.iter().chain(SECRET_FIELDS) {
        // A name cut off by the end (`Authorization: Bea`), at the start of a word: its credential would follow
        // in the next piece.
        let name = name.trim_end();
        for len in (1..name.len().min(lower.len() + 1)).rev() {
            let from = lower.len() - len;
            let word_start = from == 0
                || !lower.as_bytes()[from - 1].is_ascii_alphanumeric()
                    && lower.as_bytes()[from - 1] != b'_';
            if word_start && lower.is_char_boundary(from) && lower[from..] == name[..len] {
                consider(from);
                break;
            }
        }
    }
    open
}
