use serde_json::json;

use super::*;

fn sampled(content: Vec<Value>) -> SampledMessage {
    SampledMessage {
        content,
        model: "m".into(),
        stop_reason: None,
    }
}

#[test]
fn the_users_edit_replaces_the_replys_text_and_keeps_the_rest() {
    let mut single = sampled(vec![json!({"type": "text", "text": "model"})]);
    single.replace_text("user".into());
    let wire = serde_json::to_value(&single).unwrap();
    assert_eq!(wire["content"], json!({"type": "text", "text": "user"}));
    assert_eq!(wire["model"], "m");
    assert_eq!(wire["role"], "assistant");

    let mut blocks = sampled(vec![
        json!({"type": "tool_use", "id": "1", "name": "t", "input": {}}),
        json!({"type": "text", "text": "model"}),
    ]);
    blocks.replace_text("user".into());
    let wire = serde_json::to_value(&blocks).unwrap();
    assert_eq!(wire["content"][0]["type"], "tool_use");
    assert_eq!(wire["content"][1]["text"], "user");

    // A reply without a text block gets one, first.
    let mut tools_only = sampled(vec![
        json!({"type": "tool_use", "id": "1", "name": "t", "input": {}}),
    ]);
    tools_only.replace_text("user".into());
    let wire = serde_json::to_value(&tools_only).unwrap();
    assert_eq!(wire["content"][0], json!({"type": "text", "text": "user"}));
    assert_eq!(wire["content"][1]["type"], "tool_use");
}

#[test]
fn prompt_edits_replace_only_what_the_user_changed() {
    let mut params = json!({"systemPrompt": "s", "messages": [{"role": "user", "content": {"type": "text", "text": "a"}}], "maxTokens": 5});
    let system = PromptEdits {
        system_prompt: Some("edited".into()),
        ..PromptEdits::default()
    };
    apply_prompt_edits(&mut params, system);
    assert_eq!(params["systemPrompt"], "edited");
    assert_eq!(params["messages"][0]["content"]["text"], "a");
    assert_eq!(params["maxTokens"], 5);
    let messages = json!([{"role": "user", "content": {"type": "text", "text": "b"}}]);
    let replaced = PromptEdits {
        messages: messages.as_array().cloned(),
        ..PromptEdits::default()
    };
    apply_prompt_edits(&mut params, replaced);
    assert_eq!(params["messages"], messages);
    assert_eq!(params["systemPrompt"], "edited");
    apply_prompt_edits(&mut params, PromptEdits::default());
    assert_eq!(params["messages"], messages);
    assert_eq!(params["maxTokens"], 5);
}

#[test]
fn edited_texts_go_back_in_their_blocks_and_the_rest_stays_as_sent() {
    let picture = json!({"type": "image", "data": "QUJD", "mimeType": "image/png"});
    let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]});
    let mut params = json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": "one block"}},
        {"role": "user", "content": [picture, {"type": "text", "text": "and a picture"}]},
        call,
        "not a message"
    ]});
    // By position, every block's: a text given for a block that is not text changes nothing.
    let texts = vec![
        vec![Some("one block, edited".to_string())],
        vec![
            Some("not text: kept".into()),
            Some("and that picture".into()),
        ],
        vec![Some("a tool call: kept".into())],
    ];
    let edits = PromptEdits {
        texts: Some(texts),
        ..PromptEdits::default()
    };
    apply_prompt_edits(&mut params, edits);
    assert_eq!(
        params["messages"],
        json!([
            {"role": "user", "content": {"type": "text", "text": "one block, edited"}},
            {"role": "user", "content": [picture, {"type": "text", "text": "and that picture"}]},
            call,
            "not a message"
        ])
    );
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

/// A server's request completed by a scripted model in the same process, with the user's answers from `script` (an
/// `--answers` file's text) and the events it told.
struct Served {
    model: crate::model::fake::FakeModel,
    events: std::sync::Arc<Mutex<Vec<HostEvent>>>,
    result: Result<Value, SamplingError>,
}

impl Served {
    fn told(&self) -> Vec<HostEvent> {
        self.events.lock().unwrap().clone()
    }
}

fn provider() -> ProviderConfig {
    ProviderConfig::openai_compatible("http://127.0.0.1:9/v1", "default-model")
}

