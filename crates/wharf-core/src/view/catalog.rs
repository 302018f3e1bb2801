//! What a front end lists of a server's resources, templates and prompts, and a completion's values: typed items,
//! the malformed ones counted rather than shown.

use serde::Serialize;

use crate::protocol::{CompletionResult, Listed, Prompt, Resource, ResourceTemplate};

/// One resource of `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mime_type: Option<String>,
    /// The size in bytes the server announced, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub size: Option<u64>,
}

/// One template of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct TemplateInfo {
    pub uri_template: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mime_type: Option<String>,
}

/// A server's resources as the Resources view shows them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ResourceCatalog {
    pub resources: Vec<ResourceInfo>,
    pub templates: Vec<TemplateInfo>,
    /// The server offers `resources.subscribe`: the viewer shows a Subscribe toggle.
    pub can_subscribe: bool,
    /// The URIs subscribed to now on this server.
    pub subscribed: Vec<String>,
    /// The server offers `completions`: template variables get suggestions.
    pub can_complete: bool,
    /// List items left out because they lacked a URI or a name.
    pub skipped: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgumentInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub required: bool,
}

/// One prompt of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PromptInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub arguments: Vec<PromptArgumentInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PromptCatalog {
    pub prompts: Vec<PromptInfo>,
    /// The server offers `completions`: arguments get suggestions.
    pub can_complete: bool,
    /// List items left out because they lacked a name.
    pub skipped: u32,
}

/// A `completion/complete` answer.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 (the spec's cap), as the server ordered them.
    pub values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub total: Option<u64>,
    pub has_more: bool,
}

/// The items read, and how many were malformed.
fn read<T, Info>(items: &[Listed<T>], info: impl Fn(&T) -> Info) -> (Vec<Info>, u32) {
    let list: Vec<Info> = items.iter().filter_map(Listed::item).map(info).collect();
    let skipped = u32::try_from(items.len() - list.len()).unwrap_or(u32::MAX);
    (list, skipped)
}

pub fn resource_infos(items: &[Listed<Resource>]) -> (Vec<ResourceInfo>, u32) {
    read(items, |r| ResourceInfo {
        uri: r.uri.clone(),
        name: r.name.clone(),
        title: r.title.clone(),
        description: r.description.clone(),
        mime_type: r.mime_type.clone(),
        size: r.size,
    })
}

pub fn template_infos(items: &[Listed<ResourceTemplate>]) -> (Vec<TemplateInfo>, u32) {
    read(items, |t| TemplateInfo {
        uri_template: t.uri_template.clone(),
        name: t.name.clone(),
        title: t.title.clone(),
        description: t.description.clone(),
        mime_type: t.mime_type.clone(),
    })
}

pub fn prompt_infos(items: &[Listed<Prompt>]) -> (Vec<PromptInfo>, u32) {
    read(items, |p| PromptInfo {
        name: p.name.clone(),
        title: p.title.clone(),
        description: p.description.clone(),
        arguments: p
            .arguments
            .iter()
            .map(|a| PromptArgumentInfo {
                name: a.name.clone(),
                title: a.title.clone(),
                description: a.description.clone(),
                required: a.required,
            })
            .collect(),
    })
}

/// A `completion/complete` answer: at most 100 values, those that are not text left out.
pub fn completion(answer: &CompletionResult) -> Completion {
    let all: Vec<&str> = answer.texts().collect();
    let cut = all.len() > 100;
    Completion {
        values: all.into_iter().take(100).map(str::to_owned).collect(),
        total: answer.total,
        has_more: cut || answer.has_more,
    }
}
