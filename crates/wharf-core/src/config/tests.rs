use super::*;

fn env_with(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(
        Path::new("/c/mcp.json"),
        text,
        &env_with(&[("HOME_DIR", "/home/ada")]),
    )
}

#[test]
fn vscode_and_claude_formats_parse_to_the_same_servers() {
    let vscode =
        parse(r#"{"servers": {"fs": {"type": "stdio", "command": "node", "args": ["s.js"]}}}"#)
            .unwrap();
    let claude = parse(r#"{"mcpServers": {"fs": {"command": "node", "args": ["s.js"]}}}"#).unwrap();
    assert_eq!(vscode.servers[0].transport, claude.servers[0].transport);
    assert_eq!(
        vscode.servers[0].definition_hash(),
        claude.servers[0].definition_hash()
    );
}

#[test]
fn type_is_inferred_from_command_or_url() {
    let c =
        parse(r#"{"servers": {"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:1/mcp"}}}"#)
            .unwrap();
    assert_eq!(c.servers[0].kind(), "stdio");
    assert_eq!(c.servers[1].kind(), "http");
    // File order is kept: users see their servers in the order they wrote them.
    assert_eq!(c.servers[0].name, "a");
}

#[test]
fn env_variables_expand_everywhere() {
    let c = parse(
        r#"{"servers": {"a": {"command": "x", "args": ["${env:HOME_DIR}/p"], "env": {"K": "v=${env:HOME_DIR}"},
            "cwd": "${env:HOME_DIR}"}}}"#,
    )
    .unwrap();
    let Ok(TransportDef::Stdio { args, env, cwd, .. }) = &c.servers[0].transport else {
        panic!("expected stdio")
    };
    assert_eq!(args, &vec!["/home/ada/p".to_string()]);
    assert_eq!(env["K"], "v=/home/ada");
    assert_eq!(cwd.as_deref(), Some(Path::new("/home/ada")));
}

#[test]
fn unresolved_variable_is_an_error_naming_it_and_never_passed_on() {
    let c = parse(r#"{"servers": {"a": {"command": "x", "args": ["${env:NOPE_NOT_SET}"]}, "b": {"command": "y"}}}"#)
        .unwrap();
    let err = c.servers[0].transport.clone().unwrap_err();
    assert!(err.contains("NOPE_NOT_SET"), "{err}");
    assert!(err.contains("args[0]"), "{err}");
    // The other server is unaffected.
    assert!(c.servers[1].transport.is_ok());
}

#[test]
fn later_issue_variables_are_reported_as_not_yet_supported() {
    for var in [
        "${input:key}",
        "${workspaceFolder}",
        "${workspaceFolderBasename}",
    ] {
        let text = format!(r#"{{"servers": {{"a": {{"command": "x", "args": ["{var}"]}}}}}}"#);
        let err = parse(&text).unwrap().servers[0]
            .transport
            .clone()
            .unwrap_err();
        assert!(err.contains("not yet supported"), "{var}: {err}");
    }
    let err = parse(r#"{"servers": {"a": {"url": "http://h/${bogus}"}}}"#)
        .unwrap()
        .servers[0]
        .transport
        .clone()
        .unwrap_err();
    assert!(err.contains("unknown variable ${bogus}"), "{err}");
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let err = parse("{\n  \"servers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("/c/mcp.json:3:"), "{text}");
    assert!(
        !text.contains(" at line "),
        "position must not be repeated: {text}"
    );
}

#[test]
fn unknown_keys_warn_but_load() {
    let c = parse(r#"{"servers": {"a": {"command": "x", "colour": "red"}}, "theme": 1}"#).unwrap();
    assert_eq!(c.servers.len(), 1);
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(c.warnings.iter().any(|w| w.contains("colour")));
}

#[test]
fn bad_shapes_are_clear_errors() {
    assert!(parse("[]").unwrap_err().to_string().contains("top level"));
    assert!(parse(r#"{"servers": {"a": 3}}"#)
        .unwrap_err()
        .to_string()
        .contains("\"a\""));
    let c = parse(r#"{"servers": {"a": {"type": "sse", "url": "http://x"}, "b": {"type": "http", "url": "ftp://x"}}}"#)
        .unwrap();
    assert!(c.servers[0]
        .transport
        .clone()
        .unwrap_err()
        .contains("not supported"));
    assert!(c.servers[1]
        .transport
        .clone()
        .unwrap_err()
        .contains("http://"));
}

#[test]
fn definition_hash_changes_with_the_definition() {
    let a = parse(r#"{"servers": {"a": {"command": "x", "args": ["1"]}}}"#).unwrap();
    let b = parse(r#"{"servers": {"a": {"command": "x", "args": ["2"]}}}"#).unwrap();
    assert_ne!(
        a.servers[0].definition_hash(),
        b.servers[0].definition_hash()
    );
}
