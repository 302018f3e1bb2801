//! What a server offers besides tools, as the Resources and Prompts views use it: lists, reads, prompts, argument
//! completion, subscriptions and the log level, each answer shaped by `view/` so the window only renders it.
//!
//! The window never names a file: a binary resource is not sent to it (only its size and type); Save reads it again
//! and writes it where the user picks in the front end's save dialog.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::connection::CallOptions;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::protocol::CompletionReference;
use crate::uri_template::{self, TemplateVariable};
use crate::view::catalog::{self, Completion, PromptCatalog, ResourceCatalog};
use crate::view::content::{self, PromptView, ResourceView};

/// What a completion is for: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum CompletionTarget {
    Prompt { name: String },
    Template { uri_template: String },
}

impl From<CompletionTarget> for CompletionReference {
    fn from(target: CompletionTarget) -> CompletionReference {
        match target {
            CompletionTarget::Prompt { name } => CompletionReference::Prompt { name },
            CompletionTarget::Template { uri_template } => {
                CompletionReference::ResourceTemplate { uri: uri_template }
            }
        }
    }
}

/// A blob written to disk by `save_resource_blob`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SavedBlob {
    pub path: String,
    #[ts(type = "number")]
    pub bytes: u64,
}

fn user_call() -> CallOptions {
    CallOptions {
        on_behalf_of_user: true,
        ..CallOptions::default()
    }
}

/// The server's resources and resource templates (every page, bounded), with what the viewer may offer.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListResources {
    pub server: String,
}

impl Run for ListResources {
    async fn run(self, session: &Session) -> Reply<ResourceCatalog> {
        let conn = session.host().connection(&self.server).await?;
        let (resources, skipped) = catalog::resource_infos(&conn.list_resources().await?);
        let (templates, skipped_templates) =
            catalog::template_infos(&conn.list_resource_templates().await?);
        Ok(ResourceCatalog {
            resources,
            templates,
            can_subscribe: conn.identity.capabilities.subscribes(),
            subscribed: conn.subscriptions(),
            can_complete: conn.identity.capabilities.completions.is_some(),
            skipped: skipped + skipped_templates,
        })
    }
}

/// Reads a resource (MRTR rounds and the questions they bring served through the broker) and shapes its contents
/// for the viewer: text capped, images as base64, other blobs as their size and type only.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ReadResource {
    pub server: String,
    pub uri: String,
}

impl Run for ReadResource {
    async fn run(self, session: &Session) -> Reply<ResourceView> {
        let conn = session.host().connection(&self.server).await?;
        let result = conn.read_resource(&self.uri, &user_call()).await?;
        Ok(content::resource_view(&self.uri, &result))
    }
}

/// Reads the resource again and writes its `contents[index]` blob where the user picks in the save dialog. None
/// when the user cancelled (or a dialog is already open).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SaveResourceBlob {
    pub server: String,
    pub uri: String,
    pub index: u32,
}

impl Run for SaveResourceBlob {
    async fn run(self, session: &Session) -> Reply<Option<SavedBlob>> {
        let SaveResourceBlob { server, uri, index } = self;
        let conn = session.host().connection(&server).await?;
        let result = conn.read_resource(&uri, &user_call()).await?;
        let bytes = content::blob_at(&result, index as usize).map_err(|message| {
            CommandError::new(ErrorCode::NotABlob, format!("{uri}: {message}"))
        })?;
        let saved = session
            .save_with_dialog("Save the resource", content::file_name_for(&uri), &bytes)
            .await?;
        if let Some(saved) = &saved {
            tracing::info!(
                server,
                uri,
                path = saved.path,
                bytes = saved.bytes,
                "resource saved"
            );
        }
        Ok(saved)
    }
}

fn template_error(e: uri_template::TemplateError) -> CommandError {
    CommandError::new(ErrorCode::Template, e.to_string())
}

/// A resource template's variables, in order (RFC 6570 levels 1 and 2; higher levels are an error that says so).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TemplateVariables {
    pub template: String,
}

impl Run for TemplateVariables {
    async fn run(self, _session: &Session) -> Reply<Vec<TemplateVariable>> {
        uri_template::variables(&self.template).map_err(template_error)
    }
}

/// The URI a template makes with these values (missing ones expand to nothing, as RFC 6570 says).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ExpandTemplate {
    pub template: String,
    pub values: BTreeMap<String, String>,
}

