use super::*;
use serde_json::{json, Value};

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wharf/sampling.json");
    (dir, path)
}

fn open(path: &Path) -> SamplingPrefs {
    let (prefs, notice) = SamplingPrefs::open(path.to_path_buf());
    assert_eq!(notice, None);
    prefs
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn limits(max_tokens: u32, per_hour: u32) -> Limits {
    Limits {
        max_tokens: Some(max_tokens),
        requests_per_hour: Some(per_hour),
        models: vec!["gpt-4o-mini".into()],
    }
}

fn ask() -> Decision {
    Decision::Ask { reason: None }
}

fn asides(path: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    found.sort();
    found
}

#[test]
fn shared_by_the_host() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<SamplingPrefs>();
}

#[test]
fn everything_asks_by_default_and_nothing_is_written() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    assert_eq!(prefs.decide("fs", "h1"), ask());
    assert!(prefs.list().is_empty());
    assert!(prefs.take_notices().is_empty());
    assert!(!path.exists());
}

#[test]
fn allow_with_limits_is_stored_in_the_documented_format() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Allow, limits(500, 10))
        .unwrap();
    assert_eq!(prefs.decide("fs", "h1"), Decision::Allow(limits(500, 10)));
    assert_eq!(prefs.decide("other", "h1"), ask());
    assert_eq!(
        read_json(&path),
        json!({"version": 1, "servers": {"fs": {
            "policy": "allow",
            "limits": {"maxTokens": 500, "requestsPerHour": 10, "models": ["gpt-4o-mini"]},
            "definitionHash": "h1"
        }}})
    );
    // Another instance (another run of Wharf) reads it back.
    assert_eq!(
        open(&path).decide("fs", "h1"),
        Decision::Allow(limits(500, 10))
    );
}

#[test]
fn deny_stays_deny_even_when_the_definition_changes() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Deny, Limits::default())
        .unwrap();
    assert_eq!(prefs.decide("fs", "h1"), Decision::Deny);
    assert_eq!(prefs.decide("fs", "h2"), Decision::Deny);
    // A session allow (given before the deny, or by a stale dialog) does not override it.
    prefs.allow_for_session("fs", "h1", Limits::default());
    assert_eq!(prefs.decide("fs", "h1"), Decision::Deny);
}

#[test]
fn a_session_allow_is_never_written_and_gone_in_a_new_instance() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("other", "h9", Policy::Deny, Limits::default())
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    prefs.allow_for_session("fs", "h1", limits(100, 5));
    assert_eq!(prefs.decide("fs", "h1"), Decision::Allow(limits(100, 5)));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let rows = prefs.list();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].server, "fs");
    assert!(rows[0].session_only);
    assert_eq!(rows[0].preference.policy, Policy::Allow);
    assert!(!rows[1].session_only);
    assert_eq!(open(&path).decide("fs", "h1"), ask());
}

#[test]
fn a_changed_definition_turns_allow_into_ask_with_a_reason() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Allow, Limits::default())
        .unwrap();
    let Decision::Ask {
        reason: Some(reason),
    } = prefs.decide("fs", "h2")
    else {
        panic!("a changed definition must ask");
    };
    assert!(reason.contains("definition"), "{reason}");
    // Confirming again for the new definition allows it, and the old one then asks.
    prefs
        .set("fs", "h2", Policy::Allow, Limits::default())
        .unwrap();
    assert_eq!(prefs.decide("fs", "h2"), Decision::Allow(Limits::default()));
    assert!(matches!(
        prefs.decide("fs", "h1"),
        Decision::Ask { reason: Some(_) }
    ));

    // The same for a session allow.
    prefs.allow_for_session("web", "u1", Limits::default());
    assert!(matches!(
        prefs.decide("web", "u2"),
        Decision::Ask { reason: Some(_) }
    ));
}

