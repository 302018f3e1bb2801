use serde_json::json;

use super::*;

fn tool(name: &str) -> ToolInfo {
    ToolInfo {
        name: name.into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: None,
    }
}

fn names(servers: &[(&str, &[&str])]) -> ModelTools {
    ModelTools::new(
        servers
            .iter()
            .map(|(s, tools)| (s.to_string(), tools.iter().map(|t| tool(t)).collect())),
    )
}

fn valid(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_CHARS && name.chars().all(allowed)
}

#[test]
fn tools_are_offered_as_server_and_tool_and_found_again() {
    let tools = names(&[
        ("fs", &["read_file", "write_file"]),
        ("web", &["read_file"]),
    ]);
    assert_eq!(tools.len(), 3);
    let found = tools.get("web__read_file").unwrap();
    assert_eq!(
        (found.server.as_str(), found.tool.name.as_str()),
        ("web", "read_file")
    );
    assert_eq!(tools.get("fs__read_file").unwrap().server, "fs");
    assert!(tools.get("read_file").is_none(), "a name no server offers");
    assert!(tools.get("fs__delete").is_none());
}

#[test]
fn names_that_could_be_read_as_another_pair_are_told_apart() {
    let tools = names(&[
        ("a__b", &["c"]),
        ("a", &["b__c", "_x"]),
        ("a_", &["x"]),
        ("my server", &["dó it!"]),
        ("my_server", &["d__it_"]),
    ]);
    assert_eq!(tools.len(), 6, "none dropped");
    let mut seen = BTreeSet::new();
    for t in tools.iter() {
        assert!(valid(&t.name), "{}", t.name);
        assert!(seen.insert(t.name.clone()), "two tools named {}", t.name);
        assert_eq!(tools.get(&t.name).unwrap().tool.name, t.tool.name);
    }
    // The plain form is kept where it is unambiguous.
    assert!(tools.get("a__b__c").is_some_and(|t| t.server == "a"));
}

#[test]
fn long_names_are_cut_to_the_limit_and_stay_distinct() {
    let long = "t".repeat(100);
    let longer = format!("{long}x");
    let tools = names(&[("server", &[&long, &longer])]);
    let all: Vec<&ModelTool> = tools.iter().collect();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|t| valid(&t.name)));
    assert_ne!(all[0].name, all[1].name);
}

#[test]
fn a_name_does_not_move_when_another_server_comes() {
    let before = names(&[("fs", &["read file"])]);
    let after = names(&[("aaa", &["read file", "x"]), ("fs", &["read file"])]);
    let name = |tools: &ModelTools| {
        tools
            .iter()
            .find(|t| t.server == "fs")
            .map(|t| t.name.clone())
            .unwrap()
    };
    assert_eq!(name(&before), name(&after));
}

#[test]
fn beyond_the_providers_limit_tools_are_left_out_by_name() {
    let many: Vec<String> = (0..MAX_MODEL_TOOLS + 3)
        .map(|i| format!("t{i:03}"))
        .collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let tools = names(&[("s", &refs)]);
    assert_eq!(tools.len(), MAX_MODEL_TOOLS);
    assert_eq!(tools.left_out.len(), 3);
    assert_eq!(
        tools.left_out[0],
        ("s".to_string(), format!("t{:03}", MAX_MODEL_TOOLS))
    );
}
