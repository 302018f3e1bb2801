//! A URL a server wants the user to open, as the user is shown it: what the link really is, what they should know
//! about it, and whether it may open. Elicitation's `url_check` makes the review and is the only one to open a URL.

use serde::Serialize;

/// A URL elicitation first asks for consent (accept opens the page); one a call depends on (`-32042`) then waits
/// until the user says they have finished in the browser, or the server says it is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum UrlPhase {
    Consent,
    Finish,
}

/// Something the user should know about a URL before opening it. A review lists its warnings in the order of the
/// variants here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum UrlWarning {
    /// Plain http: anyone on the way can read or change the page.
    NotHttps,
    /// The host is an IP address, not a name.
    IpLiteral,
    /// The host has an internationalised (punycode, `xn--`) label.
    Punycode,
    /// The host mixes letters of several scripts (Latin with Cyrillic look-alikes...).
    MixedScript,
    /// The URL carries a user name or password before the host (`good.com@evil.com`).
    Userinfo,
    /// The URL is longer than 2048 characters (`elicitation::url_check::LONG_URL_CHARS`).
    LongUrl,
    /// The URL will not be opened: not https (nor http to this computer), malformed, or hiding characters.
    RefusedScheme,
}

impl UrlWarning {
    pub(crate) const ALL: [UrlWarning; 7] = [
        UrlWarning::NotHttps,
        UrlWarning::IpLiteral,
        UrlWarning::Punycode,
        UrlWarning::MixedScript,
        UrlWarning::Userinfo,
        UrlWarning::LongUrl,
        UrlWarning::RefusedScheme,
    ];

    /// The code written to `--events` (the CLI contract's URL warning codes).
    pub fn as_str(self) -> &'static str {
        match self {
            UrlWarning::NotHttps => "not_https",
            UrlWarning::IpLiteral => "ip_literal",
            UrlWarning::Punycode => "punycode",
            UrlWarning::MixedScript => "mixed_script",
            UrlWarning::Userinfo => "userinfo",
            UrlWarning::LongUrl => "long_url",
            UrlWarning::RefusedScheme => "refused_scheme",
        }
    }
}

/// What the user is shown about a URL a server wants opened. When the registrable domain is known, the host prefix
/// followed by the registrable domain is exactly the display host, so the UI can emphasise the domain without
/// splitting strings itself.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UrlReview {
    /// The URL exactly as the server sent it.
    pub url: String,
    /// What the browser is given (the URL parsed and serialised again); null when the URL may not open.
    pub normalized: Option<String>,
    /// The scheme, lower case, when the URL parsed.
    pub scheme: Option<String>,
    /// The host the browser will contact, in ASCII (punycode) form; an IP address as text. Only for http(s).
    pub host: Option<String>,
    /// The host in Unicode; differs from `host` only for internationalised names.
    pub display_host: Option<String>,
    /// The registrable domain in Unicode form (`example.co.uk` for `a.b.example.co.uk`); null for IP addresses,
    /// localhost and single-label hosts.
    pub registrable_domain: Option<String>,
    /// The part of the display host before the registrable domain, dot included (`a.b.`); empty when the host is
    /// the registrable domain itself.
    pub host_prefix: Option<String>,
    /// Everything the user should know, in a stable order, each once.
    pub warnings: Vec<UrlWarning>,
    /// Whether the URL may be opened once the user consents.
    pub may_open: bool,
    /// Why the URL will not be opened, for the user; null when it may open.
    pub refusal: Option<String>,
}