#[test]
fn a_stale_stored_allow_with_a_fresh_session_allow_allows() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs.set("fs", "h1", Policy::Allow, limits(1, 1)).unwrap();
    prefs.allow_for_session("fs", "h2", limits(2, 2));
    assert_eq!(prefs.decide("fs", "h2"), Decision::Allow(limits(2, 2)));
    assert_eq!(prefs.decide("fs", "h1"), Decision::Allow(limits(1, 1)));
}

#[test]
fn a_stored_choice_replaces_the_session_allow() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs.allow_for_session("fs", "h1", Limits::default());
    prefs
        .set("fs", "h1", Policy::Ask, Limits::default())
        .unwrap();
    assert_eq!(prefs.decide("fs", "h1"), ask());
    assert_eq!(prefs.list().len(), 1);
}

#[test]
fn forget_removes_the_stored_and_the_session_choice() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Allow, Limits::default())
        .unwrap();
    prefs
        .set("web", "u1", Policy::Deny, Limits::default())
        .unwrap();
    prefs.forget("fs").unwrap();
    assert_eq!(prefs.decide("fs", "h1"), ask());
    assert_eq!(
        read_json(&path)["servers"],
        json!({"web": {
            "policy": "deny",
            "limits": {"maxTokens": null, "requestsPerHour": null, "models": []},
            "definitionHash": "u1"
        }})
    );
    prefs.allow_for_session("web2", "u1", Limits::default());
    prefs.forget("web2").unwrap();
    assert_eq!(prefs.decide("web2", "u1"), ask());
}

#[test]
fn requests_per_hour_is_a_sliding_window() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    let three = Limits {
        requests_per_hour: Some(3),
        ..Limits::default()
    };
    let t0 = Instant::now();
    let at = |secs: u64| t0 + Duration::from_secs(secs);
    prefs.admit_at("fs", &three, at(0)).unwrap();
    prefs.admit_at("fs", &three, at(600)).unwrap();
    prefs.admit_at("fs", &three, at(1200)).unwrap();
    let refused = prefs.admit_at("fs", &three, at(1800)).unwrap_err();
    assert_eq!(
        (refused.server.as_str(), refused.max, refused.wait),
        ("fs", 3, Some(Duration::from_secs(1800)))
    );
    let sentence = refused.to_string();
    assert!(
        sentence.contains("\"fs\"") && sentence.contains('3'),
        "{sentence}"
    );
    assert!(sentence.contains("30 minutes"), "{sentence}");
    // Another server has its own window.
    prefs.admit_at("web", &three, at(1800)).unwrap();
    // A refused request did not count: once the first one is an hour old, one more passes, and only one.
    assert!(prefs.admit_at("fs", &three, at(3599)).is_err());
    prefs.admit_at("fs", &three, at(3600)).unwrap();
    assert!(prefs.admit_at("fs", &three, at(3601)).is_err());
    prefs.admit_at("fs", &three, at(4200)).unwrap();

    // No limit: any number; a limit of zero: none.
    for i in 0..1000 {
        prefs.admit_at("free", &Limits::default(), at(i)).unwrap();
    }
    let zero = Limits {
        requests_per_hour: Some(0),
        ..Limits::default()
    };
    let never = prefs.admit_at("none", &zero, at(0)).unwrap_err();
    assert_eq!(never.wait, None);
    assert!(
        never.to_string().contains("limited to 0 per hour"),
        "{never}"
    );
}

#[test]
fn limits_cap_tokens_and_models() {
    let l = limits(500, 1);
    assert_eq!(l.cap_max_tokens(1000), 500);
    assert_eq!(l.cap_max_tokens(20), 20);
    assert_eq!(Limits::default().cap_max_tokens(1000), 1000);
    assert!(l.allows_model("gpt-4o-mini"));
    assert!(!l.allows_model("gpt-4o"));
    assert!(Limits::default().allows_model("anything"));
}

