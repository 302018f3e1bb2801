//! `file:` URIs read as a URL parser reads them (WHATWG; Python's urllib strips the same characters): whitespace
//! around them, tabs and newlines inside, any case, percent-escapes, backslashes and hosts cannot hide where they
//! lead.

use super::*;
use std::path::Path;

/// A plain path parameter and a URI one: a server may hand either to a URL parser.
fn schemas() -> [Value; 2] {
    [
        fs_schema("read_text_file"),
        json!({"properties": {"path": {"type": "string", "format": "uri", "description": "file:// URI of the file"}}}),
    ]
}

#[test]
fn a_file_uri_to_etc_passwd_is_refused_however_it_is_dressed() {
    let f = fixture();
    let dressed = [
        " file:///etc/passwd",
        "file:///etc/passwd ",
        "  \t file:///etc/passwd \n",
        "\nfile:///etc/passwd\r\n",
        "\u{0}file:///etc/passwd",
        "\u{1}\u{1f}file:///etc/passwd\u{7}",
        "\u{b}\u{c}file:///etc/passwd",
        "fi\tle:///etc/passwd",
        "f\ri\nl\te:///etc/passwd",
        "file\t:///etc/passwd",
        "file:\n///etc/passwd",
        "file:///et\rc/pa\tss\nwd",
        "FILE:///etc/passwd",
        "File:///etc/passwd",
        "file:/etc/passwd",
        "file:etc/passwd",
        "file:////etc/passwd",
        "file://localhost/etc/passwd",
        "file://LOCALHOST/etc/passwd",
        "file:///%65tc/passwd",
        "file:///etc%2Fpasswd",
        "file:///tmp/%2e%2e/etc/passwd",
        "file:///tmp/%2E%2E/etc/passwd",
        "file:///tmp/.%2e/etc/passwd",
        "file:\\\\\\etc\\passwd",
        "file:\\etc\\passwd",
        " FI\tLE:/etc/passwd",
    ];
    for schema in schemas() {
        for value in dressed {
            let v = check_in(&f, &schema, json!({"path": value}));
            assert_eq!(v.len(), 1, "{value:?} was let through: {v:?}");
            assert_eq!(
                v[0].resolved.as_deref(),
                Some(Path::new("/etc/passwd")),
                "{value:?}: {}",
                v[0].reason
            );
        }
    }
}

#[test]
fn a_file_uri_escaping_the_folder_with_dressing_is_refused() {
    let f = fixture();
    let w = f.w.display().to_string();
    for value in [
        format!(" file://{w}/%2e%2e/outside/secret.txt"),
        format!("file://{w}/%2E%2E/outside/secret.txt\t"),
        format!("fi\nle://{w}/src/%2e%2e/%2e%2e/outside/secret.txt"),
        format!("file://{w}/..%2Foutside%2Fsecret.txt"),
        format!("file://{w}\\..\\outside\\secret.txt"),
        format!("\u{1f}file://localhost{w}/../outside/secret.txt"),
    ] {
        for schema in schemas() {
            let v = check_in(&f, &schema, json!({"path": value}));
            assert_eq!(v.len(), 1, "{value:?} was let through");
            assert_eq!(
                v[0].resolved.as_deref(),
                Some(f.outside.join("secret.txt").as_path()),
                "{value:?}: {}",
                v[0].reason
            );
        }
    }
}

#[test]
fn a_file_uri_on_another_host_is_refused() {
    let f = fixture();
    for value in [
        "file://host/share/x",
        " file://server.example/etc/passwd",
        "file://127.0.0.1/etc/passwd",
        "file:\\\\host\\share\\x",
        "fi\tle://evil/etc/passwd",
    ] {
        for schema in schemas() {
            let v = check_in(&f, &schema, json!({"path": value}));
            assert_eq!(v.len(), 1, "{value:?} was let through");
            assert!(
                v[0].reason.contains("not a local file URI"),
                "{value:?}: {}",
                v[0].reason
            );
        }
    }
}

#[test]
fn a_file_uri_inside_stays_accepted_with_or_without_dressing() {
    let f = fixture();
    let uri = url::Url::from_file_path(f.w.join("src/main.rs"))
        .unwrap()
        .to_string();
    let upper = uri.replacen("file:", "FILE:", 1);
    let tabbed = uri.replacen("file:", "fi\tle:", 1);
    for value in [
        uri.clone(),
        format!(" {uri}\n"),
        upper,
        tabbed,
        format!("{uri}/../main.rs"),
    ] {
        for schema in schemas() {
            assert_eq!(
                check_in(&f, &schema, json!({"path": value})),
                [],
                "{value:?}"
            );
        }
    }
}

#[test]
fn a_plain_path_with_whitespace_around_it_is_checked_trimmed_too() {
    let f = fixture();
    let schema = fs_schema("read_text_file");
    for value in [
        " /etc/passwd",
        "/etc/passwd\n",
        "\t/etc/passwd\r\n",
        "\u{a0}/etc/passwd",
        "\u{2003}/etc/passwd\u{3000}",
    ] {
        let v = check_in(&f, &schema, json!({"path": value}));
        assert_eq!(v.len(), 1, "{value:?} was let through");
        assert_eq!(
            v[0].resolved.as_deref(),
            Some(Path::new("/etc/passwd")),
            "{value:?}"
        );
    }
    // A NUL cannot be opened as it is; trimmed, it is /etc/passwd.
    assert_eq!(
        check_in(&f, &schema, json!({"path": "\u{0}/etc/passwd"})).len(),
        1
    );
    // Inside, trimmed or not, it passes.
    assert_eq!(check_in(&f, &schema, json!({"path": " src/main.rs\n"})), []);
}

#[test]
fn other_schemes_are_not_local_in_a_uri_parameter_however_dressed() {
    let f = fixture();
    let schema = &schemas()[1];
    for value in [
        "https://example.com/../../etc/passwd",
        " HTTPS://example.com/x",
        "ht\ttps://example.com/x",
        "mailto:a@example.com",
    ] {
        assert_eq!(
            check_in(&f, schema, json!({"path": value})),
            [],
            "{value:?}"
        );
    }
}
