// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn declared(connect: &[&str], resources: &[&str]) -> DeclaredCsp {
    DeclaredCsp {
        connect_domains: connect.iter().map(|d| d.to_string()).collect(),
        resource_domains: resources.iter().map(|d| d.to_string()).collect(),
        ..DeclaredCsp::default()
    }
}

/// The sources of one directive of `header`.
fn directive<'a>(header: &'a str, name: &str) -> Vec<&'a str> {
    header
        .split(';')
        .map(str::trim)
        .find_map(|d| d.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
        .map(|rest| rest.split_whitespace().collect())
        .unwrap_or_default()
}

#[test]
fn a_view_that_declares_nothing_reaches_no_network() {
    let policy = ViewPolicy::build(None);
    assert_eq!(directive(&policy.header, "connect-src"), ["'none'"]);
    assert_eq!(directive(&policy.header, "default-src"), ["'none'"]);
    assert_eq!(directive(&policy.header, "object-src"), ["'none'"]);
    assert_eq!(
        directive(&policy.header, "script-src"),
        ["'self'", "'unsafe-inline'"]
    );
    assert!(policy.refused.is_empty());
}

#[test]
fn declared_origins_are_allowed_where_declared_and_nowhere_else() {
    let csp = DeclaredCsp {
        frame_domains: vec!["https://player.example.org".into()],
        ..declared(
            &["https://api.example.com", "wss://live.example.com:8443/"],
            &["https://*.cdn.example.net"],
        )
    };
    let policy = ViewPolicy::build(Some(&csp));
    assert_eq!(
        directive(&policy.header, "connect-src"),
        [
            "'self'",
            "https://api.example.com",
            "wss://live.example.com:8443"
        ]
    );
    for resource_directive in [
        "script-src",
        "style-src",
        "img-src",
        "font-src",
        "media-src",
    ] {
        let sources = directive(&policy.header, resource_directive);
        assert!(
            sources.contains(&"https://*.cdn.example.net"),
            "{resource_directive}: {sources:?}"
        );
        assert!(
            !sources.contains(&"https://api.example.com"),
            "{resource_directive}: {sources:?}"
        );
    }
    assert_eq!(
        directive(&policy.header, "frame-src"),
        ["https://player.example.org"]
    );
    assert_eq!(directive(&policy.header, "base-uri"), ["'self'"]);
    assert_eq!(directive(&policy.header, "default-src"), ["'none'"]);
    assert!(policy.refused.is_empty(), "{:?}", policy.refused);
}

#[test]
fn a_domain_that_is_not_only_an_origin_never_reaches_the_policy() {
    let hostile = [
        "https://a.example.com; script-src *",
        "https://a.example.com\nscript-src *",
        "https://a.example.com 'unsafe-eval'",
        "'unsafe-eval'",
        "*",
        "https://*",
        "https://*.com",
        "data:",
        "blob:",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "ftp://files.example.com",
        "https://exa\u{43c}ple.com",
        "https://user@example.com",
        "https://example.com/path/",
        "https://example.com:port",
        "https://-bad-.example.com",
        "https://example..com",
        "example.com",
        "",
    ];
    let csp = declared(&hostile, &hostile);
    let policy = ViewPolicy::build(Some(&csp));
    assert_eq!(
        directive(&policy.header, "connect-src"),
        ["'self'"],
        "{}",
        policy.header
    );
    assert_eq!(
        directive(&policy.header, "script-src"),
        ["'self'", "'unsafe-inline'"],
        "{}",
        policy.header
    );
    assert_eq!(policy.refused.len(), hostile.len() * 2);
    for directive_text in policy.header.split("; ") {
        let name = directive_text.split(' ').next().unwrap();
        assert!(
            [
                "default-src",
                "script-src",
                "style-src",
                "connect-src",
                "img-src",
                "font-src",
                "media-src",
                "frame-src",
                "object-src",
                "base-uri"
            ]
            .contains(&name),
            "a directive Wharf did not write: {directive_text:?}"
        );
    }
    assert!(!policy.header.contains("unsafe-eval"));
    // What is shown of a refused domain is on one line.
    assert!(policy.refused.iter().all(|r| !r.declared.contains('\n')));
}

#[test]
fn a_lookalike_host_is_refused_and_its_punycode_is_taken() {
    let policy = ViewPolicy::build(Some(&declared(
        &["https://\u{430}pple.com", "https://xn--pple-43d.com"],
        &[],
    )));
    assert_eq!(
        directive(&policy.header, "connect-src"),
        ["'self'", "https://xn--pple-43d.com"]
    );
    assert_eq!(policy.refused.len(), 1);
    assert!(
        policy.refused[0].reason.contains("punycode"),
        "{:?}",
        policy.refused
    );
}

#[test]
fn endless_declarations_are_cut_at_the_limit() {
    let many: Vec<String> = (0..1000)
        .map(|i| format!("https://h{i}.example.com"))
        .collect();
    let csp = DeclaredCsp {
        connect_domains: many,
        ..DeclaredCsp::default()
    };
    let policy = ViewPolicy::build(Some(&csp));
    assert_eq!(
        directive(&policy.header, "connect-src").len(),
        1 + MAX_DECLARED_DOMAINS
    );
    assert_eq!(policy.refused.len(), 1000 - MAX_DECLARED_DOMAINS);
}

#[test]
fn the_same_origin_twice_is_named_once() {
    let policy = ViewPolicy::build(Some(&declared(
        &["https://A.example.com", "https://a.example.com/"],
        &[],
    )));
    assert_eq!(
        directive(&policy.header, "connect-src"),
        ["'self'", "https://a.example.com"]
    );
}
