use serde_json::json;

use super::edit::{remove, rename, set};
use super::*;

/// The 1-based line and character column of the first `needle` in `text`, as an editor shows it.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.lines().count().max(1) + usize::from(before.ends_with('\n')),
        before[line_start..].chars().count() + 1,
    )
}

#[test]
fn comments_and_trailing_commas_are_read_as_vs_code_does() {
    let text = r#"// Wharf's servers
{
  /* "servers": {"commented": {"command": "out"}}, */
  "servers": {
    "a": { "command": "x", "args": ["1", "2",], }, // a trailing comma, twice
    "b": { "url": "http://h/*not a comment*/" // nor is //this
    },
  },
}
"#;
    assert_eq!(
        parse(text).unwrap(),
        json!({"servers": {"a": {"command": "x", "args": ["1", "2"]}, "b": {"url": "http://h/*not a comment*/"}}})
    );
}

#[test]
fn errors_after_comments_are_at_the_editors_line_and_column() {
    let text = "{\n  // é€ \"quoted\" { not json\n  /* a block\n     over lines */ \"servers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}\n";
    let e = parse(text).unwrap_err();
    assert_eq!((e.line, e.column), (5, 26), "{e}");
    assert_eq!(position_of(text, "\"args\""), (5, 26));

    let text = "{\"servers\": {}} /* é never closed\n";
    let e = parse(text).unwrap_err();
    assert_eq!((e.line, e.column), (1, 17));
    assert!(e.message.contains("unterminated"), "{e}");

    // A comma may trail a value, but not stand alone or twice.
    for text in ["[,]", "{,}", "{\"a\": 1,,}", "{\"a\": ,}", "[1,,]"] {
        assert!(parse(text).is_err(), "{text} must be refused");
    }
}

const COMMENTED: &str = r#"{
    // My servers, by hand.
    "servers": {
        /* the file system */
        "fs": {
            "command": "npx", // pinned below
            "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21",],
        },
        "git": {"command": "uvx", "args": ["mcp-server-git"]}, // compact on purpose

        // "old": {"command": "gone"},
    },
}
"#;

#[test]
fn setting_a_key_rewrites_only_that_key() {
    let out = set(COMMENTED, &["servers", "fs", "roots"], &json!(false)).unwrap();
    let expected = COMMENTED.replace(
        "server-filesystem@2025.8.21\",],\n        },",
        "server-filesystem@2025.8.21\",],\n            \"roots\": false,\n        },",
    );
    assert_eq!(out, expected);

    // Replaced in place, comment after it kept.
    let out = set(COMMENTED, &["servers", "fs", "command"], &json!("node")).unwrap();
    assert_eq!(
        out,
        COMMENTED.replace("\"npx\", // pinned", "\"node\", // pinned")
    );

    // After the comment that ends the last member's line, with the comma after the value.
    let out = set(COMMENTED, &["servers", "git", "roots"], &json!(true)).unwrap();
    assert_eq!(
        out,
        COMMENTED.replace(
            "[\"mcp-server-git\"]}",
            "[\"mcp-server-git\"], \"roots\": true}"
        )
    );

    // The same value: not a byte changes.
    assert_eq!(
        set(COMMENTED, &["servers", "fs", "command"], &json!("npx")).unwrap(),
        COMMENTED
    );
}

#[test]
fn a_value_with_a_comment_inside_is_not_replaced_silently() {
    let text = "{\"servers\": {\"a\": {\"args\": [\"1\" /* keep */, \"2\"]}}}";
    let e = set(text, &["servers", "a", "args"], &json!(["3"])).unwrap_err();
    assert!(
        e.0.contains("servers.a.args") && e.0.contains("comments"),
        "{e}"
    );
    // An object with a comment inside is changed member by member instead.
    let text = "{\"env\": {\n  \"A\": \"1\", // why A\n  \"B\": \"2\"\n}}";
    let out = set(text, &["env"], &json!({"A": "1", "C": "3"})).unwrap();
    assert_eq!(
        out,
        "{\"env\": {\n  \"A\": \"1\", // why A\n  \"C\": \"3\"\n}}"
    );
}

#[test]
fn removing_a_server_keeps_every_comment_and_the_rest_byte_for_byte() {
    let out = remove(COMMENTED, &["servers", "fs"]).unwrap();
    let expected = r#"{
    // My servers, by hand.
    "servers": {
        /* the file system */
        // pinned below
        "git": {"command": "uvx", "args": ["mcp-server-git"]}, // compact on purpose

        // "old": {"command": "gone"},
    },
}
"#;
    assert_eq!(out, expected);

    let out = remove(COMMENTED, &["servers", "git"]).unwrap();
    let expected = COMMENTED.replace(
        "        \"git\": {\"command\": \"uvx\", \"args\": [\"mcp-server-git\"]}, // compact on purpose\n",
        "        // compact on purpose\n",
    );
    assert_eq!(out, expected);

    // Nothing to remove: nothing changes.
    assert_eq!(remove(COMMENTED, &["servers", "nope"]).unwrap(), COMMENTED);
    assert_eq!(remove(COMMENTED, &["nope", "fs"]).unwrap(), COMMENTED);
}

#[test]
fn a_renamed_key_keeps_its_value_and_place() {
    let out = rename(COMMENTED, &["servers", "fs"], "files \"2\"").unwrap();
    assert_eq!(
        out,
        COMMENTED.replace("\"fs\": {", "\"files \\\"2\\\"\": {")
    );
}

/// What the app wrote before editing in place: the whole file re-printed by serde_json.
fn reprinted(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

#[test]
fn a_file_wharf_printed_is_edited_as_a_reprint_would_have_made_it() {
    let mut value = json!({
        "servers": {
            "a": {"command": "x", "args": ["1"], "env": {"K": "V"}},
            "b": {"url": "http://h"},
            "c": {}
        },
        "inputs": []
    });
    let mut text = reprinted(&value);

    text = set(&text, &["servers", "b", "headers"], &json!({"X": "1"})).unwrap();
    value["servers"]["b"]["headers"] = json!({"X": "1"});
    assert_eq!(text, reprinted(&value));

    text = set(&text, &["servers", "c", "command"], &json!("y")).unwrap();
    value["servers"]["c"]["command"] = json!("y");
    assert_eq!(text, reprinted(&value));

    text = set(&text, &["sampling", "provider"], &json!({"kind": "openai"})).unwrap();
    value["sampling"] = json!({"provider": {"kind": "openai"}});
    assert_eq!(text, reprinted(&value));

    for (path, key) in [
        (vec!["servers", "a"], "args"),
        (vec!["servers"], "c"),
        (vec!["servers"], "a"),
        (vec![], "sampling"),
        (vec!["servers"], "b"),
    ] {
        let mut full = path.clone();
        full.push(key);
        text = remove(&text, &full).unwrap();
        let mut object = &mut value;
        for p in &path {
            object = &mut object[*p];
        }
        object.as_object_mut().unwrap().shift_remove(key);
        assert_eq!(text, reprinted(&value), "after removing {full:?}");
    }
    assert_eq!(text, "{\n  \"servers\": {},\n  \"inputs\": []\n}\n");
}
