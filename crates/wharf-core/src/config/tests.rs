use std::collections::BTreeMap;

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
    assert_eq!(c.servers[0].kind(), TransportKind::Stdio);
    assert_eq!(c.servers[1].kind(), TransportKind::Http);
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
fn an_input_without_a_stored_value_fails_its_server_naming_it() {
    // No value is stored under input:wharf-test-never-set in any keyring this test can reach (or there is no
    // keyring at all): either way the server fails, naming the input and where it was used.
    let config = parse(
        r#"{"servers": {
            "a": {"command": "x", "args": ["${input:wharf-test-never-set}"]},
            "b": {"command": "x", "args": ["${bogus}", "${input:wharf-test-other}"]},
            "c": {"command": "x"}}}"#,
    )
    .unwrap();
    let err = config.servers[0].transport.clone().unwrap_err();
    assert!(
        err.contains("args[0]") && err.contains("${input:wharf-test-never-set}"),
        "{err}"
    );
    // What the user can provide is named; a server that failed for another reason first, or did not fail,
    // names none.
    assert_eq!(config.servers[0].missing_inputs, ["wharf-test-never-set"]);
    assert!(config.servers[1].transport.is_err());
    assert_eq!(config.servers[1].missing_inputs, Vec::<String>::new());
    assert_eq!(config.servers[2].missing_inputs, Vec::<String>::new());
    assert!(expand("${input:x}", "f", &|_| None)
        .unwrap_err()
        .to_string()
        .contains("cannot be used here"));
    let err = parse(r#"{"servers": {"a": {"url": "http://h/${bogus}"}}}"#)
        .unwrap()
        .servers[0]
        .transport
        .clone()
        .unwrap_err();
    assert!(err.contains("unknown variable ${bogus}"), "{err}");
}

fn parse_in(text: &str, folders: &[&str]) -> Config {
    let folders: Vec<PathBuf> = folders.iter().map(PathBuf::from).collect();
    Config::parse_with_workspace(
        Path::new("/c/mcp.json"),
        text,
        &env_with(&[("HOME_DIR", "/home/ada")]),
        &folders,
    )
    .unwrap()
}

fn stdio(
    def: &ServerDef,
) -> (
    String,
    Vec<String>,
    BTreeMap<String, String>,
    Option<PathBuf>,
) {
    match def.transport.clone() {
        Ok(TransportDef::Stdio {
            command,
            args,
            env,
            cwd,
        }) => (command, args, env, cwd),
        other => panic!("expected stdio, got {other:?}"),
    }
}

#[test]
fn workspace_variables_expand_in_every_field() {
    let c = parse_in(
        r#"{"servers": {"a": {
            "command": "${workspaceFolder}/bin/server",
            "args": ["--root=${workspaceFolder}", "--name", "${workspaceFolderBasename}", "--all=${workspaceFolders}"],
            "env": {"PROJECT": "${workspaceFolderBasename}", "DIRS": "${workspaceFolders}", "HOME": "${env:HOME_DIR}"},
            "cwd": "${workspaceFolder}"}}}"#,
        &["/home/ada/proj", "/srv/data"],
    );
    let (command, args, env, cwd) = stdio(&c.servers[0]);
    assert_eq!(command, "/home/ada/proj/bin/server");
    assert_eq!(
        args,
        [
            "--root=/home/ada/proj",
            "--name",
            "proj",
            "--all=/home/ada/proj:/srv/data"
        ]
    );
    assert_eq!(env["PROJECT"], "proj");
    assert_eq!(env["DIRS"], "/home/ada/proj:/srv/data");
    assert_eq!(env["HOME"], "/home/ada");
    assert_eq!(cwd.as_deref(), Some(Path::new("/home/ada/proj")));
    assert!(c.servers[0].uses_workspace);
    // In an http server's URL and headers too.
    let c = parse_in(
        r#"{"servers": {"h": {"url": "http://127.0.0.1:1/mcp?p=${workspaceFolderBasename}", "headers": {"X-Dir": "${workspaceFolder}"}}}}"#,
        &["/w/site"],
    );
    assert_eq!(
        c.servers[0].transport,
        Ok(TransportDef::Http {
            url: "http://127.0.0.1:1/mcp?p=site".into(),
            headers: [("X-Dir".to_string(), "/w/site".to_string())].into(),
        })
    );
    assert!(c.servers[0].uses_workspace);
}

