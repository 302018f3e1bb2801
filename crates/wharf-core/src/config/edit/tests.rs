use super::*;

fn stdio(name: &str, command: &str) -> ServerEntry {
    ServerEntry {
        name: name.into(),
        kind: ServerKind::Stdio,
        command: command.into(),
        args: vec!["a b".into(), "${env:HOME}".into()],
        env: BTreeMap::from([("K".into(), "V".into())]),
        cwd: String::new(),
        url: String::new(),
        headers: BTreeMap::new(),
        era: EraChoice::Auto,
    }
}

fn doc_with(text: &str) -> (tempfile::TempDir, ConfigDocument) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, text).unwrap();
    let doc = ConfigDocument::load(&path).unwrap();
    (dir, doc)
}

#[test]
fn round_trips_through_the_file_and_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/mcp.json");
    let mut doc = ConfigDocument::load(&path).unwrap();
    doc.upsert(None, &stdio("fs", "node")).unwrap();
    doc.save().unwrap();
    let again = ConfigDocument::load(&path).unwrap();
    assert_eq!(again.entries(), vec![stdio("fs", "node")]);
    // What the editor writes, the host loads.
    let config = crate::Config::parse(&path, &std::fs::read_to_string(&path).unwrap(), &|_| {
        Some("/h".into())
    })
    .unwrap();
    assert!(
        matches!(&config.servers[0].transport, Ok(crate::TransportDef::Stdio { args, .. }) if args[1] == "/h")
    );
}

#[test]
fn editing_keeps_other_keys_order_and_unknown_fields() {
    let (_dir, mut doc) = doc_with(
        r#"{"inputs": [1], "mcpServers": {"a": {"command": "x", "disabled": false, "probeTimeoutMs": 5},
            "b": {"command": "y"}}, "sampling": {"k": 1}}"#,
    );
    let mut a = doc.entries()[0].clone();
    a.name = "renamed".into();
    a.command = "z".into();
    doc.upsert(Some("a"), &a).unwrap();
    doc.save().unwrap();
    let text = std::fs::read_to_string(&doc.path).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["inputs"], serde_json::json!([1]));
    assert_eq!(v["sampling"]["k"], 1);
    let servers = v["mcpServers"].as_object().unwrap();
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        vec!["renamed", "b"],
        "order kept, Claude's key kept"
    );
    assert_eq!(servers["renamed"]["probeTimeoutMs"], 5);
    assert_eq!(servers["renamed"]["command"], "z");
}

#[test]
fn validation_errors_name_their_field() {
    let (_dir, mut doc) = doc_with(r#"{"servers": {"taken": {"command": "x"}}}"#);
    let mut bad = stdio("taken", "");
    bad.args.push("${bogus}".into());
    bad.env.insert("A=B".into(), "v".into());
    let errors = doc.upsert(None, &bad).unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        vec!["name", "command", "args[2]", "env.A=B"],
        "{errors:?}"
    );
    let http = ServerEntry {
        kind: ServerKind::Http,
        url: "ftp://x".into(),
        headers: BTreeMap::from([("Bad Header".into(), "v".into())]),
        ..stdio("web", "")
    };
    let fields: Vec<String> = validate(&http, &[]).into_iter().map(|e| e.field).collect();
    assert_eq!(fields, vec!["url", "headers.Bad Header"]);
    // Nothing was written by a refused edit.
    assert_eq!(doc.names(), vec!["taken"]);
}

#[test]
fn switching_a_server_to_http_drops_the_stdio_keys() {
    let (_dir, mut doc) = doc_with(r#"{"servers": {"s": {"command": "x", "args": ["1"]}}}"#);
    let http = ServerEntry {
        kind: ServerKind::Http,
        url: "http://127.0.0.1:1/mcp".into(),
        era: EraChoice::Legacy,
        ..stdio("s", "")
    };
    doc.upsert(Some("s"), &http).unwrap();
    let entry = &doc.entries()[0];
    assert_eq!(entry.kind, ServerKind::Http);
    assert!(entry.command.is_empty() && entry.args.is_empty());
    assert_eq!(entry.era, EraChoice::Legacy);
    assert!(doc.remove("s"));
    assert!(doc.entries().is_empty());
}

#[test]
fn a_corrupt_file_is_an_error_not_an_empty_document() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, "{oops").unwrap();
    assert!(matches!(
        ConfigDocument::load(&path),
        Err(ConfigError::Syntax { .. })
    ));
}

#[test]
fn import_finds_claude_and_vscode_configs() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join("Claude/claude_desktop_config.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(
        &claude,
        r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}}}"#,
    )
    .unwrap();
    let code = home.path().join("Code/User/mcp.json");
    std::fs::create_dir_all(code.parent().unwrap()).unwrap();
    std::fs::write(&code, "{broken").unwrap();
    let sources = import_sources(home.path());
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[0].id, "claude");
    assert_eq!(sources[0].entries[0].args, vec!["-y", "x"]);
    assert_eq!(sources[1].id, "vscode");
    assert!(sources[1].error.as_deref().unwrap().contains("mcp.json"));
}

