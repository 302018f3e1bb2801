//! What needs no keyring: the value never shows in `Debug`/`Display`/errors, names and values are validated, stdin
//! lines are read the way `wharf secret set` promises. The real backends are tested end to end in
//! crates/wharf-cli/tests/secrets.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::backend::mapped;
use super::*;

const VALUE: &str = "sk-live-0123456789abcdef";

#[test]
fn a_secret_prints_as_stars() {
    let secret = Secret::new(VALUE);
    assert_eq!(format!("{secret:?}"), "***");
    assert_eq!(format!("{secret}"), "***");
    assert_eq!(format!("{:?}", Some(&secret)), "Some(***)");
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Holder {
        key: Secret,
    }
    let shown = format!(
        "{:#?}",
        Holder {
            key: secret.clone()
        }
    );
    assert!(!shown.contains(VALUE), "{shown}");
    assert_eq!(secret.expose(), VALUE);
    assert_eq!(secret.into_inner(), VALUE);
}

#[test]
fn names_are_refused_when_empty_too_long_or_with_control_characters() {
    for bad in [
        "",
        "   ",
        "a\nb",
        "tab\there",
        "nul\0",
        "esc\u{1b}[31m",
        "del\u{7f}",
        "c1\u{85}",
    ] {
        let err = validate_name(bad).expect_err(bad);
        assert!(
            matches!(err, SecretError::InvalidName { .. }),
            "{bad:?}: {err:?}"
        );
        // A control character is shown escaped, so the one-line error stays one line.
        assert_eq!(err.to_string().lines().count(), 1, "{err}");
    }
    let long = "n".repeat(MAX_NAME_BYTES + 1);
    assert!(validate_name(&long).is_err());
    for good in [
        "openai",
        "input:web-key",
        "a b",
        "clé-ü",
        &"n".repeat(MAX_NAME_BYTES),
    ] {
        validate_name(good).expect(good);
    }
}

#[test]
fn the_store_checks_names_and_values_before_any_keyring_call() {
    // Keyutils is not touched: both refusals come before the backend is reached.
    let store = SecretStore::with_backend(Backend::Keyutils);
    assert!(matches!(
        store.get("a\nb"),
        Err(SecretError::InvalidName { .. })
    ));
    assert!(matches!(
        store.delete(""),
        Err(SecretError::InvalidName { .. })
    ));
    assert!(matches!(
        store.set("ok", &Secret::new("")),
        Err(SecretError::InvalidValue(_))
    ));
    let too_long = Secret::new("v".repeat(MAX_VALUE_BYTES + 1));
    let err = store.set("ok", &too_long).expect_err("too long");
    assert!(!err.to_string().contains(&"v".repeat(64)), "{err}");
}

#[test]
fn errors_never_show_the_value() {
    // Whatever a reason says, `set` scrubs the value out of it.
    for err in [
        SecretError::Other(format!("platform said {VALUE} twice: {VALUE}")),
        SecretError::Denied(format!("prompt about {VALUE}")),
        SecretError::Unavailable(VALUE.to_string()),
    ] {
        let clean = scrub(err, VALUE);
        let text = clean.to_string();
        assert!(!text.contains(VALUE), "{text}");
        assert!(text.contains("***"), "{text}");
        assert!(!format!("{clean:?}").contains(VALUE));
    }
    // keyring hands back the stored bytes with a decoding error, and the matches with an ambiguous one.
    let bad = keyring::Error::BadEncoding(VALUE.as_bytes().to_vec());
    let err = mapped(Backend::Keyutils, "openai", bad);
    assert!(!err.to_string().contains(VALUE), "{err}");
    assert!(!format!("{err:?}").contains(VALUE), "{err:?}");
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    let ambiguous = mapped(
        Backend::SecretService,
        "openai",
        keyring::Error::Ambiguous(vec![]),
    );
    assert!(
        ambiguous.to_string().contains("wharf secret delete openai"),
        "{ambiguous}"
    );
}

