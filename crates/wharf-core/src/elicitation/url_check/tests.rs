#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::net::IpAddr;

use proptest::prelude::*;

use super::*;
use UrlWarning::{
    IpLiteral as I, LongUrl as L, MixedScript as M, NotHttps as N, Punycode as P,
    RefusedScheme as R, Userinfo as U,
};

struct Row {
    input: String,
    warnings: &'static [UrlWarning],
    may_open: bool,
    /// The expected `host`; `None` for everything that is refused before a host is looked at.
    host: Option<&'static str>,
}

fn row(
    input: impl Into<String>,
    warnings: &'static [UrlWarning],
    may_open: bool,
    host: Option<&'static str>,
) -> Row {
    Row {
        input: input.into(),
        warnings,
        may_open,
        host,
    }
}

/// `https://example.com/` followed by enough `a`s to make `len` characters.
fn url_of_len(len: usize) -> String {
    let base = "https://example.com/";
    format!("{base}{}", "a".repeat(len - base.len()))
}

fn rows() -> Vec<Row> {
    let long_label = "a".repeat(200);
    let long_label_host: &'static str =
        Box::leak(format!("{long_label}.example.com").into_boxed_str());
    vec![
        // What may open.
        row(
            "https://example.com/path?q=1",
            &[],
            true,
            Some("example.com"),
        ),
        row("HTTPS://Example.COM/Path", &[], true, Some("example.com")),
        row("https://example.com:8443/x", &[], true, Some("example.com")),
        row("https://example.com./", &[], true, Some("example.com.")),
        row("https:example.com", &[], true, Some("example.com")),
        row(
            format!("https://{long_label}.example.com/"),
            &[],
            true,
            Some(long_label_host),
        ),
        row(
            "https://ｅｘａｍｐｌｅ.com/",
            &[],
            true,
            Some("example.com"),
        ),
        // Loopback http: allowed, with a warning.
        row(
            "http://localhost:8080/callback",
            &[N],
            true,
            Some("localhost"),
        ),
        row("http://app.localhost/", &[N], true, Some("app.localhost")),
        row("http://127.0.0.1:3000/", &[N, I], true, Some("127.0.0.1")),
        row("http://127.8.9.10/", &[N, I], true, Some("127.8.9.10")),
        row("http://[::1]:8443/done", &[N, I], true, Some("::1")),
        row(
            "http://user:pw@localhost:8080/",
            &[N, U],
            true,
            Some("localhost"),
        ),
        // http anywhere else: refused.
        row("http://example.com/", &[N, R], false, Some("example.com")),
        row(
            "http://192.168.1.1/",
            &[N, I, R],
            false,
            Some("192.168.1.1"),
        ),
        row(
            "http://localhost.evil.com/",
            &[N, R],
            false,
            Some("localhost.evil.com"),
        ),
        row("http://localhost./", &[N, R], false, Some("localhost.")),
        row(
            "http://[::ffff:127.0.0.1]/",
            &[N, I, R],
            false,
            Some("::ffff:127.0.0.1"),
        ),
        row("http://user@evil.com/", &[N, U, R], false, Some("evil.com")),
        // Other schemes, whatever their case or the whitespace around them.
        row("javascript:alert(1)", &[R], false, None),
        row("JAVASCRIPT:alert(1)", &[R], false, None),
        row("JaVaScRiPt:alert(document.cookie)", &[R], false, None),
        row(" javascript:alert(1)", &[R], false, None),
        row("\tjavascript:alert(1)", &[R], false, None),
        row("\njavascript:alert(1)", &[R], false, None),
        row("java\tscript:alert(1)", &[R], false, None),
        row("javascript:alert(1) ", &[R], false, None),
        row(
            "data:text/html,<script>alert(1)</script>",
            &[R],
            false,
            None,
        ),
        row(
            "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
            &[R],
            false,
            None,
        ),
        row("file:///etc/passwd", &[R], false, None),
        row("vbscript:msgbox(1)", &[R], false, None),
        row(
            "blob:https://example.com/550e8400-e29b-41d4-a716-446655440000",
            &[R],
            false,
            None,
        ),
        row("about:blank", &[R], false, None),
        row("myapp://oauth/callback?code=1", &[R], false, None),
        row("mailto:someone@example.com", &[R], false, None),
        row("ftp://ftp.example.com/file", &[R], false, None),
        // Not absolute URLs, or malformed.
        row("/relative/path", &[R], false, None),
        row("//evil.com/path", &[R], false, None),
        row("example.com", &[R], false, None),
        row("", &[R], false, None),
        row("https://", &[R], false, None),
        row("https://xn--abc.com/", &[R], false, None),
        row("https://999.999.999.999/", &[R], false, None),
        // Look-alike hosts.
        row(
            "https://аррӏе.com/",
            &[P, M],
            true,
            Some("xn--80ak6aa92e.com"),
        ),
        row(
            "https://xn--80ak6aa92e.com/",
            &[P, M],
            true,
            Some("xn--80ak6aa92e.com"),
        ),
        row(
            "https://pаypal.com/",
            &[P, M],
            true,
            Some("xn--pypal-4ve.com"),
        ),
        row(
            "https://gοogle.com/",
            &[P, M],
            true,
            Some("xn--gogle-rce.com"),
        ),
        row(
            "https://%D0%B0pple.com/",
            &[P, M],
            true,
            Some("xn--pple-43d.com"),
        ),
        row(
            "https://пример.рф/",
            &[P],
            true,
            Some("xn--e1afmkfd.xn--p1ai"),
        ),
        row("https://bücher.de/", &[P], true, Some("xn--bcher-kva.de")),
        row("https://%65vil.com/", &[], true, Some("evil.com")),
        // Userinfo: the real host is the one after the last `@`.
        row("https://good.com@evil.com/", &[U], true, Some("evil.com")),
        row(
            "https://user:pass@example.com/",
            &[U],
            true,
            Some("example.com"),
        ),
        row("https://@evil.com/", &[U], true, Some("evil.com")),
        // IP literals, including the forms the url crate normalises.
        row("https://93.184.216.34/", &[I], true, Some("93.184.216.34")),
        row("https://[2001:db8::1]/", &[I], true, Some("2001:db8::1")),
        row("http://0x7f.1/", &[N, I], true, Some("127.0.0.1")),
        row("https://2130706433/", &[I], true, Some("127.0.0.1")),
        row("http://2130706433/", &[N, I], true, Some("127.0.0.1")),
        row("https://0177.0.0.1/", &[I], true, Some("127.0.0.1")),
        row(
            "https://[::ffff:127.0.0.1]/",
            &[I],
            true,
            Some("::ffff:127.0.0.1"),
        ),
        // Length.
        row(url_of_len(LONG_URL_CHARS), &[], true, Some("example.com")),
        row(
            url_of_len(LONG_URL_CHARS + 1),
            &[L],
            true,
            Some("example.com"),
        ),
        row(
            format!("data:text/plain,{}", "x".repeat(3000)),
            &[L, R],
            false,
            None,
        ),
        // Whitespace, control and invisible characters anywhere.
        row("https://example.com/a b", &[R], false, None),
        row("https://exa mple.com/", &[R], false, None),
        row("https://exam\u{00A0}ple.com/", &[R], false, None),
        row("https://example.com/\u{0000}", &[R], false, None),
        row("https://example.com/\u{0007}", &[R], false, None),
        row("https://example.com/\u{007F}", &[R], false, None),
        row("https://example.com/\u{0085}", &[R], false, None),
        row("https://example.com/\u{2028}", &[R], false, None),
        row("https://example.com/\u{202E}gpj.exe", &[R], false, None),
        row("https://exa\u{200B}mple.com/", &[R], false, None),
        row("https://exa\u{00AD}mple.com/", &[R], false, None),
        row("https://example.com\u{FEFF}/", &[R], false, None),
        // `@` and schemes after the authority are only text.
        row(
            "https://example.com/?redirect=javascript:alert(1)",
            &[],
            true,
            Some("example.com"),
        ),
        row(
            "https://example.com/#@evil.com",
            &[],
            true,
            Some("example.com"),
        ),
        row(
            "https://example.com/path@evil.com",
            &[],
            true,
            Some("example.com"),
        ),
        row(
            "https://example.com?next=user@evil.com",
            &[],
            true,
            Some("example.com"),
        ),
        row(
            "https://example.com\\@evil.com",
            &[],
            true,
            Some("example.com"),
        ),
    ]
}

