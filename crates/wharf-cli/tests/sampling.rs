//! Sampling through `wharf`: `@modelcontextprotocol/server-everything@2026.8.31`'s `trigger-sampling-request` (legacy
//! `sampling/createMessage`, stdio and Streamable HTTP) and the python `mcp` 2.3.0 fixture's `summarize` (2026-07-28,
//! MRTR), answered through a fake OpenAI-compatible provider on loopback that records what Wharf sent it. The user's
//! preferences live in the scratch `$XDG_CONFIG_HOME/wharf/sampling.json`.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/fake_llm.rs"]
mod fake_llm;

use std::path::PathBuf;
use std::process::{Command, Output};

use fake_llm::{chat_reply, FakeLlm};
use peers::*;
use serde_json::{json, Value};

struct Rig {
    scratch: Scratch,
    llm: FakeLlm,
    answers: PathBuf,
    events: PathBuf,
}

impl Rig {
    fn new(servers: Value, reply: &str) -> Rig {
        let llm = FakeLlm::start(chat_reply(reply, "fake-large"));
        let scratch = Scratch::new(json!({
            "servers": servers,
            "sampling": {"provider": {"kind": "openai", "baseUrl": llm.base_url, "model": "fake-large"}}
        }));
        let dir = scratch.dir.path().to_path_buf();
        Rig {
            answers: dir.join("answers.json"),
            events: dir.join("events.jsonl"),
            scratch,
            llm,
        }
    }

    fn answer(&self, answers: Value) {
        std::fs::write(&self.answers, answers.to_string()).unwrap();
    }

    fn wharf(&self) -> Command {
        let mut cmd = self.scratch.wharf();
        cmd.arg("--answers")
            .arg(&self.answers)
            .arg("--events")
            .arg(&self.events);
        cmd
    }

    fn call(&self, server: &str, tool: &str, args: Value) -> Output {
        self.wharf()
            .args(["call", server, tool, &args.to_string()])
            .output()
            .unwrap()
    }

    fn prefs_file(&self) -> PathBuf {
        self.scratch.dir.path().join("config/wharf/sampling.json")
    }

    fn shown(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.events)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["kind"] == "sampling")
            .collect()
    }
}

fn text(out: &Output) -> String {
    stdout_json(out)["content"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn sampling_round_trip(server: Value) {
    let rig = Rig::new(json!({ "ev": server }), "The model's own words.");
    rig.answer(json!({"sampling": {"action": "accept", "edit_reply": "Edited by the user."}}));
    let out = rig.call(
        "ev",
        "trigger-sampling-request",
        json!({"prompt": "tell me", "maxTokens": 77}),
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let result = text(&out);
    // The server received the reply as the user edited it, from the model the provider named.
    assert!(result.contains("Edited by the user."), "{result}");
    assert!(!result.contains("The model's own words."), "{result}");
    // The provider got exactly the server's prompt, its system prompt and its token budget.
    let sent = rig.llm.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/chat/completions");
    let body = &sent[0].body;
    assert_eq!(body["model"], "fake-large");
    assert_eq!(body["max_tokens"], 77);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][0]["content"],
        "You are a helpful test server."
    );
    assert_eq!(body["messages"][1]["role"], "user");
    assert!(
        body["messages"][1]["content"]
            .to_string()
            .contains("context: tell me"),
        "{body}"
    );
    assert!(
        sent[0].header("authorization").is_none(),
        "no key configured, none sent"
    );
    let shown = rig.shown();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["policy"], "ask");
    assert_eq!(shown[0]["answer"], "accept");
    assert_eq!(shown[0]["max_tokens"], 77);
    assert_eq!(shown[0]["model"], "fake-large");
    assert_eq!(shown[0]["system_prompt"], "You are a helpful test server.");
}

#[test]
fn a_legacy_sampling_request_is_reviewed_sent_and_its_reply_edited_over_stdio() {
    sampling_round_trip(everything_stdio());
}

#[test]
fn a_legacy_sampling_request_over_streamable_http() {
    let http = everything_http();
    sampling_round_trip(json!({"type": "http", "url": http.url}));
}