impl Run for ExpandTemplate {
    async fn run(self, _session: &Session) -> Reply<String> {
        uri_template::expand(&self.template, &self.values).map_err(template_error)
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListPrompts {
    pub server: String,
}

impl Run for ListPrompts {
    async fn run(self, session: &Session) -> Reply<PromptCatalog> {
        let conn = session.host().connection(&self.server).await?;
        let (prompts, skipped) = catalog::prompt_infos(&conn.list_prompts().await?);
        Ok(PromptCatalog {
            prompts,
            can_complete: conn.identity.capabilities.completions.is_some(),
            skipped,
        })
    }
}

/// `prompts/get` with the arguments the user filled (MRTR rounds served through the broker), shaped for the view.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetPrompt {
    pub server: String,
    pub name: String,
    pub args: BTreeMap<String, String>,
}

impl Run for GetPrompt {
    async fn run(self, session: &Session) -> Reply<PromptView> {
        let args: Map<String, Value> = self
            .args
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let conn = session.host().connection(&self.server).await?;
        let result = conn
            .get_prompt(&self.name, (!args.is_empty()).then_some(args), &user_call())
            .await?;
        Ok(content::prompt_view(&result))
    }
}

/// Suggestions for `argument` of a prompt or template as the user types `value`, with the other fields already
/// filled as `context`.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Complete {
    pub server: String,
    pub target: CompletionTarget,
    pub argument: String,
    pub value: String,
    pub context: BTreeMap<String, String>,
}

impl Run for Complete {
    async fn run(self, session: &Session) -> Reply<Completion> {
        let context: BTreeMap<String, String> = self
            .context
            .into_iter()
            .filter(|(k, v)| k != &self.argument && !v.is_empty())
            .collect();
        let conn = session.host().connection(&self.server).await?;
        let answer = conn
            .complete(
                self.target.into(),
                &self.argument,
                &self.value,
                context,
                &CallOptions::default(),
            )
            .await?;
        Ok(catalog::completion(&answer))
    }
}

/// Subscribes to a resource (kept across restarts of the server) or unsubscribes; the URIs subscribed to now.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SubscribeResource {
    pub server: String,
    pub uri: String,
    pub on: bool,
}

impl Run for SubscribeResource {
    async fn run(self, session: &Session) -> Reply<Vec<String>> {
        let SubscribeResource { server, uri, on } = self;
        session.host().subscribe(&server, &uri, on).await?;
        tracing::info!(server, uri, on, "resource subscription changed from the UI");
        Ok(session.host().connection(&server).await?.subscriptions())
    }
}

/// The log messages wanted from the server, from `level` up (RFC 5424 names; kept for its restarts).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetLogLevel {
    pub server: String,
    pub level: String,
}

impl Run for SetLogLevel {
    async fn run(self, session: &Session) -> Reply<()> {
        session
            .host()
            .set_log_level(&self.server, &self.level)
            .await?;
        tracing::info!(
            server = self.server,
            level = self.level,
            "log level set from the UI"
        );
        Ok(())
    }
}

/// The level chosen for the server (kept by the host across restarts and window reloads); none: never set, or
/// cleared.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetLogLevel {
    pub server: String,
}

impl Run for GetLogLevel {
    async fn run(self, session: &Session) -> Reply<Option<String>> {
        Ok(session.host().log_level(&self.server))
    }
}

/// "off": forgets the chosen level. 2026-07-28 requests stop asking for log messages; a handshake-era server has no
/// way to be told, and keeps the last level until it restarts.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ClearLogLevel {
    pub server: String,
}

impl Run for ClearLogLevel {
    async fn run(self, session: &Session) -> Reply<()> {
        session.host().clear_log_level(&self.server).await?;
        tracing::info!(server = self.server, "log level cleared from the UI");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    #[test]
    fn a_completion_target_becomes_the_protocol_reference() {
        let prompt: CompletionTarget =
            serde_json::from_value(json!({"kind": "prompt", "name": "p"})).expect("prompt");
        assert_eq!(
            serde_json::to_value(CompletionReference::from(prompt)).expect("JSON"),
            json!({"type": "ref/prompt", "name": "p"})
        );
        let template: CompletionTarget =
            serde_json::from_value(json!({"kind": "template", "uriTemplate": "demo://{id}"}))
                .expect("template");
        assert_eq!(
            serde_json::to_value(CompletionReference::from(template)).expect("JSON"),
            json!({"type": "ref/resource", "uri": "demo://{id}"})
        );
        assert!(serde_json::from_value::<CompletionTarget>(json!({"kind": "tool"})).is_err());
    }

    #[test]
    fn template_errors_carry_the_template_code() {
        let error = uri_template::variables("demo://{?q}")
            .map_err(template_error)
            .expect_err("level 3");
        assert_eq!(error.code, ErrorCode::Template);
    }
}
