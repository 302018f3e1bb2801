//! The bundled demo model, readied before the user's first message: its server keeps what it last evaluated, and
//! the system prompt with the servers' tools (about 1,200 tokens for the demo server's) is most of a first turn's
//! time on a laptop's processor. One request with the same system prompt and tools and a one-token reply leaves
//! them evaluated, so the first turn starts where later ones do. Only for the demo model: it runs on this computer
//! for this run, while a user's own provider may charge for every request.

use super::{gather_tools, system_prompt, TurnContext};
use crate::model::{ChatRequest, TurnMessage};

/// What the warming request asks: nothing the model needs to think about.
const WARM_MESSAGE: &str = "Hello.";

/// Sends the warming request when chat's model is the demo model; says why it could not, for the log.
pub async fn warm_up(cx: &TurnContext<'_>) -> Result<bool, String> {
    let settings = cx.settings;
    if !settings.demo {
        return Ok(false);
    }
    let model = cx
        .models
        .open(&settings.provider)
        .await
        .map_err(|e| e.to_string())?;
    let (_, tools) = gather_tools(cx).await;
    let system = system_prompt(&cx.host.workspace().folders());
    let tools = tools.specs();
    let request = ChatRequest {
        model: &settings.provider.model,
        system: Some(&system),
        max_tokens: 1,
        messages: &[TurnMessage::User(WARM_MESSAGE.to_string())],
        tools: &tools,
    };
    model
        .stream(&request, settings.limits, &mut |_| {})
        .await
        .map(|_| true)
        .map_err(|e| e.user_message())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::Value;
    use tokio::io::AsyncWriteExt;

    use super::*;
    use crate::approval::Approvals;
    use crate::broker::DeclineAll;
    use crate::chat::turn::{ChatSettings, RunningConversations};
    use crate::config::Config;
    use crate::conversations::ConversationStore;
    use crate::events::EventSink;
    use crate::facade::assemble::HostBuilder;
    use crate::model::{Keyring, ProviderConfig, ReplyLimits};

    /// A loopback provider answering every request with a one-token stream, keeping each request's JSON body.
    async fn provider(seen: Arc<Mutex<Vec<Value>>>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (_, body) = crate::test_http::read_request(&mut stream).await;
                seen.lock()
                    .unwrap()
                    .push(serde_json::from_str(&body).unwrap_or(Value::Null));
                let events = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n\
                              data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n\
                              data: [DONE]\n\n";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{events}",
                    events.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            }
        });
        format!("http://{addr}/v1")
    }

    fn settings(base_url: &str, demo: bool) -> ChatSettings {
        ChatSettings {
            provider: ProviderConfig::openai_compatible(base_url, "demo-model"),
            max_steps: 5,
            max_tokens: 4096,
            limits: ReplyLimits {
                idle: std::time::Duration::from_secs(10),
                whole: std::time::Duration::from_secs(10),
            },
            context_tokens: 4096,
            images: false,
            tools: true,
            demo,
        }
    }

    #[tokio::test]
    async fn only_the_demo_model_is_sent_the_system_prompt_and_tools_a_first_turn_will_send() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let url = provider(seen.clone()).await;
        let config = Config::parse(&dir.path().join("mcp.json"), r#"{"servers": {}}"#, &|_| {
            None
        })
        .unwrap();
        let host = HostBuilder::new(config, Arc::new(DeclineAll)).build(EventSink::discard());
        let (approvals, _) = Approvals::open(dir.path().join("grants.json"));
        let (store, _) = ConversationStore::open(&dir.path().join("c.db")).unwrap();
        let running = RunningConversations::default();
        let redactor = crate::redact::Redactor::default();
        let events = EventSink::discard();
        for demo in [false, true] {
            let settings = settings(&url, demo);
            let cx = TurnContext {
                host: &host,
                approvals: &approvals,
                store: &store,
                running: &running,
                events: &events,
                settings: &settings,
                models: &Keyring,
                redactor: &redactor,
            };
            assert_eq!(warm_up(&cx).await, Ok(demo), "demo: {demo}");
        }
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen.len(),
            1,
            "a user's own model is never sent it: {seen:?}"
        );
        let body = &seen[0];
        assert_eq!(body["max_tokens"], 1, "{body}");
        assert_eq!(body["model"], "demo-model");
        // The same system prompt a turn sends first, so the model's server keeps it evaluated for the turn.
        assert_eq!(
            body["messages"][0]["content"].as_str(),
            Some(system_prompt(&host.workspace().folders()).as_str()),
            "{body}"
        );
        assert!(store.list().unwrap().is_empty(), "nothing is kept of it");
    }
}