#[test]
fn hostile_and_odd_urls() {
    let rows = rows();
    assert!(rows.len() >= 45);
    let mut failures = Vec::new();
    for r in &rows {
        let got = review(&r.input);
        let shown: String = r.input.chars().take(80).collect();
        if got.warnings != r.warnings {
            failures.push(format!(
                "{shown:?}: warnings {:?}, expected {:?}",
                got.warnings, r.warnings
            ));
        }
        if got.may_open != r.may_open {
            failures.push(format!("{shown:?}: may_open {}", got.may_open));
        }
        if got.host.as_deref() != r.host {
            failures.push(format!(
                "{shown:?}: host {:?}, expected {:?}",
                got.host, r.host
            ));
        }
        if got.url != r.input {
            failures.push(format!("{shown:?}: url not kept as sent"));
        }
        if got.may_open != got.normalized.is_some() || got.may_open == got.refusal.is_some() {
            failures.push(format!(
                "{shown:?}: normalized/refusal disagree with may_open"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn registrable_domain_and_prefix() {
    let r = review("https://a.b.example.co.uk/x");
    assert_eq!(r.display_host.as_deref(), Some("a.b.example.co.uk"));
    assert_eq!(r.registrable_domain.as_deref(), Some("example.co.uk"));
    assert_eq!(r.host_prefix.as_deref(), Some("a.b."));

    let r = review("https://login.xn--80ak6aa92e.com/");
    assert_eq!(r.host.as_deref(), Some("login.xn--80ak6aa92e.com"));
    assert_eq!(r.display_host.as_deref(), Some("login.аррӏе.com"));
    assert_eq!(r.registrable_domain.as_deref(), Some("аррӏе.com"));
    assert_eq!(r.host_prefix.as_deref(), Some("login."));
    assert_eq!(r.warnings, [P, M]);

    let r = review("https://example.com/");
    assert_eq!(r.registrable_domain.as_deref(), Some("example.com"));
    assert_eq!(r.host_prefix.as_deref(), Some(""));

    let r = review("https://www.example.com./");
    assert_eq!(r.registrable_domain.as_deref(), Some("example.com."));
    assert_eq!(r.host_prefix.as_deref(), Some("www."));

    for none in [
        "http://localhost/",
        "http://a.localhost/",
        "https://127.0.0.1/",
        "https://[::1]/",
        "https://intranet/",
    ] {
        let r = review(none);
        assert_eq!(r.registrable_domain, None, "{none}");
        assert_eq!(r.host_prefix, None, "{none}");
    }
}

#[test]
fn both_forms_of_an_idn_host_are_kept() {
    let r = review("https://аррӏе.com/login");
    assert_eq!(r.url, "https://аррӏе.com/login");
    assert_eq!(
        r.normalized.as_deref(),
        Some("https://xn--80ak6aa92e.com/login")
    );
    assert_eq!(r.display_host.as_deref(), Some("аррӏе.com"));
    assert_eq!(r.scheme.as_deref(), Some("https"));
}

#[test]
fn refusals_say_why() {
    let r = review("javascript:alert(1)");
    assert_eq!(r.scheme.as_deref(), Some("javascript"));
    assert!(r.refusal.as_deref().unwrap().contains("javascript:"));
    let r = review("https://example.com/\u{202E}");
    assert!(r.refusal.as_deref().unwrap().contains("U+202E"));
    let r = review("http://evil.example/");
    assert!(r.refusal.as_deref().unwrap().contains("evil.example"));
    assert_eq!(r.normalized, None);
}

#[test]
fn codes_match_the_contract_and_serde() {
    let codes: Vec<&str> = UrlWarning::ALL.iter().map(|w| w.as_str()).collect();
    assert_eq!(
        codes,
        [
            "not_https",
            "ip_literal",
            "punycode",
            "mixed_script",
            "userinfo",
            "long_url",
            "refused_scheme"
        ]
    );
    for w in UrlWarning::ALL {
        assert_eq!(serde_json::to_value(w).unwrap(), w.as_str());
    }
    let v = serde_json::to_value(review("https://аррӏе.com/")).unwrap();
    assert_eq!(v["displayHost"], "аррӏе.com");
    assert_eq!(
        v["warnings"],
        serde_json::json!(["punycode", "mixed_script"])
    );
    assert_eq!(v["mayOpen"], true);
}

#[test]
fn a_refused_review_never_reaches_the_browser() {
    let launched = Cell::new(false);
    let launch = |_: &str| {
        launched.set(true);
        Ok(())
    };
    for url in [
        "javascript:alert(1)",
        "http://evil.example/",
        "https://example.com/\u{202E}",
        "",
    ] {
        let err = open_with(&review(url), launch).unwrap_err();
        assert!(matches!(err, OpenError::Refused(_)), "{url}: {err}");
    }
    // Reviews built or edited outside `review` are checked again.
    let mut forged = review("https://example.com/");
    forged.normalized = Some("javascript:alert(1)".to_owned());
    assert!(matches!(
        open_with(&forged, launch),
        Err(OpenError::Refused(_))
    ));
    forged.normalized = Some("http://evil.example/".to_owned());
    assert!(matches!(
        open_with(&forged, launch),
        Err(OpenError::Refused(_))
    ));
    forged.normalized = None;
    assert!(matches!(
        open_with(&forged, launch),
        Err(OpenError::Refused(_))
    ));
    let mut forged = review("javascript:alert(1)");
    forged.may_open = true;
    assert!(matches!(
        open_with(&forged, launch),
        Err(OpenError::Refused(_))
    ));
    assert!(!launched.get());
    assert!(matches!(
        open_in_browser(&review("data:text/html,x")),
        Err(OpenError::Refused(_))
    ));
}

#[test]
fn an_allowed_review_hands_over_the_normalized_url() {
    let mut seen = None;
    open_with(&review("https://аррӏе.com/a%20b"), |url| {
        seen = Some(url.to_owned());
        Ok(())
    })
    .unwrap();
    assert_eq!(seen.as_deref(), Some("https://xn--80ak6aa92e.com/a%20b"));
    let err = open_with(&review("https://example.com/"), |_| {
        Err(io::Error::other("no browser"))
    })
    .unwrap_err();
    assert!(matches!(err, OpenError::Browser(_)));
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn check_invariants(input: &str) -> Result<(), TestCaseError> {
    let r = review(input);
    prop_assert_eq!(&r.url, input);
    if r.may_open {
        let scheme = r.scheme.as_deref();
        let host = r.host.as_deref().unwrap_or("");
        prop_assert!(
            scheme == Some("https") || (scheme == Some("http") && is_loopback_host(host)),
            "{:?} may open with scheme {:?} host {:?}",
            input,
            scheme,
            host
        );
        prop_assert!(!r.warnings.contains(&R));
        prop_assert!(r.normalized.is_some() && r.refusal.is_none());
    } else {
        prop_assert!(r.warnings.contains(&R));
        prop_assert!(r.normalized.is_none() && r.refusal.is_some());
    }
    let mut sorted = r.warnings.clone();
    sorted.sort_by_key(|w| *w as u8);
    sorted.dedup();
    prop_assert_eq!(&sorted, &r.warnings);
    Ok(())
}

proptest! {
    #[test]
    fn never_panics_on_any_string(input in any::<String>()) {
        check_invariants(&input)?;
    }

    #[test]
    fn never_panics_on_url_like_strings(
        input in "(https?|HTTP|javascript|data|file|x)?:?(//|\\\\)?([a-z0-9@:%.\\[\\]а-я-]|xn--){0,12}([/?#][ -~]{0,12})?"
    ) {
        check_invariants(&input)?;
    }
}