#[test]
fn errors_name_the_backend_and_the_kind() {
    let denied = mapped(
        Backend::SecretService,
        "openai",
        keyring::Error::NoStorageAccess("collection is locked".into()),
    );
    assert_eq!(
        denied,
        SecretError::Denied("secret-service: collection is locked".into())
    );
    assert_eq!(
        denied.to_string(),
        "the OS keyring refused access: secret-service: collection is locked"
    );
    let unavailable =
        SecretError::Unavailable("no Secret Service (x) and no kernel keyring (y)".into());
    assert!(unavailable
        .to_string()
        .starts_with("no OS keyring is available: "));
}

#[test]
fn a_value_is_the_first_line_without_its_line_ending() {
    let read = |bytes: &[u8]| read_value(&mut std::io::Cursor::new(bytes.to_vec()));
    assert_eq!(read(b"abc\n").unwrap().expose(), "abc");
    assert_eq!(read(b"abc\r\n").unwrap().expose(), "abc");
    assert_eq!(read(b"abc").unwrap().expose(), "abc");
    assert_eq!(read(b" spaced  out \n").unwrap().expose(), " spaced  out ");
    assert_eq!(read(b"first\nsecond\n").unwrap().expose(), "first");
    assert_eq!(read("clé\n".as_bytes()).unwrap().expose(), "clé");
    for empty in [&b""[..], b"\n", b"\r\n", b"\nafter"] {
        let err = read(empty).expect_err("empty");
        assert!(matches!(err, SecretError::InvalidValue(_)), "{err:?}");
        assert!(err.to_string().contains("empty"), "{err}");
    }
    let err = read(b"\xff\xfe secret\n").expect_err("not UTF-8");
    assert_eq!(err, SecretError::InvalidValue("it is not UTF-8 text"));
}

#[test]
fn a_value_at_the_limit_is_read_and_a_longer_one_refused() {
    let read = |bytes: Vec<u8>| read_value(&mut std::io::Cursor::new(bytes));
    let at_limit = "k".repeat(MAX_VALUE_BYTES);
    assert_eq!(
        read(format!("{at_limit}\r\n").into_bytes())
            .unwrap()
            .expose(),
        at_limit
    );
    assert_eq!(
        read(at_limit.clone().into_bytes()).unwrap().expose(),
        at_limit
    );
    for longer in [
        MAX_VALUE_BYTES + 1,
        MAX_VALUE_BYTES + 2,
        10 * MAX_VALUE_BYTES,
    ] {
        let err = read(format!("{}\n", "k".repeat(longer)).into_bytes()).expect_err("too long");
        assert!(err.to_string().contains("longer than"), "{err}");
        assert!(!err.to_string().contains("kkkk"), "{err}");
    }
}

#[test]
fn inputs_have_their_own_names() {
    assert_eq!(input_secret_name("web-key"), "input:web-key");
    assert_ne!(input_secret_name("openai"), "openai");
    // An id that would make a bad name is refused by the store like any name.
    let store = SecretStore::with_backend(Backend::Keyutils);
    assert!(matches!(
        lookup_input(&store, "bad\nid"),
        Err(SecretError::InvalidName { .. })
    ));
}

#[test]
fn backends_have_stable_names() {
    assert_eq!(Backend::SecretService.as_str(), "secret-service");
    assert_eq!(Backend::Keyutils.to_string(), "keyutils");
}

#[test]
fn the_store_is_usable_inside_a_runtime_without_panicking() {
    // zbus's blocking calls panic on a thread that is inside a tokio runtime; refusals and keyring calls alike go
    // through `off_runtime`, so a call from async code returns instead. Checked with a work item that itself
    // asserts it has no runtime context.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let outcome: Result<bool, SecretError> = rt.block_on(async {
        backend::off_runtime(|| Ok(tokio::runtime::Handle::try_current().is_err()))
    });
    assert_eq!(outcome, Ok(true));
    let caught: Result<(), SecretError> = backend::off_runtime(|| panic!("keyring bug"));
    assert!(matches!(caught, Err(SecretError::Other(_))));
}
