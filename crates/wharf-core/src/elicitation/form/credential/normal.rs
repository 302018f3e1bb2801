//! Text as the credential detector reads it: in one canonical form, cut into pieces, each piece spelled in several
//! readings (as written, look-alike letters folded to Latin, digits and symbols read as the letters they imitate).

use unicode_normalization::char::{decompose_canonical, is_combining_mark};
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};

/// The text in the form every check reads: compatibility forms folded (NFKC: fullwidth `ｐａｓｓ`, mathematical
/// `𝐩𝐚𝐬𝐬`, ligatures), invisible characters dropped (zero-width joiners and spaces, soft hyphens, bidi marks,
/// variation selectors, tags: each can sit inside a word and hide it from a plain comparison), accents taken off
/// Latin, Greek and Cyrillic letters and Arabic vowel signs dropped (`pásswörd`, Zalgo marks), and the enclosed
/// letters NFKC leaves alone read as letters. Case is kept: the cut into words needs it.
pub(super) fn normal_chars(text: &str) -> Vec<char> {
    if text.is_ascii() {
        return text.chars().collect();
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars().flat_map(keep_look).nfkc() {
        if is_invisible(c) {
            continue;
        }
        if let Some(letter) = enclosed_letter(c) {
            out.push(letter);
        } else if matches!(c.script(), Script::Latin | Script::Greek | Script::Cyrillic) {
            decompose_canonical(c, |d| {
                if !is_accent(d) {
                    out.push(d);
                }
            });
        } else if !is_accent(c) {
            out.push(c);
        }
    }
    out
}

/// A letter that looks like ASCII but that NFKC would turn into another non-ASCII letter (the lunate sigma `ϲ`, drawn
/// as `c`, into the final sigma `ς`) is replaced by what it looks like first, since the look is what the user reads.
fn keep_look(c: char) -> impl Iterator<Item = char> {
    let look = look_lost_by_nfkc(c);
    let own = look.is_none().then_some(c);
    let look = look
        .unwrap_or_default()
        .into_bytes()
        .into_iter()
        .map(char::from);
    own.into_iter().chain(look)
}

/// The ASCII `c` looks like, when NFKC would make it a non-ASCII letter of another look.
fn look_lost_by_nfkc(c: char) -> Option<String> {
    if c.is_ascii() || !c.is_alphabetic() {
        return None;
    }
    let compatible: Vec<char> = std::iter::once(c).nfkc().collect();
    if compatible == [c] || compatible.iter().all(char::is_ascii) {
        return None;
    }
    prototype(c.encode_utf8(&mut [0; 4]))
}

/// A combining mark shared by scripts (acute, diaeresis, the Arabic vowel signs...): writing without it reads the
/// same. A script's own marks (Devanagari vowel signs) are letters of its words and stay.
fn is_accent(c: char) -> bool {
    is_combining_mark(c) && c.script() == Script::Inherited
}

/// What is drawn as nothing (see [`crate::display_text::is_default_ignorable`]), and the Arabic tatweel, which only
/// stretches a word.
fn is_invisible(c: char) -> bool {
    c == '\u{640}' || crate::display_text::is_default_ignorable(c)
}

/// Letters drawn in a circle or a square, and the regional indicators, which NFKC does not map: `🅿🅰🆂🆂`.
fn enclosed_letter(c: char) -> Option<char> {
    let offset = match c {
        '\u{1F150}'..='\u{1F169}' => c as u32 - 0x1F150,
        '\u{1F170}'..='\u{1F189}' => c as u32 - 0x1F170,
        '\u{1F1E6}'..='\u{1F1FF}' => c as u32 - 0x1F1E6,
        _ => return None,
    };
    char::from_u32(u32::from(b'A') + offset)
}

/// Scripts written without spaces between words: a change to or from one of them cuts a word (`PINコード`).
fn is_spaceless(c: char) -> bool {
    matches!(
        c.script(),
        Script::Han | Script::Hiragana | Script::Katakana | Script::Hangul | Script::Thai
    ) || matches!(c, '\u{30FC}' | '\u{3005}')
}

/// Symbols that stand for letters (`p@ssword`, `pa$$word`).
fn is_leet_symbol(c: char) -> bool {
    matches!(c, '@' | '$')
}

/// One piece of the text: the characters `start..end` of the normal form, as written.
#[derive(Debug, Clone)]
pub(super) struct Piece {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Piece {
    /// Written in capitals (`PAN`, `PIN`).
    pub fn shouted(&self) -> bool {
        self.text.chars().any(char::is_alphabetic) && !self.text.chars().any(char::is_lowercase)
    }
}

/// Where the text is cut into pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// At separators and where the case turns (`apiKey`, `APIKey` before its last capital): words.
    Words,
    /// At separators only: `PaSsWoRd` is one piece, where the case turns would cut it into four.
    Chunks,
}

/// The pieces of the text: runs of letters, digits, `@` and `$`, cut at anything else and where a spaceless script
/// begins or ends. The symbols are word characters wherever they stand (`pa$-$word`): only the readings that take
/// them for letters see them, the others leave them out.
pub(super) fn pieces(chars: &[char], cut: Cut) -> Vec<Piece> {
    let is_word_char = |i: usize| {
        chars
            .get(i)
            .is_some_and(|&c| c.is_alphanumeric() || is_leet_symbol(c))
    };
    let mut pieces = Vec::new();
    let mut start = None::<usize>;
    for i in 0..=chars.len() {
        let word_char = is_word_char(i);
        let cut_here = start.is_some_and(|_| {
            !word_char
                || chars
                    .get(i)
                    .zip(i.checked_sub(1).and_then(|p| chars.get(p)))
                    .is_some_and(|(&c, &prev)| {
                        (prev.is_alphanumeric() && is_spaceless(prev) != is_spaceless(c))
                            || (cut == Cut::Words && case_turns(chars, i))
                    })
        });
        if cut_here {
            if let Some(s) = start.take() {
                pieces.push(Piece {
                    start: s,
                    end: i,
                    text: chars[s..i].iter().collect(),
                });
            }
        }
        if word_char && start.is_none() {
            start = Some(i);
        }
    }
    pieces
}

/// A capital after a small letter or a digit (`apiKey`, `cvv2Code`), or the last capital of a run of them before a
/// small letter (`APIKey`).
fn case_turns(chars: &[char], i: usize) -> bool {
    let (Some(&c), Some(&prev)) = (chars.get(i), i.checked_sub(1).and_then(|p| chars.get(p)))
    else {
        return false;
    };
    let next = chars.get(i + 1);
    c.is_uppercase()
        && (prev.is_lowercase()
            || prev.is_ascii_digit()
            || (prev.is_uppercase() && next.is_some_and(|n| n.is_lowercase())))
}

/// How a piece is spelled for matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// Lower case, symbols left out, trailing digits dropped (`cvv2`, `pin1`).
    Plain,
    /// As `Plain`, look-alike letters of other scripts read as the Latin letters they imitate (`раssword` with a
    /// Cyrillic `р` and `а`, `ᴘᴀꜱꜱᴡᴏʀᴅ` in small capitals); a look-alike of `I` or `l` read as `ell`.
    Folded { ell: char },
    /// As `Folded`, then digits and symbols read as letters (`passw0rd`, `p@$$word`, `s3cr3t`), `1` (and a
    /// look-alike of `I` or `l`) as `one`; with `trim`, trailing digits are dropped first (`p4ssword1`).
    Leet { one: char, trim: bool },
}

