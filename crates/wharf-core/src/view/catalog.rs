//! What a front end lists of a server's resources, templates and prompts, and a completion's values: typed items,
//! the malformed ones counted rather than shown.

use serde::Serialize;
use serde_json::Value;

use super::content::string;

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

pub fn resource_infos(items: &[Value]) -> (Vec<ResourceInfo>, u32) {
    let mut skipped = 0;
    let list = items
        .iter()
        .filter_map(|item| {
            let found = string(item, "uri")
                .zip(string(item, "name"))
                .map(|(uri, name)| ResourceInfo {
                    uri,
                    name,
                    title: string(item, "title"),
                    description: string(item, "description"),
                    mime_type: string(item, "mimeType"),
                    size: item.get("size").and_then(Value::as_u64),
                });
            skipped += u32::from(found.is_none());
            found
        })
        .collect();
    (list, skipped)
}

pub fn template_infos(items: &[Value]) -> (Vec<TemplateInfo>, u32) {
    let mut skipped = 0;
    let list = items
        .iter()
        .filter_map(|item| {
            let found = string(item, "uriTemplate").zip(string(item, "name")).map(
                |(uri_template, name)| TemplateInfo {
                    uri_template,
                    name,
                    title: string(item, "title"),
                    description: string(item, "description"),
                    mime_type: string(item, "mimeType"),
                },
            );
            skipped += u32::from(found.is_none());
            found
        })
        .collect();
    (list, skipped)
}

pub fn prompt_infos(items: &[Value]) -> (Vec<PromptInfo>, u32) {
    let mut skipped = 0;
    let list = items
        .iter()
        .filter_map(|item| {
            let found = string(item, "name").map(|name| PromptInfo {
                name,
                title: string(item, "title"),
                description: string(item, "description"),
                arguments: item
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|args| {
                        args.iter()
                            .filter_map(|a| {
                                Some(PromptArgumentInfo {
                                    name: string(a, "name")?,
                                    title: string(a, "title"),
                                    description: string(a, "description"),
                                    required: a.get("required").and_then(Value::as_bool)
                                        == Some(true),
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            });
            skipped += u32::from(found.is_none());
            found
        })
        .collect();
    (list, skipped)
}

/// A `completion/complete` answer (`{values, total?, hasMore?}`), at most 100 values, non-strings dropped.
pub fn completion(answer: &Value) -> Completion {
    let all: Vec<String> = answer
        .get("values")
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let cut = all.len() > 100;
    Completion {
        values: all.into_iter().take(100).collect(),
        total: answer.get("total").and_then(Value::as_u64),
        has_more: cut || answer.get("hasMore").and_then(Value::as_bool) == Some(true),
    }
}
