//! The configuration of chat: the top-level `chat` object (`provider`, `maxSteps`, the context window, images,
//! tools and the reply's time limits).

use std::path::Path;

use serde_json::{Map, Value};

use crate::model::ProviderConfig;

/// Steps one turn may take (model replies with tool calls) when `chat.maxSteps` does not say.
pub const DEFAULT_MAX_STEPS: u32 = 25;
/// The most `chat.maxSteps` may ask for: a model looping on tool calls is stopped within this many steps.
pub const MAX_STEPS_LIMIT: u32 = 200;

/// The model's context window when `chat.contextTokens` does not say: what most current local models take.
pub const DEFAULT_CONTEXT_TOKENS: u32 = 32_768;

/// How long the provider may go without adding to a reply (before its first token, or keeping the stream open with
/// nothing in it) when `chat.idleSeconds` does not say.
pub const DEFAULT_IDLE_SECONDS: u64 = 120;
/// The longest one reply may stream when `chat.replySeconds` does not say: a provider that keeps adding a little
/// forever must still let the turn end.
pub const DEFAULT_REPLY_SECONDS: u64 = 600;

const CHAT_KEYS: &[&str] = &[
    "provider",
    "maxSteps",
    "contextTokens",
    "images",
    "tools",
    "idleSeconds",
    "replySeconds",
];

#[derive(Debug, Clone, PartialEq)]
pub struct ChatConfig {
    /// `chat.provider`, in the shape of `sampling.provider`; `Err` says why it cannot be used. Without it, the
    /// sampling provider serves chat too (see `Config::chat_provider`).
    pub provider: Option<Result<ProviderConfig, String>>,
    pub max_steps: u32,
    /// The model's context window in tokens: near it, old tool results are shortened.
    pub context_tokens: u32,
    /// `chat.images`: whether the model is given the images of tool results. `None`: as its provider kind
    /// suggests (see `ChatConfig::images_for`).
    pub images: Option<bool>,
    /// `chat.tools`: `false` when the model takes no tools (its runtime said so when it was chosen): the servers'
    /// tools are then not offered to it, and each turn says so. Absent or `true`: they are offered.
    pub tools: bool,
    /// `chat.idleSeconds`: the longest a reply may go without growing.
    pub idle_seconds: u64,
    /// `chat.replySeconds`: the longest one reply may take, however it streams.
    pub reply_seconds: u64,
}

impl ChatConfig {
    /// Whether `provider`'s model is given images: what `chat.images` says, else what its kind of provider suggests
    /// (see `ProviderConfig::reads_images_by_default`).
    pub fn images_for(&self, provider: &ProviderConfig) -> bool {
        self.images
            .unwrap_or_else(|| provider.reads_images_by_default())
    }
}

impl Default for ChatConfig {
    fn default() -> ChatConfig {
        ChatConfig {
            provider: None,
            max_steps: DEFAULT_MAX_STEPS,
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            images: None,
            tools: true,
            idle_seconds: DEFAULT_IDLE_SECONDS,
            reply_seconds: DEFAULT_REPLY_SECONDS,
        }
    }
}

/// Reads `chat`; what cannot be used is a warning, and the default applies.
pub(super) fn parse(chat: Option<&Value>, path: &Path, warnings: &mut Vec<String>) -> ChatConfig {
    let mut config = ChatConfig::default();
    let Some(chat) = chat else {
        return config;
    };
    let Value::Object(chat) = chat else {
        warnings.push(format!(
            "{}: \"chat\" must be an object; ignored",
            path.display()
        ));
        return config;
    };
    for key in chat.keys() {
        if !CHAT_KEYS.contains(&key.as_str()) {
            warnings.push(format!(
                "{}: chat: unknown key \"{key}\" ignored",
                path.display()
            ));
        }
    }
    config.provider = chat.get("provider").map(|provider| {
        ProviderConfig::from_json(provider)
            .map_err(|e| format!("{}: chat.provider: {e}", path.display()))
    });
    match chat.get("maxSteps") {
        None => {}
        Some(value) => match value.as_u64() {
            Some(steps) if (1..=u64::from(MAX_STEPS_LIMIT)).contains(&steps) => {
                config.max_steps = steps as u32;
            }
            _ => warnings.push(format!(
                "{}: chat.maxSteps must be a whole number from 1 to {MAX_STEPS_LIMIT}, not {value}; \
                 {DEFAULT_MAX_STEPS} applies",
                path.display()
            )),
        },
    }
    match chat.get("contextTokens") {
        None => {}
        Some(value) => match value.as_u64() {
            Some(tokens) if (1024..=10_000_000).contains(&tokens) => {
                config.context_tokens = tokens as u32;
            }
            _ => warnings.push(format!(
                "{}: chat.contextTokens must be a whole number from 1024 to 10000000, not {value}; \
                 {DEFAULT_CONTEXT_TOKENS} applies",
                path.display()
            )),
        },
    }
    if let Some(seconds) = seconds(
        chat,
        "idleSeconds",
        1..=3600,
        DEFAULT_IDLE_SECONDS,
        path,
        warnings,
    ) {
        config.idle_seconds = seconds;
    }
    if let Some(seconds) = seconds(
        chat,
        "replySeconds",
        1..=86_400,
        DEFAULT_REPLY_SECONDS,
        path,
        warnings,
    ) {
        config.reply_seconds = seconds;
    }
    match chat.get("images") {
        None => {}
        Some(Value::Bool(images)) => config.images = Some(*images),
        Some(value) => warnings.push(format!(
            "{}: chat.images must be true or false, not {value}; ignored",
            path.display()
        )),
    }
    match chat.get("tools") {
        None => {}
        Some(Value::Bool(tools)) => config.tools = *tools,
        Some(value) => warnings.push(format!(
            "{}: chat.tools must be true or false, not {value}; the servers' tools are offered",
            path.display()
        )),
    }
    config
}

/// `chat.<key>` as a number of seconds within `range`; what is outside it is a warning, and `default` applies.
fn seconds(
    chat: &Map<String, Value>,
    key: &str,
    range: std::ops::RangeInclusive<u64>,
    default: u64,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Option<u64> {
    let value = chat.get(key)?;
    match value.as_u64() {
        Some(seconds) if range.contains(&seconds) => Some(seconds),
        _ => {
            warnings.push(format!(
                "{}: chat.{key} must be a whole number of seconds from {} to {}, not {value}; {default} applies",
                path.display(),
                range.start(),
                range.end()
            ));
            None
        }
    }
}
