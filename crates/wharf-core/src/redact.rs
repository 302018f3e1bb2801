//! Keeping secrets out of logs. The values a user puts in a server's `env` and `headers` are the likeliest secrets
//! Wharf ever holds (API keys, tokens); any log line that contains one has it replaced, whatever logged it.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use crate::config::{Config, TransportDef};

const MASK: &str = "[redacted]";
/// Shorter values (`1`, `true`, `dev`) are not secrets worth masking, and masking them would garble every log line.
const MIN_SECRET_LEN: usize = 6;

#[derive(Debug, Clone, Default)]
pub struct Redactor(Arc<RwLock<Vec<String>>>);

impl Redactor {
    /// Replaces the known secrets with those of `config`.
    pub fn learn(&self, config: &Config) {
        let mut secrets: Vec<String> = config
            .servers
            .iter()
            .filter_map(|s| s.transport.as_ref().ok())
            .flat_map(|t| match t {
                TransportDef::Stdio { env, .. } => env.values().cloned().collect::<Vec<_>>(),
                TransportDef::Http { headers, .. } => headers.values().cloned().collect(),
            })
            .chain(config.servers.iter().filter_map(|s| {
                let secret = s.oauth.as_ref()?.client_secret.as_ref()?;
                Some(secret.expose().to_string())
            }))
            .filter(|v| v.len() >= MIN_SECRET_LEN)
            .collect();
        // Longest first, so a secret that contains another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        if let Ok(mut known) = self.0.write() {
            *known = secrets;
        }
    }

    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Ok(known) = self.0.read() {
            for secret in known.iter() {
                if out.contains(secret.as_str()) {
                    out = Cow::Owned(out.replace(secret.as_str(), MASK));
                }
            }
        }
        match mask_bearer(&out) {
            Some(masked) => Cow::Owned(masked),
            None => out,
        }
    }
}

/// `Bearer <token>` anywhere (an Authorization header echoed in an error, say) loses its token.
fn mask_bearer(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    lower.find("bearer ")?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut rest_lower = lower.as_str();
    while let Some(i) = rest_lower.find("bearer ") {
        let start = i + "bearer ".len();
        out.push_str(&rest[..start]);
        let token_len = rest[start..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';'))
            .unwrap_or(rest.len() - start);
        if token_len > 0 {
            out.push_str(MASK);
        }
        rest = &rest[start + token_len..];
        rest_lower = &rest_lower[start + token_len..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_values_and_bearer_tokens_are_masked() {
        let config = Config::parse(
            std::path::Path::new("c.json"),
            r#"{"servers": {"a": {"command": "x", "env": {"API_KEY": "sk-live-123456", "DEBUG": "1"}},
                "b": {"url": "http://h/mcp", "headers": {"X-Key": "hdr-secret-99"}}}}"#,
            &|_| None,
        )
        .unwrap();
        let redactor = Redactor::default();
        redactor.learn(&config);
        let line = "spawn env API_KEY=sk-live-123456 DEBUG=1, header X-Key: hdr-secret-99; Authorization: Bearer abc.def";
        let masked = redactor.redact(line);
        assert!(
            !masked.contains("sk-live-123456")
                && !masked.contains("hdr-secret-99")
                && !masked.contains("abc.def")
        );
        assert!(
            masked.contains("DEBUG=1"),
            "short values are not secrets: {masked}"
        );
        assert!(masked.contains("Bearer [redacted]"), "{masked}");
        assert!(matches!(redactor.redact("nothing here"), Cow::Borrowed(_)));
    }
}