#[test]
fn a_corrupt_file_is_set_aside_with_a_notice_and_defaults_apply() {
    let (_dir, path) = setup();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let bytes = b"{\"version\": 1, \"servers\": {\"fs\": {\"policy\": \"allow\"";
    std::fs::write(&path, bytes).unwrap();
    let (prefs, notice) = SamplingPrefs::open(path.clone());
    let notice = notice.expect("a notice");
    let aside = asides(&path);
    assert_eq!(aside.len(), 1);
    assert!(notice.contains(&path.display().to_string()), "{notice}");
    assert!(notice.contains(&aside[0].display().to_string()), "{notice}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bytes);
    assert!(!path.exists());
    assert_eq!(prefs.decide("fs", ""), ask());
    assert!(prefs.take_notices().is_empty());
    // It works on from the defaults.
    prefs
        .set("fs", "h1", Policy::Deny, Limits::default())
        .unwrap();
    assert_eq!(open(&path).decide("fs", "h1"), Decision::Deny);
}

#[test]
fn the_wrong_shape_is_corrupt_too() {
    for bad in [
        &b"[1, 2]"[..],
        b"",
        b"{\"servers\": {}}",
        b"{\"version\": 1, \"servers\": []}",
        b"{\"version\": 1, \"servers\": {\"fs\": {\"policy\": \"maybe\"}}}",
        b"{\"version\": 1, \"servers\": {\"fs\": {\"policy\": \"allow\", \"limits\": {\"maxTokens\": -1}}}}",
    ] {
        let (_dir, path) = setup();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bad).unwrap();
        let (prefs, notice) = SamplingPrefs::open(path.clone());
        assert!(notice.is_some(), "{}", String::from_utf8_lossy(bad));
        assert_eq!(std::fs::read(&asides(&path)[0]).unwrap(), bad);
        assert_eq!(prefs.decide("fs", ""), ask());
    }
}

#[test]
fn a_file_corrupted_later_is_reported_once_by_the_next_read() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Allow, Limits::default())
        .unwrap();
    std::fs::write(&path, b"garbage").unwrap();
    assert_eq!(prefs.decide("fs", "h1"), ask());
    assert_eq!(prefs.decide("fs", "h1"), ask());
    let notices = prefs.take_notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(std::fs::read(&asides(&path)[0]).unwrap(), b"garbage");

    // A write that finds it corrupt sets it aside as well, keeping the earlier copy.
    std::fs::write(&path, b"more garbage").unwrap();
    let other = open_without_reading(&path);
    other
        .set("web", "u1", Policy::Deny, Limits::default())
        .unwrap();
    assert_eq!(other.take_notices().len(), 1);
    assert_eq!(asides(&path).len(), 2);
    assert_eq!(other.decide("web", "u1"), Decision::Deny);
}

/// An instance opened while the file was still good.
fn open_without_reading(path: &Path) -> SamplingPrefs {
    SamplingPrefs {
        stored: UserStore::unread(path.to_path_buf(), &PREFS_FILE),
        state: Mutex::new(State::default()),
    }
}