#[test]
fn a_rejection_reaches_the_server_as_the_spec_says_and_nothing_goes_to_the_provider() {
    let rig = Rig::new(json!({ "ev": everything_stdio() }), "unused");
    rig.answer(json!({"sampling": {"action": "decline"}}));
    let out = rig.call("ev", "trigger-sampling-request", json!({"prompt": "no"}));
    // server-everything turns the error it got into a failed tool call.
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr_text(&out)
    );
    assert!(
        shown.contains("-1") || shown.to_lowercase().contains("reject"),
        "{shown}"
    );
    assert!(rig.llm.requests().is_empty());
    assert_eq!(rig.shown()[0]["answer"], "decline");
}

#[test]
fn always_allow_is_remembered_per_definition_and_a_changed_definition_asks_again() {
    let rig = Rig::new(json!({ "ev": everything_stdio() }), "fine");
    // The user approves and says "always" for this server.
    rig.answer(json!({"sampling": {"action": "accept", "content": {"remember": "always"}}}));
    let out = rig.call("ev", "trigger-sampling-request", json!({"prompt": "one"}));
    assert!(text(&out).contains("fine"), "{}", stderr_text(&out));
    let prefs: Value =
        serde_json::from_str(&std::fs::read_to_string(rig.prefs_file()).unwrap()).unwrap();
    assert_eq!(prefs["servers"]["ev"]["policy"], "allow", "{prefs}");
    // Next time there is no question (a scripted user with no sampling entry would refuse).
    rig.answer(json!({}));
    let out = rig.call("ev", "trigger-sampling-request", json!({"prompt": "two"}));
    assert!(text(&out).contains("fine"), "{}", stderr_text(&out));
    assert_eq!(rig.shown()[1]["policy"], "allow");
    // The server's definition changes (another argument): the allow no longer holds, the user is asked (and the
    // scripted user, having no entry, refuses).
    let mut changed = everything_stdio();
    changed["env"] = json!({"WHARF_TEST_CHANGED": "1"});
    std::fs::write(
        rig.scratch.config(),
        json!({
            "servers": {"ev": changed},
            "sampling": {"provider": {"kind": "openai", "baseUrl": rig.llm.base_url, "model": "fake-large"}}
        })
        .to_string(),
    )
    .unwrap();
    rig.call("ev", "trigger-sampling-request", json!({"prompt": "three"}));
    let third = &rig.shown()[2];
    assert_eq!(third["policy"], "ask", "{third}");
    assert_eq!(third["answer"], "decline", "{third}");
    assert_eq!(rig.llm.requests().len(), 2);
}

#[test]
fn deny_and_limits_from_the_preferences_file() {
    let rig = Rig::new(json!({ "ev": everything_stdio() }), "limited");
    // Learn the server's definition hash the way a user does: allow it once, always.
    rig.answer(json!({"sampling": {"action": "accept", "content": {"remember": "always"}}}));
    rig.call("ev", "trigger-sampling-request", json!({"prompt": "learn"}));
    let mut prefs: Value =
        serde_json::from_str(&std::fs::read_to_string(rig.prefs_file()).unwrap()).unwrap();
    // Allow with limits: at most 10 tokens, one request an hour.
    prefs["servers"]["ev"]["limits"] = json!({"maxTokens": 10, "requestsPerHour": 1});
    std::fs::write(rig.prefs_file(), prefs.to_string()).unwrap();
    rig.answer(json!({}));
    let out = rig.call(
        "ev",
        "trigger-sampling-request",
        json!({"prompt": "big", "maxTokens": 500}),
    );
    assert!(text(&out).contains("limited"), "{}", stderr_text(&out));
    assert_eq!(
        rig.llm.requests()[1].body["max_tokens"],
        10,
        "never more than the limit"
    );
    // Deny: refused without a question and without the provider.
    prefs["servers"]["ev"]["policy"] = json!("deny");
    std::fs::write(rig.prefs_file(), prefs.to_string()).unwrap();
    rig.call("ev", "trigger-sampling-request", json!({"prompt": "no"}));
    assert_eq!(rig.llm.requests().len(), 2);
    let last = rig.shown().last().cloned().unwrap();
    assert_eq!(last["policy"], "deny");
    assert_eq!(last["answer"], "decline");
}

