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
        ui: None,
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

/// `count` tools named `{prefix}{i:03}`, in that order.
fn listed(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}{i:03}")).collect()
}

fn offered_by(tools: &ModelTools, server: &str) -> Vec<String> {
    let mut names: Vec<String> = tools
        .iter()
        .filter(|t| t.server == server)
        .map(|t| t.tool.name.clone())
        .collect();
    names.sort();
    names
}

fn servers_of(lists: &[(&str, Vec<String>)]) -> ModelTools {
    ModelTools::new(lists.iter().map(|(server, names)| {
        (
            server.to_string(),
            names.iter().map(|n| tool(n)).collect::<Vec<_>>(),
        )
    }))
}

#[test]
fn beyond_the_providers_limit_a_lone_server_keeps_its_first_tools_and_the_rest_are_named() {
    let tools = servers_of(&[("s", listed("t", MAX_MODEL_TOOLS + 3))]);
    assert_eq!(tools.len(), MAX_MODEL_TOOLS);
    assert_eq!(
        tools.left_out,
        [ToolsLeftOut {
            server: "s".into(),
            offered: 128,
            listed: 131,
            reason: LeftOutReason::OverShare,
            tools: vec!["t128".into(), "t129".into(), "t130".into()],
        }]
    );
    assert!(tools
        .left_out_message()
        .unwrap()
        .contains("s (128 of its 131)"));
}

#[test]
fn a_server_listing_hundreds_of_tools_named_to_sort_first_cannot_push_an_honest_one_out() {
    // The server the user named first, its tools named to come before any other, listing 500.
    let tools = servers_of(&[
        ("aaa", listed("_", 500)),
        (
            "notes",
            vec!["search".into(), "write".into(), "read".into()],
        ),
    ]);
    assert_eq!(tools.len(), MAX_MODEL_TOOLS);
    assert_eq!(offered_by(&tools, "notes"), ["read", "search", "write"]);
    assert_eq!(offered_by(&tools, "aaa").len(), 125);
    assert_eq!(tools.left_out.len(), 1, "the honest server is not cut");
    let cut = &tools.left_out[0];
    assert_eq!(
        (cut.server.as_str(), cut.offered, cut.listed),
        ("aaa", 125, 500)
    );
    assert_eq!(cut.reason, LeftOutReason::OverShare);
    assert_eq!(cut.tools.len(), MAX_NAMED_LEFT_OUT, "named up to the limit");
    assert_eq!(
        cut.tools[0], "_125",
        "its first tools kept, in its own order"
    );
    let message = tools.left_out_message().unwrap();
    assert!(message.contains("128 of the 503 tools"), "{message}");
    assert!(message.contains("aaa (125 of its 500)"), "{message}");
    assert!(!message.contains("notes"), "{message}");
}

#[test]
fn two_hostile_servers_share_what_an_honest_one_leaves_and_neither_takes_more() {
    let tools = servers_of(&[
        ("flood-a", listed("a", 500)),
        ("flood-b", listed("b", 300)),
        ("honest", listed("h", 10)),
    ]);
    assert_eq!(offered_by(&tools, "honest").len(), 10);
    assert_eq!(offered_by(&tools, "flood-a").len(), 59);
    assert_eq!(offered_by(&tools, "flood-b").len(), 59);
    let cut: Vec<(&str, u32)> = tools
        .left_out
        .iter()
        .map(|l| (l.server.as_str(), l.offered))
        .collect();
    assert_eq!(cut, [("flood-a", 59), ("flood-b", 59)]);
}

#[test]
fn a_server_with_exactly_its_share_keeps_all_of_them() {
    let four: Vec<(String, Vec<String>)> = (0..4)
        .map(|i| (format!("s{i}"), listed("t", MAX_MODEL_TOOLS / 4)))
        .collect();
    let refs: Vec<(&str, Vec<String>)> =
        four.iter().map(|(s, t)| (s.as_str(), t.clone())).collect();
    let tools = servers_of(&refs);
    assert_eq!(tools.len(), MAX_MODEL_TOOLS);
    assert!(tools.left_out.is_empty(), "{:?}", tools.left_out);
    assert!(tools.left_out_message().is_none());

    let tools = servers_of(&[("big", listed("b", 1000)), ("half", listed("h", 64))]);
    assert_eq!(offered_by(&tools, "half").len(), 64);
    assert_eq!(offered_by(&tools, "big").len(), 64);
    assert_eq!(tools.left_out.len(), 1);
}

#[test]
fn what_an_equal_division_leaves_over_goes_to_the_first_servers_by_name() {
    assert_eq!(fair_shares(&[100, 100, 100], 128), [43, 43, 42]);
    assert_eq!(fair_shares(&[1, 100, 100], 128), [1, 64, 63]);
    assert_eq!(fair_shares(&[5, 7], 128), [5, 7], "all fit");
    assert_eq!(fair_shares(&[], 128), Vec::<usize>::new());
    // More servers than a request has room for: one tool each for the first by name.
    let shares = fair_shares(&[1; 200], 128);
    assert_eq!(shares.iter().sum::<usize>(), 128);
    assert!(shares[..128].iter().all(|&s| s == 1) && shares[128..].iter().all(|&s| s == 0));
}

