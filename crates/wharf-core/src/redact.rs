//! Keeping secrets out of logs and everything else Wharf shows. The values a user puts in a server's `env` and
//! `headers`, and the `${input:...}` values from the keyring, are the likeliest secrets Wharf ever holds (API keys,
//! tokens); any line that contains one has it replaced, whatever wrote it (a server echoing its request headers in
//! an error page, say), and so does a `Bearer` or `Basic` credential or an OAuth token in a form or JSON field.
//!
//! Two strengths. [`Redactor::redact`] masks every configured env and header value, for log lines and messages to
//! the user, where masking an ordinary value (a path, a URL) costs nothing. [`Redactor::redact_secrets`] masks only
//! the values that look secret (by their name, their shape, or because they came from the keyring), for the records
//! a program reads back (the events file, JSON on stdout), where masking a workspace path would break them.
//!
//! Chat masks in the second strength: what a tool returns is for the model to use, and the ordinary values of the
//! configuration (a workspace path, a URL, a mode) are what tools report and the model must be able to use again.
//! A header's value counts as secret unless the header is an ordinary one (`Accept`, `User-Agent`): a header is
//! configured for a remote server to let the user in, whatever it is called.
//!
//! Masking is done before any cut, so a secret across a cut is never half kept; [`Redactor::cut_secrets`] cuts that
//! way, and [`Redactor::redact_piece`] masks what is left of a secret at the edge of a text that came already cut.
//! [`StreamRedactor`] masks a text that arrives in pieces, holding back what may be the start of a secret.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, RwLock};

use serde_json::Value;

const MASK: &str = "[redacted]";
/// Shorter values (`1`, `true`, `dev`) are not secrets worth masking, and masking them would garble every log line.
const MIN_SECRET_LEN: usize = 6;
/// A value this long with letters and digits and no spaces, slashes or scheme is taken for a key whatever its name.
const TOKEN_SHAPED_LEN: usize = 16;

/// Words that name a secret in an env variable or header name (compared in lower case).
const SECRET_NAME_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "auth",
    "credential",
    "cookie",
    "session",
    "private",
    "signature",
    "jwt",
    "bearer",
];

/// Fields whose value is a credential wherever they appear: `"access_token": "..."`, `client_secret=...`.
const SECRET_FIELDS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "api_key",
    "api-key",
    "apikey",
    "password",
];

/// Authorization schemes whose credential follows a space.
const SCHEMES: &[&str] = &["bearer ", "basic "];

#[derive(Debug, Default)]
struct Known {
    /// Values that look secret: masked everywhere. Longest first, so a secret that contains another goes whole.
    secrets: Vec<String>,
    /// Every other configured value: masked in log lines and messages only.
    others: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Redactor(Arc<RwLock<Known>>);

/// Secrets Wharf comes to hold while it runs (API keys and `${input:}` values read from the keyring, OAuth tokens).
/// They are in no configuration, so [`Redactor::learn`] cannot know them: every redactor of the process masks them.
static RUNTIME_SECRETS: RwLock<RuntimeSecrets> = RwLock::new(RuntimeSecrets {
    learned: VecDeque::new(),
    longest_first: Vec::new(),
});

/// The most runtime secrets kept: a long session refreshes its tokens now and then, and the oldest (long expired)
/// make room.
const MAX_RUNTIME_SECRETS: usize = 1024;

struct RuntimeSecrets {
    /// In the order learned, to forget the oldest first.
    learned: VecDeque<String>,
    /// The same, longest first, so a secret that contains another goes whole.
    longest_first: Vec<String>,
}

/// Makes every redactor of the process mask `value` (and, for `Scheme credential`, the credential alone) from now
/// on, in both strengths.
pub fn learn_runtime_secret(value: &str) {
    let values = ordered(with_credential(value));
    let Ok(mut runtime) = RUNTIME_SECRETS.write() else {
        return;
    };
    for value in values {
        if runtime.learned.contains(&value) {
            continue;
        }
        if runtime.learned.len() >= MAX_RUNTIME_SECRETS {
            runtime.learned.pop_front();
        }
        runtime.learned.push_back(value);
    }
    let all: Vec<String> = runtime.learned.iter().cloned().collect();
    runtime.longest_first = ordered(all);
}

/// Headers whose values are no credential: content negotiation and the client's own description.
const ORDINARY_HEADERS: &[&str] = &[
    "accept",
    "accept-language",
    "accept-encoding",
    "content-type",
    "user-agent",
    "cache-control",
    "origin",
    "referer",
    "mcp-protocol-version",
];

/// Whether a header called `name` holding `value`, sent to a remote server, is to be treated as a secret: unless it
/// is an ordinary header, it is there to let the user in, whatever it is called (`X-Tenant`, `X-Workspace`).
pub fn header_looks_secret(name: &str, value: &str) -> bool {
    looks_secret(name, value) || !ORDINARY_HEADERS.contains(&name.to_ascii_lowercase().as_str())
}

/// Whether an env variable or header called `name` holding `value` is to be treated as a secret.
/// A path is never the secret itself (`GOOGLE_APPLICATION_CREDENTIALS=/home/u/creds.json` names where it is).
pub fn looks_secret(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let is_path = value.starts_with('/') || value.starts_with("~/");
    (!is_path && SECRET_NAME_WORDS.iter().any(|w| name.contains(w))) || token_shaped(value)
}

fn token_shaped(value: &str) -> bool {
    value.len() >= TOKEN_SHAPED_LEN
        && !value.chars().any(char::is_whitespace)
        && !value.starts_with('/')
        && !value.contains("://")
        && value.chars().any(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_digit())
}

/// The value and, for `Scheme credential` (`Bearer abc`), the credential alone, which an error may quote by itself.
pub(crate) fn with_credential(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    if let Some((scheme, credential)) = value.trim().split_once(' ') {
        let credential = credential.trim();
        if scheme.chars().all(|c| c.is_ascii_alphabetic()) && !credential.contains(' ') {
            out.push(credential.to_string());
        }
    }
    out
}

fn ordered(mut values: Vec<String>) -> Vec<String> {
    values.retain(|v| v.len() >= MIN_SECRET_LEN);
    values.sort_by_key(|s| std::cmp::Reverse(s.len()));
    values.dedup();
    values
}

impl Redactor {
    /// Replaces the known values: `secrets` are masked everywhere, `others` (configured values that do not look
    /// secret) only where masking costs nothing (see the module's two strengths).
    pub fn learn_values(&self, secrets: Vec<String>, others: Vec<String>) {
        let secrets = ordered(secrets);
        let mut others = ordered(others);
        others.retain(|v| !secrets.contains(v));
        if let Ok(mut known) = self.0.write() {
            *known = Known { secrets, others };
        }
    }

