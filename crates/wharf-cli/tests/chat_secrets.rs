//! Secrets never travel on from a chat turn (docs/cli.md, "chat" and "Secrets are never printed"): what a server
//! echoes of its env or headers, a provider's error quoting the API key at the very place it is cut, a secret the
//! model streams in pieces. Checked where they could land: what the provider is sent, what `wharf chat`, `session`
//! and `conversations show/export` print, and the raw bytes of every file wharf wrote.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/chat_provider.rs"]
mod chat_provider;

#[path = "support/chat_turns.rs"]
mod chat_turns;

use std::path::Path;
use std::process::Command;

use chat_provider::ChatProvider;
use chat_turns::*;
use peers::*;
use serde_json::json;

const ENV_TOKEN: &str = "tok-env-5c1d9e77aa31";
const ENV_PASSWORD: &str = "hunter2-in-env";
const HEADER_BEARER: &str = "hdr-bearer-0f3e9a71c2";
const HEADER_TENANT: &str = "tenant-acme-77";
/// The error text is cut after this many characters (the provider layer's limit).
const ERROR_CHARS: usize = 300;

/// Every piece of `secret` of `len` bytes or more found in `text`.
fn pieces_in(text: &str, secret: &str, len: usize) -> Vec<String> {
    secret
        .as_bytes()
        .windows(len)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .filter(|w| text.contains(w.as_str()))
        .collect()
}

/// Every file under `dir` but the configuration (which holds the values), read as bytes: the conversation
/// database and its journal, the events file, whatever wharf wrote.
fn files_written(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.file_name().is_some_and(|n| n != "mcp.json") {
            let bytes = std::fs::read(&path).unwrap();
            found.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    found
}

/// The echoing server over HTTP: its `echo_headers` tool says the headers wharf sent it.
fn echo_server_http() -> Peer {
    let mut cmd = Command::new("python3");
    cmd.arg(fixture("echo_secrets_server.py")).arg("http");
    Peer::start(cmd, "http://127.0.0.1:")
}

#[test]
fn a_server_echoing_its_env_and_headers_gives_neither_the_model_nor_the_conversation_the_values() {
    let secrets = [ENV_TOKEN, ENV_PASSWORD, HEADER_BEARER, HEADER_TENANT];
    for kind in FLAVOURS {
        let web = echo_server_http();
        let provider = ChatProvider::start(json!([
            {"tool_calls": [
                {"id": "e", "name": "env__echo_env", "arguments": {"names": ["API_TOKEN", "DB_PASSWORD", "ROOT"]}},
                {"id": "h", "name": "web__echo_headers", "arguments": {}}]},
            {"text": "Both answered."}
        ]));
        let scratch = scratch_for(
            &provider,
            kind,
            json!({
                "env": {"command": "python3", "args": [fixture("echo_secrets_server.py")], "toolApproval": "allow",
                        "env": {"API_TOKEN": ENV_TOKEN, "DB_PASSWORD": ENV_PASSWORD, "ROOT": "/w/project-root"}},
                "web": {"url": web.ready_line.trim(), "toolApproval": "allow",
                        "headers": {"Authorization": format!("Bearer {HEADER_BEARER}"), "X-Tenant": HEADER_TENANT}}
            }),
        );
        let (out, turn) = chat(&scratch, &[], "show me what you were given");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));
        let requests = provider.requests();
        assert_eq!(requests.len(), 2, "{kind}");
        let results = tool_results(&requests[1], kind);
        let given: String = results.iter().map(|(_, text)| text.as_str()).collect();
        // The servers did echo them (masked where they stood), and what only looks ordinary is left for the model.
        for echoed in [
            "API_TOKEN=[redacted]",
            "DB_PASSWORD=[redacted]",
            "ROOT=/w/project-root",
            "authorization: [redacted]",
            "x-tenant: [redacted]",
        ] {
            assert!(
                given
                    .to_ascii_lowercase()
                    .contains(&echoed.to_ascii_lowercase()),
                "{kind}: {echoed} not in {given}"
            );
        }
        let id = turn["conversation"].as_str().unwrap();
        let show = scratch.run(&["conversations", "show", id]);
        let markdown = scratch.run(&["conversations", "export", id]);
        let exported = scratch.run(&["conversations", "export", id, "--format", "json"]);
        assert!(
            String::from_utf8_lossy(&markdown.stdout).contains("API_TOKEN=[redacted]"),
            "{kind}: the export has no tool result"
        );
        let mut places = vec![
            (
                "the requests".to_string(),
                serde_json::to_string(&requests).unwrap(),
            ),
            (
                "chat's stdout".into(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ),
            ("chat's stderr".into(), stderr_text(&out)),
        ];
        for (name, out) in [
            ("show", &show),
            ("export", &markdown),
            ("export json", &exported),
        ] {
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr_text(out));
            places.push((
                name.to_string(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ));
        }
        places.extend(files_written(scratch.dir.path()));
        assert!(
            places.iter().any(|(p, _)| p.ends_with("conversations.db")),
            "{places:?}"
        );
        for (place, text) in &places {
            for secret in secrets {
                assert!(!text.contains(secret), "{kind}: {secret} in {place}");
            }
        }
    }
}

