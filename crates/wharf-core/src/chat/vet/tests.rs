use serde_json::json;

use super::*;
use crate::connection::ToolInfo;

fn tools() -> ModelTools {
    let read = ToolInfo {
        name: "read_file".into(),
        title: None,
        description: Some("Reads a file.".into()),
        input_schema: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "lines": {"type": "integer", "minimum": 1}},
            "required": ["path"],
            "additionalProperties": false
        }),
        output_schema: None,
        annotations: None,
        ui: None,
    };
    let now = ToolInfo {
        name: "now".into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: None,
        ui: None,
    };
    let broken = ToolInfo {
        name: "broken".into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}}),
        output_schema: None,
        annotations: None,
        ui: None,
    };
    ModelTools::new([("fs".to_string(), vec![read, now, broken])])
}

fn call(name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        model_id: None,
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[test]
fn a_call_that_fits_passes_with_its_arguments() {
    let tools = tools();
    let vetted = vet(
        &tools,
        &call("fs__read_file", r#"{"path": "/w/a", "lines": 3}"#),
    )
    .unwrap();
    assert_eq!(vetted.tool.server, "fs");
    assert_eq!(vetted.tool.tool.name, "read_file");
    assert_eq!(
        Value::Object(vetted.arguments),
        json!({"path": "/w/a", "lines": 3})
    );
    for empty in ["", "  ", "null", "{}"] {
        let vetted = vet(&tools, &call("fs__now", empty)).unwrap();
        assert!(vetted.arguments.is_empty(), "{empty:?}");
    }
}

#[test]
fn an_unknown_tool_is_answered_with_its_name_made_safe() {
    let tools = tools();
    let hostile = format!("read_file\u{1b}[2J{}", "x".repeat(5000));
    match vet(&tools, &call(&hostile, "{}")) {
        Err(CallRefused::UnknownTool(name)) => {
            assert!(!name.contains('\u{1b}'));
            assert!(name.chars().count() < 300, "bounded");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        vet(&tools, &call("read_file", "{}")),
        Err(CallRefused::UnknownTool(_))
    ));
}

#[test]
fn arguments_that_are_not_an_object_or_do_not_fit_are_refused_with_reasons() {
    let tools = tools();
    for (args, want) in [
        ("{\"path\": ", "not a JSON object"),
        ("[1, 2]", "a list"),
        ("\"/etc/passwd\"", "a string"),
    ] {
        let refused = vet(&tools, &call("fs__read_file", args)).unwrap_err();
        assert!(matches!(refused, CallRefused::NotAnObject { .. }), "{args}");
        assert!(refused.to_string().contains(want), "{refused}");
    }
    let refused = vet(
        &tools,
        &call("fs__read_file", r#"{"lines": 0, "also": "~/.ssh/id_rsa"}"#),
    )
    .unwrap_err();
    match &refused {
        CallRefused::DoesNotFit { problems, .. } => assert!(problems.len() >= 2, "{problems:?}"),
        other => panic!("{other:?}"),
    }
    let text = refused.to_string();
    assert!(text.contains("path"), "names the missing argument: {text}");
}

#[test]
fn huge_arguments_give_a_bounded_answer() {
    let tools = tools();
    let many: serde_json::Map<String, Value> = (0..500)
        .map(|i| (format!("k{i}"), json!("x".repeat(1000))))
        .collect();
    let args = Value::Object(many).to_string();
    let refused = vet(&tools, &call("fs__read_file", &args)).unwrap_err();
    let text = refused.to_string();
    assert!(text.len() < 4000, "{} bytes", text.len());
    assert!(text.contains("more"), "{text}");
}

#[test]
fn a_schema_that_cannot_be_checked_is_never_called_unchecked() {
    let tools = tools();
    assert!(matches!(
        vet(&tools, &call("fs__broken", r#"{"a": 1}"#)),
        Err(CallRefused::UncheckableSchema { .. })
    ));
}