    /// Adds one secret known only at run time (a token, a key read from the keyring).
    pub fn add_secret(&self, value: &str) {
        if let Ok(mut known) = self.0.write() {
            let mut secrets = std::mem::take(&mut known.secrets);
            secrets.extend(with_credential(value));
            known.secrets = ordered(secrets);
        }
    }

    /// Masks every configured value, secret-looking or not, and every credential: for log lines and messages.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.mask(text, true)
    }

    /// Masks the values that look secret and every credential: for records a program reads back.
    pub fn redact_secrets<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.mask(text, false)
    }

    /// [`Redactor::redact_secrets`] on every string inside `value` (keys too: an echoed header map has them).
    pub fn redact_json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Cow::Owned(masked) = self.redact_secrets(s) {
                    *s = masked;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_json(v)),
            Value::Object(map) => {
                let masked_keys = map
                    .keys()
                    .any(|k| matches!(self.redact_secrets(k), Cow::Owned(_)));
                if masked_keys {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (self.redact_secrets(&k).into_owned(), v))
                        .collect();
                }
                map.values_mut().for_each(|v| self.redact_json(v));
            }
            _ => {}
        }
    }

    fn mask<'a>(&self, text: &'a str, all: bool) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Ok(known) = self.0.read() {
            let values = known
                .secrets
                .iter()
                .chain(known.others.iter().filter(|_| all));
            for value in values {
                if out.contains(value.as_str()) {
                    out = Cow::Owned(out.replace(value.as_str(), MASK));
                }
            }
        }
        if let Ok(runtime) = RUNTIME_SECRETS.read() {
            for value in &runtime.longest_first {
                if out.contains(value.as_str()) {
                    out = Cow::Owned(out.replace(value.as_str(), MASK));
                }
            }
        }
        if let Some(masked) = mask_credentials(&out) {
            out = Cow::Owned(masked);
        }
        out
    }
}

/// `Bearer <token>`, `Basic <credential>` and `access_token=<token>` anywhere lose their credential.
fn mask_credentials(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for scheme in SCHEMES {
        for (i, _) in lower.match_indices(scheme) {
            let start = i + scheme.len();
            let len = credential_len(&text[start..]);
            if plausible_credential(&text[start..start + len]) {
                spans.push((start, start + len));
            }
        }
    }
    for field in SECRET_FIELDS {
        for (i, _) in lower.match_indices(field) {
            let after = &text[i + field.len()..];
            let Some(value_at) = field_value_start(after) else {
                continue;
            };
            let start = i + field.len() + value_at;
            let len = credential_len(&text[start..]);
            if len > 0 {
                spans.push((start, start + len));
            }
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(MASK);
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// "basic authentication is off", "no bearer token": prose, not a credential. A credential has a character other
/// than a letter (digits, dots, dashes, padding) or is long.
fn plausible_credential(word: &str) -> bool {
    word.len() >= 6 && (word.chars().any(|c| !c.is_ascii_alphabetic()) || word.len() >= 20)
}

/// Where a field's value starts after its name: `": "`, `=`, `:` with optional quotes and spaces (a JSON field, a
/// form field, a header); `None` when the name is not followed by a value (prose, another word).
fn field_value_start(after: &str) -> Option<usize> {
    let bytes = after.as_bytes();
    let mut i = 0;
    if bytes.first() == Some(&b'"') || bytes.first() == Some(&b'\'') {
        i += 1;
    }
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    while matches!(bytes.get(i), Some(b' ' | b'"' | b'\'')) {
        i += 1;
    }
    Some(i)
}

/// The length of the credential at the start of `text`: up to whitespace, a quote or a separator.
fn credential_len(text: &str) -> usize {
    text.find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | '&' | '}' | '\\'))
        .unwrap_or(text.len())
}

mod edges;
mod stream;

pub use edges::Cut;
pub use stream::StreamRedactor;

#[cfg(test)]
mod tests;