/// A VS Code-style mcp.json as users keep it: line and block comments, trailing commas.
const VSCODE: &str = r#"{
	// Servers for this machine.
	"inputs": [
		{ "type": "promptString", "id": "token", "password": true, }, // asked once
	],
	"servers": {
		/* files */
		"fs": {
			"type": "stdio",
			"command": "npx", // from the registry
			"args": ["-y", "server-filesystem"],
			"env": { "DEBUG": "1", /* noisy */ },
		},
		"web": { "url": "http://127.0.0.1:9/mcp" },
	},
}
"#;

#[test]
fn a_vs_code_file_with_comments_loads_and_edits_keep_them() {
    let (_dir, mut doc) = doc_with(VSCODE);
    assert_eq!(doc.names(), vec!["fs", "web"]);
    let mut fs = doc.entries()[0].clone();
    assert_eq!(fs.args, vec!["-y", "server-filesystem"]);

    // The command changes, a cwd is added; nothing else in the file moves.
    fs.command = "node".into();
    fs.cwd = "/tmp".into();
    doc.upsert(Some("fs"), &fs).unwrap();
    doc.set_server_key("fs", "roots", Value::Bool(false))
        .unwrap();
    doc.save().unwrap();
    let expected = VSCODE
        .replace("\"npx\", // from", "\"node\", // from")
        .replace(
            "/* noisy */ },\n",
            "/* noisy */ },\n\t\t\t\"cwd\": \"/tmp\",\n\t\t\t\"roots\": false,\n",
        );
    assert_eq!(std::fs::read_to_string(&doc.path).unwrap(), expected);

    // Removed: the line goes, the comment inside it stays.
    assert!(doc.remove("web"));
    assert!(doc.remove("fs"));
    doc.save().unwrap();
    let text = std::fs::read_to_string(&doc.path).unwrap();
    for comment in [
        "// Servers for this machine.",
        "// asked once",
        "/* files */",
        "// from the registry",
        "/* noisy */",
    ] {
        assert!(text.contains(comment), "{comment} lost:\n{text}");
    }
    assert!(text.starts_with(&VSCODE[..VSCODE.find("\"servers\"").unwrap()]));
    assert!(ConfigDocument::load(&doc.path).unwrap().names().is_empty());
}

#[test]
fn an_edit_that_would_drop_a_comment_is_refused_and_nothing_changes() {
    let text = "{\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"1\", // why\n \"2\"]}}}\n";
    let (_dir, mut doc) = doc_with(text);
    let mut a = doc.entries()[0].clone();
    a.args = vec!["3".into()];
    let errors = doc.upsert(Some("a"), &a).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "args");
    assert!(errors[0].message.contains("comments"), "{errors:?}");
    assert_eq!(doc.text(), text);
    // The rest of the entry can still change.
    a.args = vec!["1".into(), "2".into()];
    a.command = "y".into();
    doc.upsert(Some("a"), &a).unwrap();
    // (`type` is always written.)
    let expected = text
        .replace("\"x\"", "\"y\"")
        .replace("\"2\"]}", "\"2\"], \"type\": \"stdio\"}");
    assert_eq!(doc.text(), expected);
}

#[test]
fn a_file_the_app_wrote_is_written_as_before() {
    // Before editing in place, every save re-printed the whole file with serde_json: a file in that layout must
    // come out of an edit exactly as a re-print of the edited value.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let mut doc = ConfigDocument::load(&path).unwrap();
    doc.upsert(None, &stdio("fs", "node")).unwrap();
    doc.upsert(None, &stdio("git", "uvx")).unwrap();
    let expected = serde_json::json!({"servers": {
        "fs": {"type": "stdio", "command": "node", "args": ["a b", "${env:HOME}"], "env": {"K": "V"}},
        "git": {"type": "stdio", "command": "uvx", "args": ["a b", "${env:HOME}"], "env": {"K": "V"}},
    }});
    assert_eq!(
        doc.text(),
        serde_json::to_string_pretty(&expected).unwrap() + "\n"
    );
    let mut git = stdio("git", "uvx");
    git.era = EraChoice::Legacy;
    git.env.clear();
    doc.upsert(Some("git"), &git).unwrap();
    assert!(doc.remove("fs"));
    let expected = serde_json::json!({"servers": {
        "git": {"type": "stdio", "command": "uvx", "args": ["a b", "${env:HOME}"], "era": "legacy"},
    }});
    assert_eq!(
        doc.text(),
        serde_json::to_string_pretty(&expected).unwrap() + "\n"
    );
}
mod preferences;
