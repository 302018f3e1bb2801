//! mcp.json parsing: any text, and documents shaped like VS Code's `servers` and Claude Desktop's `mcpServers`
//! with `${env:...}`, `${input:...}` and workspace variables in every expanded field, also as JSONC with comments and
//! trailing commas anywhere. A syntax error points at a line and column inside the text; a parsed server holds no
//! variable left unexpanded. The app's edits keep every comment, and write a file it printed itself as a re-print.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};
use wharf_core::config::edit::ConfigDocument;
use wharf_core::config::{expand_with_workspace, InputResolver, TransportDef};
use wharf_core::workspace::vars::WorkspaceVars;
use wharf_core::{Config, ConfigError};

use crate::strategies::{json, text};

/// Set variables have values without `$`, `{` or `}`, so any `${` in a result was left unexpanded.
fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/u".into()),
        "EMPTY" => Some(String::new()),
        "SPACE" => Some("a b".into()),
        _ => None,
    }
}

fn folders() -> Vec<PathBuf> {
    vec![PathBuf::from("/w/one"), PathBuf::from("/w/two words")]
}

/// Strings with variables spliced into text: set, unset, unknown, unterminated, nested.
fn templated() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-z/ .-]{0,6}",
        1 => prop::sample::select(vec![
            "${env:HOME}", "${env:EMPTY}", "${env:SPACE}", "${env:UNSET}", "${env:}", "${workspaceFolder}",
            "${workspaceFolderBasename}", "${workspaceFolders}", "${input:token}", "${unknown}", "${", "}",
            "$", "{", "${env:HOME", "${${env:HOME}}", "$${env:HOME}",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|p| p.concat())
}

fn field_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => templated().prop_map(Value::String),
        1 => prop::collection::vec(templated().prop_map(Value::String), 0..3).prop_map(Value::Array),
        1 => prop::collection::btree_map("[A-Z]{1,3}", templated().prop_map(Value::String), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        1 => json(),
    ]
}

fn server() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "type",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "era",
        "roots",
        "pathArguments",
        "elicitation",
        "disabled",
        "probeTimeoutMs",
        "requestTimeoutMs",
        "envFile",
        "dev",
        "bogus",
    ]);
    let kind = prop::sample::select(vec![
        "stdio",
        "http",
        "sse",
        "streamableHttp",
        "streamable-http",
        "x",
    ]);
    let url = prop::sample::select(vec![
        "https://example.com/mcp",
        "http://127.0.0.1:1/",
        "ftp://x",
    ]);
    (
        prop::collection::vec((keys, field_value()), 0..6),
        prop::option::of(kind),
        prop::option::of(templated()),
        prop::option::of(url),
    )
        .prop_map(|(pairs, kind, command, url)| {
            let mut def: serde_json::Map<String, Value> =
                pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            if let Some(kind) = kind {
                def.insert("type".into(), json!(kind));
            }
            if let Some(command) = command {
                def.insert("command".into(), json!(command));
            }
            if let Some(url) = url {
                def.insert("url".into(), json!(url));
            }
            Value::Object(def)
        })
}

fn document_value() -> impl Strategy<Value = Value> {
    let servers =
        prop::collection::btree_map(prop_oneof![3 => "[a-z]{1,5}", 1 => text()], server(), 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()));
    let key = prop::sample::select(vec!["servers", "mcpServers"]);
    (key, servers, prop::option::of(json())).prop_map(|(key, servers, extra)| {
        let mut root = json!({ key: servers });
        if let Some(extra) = extra {
            root["inputs"] = extra;
        }
        root
    })
}

fn document() -> impl Strategy<Value = String> {
    (document_value(), any::<bool>()).prop_map(|(root, pretty)| {
        if pretty {
            serde_json::to_string_pretty(&root).unwrap()
        } else {
            root.to_string()
        }
    })
}

