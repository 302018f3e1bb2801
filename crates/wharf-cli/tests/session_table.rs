//! `wharf session` serves the window's commands too, by the names and argument fields the app's webview uses, and
//! answers them with the same typed results, next to the commands its contract has always had.

#[path = "support/peers.rs"]
mod peers;

use peers::*;
use serde_json::json;

#[test]
fn the_windows_commands_run_by_name_beside_the_sessions_own() {
    let scratch = Scratch::new(json!({"servers": {"demo": stdio_server(&demo_server(), &[])}}));
    let mut session = scratch.session();
    session.event("demo ready", |v| {
        v["event"] == "server_status" && v["server"] == "demo" && v["status"] == "ready"
    });

    // The window's list_tools: each tool with the form made of its schema.
    session.send(json!({"id": 1, "cmd": "list_tools", "server": "demo"}));
    let listed = session.reply(1);
    assert_eq!(listed["ok"], true, "{listed}");
    let add = listed["result"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "add"))
        .unwrap_or_else(|| panic!("no add tool: {listed}"));
    assert!(
        add.get("form").is_some(),
        "a listed tool has its form: {add}"
    );

    // The window's call_tool: the result shaped for the view, not the server's JSON.
    session.send(
        json!({"id": 2, "cmd": "call_tool", "callId": "c2", "server": "demo", "tool": "add",
        "args": {"a": 2, "b": 3}}),
    );
    let called = session.reply(2);
    assert_eq!(called["ok"], true, "{called}");
    assert!(called["result"]["blocks"].is_array(), "a view: {called}");
    assert!(called["result"].to_string().contains('5'), "{called}");

    // The session's own call is the CallToolResult, as its contract says.
    session.send(
        json!({"id": 3, "cmd": "call", "server": "demo", "tool": "add", "args": {"a": 2, "b": 3}}),
    );
    let raw = session.reply(3);
    assert!(raw["result"]["content"].is_array(), "{raw}");

    // A field of the wrong name is refused, naming what is missing.
    session.send(json!({"id": 4, "cmd": "stop_server", "server": "demo"}));
    let refused = session.reply(4);
    assert_eq!(refused["ok"], false);
    assert_eq!(refused["error"]["code"], "invalid_command", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("name"),
        "{refused}"
    );

    // The window's dialogs do not exist here.
    session.send(json!({"id": 5, "cmd": "open_folder_dialog"}));
    assert_eq!(session.reply(5)["error"]["code"], "dialog");
    assert!(session.quit().success());
}
