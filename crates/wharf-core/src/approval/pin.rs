//! What a grant is bound to: the definition of one tool on one server, and its hash (the pin). A server may change a
//! tool after the user allowed it (a new description that instructs the model, a schema that asks for more); the
//! pin tells, and the parts that changed are shown before the next call is allowed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::config::{ServerDef, TransportDef};
use crate::connection::ToolInfo;
use crate::protocol::ToolAnnotations;
pub use crate::question::tool_call::{ToolChange, ToolPart};

/// What a server runs, as far as a pin goes: its command and arguments, or its URL. Never its environment or its
/// headers: they hold secrets, and a rotated token is not a different server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "PinnedServer")]
pub struct ServerDefinition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
}

impl ServerDefinition {
    /// `None` for an entry whose transport could not be resolved: no call reaches such a server.
    pub fn of(def: &ServerDef) -> Option<ServerDefinition> {
        match def.transport.as_ref().ok()? {
            TransportDef::Stdio { command, args, .. } => Some(ServerDefinition {
                command: Some(command.clone()),
                args: args.clone(),
                url: None,
            }),
            TransportDef::Http { url, .. } => Some(ServerDefinition {
                command: None,
                args: Vec::new(),
                url: Some(url.clone()),
            }),
        }
    }
}

/// A tool's definition as the server listed it, every part a model or the user is shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "PinnedTool")]
pub struct ToolDefinition {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub annotations: Option<ToolAnnotations>,
}

impl From<&ToolInfo> for ToolDefinition {
    fn from(tool: &ToolInfo) -> ToolDefinition {
        ToolDefinition {
            name: tool.name.clone(),
            title: tool.title.clone(),
            description: tool.description.clone(),
            input_schema: tool.input_schema.clone(),
            output_schema: tool.output_schema.clone(),
            annotations: tool.annotations.clone(),
        }
    }
}

/// One tool on one server, as a grant is given for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Pinned {
    pub server: ServerDefinition,
    pub tool: ToolDefinition,
}

impl Pinned {
    pub fn new(server: ServerDefinition, tool: &ToolInfo) -> Pinned {
        Pinned {
            server,
            tool: ToolDefinition::from(tool),
        }
    }

    /// `sha256:` and the hex digest of the definition written with every object's keys in order: the same
    /// definition always gives the same pin, whatever order the server wrote its keys in.
    pub fn pin(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        let canonical = sorted(value).to_string();
        let digest = Sha256::digest(canonical.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }

    /// The parts of `now` that differ from `self`, in the order the card shows them.
    pub fn changes_to(&self, now: &Pinned) -> Vec<ToolChange> {
        let text = |v: Option<&Value>| match v {
            None => String::new(),
            Some(v) => serde_json::to_string_pretty(&sorted(v.clone())).unwrap_or_default(),
        };
        let plain = |s: &Option<String>| s.clone().unwrap_or_default();
        let annotations =
            |a: &Option<ToolAnnotations>| a.as_ref().and_then(|a| serde_json::to_value(a).ok());
        let server = |s: &ServerDefinition| match &s.url {
            Some(url) => url.clone(),
            None => std::iter::once(s.command.clone().unwrap_or_default())
                .chain(s.args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
        };
        let (a, b) = (&self.tool, &now.tool);
        let parts = [
            (ToolPart::Server, server(&self.server), server(&now.server)),
            (ToolPart::Title, plain(&a.title), plain(&b.title)),
            (
                ToolPart::Description,
                plain(&a.description),
                plain(&b.description),
            ),
            (
                ToolPart::InputSchema,
                text(Some(&a.input_schema)),
                text(Some(&b.input_schema)),
            ),
            (
                ToolPart::OutputSchema,
                text(a.output_schema.as_ref()),
                text(b.output_schema.as_ref()),
            ),
            (
                ToolPart::Annotations,
                text(annotations(&a.annotations).as_ref()),
                text(annotations(&b.annotations).as_ref()),
            ),
        ];
        let mut changes: Vec<ToolChange> = parts
            .into_iter()
            .filter(|(_, before, after)| before != after)
            .map(|(part, before, after)| ToolChange::new(part, before, after))
            .collect();
        if changes.is_empty() && self.server != now.server {
            // Same text, other arguments (one split differently): still another server.
            changes.push(ToolChange::new(
                ToolPart::Server,
                server(&self.server),
                server(&now.server),
            ));
        }
        changes
    }
}

/// `value` with every object's keys in order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
