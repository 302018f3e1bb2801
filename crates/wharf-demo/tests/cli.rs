//! The demo server as the app meets it: through the real `wharf` command, over stdio, in both eras.

#[path = "support/demo.rs"]
mod support;

use serde_json::{json, Value};
use support::{demo_stdio, stderr_text, stdout_json, Scratch};

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .expect("tools is an array")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:#}"))
}

#[test]
fn servers_shows_it_ready_in_the_modern_era_with_its_stderr() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["servers"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let servers = stdout_json(&out);
    let demo = &servers[0];
    assert_eq!(demo["name"], "demo");
    assert_eq!(demo["status"], "ready", "{demo:#}");
    // Wharf probes stdio servers with server/discover; rmcp's server answers it, so the modern era wins.
    assert_eq!(demo["era"], "2026-07-28", "{demo:#}");
    assert_eq!(demo["lifecycle"], "modern");
    assert_eq!(demo["serverInfo"]["name"], "wharf-demo-server");
    assert_eq!(demo["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    let instructions = demo["instructions"].as_str().expect("instructions");
    assert!(
        instructions.contains("Wharf's bundled demo server"),
        "{instructions}"
    );
    for capability in ["tools", "resources", "prompts"] {
        assert!(demo["capabilities"].get(capability).is_some(), "{demo:#}");
    }
    let stderr = demo["stderr"].as_str().expect("stderr tail");
    assert!(
        stderr.contains(&format!(
            "wharf-demo-server {} ready (stdio)",
            env!("CARGO_PKG_VERSION")
        )),
        "{stderr}"
    );
}

#[test]
fn a_legacy_host_gets_2025_11_25_through_initialize() {
    let scratch = Scratch::demo(demo_stdio(json!({"era": "legacy"})));
    let out = scratch.run(&["servers"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let demo = &stdout_json(&out)[0];
    assert_eq!(demo["status"], "ready", "{demo:#}");
    assert_eq!(demo["era"], "2025-11-25", "{demo:#}");
    assert_eq!(demo["lifecycle"], "legacy");

    let out = scratch.run(&["call", "demo", "echo", r#"{"message":"old times"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&out)["content"][0]["text"], "echo: old times");
}

#[test]
fn tools_lists_every_tool_with_its_schema() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["tools", "demo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let tools = stdout_json(&out);
    let mut names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["add", "crash", "echo", "fail", "kinds", "picture", "roots", "slow"]
    );
    for t in tools.as_array().unwrap() {
        assert_eq!(t["server"], "demo");
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 20),
            "{t:#}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t:#}");
    }

    let echo = &tool(&tools, "echo")["inputSchema"];
    assert_eq!(echo["properties"]["message"]["type"], "string");
    assert_eq!(echo["required"], json!(["message"]));

    let add = &tool(&tools, "add")["inputSchema"];
    assert_eq!(add["properties"]["a"]["type"], "number");
    assert_eq!(add["properties"]["b"]["type"], "number");

    let slow = &tool(&tools, "slow")["inputSchema"]["properties"];
    assert_eq!(slow["steps"]["type"], "integer");
    assert_eq!(slow["steps"]["default"], 5);
    assert_eq!(slow["steps"]["minimum"], 1);
    assert_eq!(slow["steps"]["maximum"], 100);
    assert_eq!(slow["delay_ms"]["type"], "integer");
    assert_eq!(slow["delay_ms"]["default"], 500);

    let crash = &tool(&tools, "crash")["inputSchema"]["properties"];
    assert_eq!(crash["message"]["default"], "demo crash");

    // kinds drives the generated form: one plain field of each kind, no $ref, no nullable unions.
    let kinds = &tool(&tools, "kinds")["inputSchema"];
    assert_eq!(kinds["required"], json!(["text"]));
    let p = &kinds["properties"];
    assert_eq!(p["text"]["type"], "string");
    assert_eq!(p["count"]["type"], "integer");
    assert_eq!(p["ratio"]["type"], "number");
    assert_eq!(p["flag"]["type"], "boolean");
    assert_eq!(p["color"]["type"], "string");
    assert_eq!(p["color"]["enum"], json!(["red", "green", "blue"]));
    assert_eq!(p["tags"]["type"], "array");
    assert_eq!(p["tags"]["items"]["type"], "string");
    assert_eq!(p["nested"]["type"], "object");
    assert_eq!(p["nested"]["properties"]["x"]["type"], "integer");
    assert_eq!(p["nested"]["properties"]["y"]["type"], "integer");
    for (name, field) in p.as_object().unwrap() {
        assert!(
            field["description"].is_string(),
            "{name} has no description"
        );
    }
    assert!(
        !kinds.to_string().contains("$ref"),
        "kinds must be inline: {kinds:#}"
    );
}

#[test]
fn echo_answers_with_the_message() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["call", "demo", "echo", r#"{"message":"hi"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let result = stdout_json(&out);
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "echo: hi"}])
    );
}