/// `value` printed as JSONC by hand: between tokens, by `choices`, nothing, a block comment or a line comment (each
/// numbered `<cN>`, with JSON-looking text inside), and trailing commas. Returns the text and the comments' count.
fn jsonc(value: &Value, choices: &[u8]) -> (String, usize) {
    struct Printer<'a> {
        choices: &'a [u8],
        next: usize,
        out: String,
        comments: usize,
    }
    impl Printer<'_> {
        fn choice(&mut self) -> u8 {
            self.next += 1;
            self.choices
                .get(self.next % self.choices.len().max(1))
                .copied()
                .unwrap_or(0)
        }
        fn gap(&mut self) {
            let n = self.comments;
            match self.choice() % 8 {
                0 => self.out += &format!(" /* <c{n}> é \"{{ // */ "),
                1 => self.out += &format!(" // <c{n}> /* \"[ ,}}\n"),
                2 => self.out += "\n  ",
                _ => return,
            }
            self.comments += usize::from(!self.out.ends_with("\n  "));
        }
        fn value(&mut self, value: &Value) {
            self.gap();
            let (open, close, items): (char, char, Vec<(Option<&String>, &Value)>) = match value {
                Value::Object(map) => ('{', '}', map.iter().map(|(k, v)| (Some(k), v)).collect()),
                Value::Array(items) => ('[', ']', items.iter().map(|v| (None, v)).collect()),
                scalar => {
                    self.out += &scalar.to_string();
                    self.gap();
                    return;
                }
            };
            self.out.push(open);
            let count = items.len();
            for (i, (key, item)) in items.into_iter().enumerate() {
                if let Some(key) = key {
                    self.gap();
                    self.out += &Value::String(key.clone()).to_string();
                    self.gap();
                    self.out.push(':');
                }
                self.value(item);
                if i + 1 < count || self.choice() % 3 == 0 {
                    self.out.push(',');
                }
            }
            self.gap();
            self.out.push(close);
            self.gap();
        }
    }
    let mut printer = Printer {
        choices,
        next: 0,
        out: String::new(),
        comments: 0,
    };
    printer.value(value);
    (printer.out, printer.comments)
}

/// An edit the app makes to a server of the document: the index picks the server.
#[derive(Debug, Clone)]
enum Edit {
    Set(&'static str, Value),
    Remove,
}

fn edit() -> impl Strategy<Value = (prop::sample::Index, Edit)> {
    let edit = prop_oneof![
        Just(Edit::Remove),
        Just(Edit::Set("roots", json!(false))),
        Just(Edit::Set("pathArguments", json!("ask"))),
        Just(Edit::Set("args", json!(["-y", "x y"]))),
        Just(Edit::Set("env", json!({"A": "1", "B": "2"}))),
    ];
    (any::<prop::sample::Index>(), edit)
}

/// The edit applied to a document loaded from `text`, and the same edit applied to `model` (the text's value) by hand;
/// `None` when the document has no server.
fn edited(
    text: &str,
    model: &mut Value,
    (index, edit): &(prop::sample::Index, Edit),
) -> Option<(ConfigDocument, Result<(), String>)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, text).unwrap();
    let mut doc = ConfigDocument::load(&path).unwrap();
    let names = doc.names();
    let name = names.get(index.index(names.len().max(1)))?.clone();
    let key = if model.get("servers").is_some() {
        "servers"
    } else {
        "mcpServers"
    };
    let server = model[key][&name].as_object_mut().unwrap();
    let result = match edit {
        Edit::Remove => {
            assert!(doc.remove(&name), "{name} not removed");
            model[key].as_object_mut().unwrap().shift_remove(&name);
            Ok(())
        }
        Edit::Set(field, value) => {
            server.insert(field.to_string(), value.clone());
            doc.set_server_key(&name, field, value.clone())
                .map_err(|e| e.0)
        }
    };
    Some((doc, result))
}