#[test]
fn a_corrupt_preferences_file_is_set_aside_with_a_notice_and_everything_asks() {
    let rig = Rig::new(json!({ "ev": everything_stdio() }), "after corruption");
    std::fs::create_dir_all(rig.prefs_file().parent().unwrap()).unwrap();
    std::fs::write(rig.prefs_file(), "{ this is not json").unwrap();
    rig.answer(json!({"sampling": {"action": "accept"}}));
    let out = rig.call("ev", "trigger-sampling-request", json!({"prompt": "x"}));
    assert!(
        text(&out).contains("after corruption"),
        "{}",
        stderr_text(&out)
    );
    let notices: Vec<Value> = std::fs::read_to_string(&rig.events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "notice")
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n["message"].as_str().unwrap().contains("corrupt")),
        "{notices:?}"
    );
    let aside: Vec<_> = std::fs::read_dir(rig.prefs_file().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("sampling.json.corrupt"))
        .collect();
    assert_eq!(aside.len(), 1, "the old file is kept aside");
    assert_eq!(rig.shown()[0]["policy"], "ask");
}

#[test]
fn modern_era_sampling_goes_through_mrtr_with_a_one_time_deprecation_notice() {
    let python = stdio_server(&python(), &[fixture("py_server.py").to_str().unwrap()]);
    let rig = Rig::new(json!({ "py": python }), "A short summary.");
    rig.answer(json!({"sampling": {"action": "accept"}}));
    let out = rig.call("py", "summarize", json!({"topic": "rust"}));
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert!(text(&out).contains("A short summary."), "{}", text(&out));
    assert_eq!(rig.llm.requests()[0].body["max_tokens"], 64);
    let deprecations = std::fs::read_to_string(&rig.events)
        .unwrap()
        .lines()
        .filter(|l| l.contains("deprecated_capability") && l.contains("sampling"))
        .count();
    assert_eq!(deprecations, 1);
}

#[test]
fn without_a_provider_sampling_is_not_offered() {
    let scratch = Scratch::new(json!({"servers": {"ev": everything_stdio()}}));
    let out = scratch.run(&["tools", "ev"]);
    let names: Vec<String> = stdout_json(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    // server-everything registers trigger-sampling-request only for a client that declares sampling.
    assert!(
        !names.contains(&"trigger-sampling-request".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"echo".to_string()));
}

/// The provider's key and a `${input:...}` value live in the keyring only (here the kernel's keyutils, in a session
/// keyring of the test's own): the key reaches the provider's Authorization header and the input the server's
/// environment, and neither appears in wharf's output, its debug log, the events file or any file it wrote.
#[test]
fn keys_come_from_the_keyring_and_appear_nowhere_else() {
    if std::process::Command::new("keyctl")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("keyctl is missing: run scripts/deps.sh (package keyutils)");
    }
    const KEY: &str = "sk-wharf-test-5f1d0c9e7a";
    const INPUT: &str = "input-value-8c2b41d7e3";
    let llm = FakeLlm::start(chat_reply("keyed reply", "fake-large"));
    // keyutils also links keys into the user's persistent keyring: names of this run only, deleted at the end.
    let unique = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let key_name = format!("wharf-test-llm-{unique}");
    let input_id = format!("wharf-test-tok-{unique}");
    let mut server = everything_stdio();
    server["env"] = json!({"WHARF_TEST_TOKEN": format!("${{input:{input_id}}}")});
    let scratch = Scratch::new(json!({
        "servers": {"ev": server},
        "sampling": {"provider": {"kind": "openai", "baseUrl": llm.base_url, "model": "fake-large", "apiKeySecret": key_name}}
    }));
    let dir = scratch.dir.path();
    std::fs::write(
        dir.join("answers.json"),
        json!({"sampling": {"action": "accept"}}).to_string(),
    )
    .unwrap();
    let script = r#"
set -e
trap '"$WHARF" secret delete "$KEY_NAME" >/dev/null 2>&1; "$WHARF" secret delete "input:$INPUT_ID" >/dev/null 2>&1' EXIT
printf %s "$KEY" | "$WHARF" secret set "$KEY_NAME" > "$D/secret1.out" 2> "$D/secret1.err"
printf %s "$INPUT" | "$WHARF" secret set "input:$INPUT_ID" > "$D/secret2.out" 2> "$D/secret2.err"
"$WHARF" --config "$D/mcp.json" --answers "$D/answers.json" --events "$D/events.jsonl" \
  call ev trigger-sampling-request '{"prompt": "hello"}' > "$D/call.out" 2> "$D/call.err"
"$WHARF" --config "$D/mcp.json" call ev get-env > "$D/env.out" 2> "$D/env.err"
"#;
    let status = Command::new("keyctl")
        .args(["session", "-", "sh", "-c", script])
        .env("KEY", KEY)
        .env("INPUT", INPUT)
        .env("KEY_NAME", &key_name)
        .env("INPUT_ID", &input_id)
        .env("WHARF", wharf_bin())
        .env("D", dir)
        .env("WHARF_LOG", "debug")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .status()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(
        status.success(),
        "{}\n{}\n{}",
        read("secret1.err"),
        read("call.err"),
        read("env.err")
    );
    assert!(
        read("call.out").contains("keyed reply"),
        "{}",
        read("call.err")
    );
    let sent = llm.requests();
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    // The input reached the server (its own get-env tool shows it; that output is the server's, not wharf's).
    assert!(read("env.out").contains(INPUT), "{}", read("env.err"));
    // Everywhere wharf wrote (but the server's own answer above, and the input files): no key, no input value.
    let mut scanned = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.file_name().is_some_and(|n| n == "env.out") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "the API key is in {}", path.display());
        assert!(
            !text.contains(INPUT),
            "the input value is in {}",
            path.display()
        );
        scanned += 1;
    }
    assert!(scanned >= 8, "too few files scanned: {scanned}");
    assert!(
        read("call.err").contains("DEBUG") || read("call.err").contains("debug"),
        "the debug log was not on"
    );
}