#[test]
fn unknown_keys_are_read_and_kept() {
    let (_dir, path) = setup();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = json!({
        "comment": "edited by hand",
        "version": 1,
        "servers": {
            "fs": {"policy": "allow", "limits": {"maxTokens": 10, "future": true}, "definitionHash": "h1",
                   "note": "mine"},
            "web": {"policy": "deny", "definitionHash": "u1", "addedBy": "v2"}
        },
        "futureTopLevel": {"a": [1, 2]}
    });
    std::fs::write(&path, serde_json::to_vec(&original).unwrap()).unwrap();
    let prefs = open(&path);
    assert_eq!(
        prefs.decide("fs", "h1"),
        Decision::Allow(Limits {
            max_tokens: Some(10),
            ..Limits::default()
        })
    );
    prefs.set("fs", "h1", Policy::Allow, limits(20, 2)).unwrap();
    prefs
        .set("new", "n1", Policy::Deny, Limits::default())
        .unwrap();
    let now = read_json(&path);
    assert_eq!(now["comment"], "edited by hand");
    assert_eq!(now["futureTopLevel"], json!({"a": [1, 2]}));
    assert_eq!(now["servers"]["fs"]["note"], "mine");
    assert_eq!(now["servers"]["fs"]["limits"]["future"], true);
    assert_eq!(now["servers"]["fs"]["limits"]["maxTokens"], 20);
    assert_eq!(now["servers"]["web"]["addedBy"], "v2");
    assert_eq!(now["servers"]["new"]["policy"], "deny");
    // The order the user wrote is kept.
    let keys: Vec<&String> = now.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["comment", "version", "servers", "futureTopLevel"]);
    let servers: Vec<&String> = now["servers"].as_object().unwrap().keys().collect();
    assert_eq!(servers, ["fs", "web", "new"]);
    assert!(asides(&path).is_empty());
}

#[test]
fn a_newer_format_is_left_untouched_and_everything_asks() {
    let (_dir, path) = setup();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let bytes =
        br#"{"version": 2, "servers": {"fs": {"policy": "allow", "definitionHash": "h1"}}}"#;
    std::fs::write(&path, bytes).unwrap();
    let (prefs, notice) = SamplingPrefs::open(path.clone());
    assert!(notice.unwrap().contains("newer"));
    assert_eq!(prefs.decide("fs", "h1"), ask());
    // A choice that could not be stored leaves the session's as it was.
    prefs.allow_for_session("fs", "h1", Limits::default());
    let refused = prefs.set("fs", "h1", Policy::Allow, Limits::default());
    assert!(
        matches!(refused, Err(PrefsError::NewerVersion { version: 2, .. })),
        "{refused:?}"
    );
    assert_eq!(prefs.decide("fs", "h1"), Decision::Allow(Limits::default()));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert!(asides(&path).is_empty());
    assert!(prefs.take_notices().is_empty());
}

#[test]
fn a_write_by_another_instance_is_seen_at_once() {
    let (_dir, path) = setup();
    let app = open(&path);
    let cli = open(&path);
    assert_eq!(app.decide("fs", "h1"), ask());
    cli.set("fs", "h1", Policy::Deny, Limits::default())
        .unwrap();
    assert_eq!(app.decide("fs", "h1"), Decision::Deny);
    cli.forget("fs").unwrap();
    assert_eq!(app.decide("fs", "h1"), ask());
}

#[test]
fn two_instances_writing_at_once_lose_nothing() {
    let (_dir, path) = setup();
    std::thread::scope(|scope| {
        for side in ["a", "b"] {
            let path = &path;
            scope.spawn(move || {
                let prefs = open(path);
                for i in 0..25 {
                    prefs
                        .set(&format!("{side}{i}"), "h", Policy::Allow, Limits::default())
                        .unwrap();
                }
            });
        }
    });
    let rows = open(&path).list();
    assert_eq!(rows.len(), 50);
}

#[test]
fn temporaries_of_a_killed_writer_are_cleared_by_the_next_write() {
    let (_dir, path) = setup();
    let prefs = open(&path);
    prefs
        .set("fs", "h1", Policy::Deny, Limits::default())
        .unwrap();
    let orphan = path.with_file_name(".sampling.json.XyZ123.tmp");
    std::fs::write(&orphan, b"{\"vers").unwrap();
    prefs
        .set("fs", "h1", Policy::Allow, Limits::default())
        .unwrap();
    assert!(!orphan.exists());
    let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["sampling.json", "sampling.json.lock"]);
}

#[test]
fn the_default_path_is_beside_mcp_json() {
    assert_eq!(
        SamplingPrefs::default_path().parent(),
        crate::config::default_config_path().parent()
    );
    assert!(SamplingPrefs::default_path().ends_with("wharf/sampling.json"));
}
