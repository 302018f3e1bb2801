//! What the user must know about a URL before it opens, and the only way Wharf opens one.
//!
//! A server in URL-mode elicitation sends the user to a web page. The server is not trusted: the link may be a
//! script (`javascript:`), a local file, a look-alike host (`аррӏе.com` in Cyrillic), a host hidden behind
//! userinfo (`https://good.com@evil.com/`) or text reordered by invisible characters. [`review`] says what the
//! link really is (the host the browser will contact, its registrable domain) and whether it may open at all;
//! [`open_in_browser`] opens only what a review allowed. Nothing here fetches the URL.

use std::io;

use unicode_script::ScriptExtension;
use url::{Host, Url};

use crate::question::url::{UrlReview, UrlWarning};

/// Above this many characters a URL gets `long_url`. 2048 is the longest URL every browser and most servers have
/// historically accepted (old Internet Explorer stopped at 2083, the sitemaps protocol and many CDNs at 2048);
/// legitimate consent and sign-in links stay far below it, and beyond it nobody can read the whole URL in a dialog,
/// which is where a misleading query or fragment would hide.
pub const LONG_URL_CHARS: usize = 2048;

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("the link was not opened: {0}")]
    Refused(String),
    #[error("the system browser could not be started: {0}")]
    Browser(io::Error),
}

/// Reviews a URL a server sent. Never fails and never panics: anything that cannot be understood is refused.
pub fn review(url: &str) -> UrlReview {
    let mut out = UrlReview {
        url: url.to_owned(),
        normalized: None,
        scheme: None,
        host: None,
        display_host: None,
        registrable_domain: None,
        host_prefix: None,
        warnings: Vec::new(),
        may_open: false,
        refusal: None,
    };
    let mut warnings = WarningSet::default();
    // Counted on what the user is shown; the serialisation can only be longer (percent-encoding), checked below.
    if url.chars().count() > LONG_URL_CHARS {
        warnings.add(UrlWarning::LongUrl);
    }
    let refusal = inspect(url, &mut out, &mut warnings);
    if out
        .normalized
        .as_ref()
        .is_some_and(|n| n.len() > LONG_URL_CHARS)
    {
        warnings.add(UrlWarning::LongUrl);
    }
    match refusal {
        Some(sentence) => {
            warnings.add(UrlWarning::RefusedScheme);
            out.normalized = None;
            out.refusal = Some(sentence);
        }
        None => out.may_open = true,
    }
    out.warnings = warnings.into_vec();
    out
}

/// Fills `out` and `warnings` from the URL; returns the refusal sentence if it may not open.
fn inspect(url: &str, out: &mut UrlReview, warnings: &mut WarningSet) -> Option<String> {
    // Before parsing: the url crate silently drops tabs, newlines and surrounding spaces, so ` javascript:x` and
    // `java\tscript:x` would otherwise be judged on a string other than the one the user sees, and invisible or
    // bidi characters make the displayed URL read differently from what it is.
    if let Some(c) = url.chars().find(|&c| is_hidden_or_control(c)) {
        return Some(format!(
            "The link contains an invisible, whitespace or control character (U+{:04X}), which can disguise where \
             it leads, so Wharf will not open it.",
            u32::from(c)
        ));
    }
    if url.is_empty() {
        return Some("The server sent an empty link, so there is nothing to open.".to_owned());
    }
    let parsed = match Url::parse(url) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Some(format!(
                "This is not a complete web address ({e}), so Wharf will not open it."
            ))
        }
    };
    let scheme = parsed.scheme();
    out.scheme = Some(scheme.to_owned());
    if scheme != "https" && scheme != "http" {
        return Some(format!(
            "Links of type \"{scheme}:\" can run code or reach local files and other programs; Wharf opens only \
             https web pages."
        ));
    }
    let Some(host) = parsed.host() else {
        // The url crate gives every http(s) URL a host; refusing keeps a future change from opening a hostless one.
        return Some("The link names no host, so Wharf will not open it.".to_owned());
    };
    let loopback = describe_host(&host, out, warnings);
    if !parsed.username().is_empty() || parsed.password().is_some() || authority_has_at(url) {
        warnings.add(UrlWarning::Userinfo);
    }
    out.normalized = Some(parsed.as_str().to_owned());
    if scheme == "http" {
        warnings.add(UrlWarning::NotHttps);
        if !loopback {
            let host = out.host.as_deref().unwrap_or("the host");
            return Some(format!(
                "The link uses unencrypted http to {host}, where anyone on the way could read or change the page. \
                 Wharf opens http only on this computer (localhost); the server should send an https link."
            ));
        }
    }
    None
}

