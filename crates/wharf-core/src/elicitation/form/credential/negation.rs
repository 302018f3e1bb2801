//! Where a description says NOT to give a secret: the spans of its text that a negation governs.
//!
//! A negation governs what it is about, not the whole sentence:
//! - `no`, `not`, `never`, `without`, `nor` govern the next two words, unless `and`, `or` or `but` comes first:
//!   "no password", "not your PIN", "without a token" (but in "card no and PIN" the PIN is asked for);
//! - any negation (those, `don't`, `avoid`...) followed by a verb of asking or giving, with at most a few
//!   fillers between ("do not ever enter", "we will never ask you for", "no need to type"), governs from the verb to
//!   the end of its clause: the end of the sentence, a word that turns it ("but", "instead", "only", "then"...), or a
//!   comma or colon followed by a new request ("don't include spaces, enter your PIN").
//!
//! So "do not give us your phone number, pin, or other sensitive info" asks for no PIN, while in "Enter your
//! password, we never share it" and "Don't worry, enter your password" the password is still asked for: `share`
//! and `worry` are no verbs of asking, and the negation is nowhere before the password anyway.

use std::ops::Range;

use super::normal::{pieces, spell, Cut, Reading};

const DETERMINERS: &[&str] = &["no", "not", "never", "without", "nor"];
const NEGATIONS: &[&str] = &[
    "no", "not", "never", "without", "nor", "dont", "doesnt", "didnt", "wont", "cannot", "cant",
    "shouldnt", "mustnt", "avoid", "neither",
];
/// The first half of a contraction whose `n't` the cut into words leaves as a lone `t` ("don't" is `don`, `t`).
const CONTRACTED: &[&str] = &[
    "don", "doesn", "didn", "won", "can", "shouldn", "mustn", "isn", "aren", "wasn",
];
/// Words that may stand between a negation and its verb.
const FILLERS: &[&str] = &[
    "t", "ever", "even", "be", "been", "being", "please", "you", "we", "i", "to", "us", "anyone",
];
/// Verbs of asking for, giving or entering something: a negation before one of them says the thing is not wanted.
const VERBS: &[&str] = &[
    "give",
    "gives",
    "giving",
    "given",
    "gave",
    "enter",
    "enters",
    "entering",
    "entered",
    "type",
    "types",
    "typing",
    "typed",
    "provide",
    "provides",
    "providing",
    "provided",
    "send",
    "sending",
    "sent",
    "put",
    "putting",
    "paste",
    "pasting",
    "pasted",
    "input",
    "inputs",
    "submit",
    "submitting",
    "submitted",
    "include",
    "including",
    "included",
    "use",
    "using",
    "used",
    "write",
    "writing",
    "written",
    "tell",
    "telling",
    "told",
    "ask",
    "asks",
    "asking",
    "asked",
    "request",
    "requesting",
    "requested",
    "need",
    "needs",
    "needed",
    "require",
    "requires",
    "required",
    "supply",
    "supplying",
    "supplied",
    "fill",
    "filling",
    "filled",
    "disclose",
    "disclosing",
    "reveal",
    "revealing",
];
/// Words that end the clause a negation governs.
const TURNS: &[&str] = &[
    "but", "however", "instead", "rather", "only", "just", "except", "then", "though", "although",
    "yet",
];
const CONJUNCTIONS: &[&str] = &["and", "or", "but"];

/// The spans (character ranges of the normal form `chars`) that a negation governs.
pub(super) fn negated_spans(chars: &[char]) -> Vec<Range<usize>> {
    let words: Vec<(String, Range<usize>)> = pieces(chars, Cut::Words)
        .into_iter()
        .map(|p| (spell(&p.text, Reading::Plain), p.start..p.end))
        .filter(|(w, _)| !w.is_empty())
        .collect();
    let word = |i: usize| words.get(i).map(|(w, _)| w.as_str());
    // For each word, the first word of the next sentence and the first word that starts a new clause (both computed
    // once, backwards, so that a text full of negations costs no more than its length).
    let mut next_sentence = vec![words.len(); words.len()];
    let mut next_clause = vec![words.len(); words.len()];
    for k in (0..words.len()).rev() {
        let ends_before_next = words
            .get(k + 1)
            .is_some_and(|(_, next)| (words[k].1.end..next.start).any(|c| ends_sentence(chars, c)));
        next_sentence[k] = match ends_before_next {
            true => k + 1,
            false => next_sentence.get(k + 1).copied().unwrap_or(words.len()),
        };
        next_clause[k] = match clause_turns(chars, &words, k) {
            true => k,
            false => next_clause.get(k + 1).copied().unwrap_or(words.len()),
        };
    }
    let mut spans = Vec::new();
    for (i, (w, _)) in words.iter().enumerate() {
        let contracted = CONTRACTED.contains(&w.as_str()) && word(i + 1) == Some("t");
        if !NEGATIONS.contains(&w.as_str()) && !contracted {
            continue;
        }
        // The words this negation may govern: those of its sentence after it.
        let sentence = i + 1..next_sentence[i];
        if DETERMINERS.contains(&w.as_str()) {
            let governed = (i + 1..=i + 2)
                .take_while(|k| {
                    sentence.contains(k) && !word(*k).is_some_and(|w| CONJUNCTIONS.contains(&w))
                })
                .last();
            if let Some(last) = governed {
                spans.push(words[i + 1].1.start..words[last].1.end);
            }
        }
        let verb = (i + 1..i + 5)
            .take_while(|k| sentence.contains(k))
            .find(|&k| !word(k).is_some_and(|w| FILLERS.contains(&w)))
            .filter(|&k| word(k).is_some_and(|w| VERBS.contains(&w)));
        if let Some(verb) = verb {
            let clause_end = next_clause.get(verb + 1).copied().unwrap_or(words.len());
            let last = clause_end.min(sentence.end).saturating_sub(1).max(verb);
            spans.push(words[verb].1.start..words[last].1.end);
        }
    }
    spans
}

/// The word `k` starts a new clause: a turning word, or a new request after a comma or colon.
fn clause_turns(chars: &[char], words: &[(String, Range<usize>)], k: usize) -> bool {
    let Some((w, range)) = words.get(k) else {
        return true;
    };
    if TURNS.contains(&w.as_str()) {
        return true;
    }
    let gap_start = k
        .checked_sub(1)
        .and_then(|p| words.get(p))
        .map_or(0, |(_, r)| r.end);
    let after_break = chars.get(gap_start..range.start).is_some_and(|gap| {
        gap.iter()
            .any(|c| matches!(c, ',' | ':' | '–' | '—' | '、' | '،'))
    });
    after_break && (w == "please" || VERBS.contains(&w.as_str()))
}

/// The character at `i` ends a sentence: `.`, `!` or `?` before a space or the end (a dot inside `p.i.n` or
/// `e.g` ends nothing), or any of `;`, a line break, brackets and the CJK and Arabic stops.
pub(super) fn ends_sentence(chars: &[char], i: usize) -> bool {
    match chars.get(i) {
        Some('.' | '!' | '?') => chars
            .get(i + 1)
            .is_none_or(|n| n.is_whitespace() || matches!(n, ')' | ']' | '"' | '\'')),
        Some(c) => matches!(
            c,
            ';' | '\n' | '\r' | '(' | ')' | '[' | ']' | '{' | '}' | '。' | '؟' | '۔' | '।' | '…'
        ),
        None => false,
    }
}