/// On a terminal, an `${input:ID}` the keyring lacks is asked once (hidden), stored, and found the next time without
/// a question.
#[test]
fn a_missing_input_is_asked_once_on_the_terminal_and_kept_in_the_keyring() {
    let unique = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let id = format!("wharf-test-prompted-{unique}");
    const VALUE: &str = "typed-once-4e8a1c";
    let mut server = everything_stdio();
    server["env"] = json!({"WHARF_TEST_TOKEN": format!("${{input:{id}}}")});
    let scratch = Scratch::new(json!({
        "servers": {"ev": server},
        "inputs": [{"id": id, "type": "promptString", "description": "Token for ev", "password": true}]
    }));
    let dir = scratch.dir.path();
    std::fs::write(dir.join("typed.txt"), format!("{VALUE}\n")).unwrap();
    let script = r#"
trap '"$WHARF" secret delete "input:$ID" >/dev/null 2>&1' EXIT
script -qec "'$WHARF' --config '$D/mcp.json' call ev get-env" /dev/null < "$D/typed.txt" > "$D/first.out"
script -qec "'$WHARF' --config '$D/mcp.json' call ev get-env" /dev/null < /dev/null > "$D/second.out"
"#;
    let status = Command::new("keyctl")
        .args(["session", "-", "sh", "-c", script])
        .env("WHARF", wharf_bin())
        .env("D", dir)
        .env("ID", &id)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .status()
        .unwrap();
    assert!(status.success());
    let first = std::fs::read_to_string(dir.join("first.out")).unwrap();
    let second = std::fs::read_to_string(dir.join("second.out")).unwrap();
    assert!(first.contains("Token for ev"), "{first}");
    // The server got it. (Typed ahead of the prompt, as here, the terminal echoes it before echo is turned off,
    // so hiding is not checked here.)
    assert!(
        first.contains(&format!("\\\"WHARF_TEST_TOKEN\\\": \\\"{VALUE}\\\"")),
        "{first}"
    );
    // The second run found it in the keyring: no question.
    assert!(!second.contains("Token for ev"), "{second}");
    assert!(second.contains(VALUE), "{second}");
}
