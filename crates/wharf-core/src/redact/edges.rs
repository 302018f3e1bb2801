//! What is left of a secret where a text was cut. Masking before cutting keeps a whole secret out of the piece
//! kept, but a text may come already cut (a stderr tail that dropped its oldest bytes, a provider's own shortened
//! quote, a reply stopped mid-word): its first characters may be the end of a secret and its last ones the start of
//! one. Those pieces are masked too, once they are long enough to tell something of the secret.

use std::borrow::Cow;

use super::{Redactor, MASK, RUNTIME_SECRETS};

/// The shortest piece of a secret masked at a cut. Shorter ones (`sk-`, a word's first letters) match ordinary text
/// by chance, and the prefixes of many keys are public anyway.
pub(super) const MIN_PIECE: usize = 4;

/// Which edges of a piece were cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The piece is the end of a longer text (a tail).
    Start,
    /// The piece is the start of a longer text (a head, a text still arriving).
    End,
    /// Both: a piece from the middle.
    Both,
}

impl Redactor {
    /// Calls `f` with every value masked in the records' strength, or with `all` every configured value too.
    pub(super) fn each_value(&self, all: bool, mut f: impl FnMut(&str)) {
        if let Ok(known) = self.0.read() {
            known.secrets.iter().for_each(|v| f(v));
            if all {
                known.others.iter().for_each(|v| f(v));
            }
        }
        if let Ok(runtime) = RUNTIME_SECRETS.read() {
            runtime.longest_first.iter().for_each(|v| f(v));
        }
    }

    /// The length in bytes of the longest end of `text`, at least `min` bytes, that begins some known value
    /// without being all of it: where a value was cut off by the end of the text.
    pub(super) fn start_of_value_at_end(&self, text: &str, all: bool, min: usize) -> usize {
        let mut longest = 0;
        self.each_value(all, |value| {
            let top = value.len().saturating_sub(1).min(text.len());
            for len in (min.max(longest + 1)..=top).rev() {
                if value.is_char_boundary(len) && text.ends_with(&value[..len]) {
                    longest = len;
                    break;
                }
            }
        });
        longest
    }

    /// The length in bytes of the longest start of `text`, at least `min` bytes, that ends some known value
    /// without being all of it: where a value was cut off by the start of the text.
    fn end_of_value_at_start(&self, text: &str, all: bool, min: usize) -> usize {
        let mut longest = 0;
        self.each_value(all, |value| {
            let top = value.len().saturating_sub(1).min(text.len());
            for len in (min.max(longest + 1)..=top).rev() {
                let from = value.len() - len;
                if value.is_char_boundary(from) && text.starts_with(&value[from..]) {
                    longest = len;
                    break;
                }
            }
        });
        longest
    }

    /// Whether all of `text` (at least [`MIN_PIECE`] bytes) lies inside some known value.
    fn inside_a_value(&self, text: &str, all: bool) -> bool {
        let mut inside = false;
        if text.len() >= MIN_PIECE {
            self.each_value(all, |value| inside |= value.contains(text));
        }
        inside
    }

    /// [`Redactor::redact_secrets`] for a piece of a longer text, cut where `cut` says: what is left of a secret
    /// at a cut edge is masked as well.
    pub fn redact_piece<'a>(&self, text: &'a str, cut: Cut) -> Cow<'a, str> {
        self.piece(text, cut, false)
    }

    pub(super) fn piece<'a>(&self, text: &'a str, cut: Cut, all: bool) -> Cow<'a, str> {
        let masked = self.mask(text, all);
        if cut == Cut::Both && self.inside_a_value(&masked, all) {
            return Cow::Owned(MASK.to_string());
        }
        let head = match cut {
            Cut::Start | Cut::Both => self.end_of_value_at_start(&masked, all, MIN_PIECE),
            Cut::End => 0,
        };
        let tail = match cut {
            Cut::End | Cut::Both => self.start_of_value_at_end(&masked[head..], all, MIN_PIECE),
            Cut::Start => 0,
        };
        if head == 0 && tail == 0 {
            return masked;
        }
        let middle = &masked[head..masked.len() - tail];
        let mut out = String::with_capacity(middle.len() + 2 * MASK.len());
        if head > 0 {
            out.push_str(MASK);
        }
        out.push_str(middle);
        if tail > 0 {
            out.push_str(MASK);
        }
        Cow::Owned(out)
    }

    /// `text` with its secrets masked, then cut to at most `max_chars` characters (and `…`) with whatever is left
    /// of a secret at the cut masked too: for provider errors and other text quoted in a line of its own.
    pub fn cut_secrets(&self, text: &str, max_chars: usize) -> String {
        cut_masked(self, text, max_chars, false)
    }

    /// [`Redactor::cut_secrets`] masking every configured value, for a line shown to a person.
    pub fn cut(&self, text: &str, max_chars: usize) -> String {
        cut_masked(self, text, max_chars, true)
    }
}

fn cut_masked(redactor: &Redactor, text: &str, max_chars: usize, all: bool) -> String {
    // Masked whole first: a secret across the cut is never half kept.
    let masked = redactor.mask(text, all);
    match masked.char_indices().nth(max_chars) {
        None => masked.into_owned(),
        Some((at, _)) => {
            let mut head = redactor.piece(&masked[..at], Cut::End, all).into_owned();
            head.push('…');
            head
        }
    }
}
