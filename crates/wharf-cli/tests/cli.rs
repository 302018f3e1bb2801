//! The command line's contract for bad input: exit 2 with one clear line on stderr, never a panic or a backtrace.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use peers::*;
use serde_json::json;

fn assert_one_line_failure(out: &std::process::Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr_text(out));
    let err = stderr_text(out);
    assert_eq!(err.lines().count(), 1, "exactly one line: {err:?}");
    assert!(err.starts_with("wharf: "), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in {err:?}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout");
}

#[test]
fn a_config_syntax_error_names_the_file_line_and_column() {
    let scratch = Scratch::new(json!({}));
    std::fs::write(
        scratch.config(),
        "{\n  \"servers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}\n",
    )
    .unwrap();
    let out = scratch.run(&["servers"]);
    assert_one_line_failure(&out, &format!("{}:3:", scratch.config().display()));
}

/// VS Code's mcp.json is JSONC: comments and trailing commas are read, and a commented-out server is not one.
#[test]
fn a_config_with_comments_and_trailing_commas_is_read() {
    let scratch = Scratch::new(json!({}));
    std::fs::write(
        scratch.config(),
        r#"{
  // Servers for this machine.
  "servers": {
    /* gone */ "ghost": { "command": "/no/such/binary-wharf-test", "args": ["-v",], },
    // "commented": { "command": "true" },
    "other": { "command": "/no/such/other-wharf-test" }, // after a value
  },
}
"#,
    )
    .unwrap();
    let out = scratch.run(&["servers"]);
    assert!(out.status.success(), "stderr: {}", stderr_text(&out));
    let rows = stdout_json(&out);
    let rows = rows.as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["ghost", "other"]);
    for row in rows {
        assert!(
            row["error"].as_str().unwrap().contains("command not found"),
            "{row}"
        );
    }
}

#[test]
fn a_missing_config_file_is_a_clear_error() {
    let out = std::process::Command::new(wharf_bin())
        .args(["--config", "/nonexistent/mcp.json", "servers"])
        .output()
        .unwrap();
    assert_one_line_failure(&out, "/nonexistent/mcp.json");
}

#[test]
fn usage_errors_are_one_line() {
    let out = std::process::Command::new(wharf_bin())
        .args(["call"])
        .output()
        .unwrap();
    assert_one_line_failure(&out, "required");
}

/// A mistyped command is an unknown one, said as such.
#[test]
fn a_mistyped_command_is_unknown() {
    let out = std::process::Command::new(wharf_bin())
        .args(["chatt"])
        .output()
        .unwrap();
    assert_one_line_failure(&out, "unknown command \"chatt\"");
}

#[test]
fn an_unknown_server_in_call_is_a_clear_error() {
    let scratch = Scratch::new(json!({"servers": {"a": {"command": "true"}}}));
    let out = scratch.run(&["call", "nope", "echo", "{}"]);
    assert_one_line_failure(&out, "unknown server \"nope\"");
}

#[test]
fn a_command_that_does_not_exist_is_a_clear_error() {
    let scratch =
        Scratch::new(json!({"servers": {"ghost": {"command": "/no/such/binary-wharf-test"}}}));
    let out = scratch.run(&["call", "ghost", "echo", "{}"]);
    assert_one_line_failure(&out, "command not found: /no/such/binary-wharf-test");
    // `servers` still reports it, as failed, with the reason.
    let out = scratch.run(&["servers"]);
    assert!(out.status.success());
    let rows = stdout_json(&out);
    assert_eq!(rows[0]["status"], "failed");
    assert!(rows[0]["error"]
        .as_str()
        .unwrap()
        .contains("command not found"));
}

#[test]
fn an_unset_environment_variable_is_named_and_never_passed_on() {
    let scratch = Scratch::new(
        json!({"servers": {"a": {"command": "echo", "args": ["${env:WHARF_TEST_UNSET_VAR}"]}}}),
    );
    let out = scratch
        .wharf()
        .env_remove("WHARF_TEST_UNSET_VAR")
        .args(["call", "a", "t"])
        .output()
        .unwrap();
    assert_one_line_failure(&out, "WHARF_TEST_UNSET_VAR");
}

#[test]
fn bad_tool_arguments_are_a_usage_error() {
    let scratch = Scratch::new(json!({"servers": {"a": {"command": "true"}}}));
    assert_one_line_failure(
        &scratch.run(&["call", "a", "t", "{not json"]),
        "not valid JSON",
    );
    assert_one_line_failure(
        &scratch.run(&["call", "a", "t", "[1]"]),
        "must be a JSON object",
    );
}

#[test]
fn a_server_that_exits_at_once_fails_with_its_stderr() {
    let scratch = Scratch::new(
        json!({"servers": {"dies": {"command": "sh", "args": ["-c", "echo 'cannot open db' >&2; exit 7"]}}}),
    );
    let out = scratch.run(&["call", "dies", "t"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    let last = err.lines().last().unwrap();
    assert!(
        last.contains("exited with status 7") && last.contains("cannot open db"),
        "{err}"
    );
}