async fn serve(
    prefs: impl FnOnce(&SamplingPrefs),
    script: &str,
    steps: Vec<crate::model::fake::Step>,
    params: Value,
) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = SamplingPrefs::open(dir.path().join("sampling.json"));
    prefs(&store);
    let model = crate::model::fake::FakeModel::new(steps);
    let service = Arc::new(
        SamplingService::new(store, Some(provider())).with_models(Arc::new(model.clone())),
    );
    let agent = crate::broker::ScriptedAgent::parse(script).unwrap();
    let broker = Broker::new(
        crate::broker::DeclaredCapabilities::SERVED.with_sampling(),
        Arc::new(agent),
    );
    let events = Arc::new(Mutex::new(Vec::new()));
    let told = events.clone();
    let sink = EventSink::new(move |event| told.lock().unwrap().push(event));
    let result = sample(Sampling {
        broker: &broker,
        service: Some(&service),
        events: &sink,
        server: "writer",
        definition_hash: "h1",
        cause: None,
        params: &params,
        modern: false,
    })
    .await
    .map(|message| serde_json::to_value(message).unwrap());
    Served {
        model,
        events,
        result,
    }
}

fn ask_for_a_haiku() -> Value {
    json!({
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": {"type": "text", "text": "A haiku, please."}}],
        "maxTokens": 50,
    })
}

#[tokio::test]
async fn a_reviewed_request_is_completed_by_the_model_with_the_users_edits() {
    use crate::model::fake::Step;
    let completion = crate::model::SampledMessage {
        content: vec![json!({"type": "text", "text": "the model's haiku"})],
        model: "default-model".into(),
        stop_reason: Some("endTurn".into()),
    };
    let served = serve(
        |_| {},
        r#"{"sampling": {"action": "accept", "content": {"systemPrompt": "Rhyme."}, "edit_reply": "the user's haiku"}}"#,
        vec![Step::Completion(completion)],
        ask_for_a_haiku(),
    )
    .await;

    let result = served.result.clone().unwrap();
    assert_eq!(result["content"]["text"], "the user's haiku");
    assert_eq!(result["model"], "default-model");
    let asked = served.model.completions();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].params["systemPrompt"], "Rhyme.",
        "the prompt as edited"
    );
    assert_eq!(asked[0].params["messages"], ask_for_a_haiku()["messages"]);
    assert_eq!(
        (asked[0].model.as_str(), asked[0].max_tokens),
        ("default-model", 50)
    );
    assert_eq!(asked[0].timeout, PROVIDER_TIMEOUT);
    assert_eq!(served.model.opened(), [provider()]);
    let events = served.told();
    assert!(
        matches!(
            &events[..],
            [HostEvent::Sampling {
                answer: AnswerAction::Accept,
                policy: Policy::Ask,
                ..
            }]
        ),
        "{events:?}"
    );
}

#[tokio::test]
async fn an_allowed_request_is_held_to_its_limits_and_a_provider_failure_is_told() {
    use crate::model::fake::Step;
    use crate::model::ProviderError;
    let allow = |prefs: &SamplingPrefs| {
        let limits = Limits {
            max_tokens: Some(20),
            ..Limits::default()
        };
        prefs.set("writer", "h1", Policy::Allow, limits).unwrap();
    };
    let refused = ProviderError::Unauthorized {
        secret: Some("llm".into()),
    };
    let served = serve(
        allow,
        "{}",
        vec![Step::CompletionFails(refused.clone())],
        ask_for_a_haiku(),
    )
    .await;

    assert_eq!(
        served.result,
        Err(SamplingError::Failed(refused.user_message()))
    );
    assert_eq!(
        served.model.completions()[0].max_tokens,
        20,
        "the user's cap"
    );
    let events = served.told();
    assert!(
        events.iter().any(|e| matches!(e,
            HostEvent::Notice { code: NoticeCode::ProviderError, message, .. } if *message == refused.user_message())),
        "{events:?}"
    );

    // A request the provider cannot take is the server's mistake, not a failure.
    let unsupported = ProviderError::InvalidParams("`messages` must be a list".into());
    let served = serve(
        allow,
        "{}",
        vec![Step::CompletionFails(unsupported.clone())],
        ask_for_a_haiku(),
    )
    .await;
    assert_eq!(
        served.result,
        Err(SamplingError::Invalid(unsupported.user_message()))
    );
}

#[tokio::test]
async fn a_request_the_user_rejects_never_reaches_the_model() {
    let served = serve(
        |_| {},
        r#"{"sampling": {"action": "decline"}}"#,
        Vec::new(),
        ask_for_a_haiku(),
    )
    .await;
    assert!(matches!(served.result, Err(SamplingError::Rejected(_))));
    assert!(served.model.completions().is_empty());
    assert!(served.model.opened().is_empty());
}
