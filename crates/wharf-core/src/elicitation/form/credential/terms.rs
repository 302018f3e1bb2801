//! The words that name a secret, how each is matched, and the matcher that finds them in a text's readings.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use super::normal::{normal_chars, pieces, spell, Cut, Piece, Reading, READINGS};
use super::{english, languages};

/// How a term is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Whole words in a row (`api key`), or written as one word (`apikey`).
    Words,
    /// Anywhere inside a word: no innocent word contains it (`dbpassword`, `Datenbankpasswort`).
    Inside,
    /// At the start of a word, for languages whose words take endings (`пароля`, `hasła`, `şifreniz`).
    Prefix,
    /// Anywhere in the text with its separators left out: scripts written without spaces (`新密码`), and phrases
    /// whose first word takes prefixes (Arabic `وكلمة المرور`).
    Squeezed,
}

/// Which texts a term counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A field's name, title or description.
    Anywhere,
    /// A field's name or title only: in running text the word has common other senses (`pass` the verb).
    Label,
}

/// When a match means the secret and not another sense of the word.
#[derive(Debug, Clone, Copy)]
pub(super) enum Sense {
    Always,
    /// Not when one of these words comes right before or right after (`max tokens`, `boarding pass`); for a
    /// squeezed term, right after (`암호화`, encryption).
    NotBeside(&'static [&'static str]),
    /// `pan` the card number, not the cooking pan or a camera's pan: written in capitals (`PAN`) in a text that
    /// is not all capitals, beside a card word (`card_pan`), or a text field's whole label.
    Pan,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub text: &'static str,
    pub shape: Shape,
    pub place: Place,
    /// The last word may take a plural `s`.
    pub plural: bool,
    pub sense: Sense,
}

impl Term {
    pub const fn label_only(self) -> Term {
        Term {
            place: Place::Label,
            ..self
        }
    }

    pub const fn singular(self) -> Term {
        Term {
            plural: false,
            ..self
        }
    }

    pub const fn not_beside(self, words: &'static [&'static str]) -> Term {
        Term {
            sense: Sense::NotBeside(words),
            ..self
        }
    }

    pub const fn pan(self) -> Term {
        Term {
            sense: Sense::Pan,
            ..self
        }
    }
}

const fn term(text: &'static str, shape: Shape) -> Term {
    Term {
        text,
        shape,
        place: Place::Anywhere,
        plural: true,
        sense: Sense::Always,
    }
}

/// Words in a row, or written as one.
pub(super) const fn words(text: &'static str) -> Term {
    term(text, Shape::Words)
}

pub(super) const fn inside(text: &'static str) -> Term {
    term(text, Shape::Inside)
}

pub(super) const fn prefix(text: &'static str) -> Term {
    term(text, Shape::Prefix)
}

pub(super) const fn squeezed(text: &'static str) -> Term {
    term(text, Shape::Squeezed)
}

/// Words that, beside `pan`, make it a card's number.
const CARD_WORDS: &[&str] = &["card", "cc", "credit", "debit"];
const LABEL_CARD_WORDS: &[&str] = &["number", "num", "no", "nr"];
/// Words that, beside `pan`, make it a camera's move or a network (`PAN ID`, a personal area network's).
const OTHER_PANS: &[&str] = &[
    "id", "tilt", "zoom", "speed", "angle", "position", "network",
];

/// Windows of pieces are joined (`pass_word`, `p.a.s.s.w.o.r.d`) up to this many characters: the longest term, and
/// a plural `s`.
const MAX_JOINED: usize = 32;
/// Two or more pieces joined must make at least this many letters (`to ken` is no `token`); letters spelled out one
/// by one between separators (`P.I.N.`, `O.T.P.`) count from three.
const MIN_JOINED: usize = 5;
const MIN_SPELLED_OUT: usize = 3;

/// The terms in the normal form of the `Plain` and `Folded` readings, indexed for lookup.
struct Index {
    terms: Vec<Term>,
    /// A single word, a run written as one word, or an inside or prefix term written whole: the term's index, and
    /// whether the key may take a plural `s`.
    whole: HashMap<String, Vec<(usize, bool)>>,
    /// Runs of two or more words, by their first word.
    runs: HashMap<String, Vec<(usize, Vec<String>)>>,
    inside: Vec<(String, usize)>,
    prefix: Vec<(String, usize)>,
    squeezed: Vec<(String, usize)>,
    /// Every beginning of a key of `whole`: a window of words is joined further only while it is one.
    beginnings: HashSet<String>,
}

