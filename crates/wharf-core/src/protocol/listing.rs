//! The items of the resource, resource template and prompt lists. An item without what identifies it (a resource's
//! URI and name, a template's URI template and name, a prompt's name) is kept as sent, malformed.

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::read::{as_sent, is_true, items, text};

/// One item of a list: read, or malformed and kept as sent. Serializes as the server sent it either way.
#[derive(Debug, Clone, PartialEq)]
pub enum Listed<T> {
    Item(T),
    Malformed(Value),
}

impl<T> Listed<T> {
    pub fn item(&self) -> Option<&T> {
        match self {
            Listed::Item(item) => Some(item),
            Listed::Malformed(_) => None,
        }
    }
}

impl<T: Serialize> Serialize for Listed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Listed::Item(item) => item.serialize(serializer),
            Listed::Malformed(json) => json.serialize(serializer),
        }
    }
}

/// One resource of `resources/list`. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// The size in bytes the server announced, if it did.
    pub size: Option<u64>,
    sent: Value,
}

impl Resource {
    /// What the listing declares of the resource as a view (`_meta.ui`).
    pub fn ui(&self) -> Option<super::ResourceUi> {
        self.sent.get("_meta").and_then(super::ResourceUi::read)
    }

    pub fn read(sent: Value) -> Listed<Resource> {
        match (text(&sent, "uri"), text(&sent, "name")) {
            (Some(uri), Some(name)) => Listed::Item(Resource {
                uri,
                name,
                title: text(&sent, "title"),
                description: text(&sent, "description"),
                mime_type: text(&sent, "mimeType"),
                size: sent.get("size").and_then(Value::as_u64),
                sent,
            }),
            _ => Listed::Malformed(sent),
        }
    }
}

/// One template of `resources/templates/list`. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceTemplate {
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    sent: Value,
}

impl ResourceTemplate {
    pub fn read(sent: Value) -> Listed<ResourceTemplate> {
        match (text(&sent, "uriTemplate"), text(&sent, "name")) {
            (Some(uri_template), Some(name)) => Listed::Item(ResourceTemplate {
                uri_template,
                name,
                title: text(&sent, "title"),
                description: text(&sent, "description"),
                mime_type: text(&sent, "mimeType"),
                sent,
            }),
            _ => Listed::Malformed(sent),
        }
    }
}

/// One prompt of `prompts/list`. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Its arguments; one without a name is left out (nothing could fill it).
    pub arguments: Vec<PromptArgument>,
    sent: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
}

impl Prompt {
    pub fn read(sent: Value) -> Listed<Prompt> {
        let Some(name) = text(&sent, "name") else {
            return Listed::Malformed(sent);
        };
        Listed::Item(Prompt {
            name,
            title: text(&sent, "title"),
            description: text(&sent, "description"),
            arguments: items(&sent, "arguments")
                .iter()
                .filter_map(|argument| {
                    Some(PromptArgument {
                        name: text(argument, "name")?,
                        title: text(argument, "title"),
                        description: text(argument, "description"),
                        required: is_true(argument, "required"),
                    })
                })
                .collect(),
            sent,
        })
    }
}

as_sent!(Resource, ResourceTemplate, Prompt);