/// Records the host and its warnings; returns whether it is this computer.
fn describe_host(host: &Host<&str>, out: &mut UrlReview, warnings: &mut WarningSet) -> bool {
    match host {
        Host::Ipv4(ip) => {
            warnings.add(UrlWarning::IpLiteral);
            out.host = Some(ip.to_string());
            out.display_host = out.host.clone();
            ip.is_loopback()
        }
        Host::Ipv6(ip) => {
            warnings.add(UrlWarning::IpLiteral);
            // std writes IPv4-mapped addresses in mixed notation (`::ffff:127.0.0.1`, RFC 5952) where the url crate
            // writes `::ffff:7f00:1`: the user recognises the first. Only ::1 counts as loopback, the mapped form
            // does not (browsers disagree on it, refusing is the safe side).
            out.host = Some(ip.to_string());
            out.display_host = out.host.clone();
            ip.is_loopback()
        }
        Host::Domain(ascii) => {
            let ascii: &str = ascii;
            let (unicode, decoded) = idna::domain_to_unicode(ascii);
            // The url crate has already validated the name, so a decoding error is not expected; the ASCII form is
            // then the honest thing to show.
            let display = if decoded.is_ok() {
                unicode
            } else {
                ascii.to_owned()
            };
            if ascii.split('.').any(|label| {
                label
                    .get(..4)
                    .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
            }) {
                warnings.add(UrlWarning::Punycode);
            }
            if is_mixed_script(&display) {
                warnings.add(UrlWarning::MixedScript);
            }
            let loopback = ascii == "localhost" || ascii.ends_with(".localhost");
            if !loopback {
                if let Some((prefix, domain)) = registrable_parts(ascii, &display) {
                    out.host_prefix = Some(prefix);
                    out.registrable_domain = Some(domain);
                }
            }
            out.host = Some(ascii.to_owned());
            out.display_host = Some(display);
            loopback
        }
    }
}

/// Splits the Unicode host into (prefix, registrable domain) by the public suffix list, matched on the ASCII form
/// (the form the list is compiled for). A trailing dot stays on the domain so the two parts concatenate back.
fn registrable_parts(ascii: &str, display: &str) -> Option<(String, String)> {
    let domain = psl::domain_str(ascii)?;
    let domain_labels = domain.split('.').count();
    let (body, fqdn_dot) = match display.strip_suffix('.') {
        Some(body) => (body, "."),
        None => (display, ""),
    };
    let labels: Vec<&str> = body.split('.').collect();
    let split = labels.len().checked_sub(domain_labels)?;
    let prefix = labels.get(..split)?;
    let registrable = labels.get(split..)?;
    let mut prefix = prefix.join(".");
    if !prefix.is_empty() {
        prefix.push('.');
    }
    Some((prefix, format!("{}{fqdn_dot}", registrable.join("."))))
}

/// True when the host's letters cannot all belong to one script. Digits, hyphens and dots (Common) and combining
/// marks (Inherited) fit any script; characters used by several scripts count for each of them (Script_Extensions),
/// as in UTS #39's resolved script set. Unlike UTS #39 there is no allowance for Japanese mixing Han and kana: such a
/// host gets the warning, which is only a warning.
fn is_mixed_script(host: &str) -> bool {
    ScriptExtension::for_str(host).is_empty()
}

/// Whether the raw authority (between the scheme's slashes and the path) contains `@`. The url crate forgets an empty
/// userinfo (`https://@evil.com`, `https://:@evil.com`), but the user still sees text before an `@`. Only called on
/// URLs that parsed as http(s), so the first `:` ends the scheme; `\` ends the authority as it does for the url crate.
fn authority_has_at(url: &str) -> bool {
    let Some((_, rest)) = url.split_once(':') else {
        return false;
    };
    let rest = rest.trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    rest.get(..end)
        .is_some_and(|authority| authority.contains('@'))
}

/// Characters that make a URL read differently from what it is: whitespace and control characters (the url crate
/// drops some of them silently), and the invisible ones (Unicode's Default_Ignorable_Code_Point: zero-width
/// characters, bidi controls such as U+202E, soft hyphen, Hangul fillers, variation selectors, tag characters), plus
/// the blank-looking Braille pattern and the interlinear annotation controls.
fn is_hidden_or_control(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || c == '\u{2800}'
        || crate::display_text::is_default_ignorable(c)
}

/// The warnings of one review: each at most once, listed in declaration order whatever order they were found in.
#[derive(Default)]
struct WarningSet(u8);

impl WarningSet {
    fn add(&mut self, warning: UrlWarning) {
        self.0 |= 1 << warning as u8;
    }

    fn into_vec(self) -> Vec<UrlWarning> {
        UrlWarning::ALL
            .into_iter()
            .filter(|w| self.0 & (1 << *w as u8) != 0)
            .collect()
    }
}

/// Opens a reviewed URL in the system browser (`$BROWSER` first, then the desktop's default), after the user's
/// consent. Refuses unless the review allowed it. The browser's output is discarded. May block while a text-mode
/// browser named in `$BROWSER` runs, so call it off the async runtime's worker threads.
pub fn open_in_browser(reviewed: &UrlReview) -> Result<(), OpenError> {
    open_with(reviewed, |url| {
        webbrowser::open_browser_with_options(
            webbrowser::Browser::Default,
            url,
            webbrowser::BrowserOptions::new().with_suppress_output(true),
        )
    })
}

fn open_with(
    reviewed: &UrlReview,
    launch: impl FnOnce(&str) -> io::Result<()>,
) -> Result<(), OpenError> {
    if !reviewed.may_open {
        return Err(OpenError::Refused(reviewed.refusal.clone().unwrap_or_else(
            || "the review did not allow this link to open".to_owned(),
        )));
    }
    let Some(target) = reviewed.normalized.as_deref() else {
        return Err(OpenError::Refused(
            "the review holds no address to open".to_owned(),
        ));
    };
    // The review's fields are public (it travels to the UI as data), so one built or altered elsewhere must not be
    // a way around the rules: the address actually handed to the browser is reviewed again on its own.
    let again = review(target);
    if !again.may_open || again.normalized.as_deref() != Some(target) {
        return Err(OpenError::Refused(again.refusal.unwrap_or_else(|| {
            "the address to open does not match its review".to_owned()
        })));
    }
    launch(target).map_err(OpenError::Browser)
}

#[cfg(test)]
mod tests;
