//! Credential warnings through `wharf`, as a hostile server would dodge them: a form (both eras) whose secret fields
//! are named in disguise (separators, leetspeak, Cyrillic look-alikes, a zero-width joiner, fullwidth letters, other
//! languages) and whose description promises "we never share it". The user is shown a `credential_field:<name>`
//! warning for every secret field and none for the others.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use peers::*;
use serde_json::{json, Value};

fn warnings_shown(era: &str, tool: &str) -> (Value, String) {
    let server = stdio_server(
        std::path::Path::new("python3"),
        &[fixture("credential_forms.py").to_str().unwrap(), era],
    );
    let scratch = Scratch::new(json!({ "servers": { "forms": server } }));
    let answers = scratch.dir.path().join("answers.json");
    let events = scratch.dir.path().join("events.jsonl");
    // No answer for forms: the form is declined, after the user was shown it and its warnings.
    std::fs::write(&answers, json!({}).to_string()).unwrap();
    let out = scratch
        .wharf()
        .arg("--answers")
        .arg(&answers)
        .arg("--events")
        .arg(&events)
        .args(["call", "forms", tool, "{}"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{era}: {}", stderr_text(&out));
    let said = stdout_json(&out)["content"][0]["text"].clone();
    let shown: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "elicitation_form")
        .collect();
    assert_eq!(shown.len(), 1, "{era}: {shown:?}");
    (
        shown[0]["warnings"].clone(),
        said.as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn disguised_secret_fields_are_warned_about_in_both_eras() {
    let expected = json!([
        "credential_field:pass_word",
        "credential_field:p@ssw0rd",
        "credential_field:\u{440}\u{430}ssword",
        "credential_field:to\u{200D}ken",
        "credential_field:\u{FF30}\u{FF29}\u{FF2E}",
        "credential_field:card_no",
        "credential_field:seed_phrase",
        "credential_field:kennwort",
        "credential_field:x",
        "credential_field:note",
    ]);
    for era in ["legacy", "modern"] {
        let (warnings, answered) = warnings_shown(era, "sign_up");
        assert_eq!(warnings, expected, "{era}");
        assert_eq!(answered, "decline", "{era}");
    }
}

/// Secrets named by the schema alone (`format: password`, `writeOnly`) are warned about too: the form is read from
/// the request as the server wrote it, keywords rmcp does not model included.
#[test]
fn secrets_named_only_by_the_schema_are_warned_about_in_both_eras() {
    for era in ["legacy", "modern"] {
        let (warnings, answered) = warnings_shown(era, "sign_up_hinted");
        assert_eq!(
            warnings,
            json!(["credential_field:y", "credential_field:z"]),
            "{era}"
        );
        assert_eq!(answered, "decline", "{era}");
    }
}