/// A secret the model writes reaches a session's `chat_delta` events in 3-character pieces: no piece of it gets out.
#[test]
fn a_secret_the_model_streams_in_pieces_is_never_shown_in_halves() {
    let provider = ChatProvider::start(json!([
        {"text": format!("The token is {ENV_TOKEN}, and the password {ENV_PASSWORD}.")}
    ]));
    let scratch = scratch_for(
        &provider,
        "openai",
        json!({"env": {"command": "python3", "args": [fixture("echo_secrets_server.py")],
                       "env": {"API_TOKEN": ENV_TOKEN, "DB_PASSWORD": ENV_PASSWORD}}}),
    );
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "chat", "conversation": null, "message": "say it"}));
    let reply = session.reply(1);
    let shown = session_deltas(&session.seen);
    assert_eq!(
        shown, "The token is [redacted], and the password [redacted].",
        "{reply}"
    );
    assert!(
        session
            .seen
            .iter()
            .filter(|v| v["event"] == "chat_delta")
            .count()
            > 3,
        "the reply did not stream in pieces"
    );
    let (_, seen) = session.quit_and_collect();
    let all = serde_json::to_string(&seen).unwrap();
    for secret in [ENV_TOKEN, ENV_PASSWORD] {
        assert!(pieces_in(&all, secret, 6).is_empty(), "{secret}: {all}");
        for (place, text) in files_written(scratch.dir.path()) {
            assert!(!text.contains(secret), "{secret} in {place}");
        }
    }
}