#[test]
fn a_whole_argument_workspace_folders_gives_one_argument_per_folder() {
    let text = r#"{"servers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolders}", "--flag"]}}}"#;
    let (_, args, _, _) = stdio(&parse_in(text, &["/a b", "/c"]).servers[0]);
    assert_eq!(
        args,
        [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/a b",
            "/c",
            "--flag"
        ]
    );
    let (_, args, _, _) = stdio(&parse_in(text, &["/only"]).servers[0]);
    assert_eq!(
        args,
        [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/only",
            "--flag"
        ]
    );
}

#[test]
fn with_no_folder_open_a_workspace_variable_is_a_clear_error() {
    for (var, field) in [
        (
            r#""args": ["${workspaceFolder}"]"#,
            "args[0]: ${workspaceFolder}",
        ),
        (
            r#""args": ["${workspaceFolders}"]"#,
            "args[0]: ${workspaceFolders}",
        ),
        (
            r#""cwd": "${workspaceFolderBasename}""#,
            "cwd: ${workspaceFolderBasename}",
        ),
        (
            r#""env": {"D": "x${workspaceFolders}"}"#,
            "env.D: ${workspaceFolders}",
        ),
    ] {
        let text = format!(
            r#"{{"servers": {{"a": {{"command": "x", {var}}}, "b": {{"command": "y"}}}}}}"#
        );
        // The old entry points have no workspace: the same as none open.
        for c in [parse(&text).unwrap(), parse_in(&text, &[])] {
            let err = c.servers[0].transport.clone().unwrap_err();
            assert_eq!(err, format!("{field}: no workspace folder is open"));
            assert!(
                c.servers[0].uses_workspace,
                "{var}: restarted once a folder opens"
            );
            assert!(c.servers[1].transport.is_ok());
            assert!(!c.servers[1].uses_workspace);
        }
    }
}

#[test]
fn uses_workspace_is_known_even_when_an_earlier_field_failed() {
    let c = parse_in(
        r#"{"servers": {"a": {"command": "${env:NOPE_NOT_SET}", "args": ["${workspaceFolder}"]},
            "b": {"command": "x", "args": ["$workspaceFolder", "{workspaceFolder}"]}}}"#,
        &["/w"],
    );
    assert!(c.servers[0].transport.is_err());
    assert!(c.servers[0].uses_workspace);
    // Not a variable without `${...}`.
    assert!(!c.servers[1].uses_workspace);
    assert!(c.servers[1].transport.is_ok());
}

#[test]
fn a_workspace_change_changes_the_fingerprint_of_servers_that_use_it() {
    let text = r#"{"servers": {"a": {"command": "x", "args": ["${workspaceFolder}"]}, "b": {"command": "y"}}}"#;
    let one = parse_in(text, &["/one"]);
    let two = parse_in(text, &["/two"]);
    assert_ne!(one.servers[0].fingerprint(), two.servers[0].fingerprint());
    assert_eq!(one.servers[1].fingerprint(), two.servers[1].fingerprint());
}

#[test]
fn load_with_workspace_reads_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"servers": {"a": {"command": "x", "cwd": "${workspaceFolder}"}}}"#,
    )
    .unwrap();
    let c = Config::load_with_workspace(&path, &[PathBuf::from("/w")]).unwrap();
    assert_eq!(stdio(&c.servers[0]).3.as_deref(), Some(Path::new("/w")));
    assert!(Config::load(&path).unwrap().servers[0].transport.is_err());
}

#[test]
fn the_server_form_accepts_workspace_variables_with_no_folder_open() {
    let entry: edit::ServerEntry = serde_json::from_str(
        r#"{"name": "fs", "type": "stdio", "command": "npx",
            "args": ["${workspaceFolders}", "--x=${workspaceFolder}"], "cwd": "${workspaceFolder}"}"#,
    )
    .unwrap();
    assert_eq!(edit::validate(&entry, &[]), []);
}

