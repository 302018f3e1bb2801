//! The bundled demo model, readied before the user's first message: its server keeps what it last evaluated, and
//! the system prompt with the servers' tools (about 1,200 tokens for the demo server's) is most of a first turn's
//! time on a laptop's processor. One request with the same system prompt and tools and a one-token reply leaves
//! them evaluated, so the first turn starts where later ones do. Only for the demo model: it runs on this computer
//! for this run, while a user's own provider may charge for every request.

use super::{gather_tools, system_prompt, TurnContext};
use crate::model::{AskError, ChatRequest, TurnMessage};

/// What the warming request asks: nothing the model needs to think about.
const WARM_MESSAGE: &str = "Hello.";

/// Sends the warming request when chat's model is the demo model; says why it could not, for the log.
pub async fn warm_up(cx: &TurnContext<'_>) -> Result<bool, AskError> {
    let settings = cx.settings;
    if !settings.demo {
        return Ok(false);
    }
    let model = cx.models.open(&settings.provider).await?;
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
        .map_err(AskError::from)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::chat::turn::tests::{settings, Fixture};
    use crate::model::fake::{FakeReply, Step};

    #[tokio::test]
    async fn only_the_demo_model_is_sent_the_system_prompt_and_tools_a_first_turn_will_send() {
        let script = vec![Step::Reply(FakeReply::text(&["Hi"]))];
        let mut fx = Fixture::new(json!({}), script, Vec::new()).await;
        assert!(matches!(warm_up(&fx.cx()).await, Ok(false)));
        assert!(
            fx.model.requests().is_empty(),
            "a user's own model is never sent it"
        );
        fx.settings = settings(true);
        assert!(matches!(warm_up(&fx.cx()).await, Ok(true)));
        let sent = fx.model.requests();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].max_tokens, 1);
        assert_eq!(sent[0].model, "fake-model");
        // The same system prompt a turn sends first, so the model's server keeps it evaluated for the turn.
        assert_eq!(
            sent[0].system.as_deref(),
            Some(system_prompt(&fx.host.workspace().folders()).as_str())
        );
        assert!(fx.store.list().unwrap().is_empty(), "nothing is kept of it");
    }
}