/// The provider's key is read from the keyring (here the kernel's keyutils, in a session keyring of the test's
/// own). A provider that quotes it back in an HTTP error and in an error inside the stream, each time across the
/// place where the error is cut for showing, and a reply that repeats it, then the same in a summary of the
/// conversation (`chat --summarize`): no piece of six characters or more is printed, stored or written anywhere.
#[test]
fn a_provider_quoting_the_api_key_across_the_cut_leaves_no_piece_of_it() {
    if Command::new("keyctl").arg("--version").output().is_err() {
        panic!("keyctl is missing: run scripts/deps.sh (package keyutils)");
    }
    const KEY: &str = "sk-Qz7cut-3b8e1f0a9d7c55e2";
    // The key begins ten characters before the cut and ends well after it.
    let quoted = format!("{}{KEY} is not a valid key", "e".repeat(ERROR_CHARS - 10));
    let provider = ChatProvider::start(json!([
        {"status": 400, "body": {"error": {"message": quoted}}},
        {"text": "Thinking", "error_after": true, "error_message": quoted},
        {"text": format!("Your key is {KEY}; keep it safe.")},
        // Two summaries of the third conversation: the first fails quoting the key, the second repeats it.
        {"status": 400, "body": {"error": {"message": quoted}}},
        {"text": format!("The user was told their key, {KEY}.")}
    ]));
    let unique = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let key_name = format!("wharf-test-chat-key-{unique}");
    let mut chat = provider.chat_config("openai");
    chat["provider"]["apiKeySecret"] = json!(key_name);
    let scratch = Scratch::new(json!({"servers": {}, "chat": chat}));
    let dir = scratch.dir.path();
    // keyutils also links keys into the user's persistent keyring: a name of this run only, deleted at the end.
    let script = r#"
set -e
trap '"$WHARF" secret delete "$KEY_NAME" >/dev/null 2>&1' EXIT
printf %s "$KEY" | "$WHARF" secret set "$KEY_NAME" > "$D/secret.out" 2> "$D/secret.err"
for n in 1 2 3; do
  "$WHARF" --config "$D/mcp.json" chat "turn $n" > "$D/chat$n.out" 2> "$D/chat$n.err" || echo $? > "$D/chat$n.status"
done
id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["conversation"])' "$D/chat3.out")
for n in 1 2; do
  "$WHARF" --config "$D/mcp.json" chat --summarize "$id" > "$D/summary$n.out" 2> "$D/summary$n.err" \
    || echo $? > "$D/summary$n.status"
done
"#;
    let status = Command::new("keyctl")
        .args(["session", "-", "sh", "-c", script])
        .env("KEY", KEY)
        .env("KEY_NAME", &key_name)
        .env("WHARF", wharf_bin())
        .env("D", dir)
        .env("WHARF_LOG", "debug")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .status()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(status.success(), "{}", read("secret.err"));
    // The key was read and sent: the provider got it in every request.
    let records = provider.records();
    assert_eq!(records.len(), 5, "{}", read("chat1.err"));
    for record in &records {
        assert_eq!(record["authorization"], format!("Bearer {KEY}"));
    }
    // The two errors end their turns with exit 2 and say what the provider said, cut; the third reply is kept.
    assert_eq!(read("chat1.status").trim(), "2", "{}", read("chat1.err"));
    assert_eq!(read("chat2.status").trim(), "2", "{}", read("chat2.err"));
    assert!(read("chat1.err").contains("eeeee"), "{}", read("chat1.err"));
    assert!(read("chat2.err").contains("eeeee"), "{}", read("chat2.err"));
    assert!(
        read("chat3.out").contains("Your key is [redacted]; keep it safe."),
        "{}",
        read("chat3.out")
    );
    // A summary's failure says what the provider said, cut; the summary that came is kept, masked.
    assert_eq!(
        read("summary1.status").trim(),
        "2",
        "{}",
        read("summary1.err")
    );
    assert!(
        read("summary1.err").contains("eeeee"),
        "{}",
        read("summary1.err")
    );
    assert!(
        read("summary2.out").contains("The user was told their key, [redacted]."),
        "{}",
        read("summary2.out")
    );
    let mut places = files_written(dir);
    let listed = stdout_json(&scratch.run(&["conversations", "list"]));
    assert_eq!(listed.as_array().unwrap().len(), 4, "{listed}");
    for conversation in listed.as_array().unwrap() {
        let id = conversation["id"].as_str().unwrap();
        for args in [
            &["conversations", "show", id][..],
            &["conversations", "export", id],
        ] {
            let out = scratch.run(args);
            places.push((
                args.join(" "),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ));
        }
    }
    assert!(places.iter().any(|(p, _)| p.ends_with("conversations.db")));
    for (place, text) in &places {
        let found = pieces_in(text, KEY, 6);
        assert!(found.is_empty(), "{found:?} of the key in {place}: {text}");
    }
    // Nothing lost with it: the notices of the failed turns are kept with the provider's words.
    let all: String = places.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all.contains("[redac"), "no mask anywhere");
}