pub(super) const READINGS: [Reading; 7] = [
    Reading::Plain,
    Reading::Folded { ell: 'l' },
    Reading::Folded { ell: 'i' },
    Reading::Leet {
        one: 'i',
        trim: false,
    },
    Reading::Leet {
        one: 'l',
        trim: false,
    },
    Reading::Leet {
        one: 'i',
        trim: true,
    },
    Reading::Leet {
        one: 'l',
        trim: true,
    },
];

/// The piece as `reading` spells it.
pub(super) fn spell(piece: &str, reading: Reading) -> String {
    let trim_digits = |s: String| s.trim_end_matches(|c: char| c.is_ascii_digit()).to_string();
    let drop_symbols = |s: &str| {
        s.chars()
            .filter(|c| !is_leet_symbol(*c))
            .collect::<String>()
    };
    if piece.bytes().all(|b| b.is_ascii_alphabetic()) {
        // Nothing to fold, drop or read otherwise: every reading is the lower case.
        return piece.to_ascii_lowercase();
    }
    match reading {
        Reading::Plain => trim_digits(lower(&drop_symbols(piece))),
        Reading::Folded { ell } => trim_digits(lower(&drop_symbols(&fold(piece, ell)))),
        Reading::Leet { one, trim } => {
            let folded = lower(&fold(piece, one));
            // Digits between separators may be letters of a word spelled apart (`pa-5-sword`, `priv-473-key`): read
            // so here, and as a number (left out) in the trimming readings. No term is made of the letters digits
            // stand for alone, so a number read as letters only counts joined to the words around it.
            let number = !folded.chars().any(char::is_alphabetic);
            if number && trim {
                return trim_digits(drop_symbols(&folded));
            }
            let folded = if trim { trim_digits(folded) } else { folded };
            folded.chars().map(|c| leet(c, one)).collect()
        }
    }
}

fn leet(c: char, one: char) -> char {
    match c {
        '0' => 'o',
        '1' => one,
        '3' => 'e',
        '4' | '@' => 'a',
        '5' | '$' => 's',
        '7' => 't',
        other => other,
    }
}

/// Lower case without the letters' locale quirks: `ß` as `ss` (`Paßwort`), the Greek final sigma as any sigma, and
/// the dot `İ` lower-cases to dropped.
pub(super) fn lower(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            _ => out.extend(c.to_lowercase().filter(|l| !is_accent(*l))),
        }
    }
    out
}