#[test]
fn add_returns_structured_content() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["call", "demo", "add", r#"{"a":2,"b":0.5}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let result = stdout_json(&out);
    assert_eq!(result["structuredContent"]["sum"].as_f64(), Some(2.5));
    let text = result["content"][0]["text"].as_str().expect("a text block");
    let parsed: Value = serde_json::from_str(text).expect("the text is the JSON");
    assert_eq!(parsed["sum"].as_f64(), Some(2.5));
}

#[test]
fn fail_is_a_tool_error_and_exits_1() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["call", "demo", "fail"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_text(&out));
    let result = stdout_json(&out);
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("isError")),
        "{result:#}"
    );
}

#[test]
fn kinds_echoes_every_kind_of_argument() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let args = json!({
        "text": "hello", "count": 3, "ratio": 0.25, "flag": true, "color": "green",
        "tags": ["a", "b"], "nested": {"x": 1, "y": -2}
    });
    let out = scratch.run(&["call", "demo", "kinds", &args.to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let result = stdout_json(&out);
    assert_eq!(result["structuredContent"], args);
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, args);

    // Only text is required, and what is left out stays out of the echo.
    let out = scratch.run(&["call", "demo", "kinds", r#"{"text":"alone"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(
        stdout_json(&out)["structuredContent"],
        json!({"text": "alone"})
    );
}

#[test]
fn picture_is_a_png_and_a_link_to_the_readme() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["call", "demo", "picture"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let content = stdout_json(&out)["content"].clone();
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["mimeType"], "image/png");
    // base64 of the PNG signature.
    assert!(
        content[0]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBORw0KGgo")),
        "{content:#}"
    );
    assert_eq!(content[1]["type"], "resource_link");
    assert_eq!(content[1]["uri"], "demo://readme");
    assert_eq!(content[1]["mimeType"], "text/markdown");
}

#[test]
fn crash_fails_the_call_with_the_servers_stderr_and_status() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let out = scratch.run(&["call", "demo", "crash"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_text(&out));
    let stderr = stderr_text(&out);
    assert!(stderr.contains("fatal: demo crash"), "{stderr}");
    assert!(stderr.contains("status 3"), "{stderr}");

    let out = scratch.run(&["call", "demo", "crash", r#"{"message":"on purpose"}"#]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("fatal: on purpose"),
        "{}",
        stderr_text(&out)
    );
}

/// The `file://` URI Wharf gives a folder: its canonical path, spaces percent-encoded (the only special character
/// these tests' folder names hold).
fn folder_uri(path: &std::path::Path) -> String {
    let canonical = path.canonicalize().expect("the folder exists");
    format!(
        "file://{}",
        canonical.display().to_string().replace(' ', "%20")
    )
}

#[test]
fn roots_lists_the_workspace_folders_in_both_eras() {
    let work = tempfile::tempdir().unwrap();
    let first = work.path().join("first project");
    let second = work.path().join("second");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let expected = format!("{}\n{}", folder_uri(&first), folder_uri(&second));
    // Auto is the modern era (a roots/list input request inside the call), legacy a server-initiated roots/list.
    for entry in [json!({}), json!({"era": "legacy"})] {
        let scratch = Scratch::demo(demo_stdio(entry.clone()));
        let out = scratch.run(&[
            "--workspace",
            first.to_str().unwrap(),
            "--workspace",
            second.to_str().unwrap(),
            "call",
            "demo",
            "roots",
        ]);
        assert_eq!(out.status.code(), Some(0), "{entry}: {}", stderr_text(&out));
        let result = stdout_json(&out);
        assert_eq!(result["isError"], false, "{entry}: {result:#}");
        assert_eq!(
            result["content"][0]["text"], expected,
            "{entry}: {result:#}"
        );
    }
}

#[test]
fn roots_is_empty_without_a_workspace_or_when_the_server_is_shown_none() {
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().to_str().unwrap();
    for (entry, args) in [
        (json!({}), vec!["call", "demo", "roots"]),
        (json!({"era": "legacy"}), vec!["call", "demo", "roots"]),
        (
            json!({"roots": false}),
            vec!["--workspace", folder, "call", "demo", "roots"],
        ),
        (
            json!({"roots": false, "era": "legacy"}),
            vec!["--workspace", folder, "call", "demo", "roots"],
        ),
    ] {
        let scratch = Scratch::demo(demo_stdio(entry.clone()));
        let out = scratch.run(&args);
        assert_eq!(out.status.code(), Some(0), "{entry}: {}", stderr_text(&out));
        let result = stdout_json(&out);
        assert_eq!(
            result["content"][0]["text"], "(no roots)",
            "{entry}: {result:#}"
        );
    }
}