#[test]
fn within_its_share_a_server_keeps_its_own_order_and_a_repeated_name_counts_once() {
    let mut own: Vec<String> = vec!["zeta".into(), "zeta".into(), "alpha".into()];
    own.extend(listed("x", 200));
    let tools = servers_of(&[("one", own), ("two", listed("y", 200))]);
    let kept = offered_by(&tools, "one");
    assert_eq!(kept.len(), 64);
    assert!(kept.contains(&"zeta".to_string()) && kept.contains(&"alpha".to_string()));
    assert!(kept.contains(&"x061".to_string()) && !kept.contains(&"x062".to_string()));
    let one = tools.left_out.iter().find(|l| l.server == "one").unwrap();
    assert_eq!(one.listed, 202, "zeta once");
}

#[test]
fn the_split_and_the_names_do_not_depend_on_the_order_servers_come_in() {
    let a = ("a", listed("t", 300));
    let b = ("b", listed("t", 40));
    let c = ("c", listed("u", 90));
    let one = servers_of(&[a.clone(), b.clone(), c.clone()]);
    let other = servers_of(&[c, a, b]);
    let names = |t: &ModelTools| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&one), names(&other));
    assert_eq!(one.left_out, other.left_out);
}

#[test]
fn a_left_out_name_is_told_on_one_line_and_cut() {
    let mut hostile = listed("t", MAX_MODEL_TOOLS);
    hostile.push(format!("evil\n\u{1b}[2J{}", "x".repeat(500)));
    let tools = servers_of(&[("s", hostile)]);
    let told = &tools.left_out[0].tools[0];
    assert!(!told.contains('\n') && !told.contains('\u{1b}'), "{told}");
    assert!(told.chars().count() < 120, "{told}");
}

proptest::proptest! {
    #[test]
    fn no_server_gets_less_than_a_fair_share(
        counts in proptest::collection::vec(0usize..400, 0..12),
    ) {
        let lists: Vec<(String, Vec<String>)> = counts
            .iter()
            .enumerate()
            .map(|(i, &n)| (format!("s{i:02}"), listed("t", n)))
            .collect();
        let refs: Vec<(&str, Vec<String>)> = lists.iter().map(|(s, t)| (s.as_str(), t.clone())).collect();
        let tools = servers_of(&refs);
        let total: usize = counts.iter().sum();
        proptest::prop_assert_eq!(tools.len(), total.min(MAX_MODEL_TOOLS));
        let offered: Vec<usize> = lists.iter().map(|(s, _)| offered_by(&tools, s).len()).collect();
        let fair = MAX_MODEL_TOOLS / counts.len().max(1);
        for (i, (&got, &listed)) in offered.iter().zip(&counts).enumerate() {
            proptest::prop_assert!(got <= listed);
            proptest::prop_assert!(got >= listed.min(fair), "server {} got {} of {}", i, got, listed);
            if got < listed {
                // A server that is cut has at most one fewer than any other server has.
                proptest::prop_assert!(offered.iter().all(|&other| other <= got + 1), "{:?}", offered);
                let told = tools.left_out.iter().find(|l| l.server == lists[i].0);
                proptest::prop_assert!(told.is_some_and(|l| l.offered as usize == got && l.listed as usize == listed));
            }
        }
        proptest::prop_assert_eq!(tools.left_out.len(), offered.iter().zip(&counts).filter(|(g, l)| g < l).count());
        // Deterministic: the servers in reverse order give the same tools.
        let again = servers_of(&refs.iter().rev().cloned().collect::<Vec<_>>());
        let names = |t: &ModelTools| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        proptest::prop_assert_eq!(names(&tools), names(&again));
    }
}

#[test]
fn each_tool_is_offered_with_the_server_it_is_on() {
    let read = ToolInfo {
        description: Some("Reads a file.".into()),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        ..tool("read_file")
    };
    let titled = ToolInfo {
        title: Some("Fetch a page".into()),
        ..tool("fetch")
    };
    let tools = ModelTools::new([
        ("fs".to_string(), vec![read.clone(), tool("bare")]),
        ("web".to_string(), vec![titled]),
    ]);
    let specs = tools.specs();
    let described: Vec<(&str, &str)> = specs
        .iter()
        .map(|s| (s.name, s.description.as_str()))
        .collect();
    assert_eq!(
        described,
        [
            ("fs__bare", "[server: fs]"),
            ("fs__read_file", "[server: fs] Reads a file."),
            ("web__fetch", "[server: web] Fetch a page"),
        ]
    );
    assert_eq!(specs[1].input_schema, &read.input_schema);
}

#[test]
fn a_tool_visible_only_to_its_views_is_never_offered_to_the_model() {
    let with = |name: &str, visibility: crate::protocol::Visibility| ToolInfo {
        ui: Some(crate::protocol::ToolUi {
            resource_uri: Some("ui://v".into()),
            visibility,
        }),
        ..tool(name)
    };
    use crate::protocol::Visibility;
    let tools = ModelTools::new([(
        "apps".to_string(),
        vec![
            with(
                "app_only",
                Visibility {
                    model: false,
                    app: true,
                },
            ),
            with("both", Visibility::default()),
            with(
                "model_only",
                Visibility {
                    model: true,
                    app: false,
                },
            ),
            tool("plain"),
        ],
    )]);
    let offered: Vec<&str> = tools.iter().map(|t| t.tool.name.as_str()).collect();
    assert_eq!(offered, ["both", "model_only", "plain"]);
    assert!(
        tools.left_out.is_empty(),
        "not a tool left out: never the model's"
    );
}
