//! A long conversation through the window: stored beforehand (through wharf-core, as chat stores one), it opens on
//! its newest page of entries and shows earlier pages on request; a turn whose provider counts more tokens than the
//! model's window leaves the conversation full, and the thread's offer carries it into a new conversation that
//! starts with the model's summary (against the scripted provider fixture).

use super::*;
use wharf_core::conversations::{ConversationStore, NewMessage, Role};
use wharf_e2e::{with_launch, Home, Launch};

#[path = "chat_provider.rs"]
mod provider;
use provider::Provider;

/// Messages of the stored conversation: two and a half pages of the thread.
const STORED: usize = 250;
/// The thread's page (ui/src/lib/threadWindow.ts).
const PAGE: usize = 100;
const TURN: Duration = Duration::from_secs(30);
const SUMMARY: &str = "SUMMARY: the user counted to 250.";

fn store_conversation(home: &Home) -> Result<String> {
    let failed = |e: wharf_core::conversations::ConversationError| Error::Check(e.to_string());
    let db = home.path().join("data/wharf/conversations.db");
    let (store, _) = ConversationStore::open(&db).map_err(failed)?;
    let id = store.create(Some("Counting")).map_err(failed)?.id;
    for i in 1..=STORED {
        let role = if i % 2 == 1 {
            Role::User
        } else {
            Role::Assistant
        };
        let message = NewMessage {
            role,
            text: format!("message {i}"),
            data: None,
        };
        store.append(&id, message).map_err(failed)?;
    }
    Ok(id)
}

async fn shown_messages(app: &App) -> Result<Vec<String>> {
    let mut texts = Vec::new();
    let selector = r#"[data-testid="chat-messages"] [data-testid="chat-message"]"#;
    for element in app.client().find_all(Locator::Css(selector)).await? {
        texts.push(element.text().await?.trim().to_string());
    }
    Ok(texts)
}

#[tokio::test]
async fn a_long_conversation_opens_on_its_newest_page_and_a_full_one_goes_on_in_a_new_one(
) -> Result<()> {
    let home = Home::new()?;
    let old = store_conversation(&home)?;
    let provider = Provider::start(
        home.path(),
        &json!({"replies": [
            // Counted as more than the window holds: the conversation is full.
            {"text": "noted", "usage": {"input": 3000, "output": 10}},
            {"text": SUMMARY}
        ]}),
    )
    .await?;
    let config = json!({"servers": {}, "chat": {
        "provider": {"kind": "openai", "baseUrl": provider.base_url, "model": "scripted-model"},
        "contextTokens": 1024
    }});
    with_launch(Launch::config(config).home(&home), async |app| {
        let open = format!(
            r#"[data-testid="conversation-row"][data-conversation="{old}"] [data-testid="conversation-open"]"#
        );
        app.click(Locator::Css(&open), UI).await?;
        let shown = app
            .wait_until("the conversation's newest message", UI, async || {
                let shown = shown_messages(app).await?;
                Ok((shown.last().map(String::as_str) == Some("message 250")).then_some(shown))
            })
            .await?;
        check(shown.len() == PAGE, format!("{} entries shown", shown.len()))?;
        check(
            shown.first().map(String::as_str) == Some("message 151"),
            format!("the page starts at {:?}", shown.first()),
        )?;
        app.click(Locator::Css(&testid("chat-show-earlier")), UI)
            .await?;
        app.wait_until("the earlier page", UI, async || {
            Ok((shown_messages(app).await?.len() == 2 * PAGE).then_some(()))
        })
        .await?;

        // A turn the provider counts as over the window: the thread offers to go on in a new conversation.
        app.fill(Locator::Css(&testid("chat-input")), "one more", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        app.click(Locator::Css(&testid("chat-summarize")), TURN)
            .await?;
        app.wait_until("the new conversation open", TURN, async || {
            let open = app
                .attr(Locator::Css(&testid("chat-thread")), "data-conversation")
                .await?
                .unwrap_or_default();
            Ok((!open.is_empty() && open != old).then_some(open))
        })
        .await?;
        app.wait_until("the summary in the new thread", TURN, async || {
            let shown = shown_messages(app).await?;
            Ok(shown.iter().any(|m| m.contains(SUMMARY)).then_some(()))
        })
        .await?;
        app.wait_until("the new conversation in the list", UI, async || {
            let list = app.text(Locator::Css(&testid("conversation-list"))).await?;
            Ok(list.is_some_and(|l| l.contains("Continued: Counting")).then_some(()))
        })
        .await?;
        Ok(())
    })
    .await?;
    // The model was asked for the summary with the conversation as a transcript, its start left out to fit.
    let requests: Vec<Value> = provider
        .recorded()
        .into_iter()
        .filter(|r| r.get("event").is_none())
        .collect();
    let asked = requests
        .iter()
        .find(|r| r["n"] == 1)
        .and_then(|r| r.pointer("/body/messages/1/content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    check(asked.contains("Summarize the conversation"), asked.clone())?;
    check(asked.contains("User: one more"), asked.clone())?;
    check(asked.contains("messages were left out"), asked)?;
    Ok(())
}
