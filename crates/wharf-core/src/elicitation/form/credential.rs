//! Whether a form field asks for a credential, which the spec forbids in form mode: the user is warned and told the
//! server should have used URL mode. A warning, never a refusal, so a false alarm costs little; a miss lets a secret
//! through a form unremarked, and the server chooses the words: so the text is read as a person would read it, not
//! as it is encoded, and the words are matched generously but as whole words.
//!
//! Reading. Each text (a field's name, title or description) is first put in one normal form (`normal.rs`): NFKC
//! (fullwidth and mathematical letters, ligatures), invisible characters dropped (zero-width joiners and spaces, soft
//! hyphens, bidi controls, variation selectors), accents dropped. It is cut into words at anything not a letter or
//! digit (`api_key`, `API-KEY`, "API key"), where a script without spaces begins or ends (`PINコード`), and where
//! lower case turns to upper (`apiKey`; `APIKey` before its last capital); and, since a server can turn case at will
//! (`PaSsWoRd`), also at separators only. Each word is then spelled in several readings, lower-cased: as written
//! (trailing digits dropped: `cvv2`, `pin1`); with look-alike letters of other scripts folded to the Latin ones they
//! imitate, by Unicode's confusables table (`раssword` with Cyrillic letters, `ᴘᴀꜱꜱᴡᴏʀᴅ`); and with digits and
//! symbols read as letters (`passw0rd`, `p@$$word`, `s3cr3t`; `1` as `i` and as `l`). A text is a credential when
//! any reading of it holds a term (`english.rs`, `languages.rs`):
//! - a run of whole words (`api key`), or the run written as one word (`apikey`), the last word possibly plural
//!   (`api keys`); whole words only: `tokenizer`, `keyboard`, `pinned`, `secretary` are other words, and a lone `key`
//!   or `card` is no secret (`sort key`, `card title`);
//! - consecutive words that join into a term of five letters or more (`pass_word`, `p-a-s-s-w-o-r-d`, `PaSs-WoRd`),
//!   or of three when spelled out letter by letter (`P.I.N.`); joined words must make the term exactly, so
//!   `bypass words` is no `passwords`;
//! - a term no innocent word contains, inside any word (`dbpassword`, `Datenbankpasswort`, `newpasscode`), or the
//!   stem of an inflected one at a word's start (`пароля`, `hasła`, `şifreniz`);
//! - in scripts written without spaces, a term anywhere in the text with its separators left out (`新密码`,
//!   `パスワード`, `비밀번호`), and likewise the Arabic phrases, whose first word takes prefixes.
//!
//! Senses. Some words are secrets only in some senses:
//! - `token` beside a word of quantity, and the plural `tokens`, are about language models ("max tokens", "token
//!   count"); `pins` are a map's;
//! - `pass`, `authorization`, `mnemonic`, `clave`, `parola` count in a field's name or title only: in running text
//!   they are a verb, a process, a memory aid, a keyword; and `pass` beside `boarding`, `count`, `fail`... is another
//!   pass;
//! - `pan` is a card's number when written `PAN` in a text that is not all capitals, beside a card word (`card_pan`),
//!   or the whole name or title of a text field; a numeric `pan`, or one beside `tilt`, `zoom` or `id`, is a
//!   camera's move or a network's (`PAN ID`).
//!
//! Negations. A field whose name or title, or whose schema (`format: "password"`, `writeOnly: true`), says secret is
//! a credential whatever its description says. A description's negation can only take back the description's own
//! match, and only what it governs in its sentence (`negation.rs`): "do not enter your password here" asks for no
//! password, but "Enter your password, we never share it" does. A negation in another language is not read, nor one
//! of a substring match: the field is then flagged, which errs on the side of the warning.
//!
//! Length. A name, title or description longer than `MAX_READ` characters is flagged unread: no form needs one,
//! and reading every reading of megabytes of text would let a server make the host spend seconds per field.
//!
//! What this cannot do: a server that describes the secret without naming it ("the word you log in with") is not
//! caught; the warning is a safety net, not a guarantee.

mod english;
mod languages;
mod negation;
mod normal;
mod terms;

use terms::{Context, Place};

/// The longest text read; a longer one counts as naming a secret.
const MAX_READ: usize = 10_000;

fn too_long(text: &str) -> bool {
    text.len() > MAX_READ && text.chars().nth(MAX_READ).is_some()
}

/// A field's name or title names a secret. For a field of any kind: see `label_asks_for_credential`.
pub fn looks_like_credential(text: &str) -> bool {
    label_asks_for_credential(text, true)
}

/// A field's name or title names a secret; `text_field` says the field takes free text (a numeric `pan` is a
/// camera's).
pub(super) fn label_asks_for_credential(text: &str, text_field: bool) -> bool {
    if too_long(text) {
        return true;
    }
    let context = Context {
        place: Place::Label,
        text_field,
    };
    !terms::scan(&normal::normal_chars(text), context).is_empty()
}

/// A field's description asks for a credential: it names one, and no negation governs that mention. "Your favorite
/// integer (do not give us your phone number, pin, or other sensitive info)" is about an integer.
pub fn description_asks_for_credential(description: &str) -> bool {
    if too_long(description) {
        return true;
    }
    let chars = normal::normal_chars(description);
    let context = Context {
        place: Place::Anywhere,
        text_field: true,
    };
    let found = terms::scan(&chars, context);
    if found.is_empty() {
        return false;
    }
    let negated = negation::negated_spans(&chars);
    found.into_iter().any(|at| match at {
        Some(at) => !negated.iter().any(|span| span.contains(&at)),
        None => true,
    })
}