static INDEX: LazyLock<Index> = LazyLock::new(|| {
    let mut index = Index {
        terms: Vec::new(),
        whole: HashMap::new(),
        runs: HashMap::new(),
        inside: Vec::new(),
        prefix: Vec::new(),
        squeezed: Vec::new(),
        beginnings: HashSet::new(),
    };
    for term in english::TERMS.iter().chain(languages::TERMS) {
        let id = index.terms.len();
        index.terms.push(*term);
        let chars = normal_chars(term.text);
        let pieces = pieces(&chars, Cut::Chunks);
        let mut forms: Vec<Vec<String>> = Vec::new();
        for reading in [
            Reading::Plain,
            Reading::Folded { ell: 'l' },
            Reading::Folded { ell: 'i' },
        ] {
            let form: Vec<String> = pieces.iter().map(|p| spell(&p.text, reading)).collect();
            if !form.is_empty() && !forms.contains(&form) {
                forms.push(form);
            }
        }
        for form in forms {
            let glued = form.concat();
            let mut whole = |key: String, plural: bool| {
                index.whole.entry(key).or_default().push((id, plural));
            };
            match term.shape {
                Shape::Words => {
                    whole(glued, term.plural);
                    if form.len() > 1 {
                        let first = form[0].clone();
                        index.runs.entry(first).or_default().push((id, form));
                    }
                }
                Shape::Inside => {
                    whole(glued.clone(), true);
                    index.inside.push((glued, id));
                }
                Shape::Prefix => {
                    whole(glued.clone(), true);
                    index.prefix.push((glued, id));
                }
                Shape::Squeezed => index.squeezed.push((glued, id)),
            }
        }
    }
    let beginnings = index.whole.keys().flat_map(|key| {
        let ends = key.char_indices().map(|(at, _)| at).skip(1);
        ends.map(|end| key[..end].to_string()).collect::<Vec<_>>()
    });
    index.beginnings = beginnings.collect();
    index
});

/// What the text is, for the senses that depend on it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Context {
    pub place: Place,
    /// The field takes text: a numeric `pan` is a camera's.
    pub text_field: bool,
}

/// Where a match was found: the character (of the normal form) its first word starts at; none for a squeezed
/// match, which has no words.
pub(super) type Found = Option<usize>;

/// Every match of a term in `chars` (a normal form), in every cut and reading.
pub(super) fn scan(chars: &[char], context: Context) -> Vec<Found> {
    let index = &*INDEX;
    let in_lower_case = chars.iter().any(|c| c.is_lowercase());
    let mut found = Vec::new();
    for cut in [Cut::Words, Cut::Chunks] {
        let pieces = pieces(chars, cut);
        // Readings already matched in this cut (spelled-out letters count in one cut only, so not across cuts).
        let mut read: Vec<Vec<String>> = Vec::new();
        // Pieces of ASCII letters read the same in every reading.
        let plain_only = pieces
            .iter()
            .all(|p| p.text.bytes().all(|b| b.is_ascii_alphabetic()));
        let readings = if plain_only {
            &READINGS[..1]
        } else {
            &READINGS[..]
        };
        for &reading in readings {
            let mut spelled: Vec<(String, &Piece)> = Vec::with_capacity(pieces.len());
            for piece in &pieces {
                let word = spell(&piece.text, reading);
                if !word.is_empty() {
                    spelled.push((word, piece));
                }
            }
            let same = |earlier: &Vec<String>| earlier.iter().eq(spelled.iter().map(|(w, _)| w));
            if read.iter().any(same) {
                continue;
            }
            let seq = Sequence {
                index,
                words: &spelled,
                context,
                in_lower_case,
                cut,
            };
            seq.find_words(&mut found);
            if matches!(reading, Reading::Plain | Reading::Folded { .. }) {
                seq.find_squeezed(&mut found);
            }
            read.push(spelled.iter().map(|(w, _)| w.clone()).collect());
        }
    }
    found
}

/// One reading of the text, as words with the pieces they came from.
struct Sequence<'a> {
    index: &'a Index,
    words: &'a [(String, &'a Piece)],
    context: Context,
    in_lower_case: bool,
    cut: Cut,
}

