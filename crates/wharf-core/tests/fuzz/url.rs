//! URL analysis of what a server asks the user to open, on URLs assembled from the parts attackers play with:
//! userinfo, IP addresses in every notation, IDN and punycode, ports, escapes, control and bidi characters.
//! What may open is what the browser would contact over https, or plain http to this computer only, judged on
//! the normalized URL the browser is given; reviewing that again gives the same verdict.

use std::net::IpAddr;

use proptest::prelude::*;
use wharf_core::elicitation::url_check::review;
use wharf_core::question::url::UrlWarning;

use crate::strategies::text;

fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "https://",
        "http://",
        "HTTPS://",
        "hTTp://",
        "https:",
        "http:/",
        "javascript:",
        "file://",
        "data:text/html,",
        "ftp://",
        "//",
        "",
        " https://",
        "https:\\\\",
    ]);
    let userinfo = prop::sample::select(vec![
        "",
        "",
        "",
        "user@",
        "user:pass@",
        "good.com@",
        "@",
        "a%40b@",
        "127.0.0.1@",
    ]);
    let host = prop::sample::select(vec![
        "example.com",
        "EXAMPLE.com.",
        "localhost",
        "LOCALHOST",
        "a.localhost",
        "localhost.evil.com",
        "127.0.0.1",
        "127.1",
        "0x7f.0.0.1",
        "2130706433",
        "0177.0.0.1",
        "0.0.0.0",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[0:0:0:0:0:0:0:1]",
        "10.0.0.1",
        "[fe80::1%25eth0]",
        "аррӏе.com",
        "xn--80ak6aa92e.com",
        "xn--",
        "ex\u{0430}mple.com",
        "例え.テスト",
        "a..b",
        "",
        "%65xample.com",
        "exa\u{200b}mple.com",
        "evil.com\u{202e}moc.elgoog",
        "a b.com",
        "example.co.uk",
        "127.0.0.1.nip.io",
    ]);
    let port = prop::sample::select(vec!["", "", ":443", ":80", ":0", ":65536", ":x", ":"]);
    let path = prop::sample::select(vec![
        "",
        "/",
        "/a?b=c#d",
        "/%2e%2e/",
        "/\u{0}",
        "/\n",
        "/\t",
        "\\evil.com",
        "/@evil.com",
        "?next=//evil.com",
        "#@evil.com",
    ]);
    prop_oneof![
        6 => (scheme, userinfo, host, port, path).prop_map(|(s, u, h, p, rest)| format!("{s}{u}{h}{p}{rest}")),
        1 => text(),
    ]
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => *d == "localhost" || d.ends_with(".localhost"),
        url::Host::Ipv4(ip) => IpAddr::V4(*ip).is_loopback(),
        url::Host::Ipv6(ip) => IpAddr::V6(*ip).is_loopback(),
    }
}

fn check(input: &str) -> Result<(), TestCaseError> {
    let r = review(input);
    prop_assert_eq!(r.may_open, r.normalized.is_some());
    prop_assert_eq!(r.may_open, !r.warnings.contains(&UrlWarning::RefusedScheme));
    let Some(normalized) = &r.normalized else {
        prop_assert!(r.refusal.is_some());
        return Ok(());
    };
    let parsed = url::Url::parse(normalized);
    prop_assert!(
        parsed.is_ok(),
        "{:?} normalized to {:?}, which does not parse",
        input,
        normalized
    );
    let parsed = parsed.unwrap();
    let host = parsed.host();
    prop_assert!(host.is_some(), "{:?} may open without a host", input);
    let host = host.unwrap();
    prop_assert!(
        parsed.scheme() == "https" || (parsed.scheme() == "http" && is_loopback(&host)),
        "{:?} may open, and the browser would contact {:?} over {}",
        input,
        host,
        parsed.scheme()
    );
    // The review names an IPv6 address without its brackets.
    let host_text = match &host {
        url::Host::Ipv6(ip) => ip.to_string(),
        other => other.to_string(),
    };
    prop_assert_eq!(r.host.as_deref(), Some(host_text.as_str()));
    prop_assert!(
        !normalized
            .chars()
            .any(|c| c.is_control() || c.is_whitespace()),
        "{:?} is handed over with hidden characters",
        normalized
    );
    let again = review(normalized);
    prop_assert!(
        again.may_open,
        "{:?} opens, its normalized form {:?} does not",
        input,
        normalized
    );
    prop_assert_eq!(again.normalized.as_deref(), Some(normalized.as_str()));
    Ok(())
}

proptest! {
    #[test]
    fn what_may_open_is_https_or_loopback_http(input in url_like()) {
        check(&input)?;
    }

    #[test]
    fn any_text_is_reviewed(input in any::<String>()) {
        check(&input)?;
    }
}
