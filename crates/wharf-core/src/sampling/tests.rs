use serde_json::json;

use super::*;

#[test]
fn the_users_edit_replaces_the_replys_text_and_keeps_the_rest() {
    let mut single =
        json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "model"}});
    apply_reply_edit(&mut single, Some(&json!({"text": "user"})));
    assert_eq!(single["content"], json!({"type": "text", "text": "user"}));
    assert_eq!(single["model"], "m");

    let mut blocks = json!({"content": [
        {"type": "tool_use", "id": "1", "name": "t", "input": {}},
        {"type": "text", "text": "model"}
    ]});
    apply_reply_edit(&mut blocks, Some(&json!({"text": "user"})));
    assert_eq!(blocks["content"][0]["type"], "tool_use");
    assert_eq!(blocks["content"][1]["text"], "user");

    // No edit: the reply as the model wrote it.
    let mut kept = json!({"content": {"type": "text", "text": "model"}});
    apply_reply_edit(&mut kept, None);
    apply_reply_edit(&mut kept, Some(&json!({"remember": "session"})));
    assert_eq!(kept["content"]["text"], "model");
}

#[test]
fn prompt_edits_replace_only_what_the_user_changed() {
    let mut params = json!({"systemPrompt": "s", "messages": [{"role": "user", "content": {"type": "text", "text": "a"}}], "maxTokens": 5});
    apply_prompt_edits(&mut params, &json!({"systemPrompt": "edited"}));
    assert_eq!(params["systemPrompt"], "edited");
    assert_eq!(params["messages"][0]["content"]["text"], "a");
    assert_eq!(params["maxTokens"], 5);
    let messages = json!([{"role": "user", "content": {"type": "text", "text": "b"}}]);
    apply_prompt_edits(
        &mut params,
        &json!({"messages": messages, "maxTokens": 9999}),
    );
    assert_eq!(params["messages"], messages);
    assert_eq!(
        params["maxTokens"], 5,
        "the budget is not the user's to raise here"
    );
    // Malformed edits change nothing.
    apply_prompt_edits(&mut params, &json!({"systemPrompt": 3, "messages": "x"}));
    assert_eq!(params["systemPrompt"], "edited");
}

#[test]
fn events_show_images_and_audio_by_size_not_by_bytes() {
    let messages = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image", "mimeType": "image/png", "data": "QUJDRA=="}
    ]})];
    let shown = shown_messages(&messages);
    assert_eq!(shown[0]["content"][0]["text"], "look");
    assert_eq!(shown[0]["content"][1]["data"], "<8 base64 characters>");
    assert_eq!(shown[0]["content"][1]["mimeType"], "image/png");
}

#[test]
fn a_rejection_is_the_specs_minus_one() {
    assert_eq!(SamplingError::Rejected("no".into()).jsonrpc_code(), -1);
    assert_eq!(SamplingError::Invalid("x".into()).jsonrpc_code(), -32602);
}

#[test]
fn a_server_flooding_sampling_requests_is_refused_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (prefs, _) = SamplingPrefs::open(dir.path().join("sampling.json"));
    let service = SamplingService::new(prefs, None);
    for _ in 0..FLOOD_LIMIT {
        assert!(!service.flooded("s"));
    }
    assert!(service.flooded("s"));
    assert!(!service.flooded("other"), "another server is not held back");
}
