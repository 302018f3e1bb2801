//! What of a configuration is kept out of what Wharf shows: its env and header values, its pre-registered client
//! secrets and its `${input:}` values. Here rather than in `redact`, which every part uses and which so knows no
//! configuration.

use super::{Config, TransportDef};
use crate::redact::{self, Redactor};

impl Redactor {
    /// Replaces the known secrets with those of `config`.
    pub fn learn(&self, config: &Config) {
        let mut secrets = Vec::new();
        let mut others = Vec::new();
        for transport in config
            .servers
            .iter()
            .filter_map(|s| s.transport.as_ref().ok())
        {
            let (pairs, secret): (_, fn(&str, &str) -> bool) = match transport {
                TransportDef::Stdio { env, .. } => (env, redact::looks_secret),
                TransportDef::Http { headers, .. } => (headers, redact::header_looks_secret),
            };
            for (name, value) in pairs {
                if secret(name, value) {
                    secrets.extend(redact::with_credential(value));
                } else {
                    others.push(value.clone());
                }
            }
        }
        secrets.extend(config.servers.iter().filter_map(|s| {
            let secret = s.oauth.as_ref()?.client_secret.as_ref()?;
            Some(secret.expose().to_string())
        }));
        secrets.extend(config.input_values.iter().map(|v| v.expose().to_string()));
        self.learn_values(secrets, others);
    }
}
