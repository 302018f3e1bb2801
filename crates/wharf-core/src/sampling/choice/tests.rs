use serde_json::json;

use super::*;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn hints_match_by_case_insensitive_substring() {
    let allowed = names(&["gpt-4o", "Claude-3-5-Sonnet-20241022", "llama3.1:8b"]);
    let prefs = json!({"hints": [{"name": "SONNET"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "Claude-3-5-Sonnet-20241022"
    );
}

#[test]
fn hints_are_taken_in_order() {
    let allowed = names(&["gpt-4o", "claude-3-haiku", "claude-3-opus"]);
    // The first hint that matches anything wins, even though a later one would match too.
    let prefs = json!({"hints": [{"name": "gemini"}, {"name": "haiku"}, {"name": "gpt"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "claude-3-haiku"
    );
    let prefs = json!({"hints": [{"name": "gpt"}, {"name": "haiku"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "claude-3-opus"),
        "gpt-4o"
    );
}

#[test]
fn no_match_falls_back_to_the_default() {
    let allowed = names(&["gpt-4o", "gpt-4o-mini"]);
    let prefs = json!({"hints": [{"name": "claude"}]});
    assert_eq!(choose_model(Some(&prefs), &allowed, "gpt-4o"), "gpt-4o");
    assert_eq!(choose_model(None, &allowed, "gpt-4o"), "gpt-4o");
    assert_eq!(choose_model(Some(&json!({})), &allowed, "gpt-4o"), "gpt-4o");
    // Malformed preferences are advisory noise, not an error.
    assert_eq!(
        choose_model(Some(&json!({"hints": "x"})), &allowed, "gpt-4o"),
        "gpt-4o"
    );
}

#[test]
fn without_an_allowed_list_only_the_default_is_offered() {
    let prefs = json!({"hints": [{"name": "claude"}], "speedPriority": 1.0});
    assert_eq!(
        choose_model(Some(&prefs), &[], "llama3.1:70b"),
        "llama3.1:70b"
    );
    let prefs = json!({"hints": [{"name": "llama"}]});
    assert_eq!(
        choose_model(Some(&prefs), &[], "llama3.1:70b"),
        "llama3.1:70b"
    );
}

#[test]
fn only_allowed_models_are_chosen() {
    let allowed = names(&["gpt-4o-mini"]);
    // The hint matches the default, which is not allowed: the allowed list wins.
    let prefs = json!({"hints": [{"name": "gpt-4o"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
    assert_eq!(choose_model(None, &allowed, "gpt-4o"), "gpt-4o-mini");
    let prefs = json!({"hints": [{"name": "claude"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
}

#[test]
fn priorities_break_ties_among_matches() {
    let allowed = names(&["claude-3-opus", "claude-3-haiku", "claude-3-5-sonnet"]);
    let hint = |extra: Value| {
        let mut prefs = json!({"hints": [{"name": "claude"}]});
        if let (Some(p), Some(e)) = (prefs.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        prefs
    };
    let fast = hint(json!({"speedPriority": 0.9, "intelligencePriority": 0.2}));
    assert_eq!(
        choose_model(Some(&fast), &allowed, "gpt-4o"),
        "claude-3-haiku"
    );
    let smart = hint(json!({"intelligencePriority": 0.9, "costPriority": 0.1}));
    assert_eq!(
        choose_model(Some(&smart), &allowed, "gpt-4o"),
        "claude-3-opus"
    );
    // No priorities: the first match in list order.
    assert_eq!(
        choose_model(Some(&hint(json!({}))), &allowed, "gpt-4o"),
        "claude-3-opus"
    );
}

#[test]
fn priorities_alone_choose_among_allowed_models_when_names_say_something() {
    let allowed = names(&["gpt-4o", "gpt-4o-mini", "gemini-2.5-pro"]);
    let cheap = json!({"costPriority": 1.0});
    assert_eq!(
        choose_model(Some(&cheap), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
    let smart = json!({"intelligencePriority": 1.0});
    assert_eq!(
        choose_model(Some(&smart), &allowed, "gpt-4o"),
        "gemini-2.5-pro"
    );
    // Balanced needs score every class alike: the user's default stays.
    let balanced =
        json!({"intelligencePriority": 0.5, "speedPriority": 0.25, "costPriority": 0.25});
    assert_eq!(choose_model(Some(&balanced), &allowed, "gpt-4o"), "gpt-4o");
    // Names that say nothing about size leave the default in place.
    let opaque = names(&["alpha", "beta"]);
    assert_eq!(choose_model(Some(&cheap), &opaque, "beta"), "beta");
}

#[test]
fn capability_reads_whole_tokens_and_sizes() {
    assert_eq!(capability("gemini-1.0"), 0.5, "gemini is not mini");
    assert_eq!(capability("gpt-4o-mini"), 0.0);
    assert_eq!(capability("llama3.1:8b"), 0.0);
    assert_eq!(capability("qwen2.5-32b-instruct"), 0.5);
    assert_eq!(capability("llama-3.1-405b"), 1.0);
    assert_eq!(capability("claude-opus-4-1"), 1.0);
    assert_eq!(capability("claude-3-5-sonnet"), 0.5);
}