/// The document with a piece cut out or garbage spliced in somewhere.
fn broken_document() -> impl Strategy<Value = String> {
    (
        document(),
        any::<prop::sample::Index>(),
        0usize..8,
        prop::sample::select(vec!["", ",", "//x\n", "/*", "\u{0}", "é", "\n\n"]),
    )
        .prop_map(|(text, at, cut, insert)| {
            let chars: Vec<char> = text.chars().collect();
            let at = at.index(chars.len() + 1);
            let end = (at + cut).min(chars.len());
            chars[..at]
                .iter()
                .chain(insert.chars().collect::<Vec<_>>().iter())
                .chain(chars[end..].iter())
                .collect()
        })
}

/// A syntax error's line is one of the text's, its column (in characters, as editors count) on that line or just
/// past its end.
fn check_position(text: &str, line: usize, column: usize) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.split('\n').collect();
    prop_assert!(
        line >= 1 && line <= lines.len(),
        "line {} of {} lines",
        line,
        lines.len()
    );
    let width = lines[line - 1].chars().count();
    prop_assert!(
        column <= width + 1,
        "column {} on a line of {} characters",
        column,
        width
    );
    Ok(())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let parsed = Config::parse_with_workspace(Path::new("mcp.json"), text, &env, &folders());
    match parsed {
        Err(ConfigError::Syntax { line, column, .. }) => check_position(text, line, column)?,
        Err(ConfigError::Read { .. }) => prop_assert!(false, "parse read a file"),
        Err(ConfigError::Invalid { .. }) => {}
        Ok(config) => {
            for server in &config.servers {
                let Ok(transport) = &server.transport else {
                    continue;
                };
                let strings: Vec<String> = match transport {
                    TransportDef::Stdio {
                        command,
                        args,
                        env,
                        cwd,
                    } => [command.clone()]
                        .into_iter()
                        .chain(args.iter().cloned())
                        .chain(env.values().cloned())
                        .chain(cwd.iter().map(|c| c.display().to_string()))
                        .collect(),
                    TransportDef::Http { url, headers } => [url.clone()]
                        .into_iter()
                        .chain(headers.values().cloned())
                        .collect(),
                };
                for s in strings {
                    prop_assert!(
                        !s.contains("${"),
                        "{} keeps a variable: {:?}",
                        server.name,
                        s
                    );
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_text_parses_or_is_refused_with_a_position_inside_it(text in prop_oneof![any::<String>(), "[{}\\[\\]\":, \\n0-9a-z/*-]{0,40}"]) {
        prop_assume!(!text.contains("${input:"));
        check(&text)?;
    }

    #[test]
    fn documents_parse_with_every_variable_expanded_or_refused(text in prop_oneof![document(), broken_document()]) {
        // ${input:...} reads the OS keyring from Config::parse: it is fuzzed through expand_with_workspace below.
        prop_assume!(!text.contains("${input:"));
        check(&text)?;
    }

    #[test]
    fn the_editor_loads_any_document(text in prop_oneof![document(), broken_document(), any::<String>()]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, &text).unwrap();
        match ConfigDocument::load(&path) {
            Ok(doc) => {
                let _ = doc.entries();
                let _ = doc.names();
            }
            Err(ConfigError::Syntax { line, column, .. }) => check_position(&text, line, column)?,
            Err(_) => {}
        }
    }

    #[test]
    fn jsonc_with_comments_anywhere_reads_as_its_json(root in document_value(), choices in prop::collection::vec(any::<u8>(), 1..64)) {
        let (text, _) = jsonc(&root, &choices);
        prop_assume!(!text.contains("${input:"));
        let plain: Value = serde_json::from_str(&root.to_string()).unwrap();
        prop_assert_eq!(wharf_core::config::jsonc::parse(&text).unwrap(), plain);
        check(&text)?;
        let names = |text: &str| Config::parse(Path::new("mcp.json"), text, &env)
            .map(|c| c.servers.iter().map(|s| (s.name.clone(), s.fingerprint())).collect::<Vec<_>>())
            .map_err(|e| e.to_string());
        prop_assert_eq!(names(&text), names(&root.to_string()));
    }

    #[test]
    fn edits_keep_every_comment(root in document_value(), choices in prop::collection::vec(any::<u8>(), 1..64), edit in edit()) {
        let (text, comments) = jsonc(&root, &choices);
        let mut model: Value = serde_json::from_str(&root.to_string()).unwrap();
        let Some((doc, result)) = edited(&text, &mut model, &edit) else { return Ok(()) };
        match result {
            Ok(()) => {
                let out = wharf_core::config::jsonc::parse(doc.text()).unwrap();
                // Compared as values: an object edited among comments keeps its members where they stand (a new
                // one goes last), so its key order may differ from the model's while the content is the same.
                prop_assert_eq!(&out, &model, "{}\n->\n{}", text, doc.text());
                for n in 0..comments {
                    prop_assert!(doc.text().contains(&format!("<c{n}>")), "<c{}> lost:\n{}\n->\n{}", n, text, doc.text());
                }
            }
            Err(e) => {
                // Refused only where a comment would go, and then nothing changed.
                prop_assert!(e.contains("comments"), "{}", e);
                prop_assert_eq!(doc.text(), text.as_str());
            }
        }
    }

    #[test]
    fn a_file_the_app_printed_is_edited_as_a_reprint_would_be(root in document_value(), edit in edit()) {
        let text = serde_json::to_string_pretty(&root).unwrap() + "\n";
        let mut model = root.clone();
        let Some((doc, result)) = edited(&text, &mut model, &edit) else { return Ok(()) };
        prop_assert!(result.is_ok());
        prop_assert_eq!(doc.text(), serde_json::to_string_pretty(&model).unwrap() + "\n");
    }

    #[test]
    fn expansion_leaves_no_variable(value in templated(), inputs_offered in any::<bool>()) {
        let vars = WorkspaceVars::new(&folders());
        let inputs = |id: &str| if id == "token" { Ok("t0k".to_string()) } else { Err(format!("no {id}")) };
        let resolver: Option<InputResolver<'_>> = if inputs_offered { Some(&inputs) } else { None };
        match expand_with_workspace(&value, "field", &env, &vars, resolver) {
            Ok(out) => prop_assert!(!out.contains("${"), "{:?} -> {:?}", value, out),
            Err(e) => prop_assert!(e.to_string().starts_with("field: "), "{}", e),
        }
    }
}

/// Found by `any_text_parses_or_is_refused_with_a_position_inside_it`: serde_json's column counts bytes, so an error
/// after non-ASCII text was reported past the end of its line (column 8 of a 3-character line here).
#[test]
fn a_syntax_error_column_counts_characters() {
    let text = "{\n  \"servers\": {\"é€𝕏\": 1 :}\n}";
    let err = Config::parse(Path::new("mcp.json"), text, &|_| None).unwrap_err();
    let ConfigError::Syntax { line, column, .. } = err else {
        panic!("{err}");
    };
    // The stray `:` is the 24th character of line 2 (its 30th byte).
    assert_eq!((line, column), (2, 24));
    assert!(err.to_string().starts_with("mcp.json:2:24: "), "{err}");
}

/// Found by `edits_keep_every_comment`: an object set among comments is merged member by member, so a member that
/// was there keeps its place and its comments, and a new one goes after it.
#[test]
fn an_object_set_among_comments_keeps_its_members_in_place() {
    let text = "{\"servers\": {\"a\": {\"env\": {/* <c0> */ \"B\": \"\" /* <c1> */}}}}";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, text).unwrap();
    let mut doc = ConfigDocument::load(&path).unwrap();
    doc.set_server_key("a", "env", serde_json::json!({"A": "1", "B": "2"}))
        .unwrap();
    let out = wharf_core::config::jsonc::parse(doc.text()).unwrap();
    assert_eq!(
        out,
        serde_json::json!({"servers": {"a": {"env": {"A": "1", "B": "2"}}}})
    );
    let keys: Vec<&String> = out["servers"]["a"]["env"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["B", "A"], "{}", doc.text());
    assert!(
        doc.text().contains("<c0>") && doc.text().contains("<c1>"),
        "{}",
        doc.text()
    );
}
