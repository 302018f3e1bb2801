//! The Content Security Policy a view runs under, built from what its resource declared. A declared domain is a
//! server's text: it is allowed into the policy only when it is an origin and nothing else (a scheme, a host, maybe
//! a port), so that no server can write a directive of its own (`https://a.example; script-src *`), a keyword
//! (`'unsafe-eval'`), a scheme source (`data:`, `blob:`, `*`), or a host that reads as another (non-ASCII
//! lookalikes, which must come as punycode). What is refused is kept with its reason, for the view's stages and the
//! activity log; the policy itself is never looser than what was declared.

use serde::{Deserialize, Serialize};

use crate::protocol::DeclaredCsp;

/// The policy when a view declares nothing: the spec's restrictive default (no network at all), with `object-src`
/// closed as the spec's newer text asks.
const DEFAULT_POLICY: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; \
object-src 'none'";

/// The most domains one view may declare across all its lists: more is a server trying to grow a header without
/// bound, and what is past the limit is refused.
pub const MAX_DECLARED_DOMAINS: usize = 64;

/// The longest declared domain taken (a DNS name is at most 253 characters, plus scheme and port).
const MAX_DOMAIN_CHARS: usize = 300;

/// The policy, as the header sends it, and what was declared but left out of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ViewPolicy {
    pub header: String,
    pub refused: Vec<RefusedDomain>,
}

/// A declared domain that is not in the policy, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RefusedDomain {
    /// As declared, made safe to show (control characters escaped, cut to a line).
    pub declared: String,
    pub reason: String,
}

impl ViewPolicy {
    /// The policy for a view that declared `csp` (`None`: it declared nothing).
    pub fn build(csp: Option<&DeclaredCsp>) -> ViewPolicy {
        let Some(csp) = csp else {
            return ViewPolicy {
                header: DEFAULT_POLICY.to_owned(),
                refused: Vec::new(),
            };
        };
        let mut refused = Vec::new();
        let mut budget = MAX_DECLARED_DOMAINS;
        let mut checked = |declared: &[String]| -> Vec<String> {
            let mut kept: Vec<String> = Vec::new();
            for domain in declared {
                let verdict = if budget == 0 {
                    Err(format!("more than {MAX_DECLARED_DOMAINS} domains declared"))
                } else {
                    budget -= 1;
                    origin(domain)
                };
                match verdict {
                    Ok(origin) if !kept.contains(&origin) => kept.push(origin),
                    Ok(_) => {}
                    Err(reason) => refused.push(RefusedDomain {
                        declared: crate::display_text::one_line(domain, 120),
                        reason,
                    }),
                }
            }
            kept
        };
        let connect = checked(&csp.connect_domains);
        let resources = checked(&csp.resource_domains);
        let frames = checked(&csp.frame_domains);
        let base = checked(&csp.base_uri_domains);
        let with = |fixed: &str, extra: &[String]| {
            let mut sources = vec![fixed.to_owned()];
            sources.extend(extra.iter().cloned());
            sources.join(" ")
        };
        let or = |list: &[String], otherwise: &str| {
            if list.is_empty() {
                otherwise.to_owned()
            } else {
                list.join(" ")
            }
        };
        let header = [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
            format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
            format!("connect-src {}", with("'self'", &connect)),
            format!("img-src {}", with("'self' data:", &resources)),
            format!("font-src {}", with("'self'", &resources)),
            format!("media-src {}", with("'self' data:", &resources)),
            format!("frame-src {}", or(&frames, "'none'")),
            "object-src 'none'".to_owned(),
            format!("base-uri {}", or(&base, "'self'")),
        ]
        .join("; ");
        ViewPolicy { header, refused }
    }
}

/// `declared` as the origin a policy may name (`scheme://host[:port]`, the host maybe `*.` a domain), or why not.
fn origin(declared: &str) -> Result<String, String> {
    if declared.len() > MAX_DOMAIN_CHARS {
        return Err(format!("longer than {MAX_DOMAIN_CHARS} characters"));
    }
    if !declared.is_ascii() {
        return Err("not ASCII: a host must be written as punycode (xn--)".into());
    }
    let declared = declared.trim_end_matches('/');
    let Some((scheme, rest)) = declared.split_once("://") else {
        return Err("not an origin (scheme://host)".into());
    };
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "https" | "http" | "wss" | "ws") {
        return Err(format!("scheme {scheme:?} is not http(s) or ws(s)"));
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    if let Some(port) = port {
        if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
            return Err("its port is not a number".into());
        }
    }
    let host = host.to_ascii_lowercase();
    let name = host.strip_prefix("*.").unwrap_or(&host);
    let labels: Vec<&str> = name.split('.').collect();
    let well_formed = labels.iter().all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    if !well_formed {
        return Err("not a host name (letters, digits, hyphens and dots only)".into());
    }
    // A wildcard must leave a registrable name under it: `*.com` would be every site of a top-level domain.
    if host.starts_with("*.") && labels.len() < 2 {
        return Err("a wildcard over a whole top-level domain".into());
    }
    Ok(match port {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests;
