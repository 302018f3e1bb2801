//! `--http PORT`: Streamable HTTP on loopback, driven by the real `wharf` in both eras.

#[path = "support/demo.rs"]
mod support;

use std::io::{Read, Write};

use serde_json::json;
use support::{
    slow_is_cancelled, slow_reports_progress, stderr_text, stdout_json, DemoProcess, Scratch,
};

fn http_server() -> DemoProcess {
    let server = DemoProcess::start(&["--http", "0"]);
    let url = server.url();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    server
}

#[test]
fn a_modern_host_gets_2026_07_28_over_http() {
    let server = http_server();
    let scratch = Scratch::demo(json!({"type": "http", "url": server.url()}));
    let out = scratch.run(&["servers"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let demo = &stdout_json(&out)[0];
    assert_eq!(demo["status"], "ready", "{demo:#}");
    assert_eq!(demo["era"], "2026-07-28", "{demo:#}");
    assert_eq!(demo["serverInfo"]["name"], "wharf-demo-server");

    let out = scratch.run(&["call", "demo", "echo", r#"{"message":"over http"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&out)["content"][0]["text"], "echo: over http");
}

#[test]
fn a_legacy_host_gets_2025_11_25_over_http() {
    let server = http_server();
    let scratch = Scratch::demo(json!({"type": "http", "url": server.url(), "era": "legacy"}));
    let out = scratch.run(&["servers"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let demo = &stdout_json(&out)[0];
    assert_eq!(demo["status"], "ready", "{demo:#}");
    assert_eq!(demo["era"], "2025-11-25", "{demo:#}");

    let out = scratch.run(&["call", "demo", "add", r#"{"a":1,"b":2}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(
        stdout_json(&out)["structuredContent"]["sum"].as_f64(),
        Some(3.0)
    );
}

#[test]
fn progress_and_cancellation_over_http() {
    let server = http_server();
    let scratch = Scratch::demo(json!({"type": "http", "url": server.url()}));
    let mut session = scratch.session();
    slow_reports_progress(&mut session);
    slow_is_cancelled(&mut session);
    assert_eq!(session.quit(3)["ok"], true);
}

#[test]
fn other_paths_are_not_found() {
    let server = http_server();
    let url = server.url();
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream.set_read_timeout(Some(support::PATIENCE)).unwrap();
    write!(
        stream,
        "GET /elsewhere HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");
}