/// Each letter that is not ASCII but looks like ASCII letters, by Unicode's confusables table (UTS #39 skeletons),
/// replaced by them; other letters kept. ASCII is never folded: its skeleton would turn `m` into `rn`. A letter is
/// folded as written, since that is what the user sees (Greek `Ν` looks like `N`, its lower case `ν` like `v`). The
/// table's prototype of `I`, `l` and `|` alike is `l`: `ell` says which letter it is read as.
fn fold(text: &str, ell: char) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() || !c.is_alphanumeric() {
            out.push(c);
            continue;
        }
        let folded = prototype(c.encode_utf8(&mut [0; 4]));
        match folded {
            Some(p) if p == "l" => out.push(ell),
            Some(p) => out.push_str(&p),
            None => out.push(c),
        }
    }
    out
}

/// The ASCII letters or digits `text` looks like, if it looks like any.
fn prototype(text: &str) -> Option<String> {
    let prototype: String = unicode_security::skeleton(text)
        .filter(|p| !is_accent(*p))
        .map(small_capital)
        .collect();
    let ascii = !prototype.is_empty() && prototype.chars().all(|p| p.is_ascii_alphanumeric());
    ascii.then(|| prototype.to_ascii_lowercase())
}

/// The Latin small capitals, which the confusables table keeps as letters of their own (`ᴛ` is the prototype of
/// Cyrillic `т`).
fn small_capital(c: char) -> char {
    match c {
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ꞯ' => 'q',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        // The kra, prototype of the Greek kappa, is drawn as a small capital K.
        'ĸ' => 'k',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(text: &str, cut: Cut, reading: Reading) -> Vec<String> {
        pieces(&normal_chars(text), cut)
            .iter()
            .map(|p| spell(&p.text, reading))
            .collect()
    }

    #[test]
    fn the_normal_form_drops_what_hides_a_word() {
        let cases = [
            ("ｐａｓｓｗｏｒｄ", "password"),
            ("pass\u{200D}wo\u{200B}rd\u{AD}", "password"),
            ("p\u{202E}ass\u{2066}word\u{FE0F}", "password"),
            ("pásswörd", "password"),
            ("p\u{336}a\u{336}s\u{336}s\u{336}", "pass"),
            ("𝐩𝐚𝐬𝐬", "pass"),
            ("🅿🅰🆂🆂", "PASS"),
            ("ﾊﾟｽﾜｰﾄﾞ", "パスワード"),
            ("كلمـــة", "كلمة"),
        ];
        for (text, expected) in cases {
            let normal: String = normal_chars(text).into_iter().collect();
            assert_eq!(normal, expected, "{text:?}");
        }
    }

    #[test]
    fn readings_undo_look_alikes_and_leetspeak() {
        let folded = |t: &str| spelled(t, Cut::Chunks, Reading::Folded { ell: 'i' });
        assert_eq!(folded("раѕѕwоrd"), ["password"]);
        assert_eq!(folded("ᴘᴀꜱꜱᴡᴏʀᴅ"), ["password"]);
        assert_eq!(folded("ΡΙΝ"), ["pin"]);
        let leet = |t: &str| {
            spelled(
                t,
                Cut::Chunks,
                Reading::Leet {
                    one: 'i',
                    trim: false,
                },
            )
        };
        assert_eq!(leet("p@$$w0rd"), ["password"]);
        assert_eq!(leet("s3cr3t"), ["secret"]);
        assert_eq!(leet("7ok3n"), ["token"]);
        assert_eq!(
            spelled(
                "p4ssword1",
                Cut::Chunks,
                Reading::Leet {
                    one: 'l',
                    trim: true
                }
            ),
            ["password"]
        );
        assert_eq!(leet("pa55"), ["pass"]);
        // Read as letters only where the reading takes them so.
        assert_eq!(
            spelled("$5 @ home", Cut::Words, Reading::Plain),
            ["", "", "home"]
        );
        assert_eq!(leet("pa$-$word"), ["pas", "sword"]);
        assert_eq!(spelled("$PIN", Cut::Words, Reading::Plain), ["pin"]);
    }

    #[test]
    fn words_are_cut_at_case_turns_and_scripts_chunks_only_at_separators() {
        assert_eq!(
            spelled("PaSs-WoRd", Cut::Words, Reading::Plain),
            ["pa", "ss", "wo", "rd"]
        );
        assert_eq!(
            spelled("PaSs-WoRd", Cut::Chunks, Reading::Plain),
            ["pass", "word"]
        );
        assert_eq!(
            spelled("APIKey cvv2", Cut::Words, Reading::Plain),
            ["api", "key", "cvv"]
        );
        assert_eq!(
            spelled("PINコード", Cut::Chunks, Reading::Plain),
            ["pin", "コード"]
        );
        assert_eq!(spelled("Paßwort", Cut::Words, Reading::Plain), ["passwort"]);
    }
}