impl Sequence<'_> {
    fn word(&self, i: usize) -> Option<&str> {
        self.words.get(i).map(|(w, _)| w.as_str())
    }

    fn find_words(&self, found: &mut Vec<Found>) {
        for (i, (word, piece)) in self.words.iter().enumerate() {
            let at = Some(piece.start);
            if self.whole_matches(word, i, i) {
                found.push(at);
            }
            if self.run_matches(word, i) || self.part_matches(word, i) {
                found.push(at);
            }
            if !self.index.beginnings.contains(word.as_str()) {
                continue;
            }
            let mut joined = word.clone();
            // A word spelled out letter by letter between separators (`P.I.N.`): one-letter pieces of the chunks,
            // not letters left over by a turn of case or dropped digits (`n-o-t3`).
            let one_letter = |k: usize| {
                self.cut == Cut::Chunks
                    && self.words[k].0.chars().count() == 1
                    && self.words[k].1.text.chars().count() == 1
            };
            let mut spelled_out = one_letter(i);
            for last in i + 1..self.words.len() {
                let next = &self.words[last].0;
                joined.push_str(next);
                let whole_or_plural = |key: &str| {
                    let key = key.trim_end_matches(|c: char| c.is_ascii_digit());
                    self.index.whole.contains_key(key)
                        || key
                            .strip_suffix('s')
                            .is_some_and(|k| self.index.whole.contains_key(k))
                };
                if !self.index.beginnings.contains(joined.as_str()) && !whole_or_plural(&joined) {
                    break;
                }
                spelled_out &= one_letter(last);
                let length = joined.chars().count();
                if length > MAX_JOINED {
                    break;
                }
                let long_enough =
                    length >= MIN_JOINED || (spelled_out && length >= MIN_SPELLED_OUT);
                if long_enough && self.whole_matches(&joined, i, last) {
                    found.push(at);
                }
            }
        }
    }

    /// `key`, made of the words `first..=last`, is a term written whole.
    fn whole_matches(&self, key: &str, first: usize, last: usize) -> bool {
        // Trailing digits are a suffix (`cvv2`), also after words joined in a reading that keeps them.
        let key = key.trim_end_matches(|c: char| c.is_ascii_digit());
        let exact = self.index.whole.get(key).into_iter().flatten();
        let plural = key
            .strip_suffix('s')
            .and_then(|k| self.index.whole.get(k))
            .into_iter()
            .flatten()
            .filter(|(_, may_be_plural)| *may_be_plural);
        exact
            .chain(plural)
            .any(|(id, _)| self.means_it(*id, first, last))
    }

    /// A run of two or more words starts at `i`.
    fn run_matches(&self, word: &str, i: usize) -> bool {
        let Some(runs) = self.index.runs.get(word) else {
            return false;
        };
        runs.iter().any(|(id, run)| {
            let plural = self.index.terms[*id].plural;
            let last = run.len() - 1;
            let fits = run.iter().enumerate().skip(1).all(|(k, expected)| {
                let w = self.word(i + k);
                w == Some(expected.as_str())
                    || (plural
                        && k == last
                        && w.and_then(|w| w.strip_suffix('s')) == Some(expected))
            });
            fits && self.means_it(*id, i, i + last)
        })
    }

    /// An inside or prefix term is part of the word at `i`.
    fn part_matches(&self, word: &str, i: usize) -> bool {
        let inside = self
            .index
            .inside
            .iter()
            .filter(|(t, _)| word.contains(t.as_str()));
        let prefix = self
            .index
            .prefix
            .iter()
            .filter(|(t, _)| word.starts_with(t.as_str()));
        inside.chain(prefix).any(|(_, id)| self.means_it(*id, i, i))
    }

    fn find_squeezed(&self, found: &mut Vec<Found>) {
        let squeezed: String = self.words.iter().map(|(w, _)| w.as_str()).collect();
        if squeezed.is_ascii() {
            // Every squeezed term is written in a script other than Latin.
            return;
        }
        for (needle, id) in &self.index.squeezed {
            let term = &self.index.terms[*id];
            if term.place == Place::Label && self.context.place != Place::Label {
                continue;
            }
            let unless_next: &[&str] = match term.sense {
                Sense::NotBeside(words) => words,
                _ => &[],
            };
            let hit = squeezed.match_indices(needle.as_str()).any(|(at, _)| {
                let rest = &squeezed[at + needle.len()..];
                !unless_next.iter().any(|w| rest.starts_with(w))
            });
            if hit {
                found.push(None);
            }
        }
    }

    /// The term `id`, found in the words `first..=last`, counts in this text and means the secret.
    fn means_it(&self, id: usize, first: usize, last: usize) -> bool {
        let term = &self.index.terms[id];
        if term.place == Place::Label && self.context.place != Place::Label {
            return false;
        }
        let before = first.checked_sub(1).and_then(|i| self.word(i));
        let after = self.word(last + 1);
        let beside = |list: &[&str]| {
            [before, after]
                .into_iter()
                .flatten()
                .any(|w| list.contains(&w))
        };
        match term.sense {
            Sense::Always => true,
            Sense::NotBeside(words) => !beside(words),
            Sense::Pan => {
                let label = self.context.place == Place::Label;
                let shouted =
                    self.in_lower_case && self.words[first..=last].iter().all(|(_, p)| p.shouted());
                let alone = first == 0 && last + 1 == self.words.len();
                if beside(OTHER_PANS) {
                    return false;
                }
                shouted
                    || beside(CARD_WORDS)
                    || (label && beside(LABEL_CARD_WORDS))
                    || (label && alone && self.context.text_field)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each term, once normalised, is still found as written: a list entry the normal form changes into something
    /// no text can match would be a silent hole.
    #[test]
    fn every_term_finds_itself() {
        let context = Context {
            place: Place::Label,
            text_field: true,
        };
        for term in english::TERMS.iter().chain(languages::TERMS) {
            let text = match term.sense {
                Sense::Pan => term.text.to_uppercase(),
                _ => term.text.to_string(),
            };
            let found = scan(&normal_chars(&format!("x {text} y")), context);
            assert!(!found.is_empty(), "{:?} is not found", term.text);
        }
    }
}