#[test]
fn syntax_error_names_file_line_and_column() {
    // A missing comma: a trailing one is JSONC, which mcp.json is.
    let err = parse("{\n  \"servers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}")
        .unwrap_err();
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
fn every_key_a_server_entry_may_use_loads_without_a_warning() {
    let c = parse(
        r#"{"servers": {
            "s": {"type": "stdio", "command": "x", "args": [], "env": {}, "cwd": "/", "envFile": "/e",
                  "probeTimeoutMs": 1000, "requestTimeoutMs": 1000, "era": "auto", "roots": true,
                  "pathArguments": "ask", "elicitation": true, "disabled": false, "dev": {}},
            "h": {"type": "http", "url": "https://h.example/mcp", "headers": {},
                  "oauth": {"clientId": "c", "clientSecret": "s"}}
        }}"#,
    )
    .unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
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

#[test]
fn an_argument_that_is_a_list_or_an_object_fails_the_server_and_a_number_is_its_text() {
    // Found by the config fuzz target: a nested list went out as JSON text, its ${env:...} unexpanded.
    let c = parse(
        r#"{"servers": {"list": {"command": "x", "args": [["${env:HOME_DIR}"]]},
            "object": {"command": "x", "args": [{"a": 1}]}, "number": {"command": "x", "args": [8080, true]}}}"#,
    )
    .unwrap();
    let error = |i: usize| match &c.servers[i].transport {
        Err(e) => e.clone(),
        Ok(t) => panic!("expected an error, got {t:?}"),
    };
    assert!(
        error(0).contains("args[0] must be a string, not a list"),
        "{}",
        error(0)
    );
    assert!(
        error(1).contains("args[0] must be a string, not an object"),
        "{}",
        error(1)
    );
    let Ok(TransportDef::Stdio { args, .. }) = &c.servers[2].transport else {
        panic!("expected stdio")
    };
    assert_eq!(args, &vec!["8080".to_string(), "true".to_string()]);
}

/// `toolApproval` and `trusted` are read per server; a value that cannot be read fails the server, never falls back
/// to a default that might let a model's calls through.
#[test]
fn tool_approval_and_trust_are_read_and_a_bad_value_fails_the_server() {
    let config = parse(
        r#"{"servers": {
            "plain": {"command": "a"},
            "open": {"command": "a", "toolApproval": "allow", "trusted": true},
            "shut": {"command": "a", "toolApproval": "deny"},
            "typo": {"command": "a", "toolApproval": "always"},
            "odd": {"command": "a", "trusted": "yes"}
        }}"#,
    )
    .unwrap();
    let stance = |name: &str| config.server(name).unwrap().stance;
    assert_eq!(stance("plain"), ServerStance::default());
    assert_eq!(stance("plain").approval, ToolApproval::Ask);
    assert_eq!(
        stance("open"),
        ServerStance {
            approval: ToolApproval::Allow,
            trusted: true
        }
    );
    assert_eq!(stance("shut").approval, ToolApproval::Deny);
    let failed = |name: &str| config.server(name).unwrap().transport.clone().unwrap_err();
    assert!(
        failed("typo").contains("toolApproval"),
        "{}",
        failed("typo")
    );
    assert!(failed("odd").contains("trusted"), "{}", failed("odd"));
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
}

/// `chat` gives the model and the step limit; without its own provider, chat uses the sampling provider.
#[test]
fn chat_reads_its_provider_and_step_limit_and_falls_back_to_sampling() {
    let provider = r#"{"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}"#;
    let config = parse(&format!(
        r#"{{"chat": {{"provider": {provider}, "maxSteps": 7}}, "servers": {{}}}}"#
    ))
    .unwrap();
    assert_eq!(config.chat.max_steps, 7);
    assert!(matches!(config.chat_provider(), Some(Ok(p)) if p.model == "m"));

    let config = parse(&format!(r#"{{"sampling": {{"provider": {provider}}}}}"#)).unwrap();
    assert_eq!(config.chat.max_steps, crate::config::DEFAULT_MAX_STEPS);
    assert!(matches!(config.chat_provider(), Some(Ok(_))));

    for bad in ["0", "100000", "\"ten\"", "2.5"] {
        let config = parse(&format!(r#"{{"chat": {{"maxSteps": {bad}, "extra": 1}}}}"#)).unwrap();
        assert_eq!(
            config.chat.max_steps,
            crate::config::DEFAULT_MAX_STEPS,
            "{bad}"
        );
        assert_eq!(config.warnings.len(), 2, "{:?}", config.warnings);
    }
    assert!(parse("{}").unwrap().chat_provider().is_none());
}
