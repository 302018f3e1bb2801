//! The provider entry of mcp.json (`sampling.provider`, `chat.provider`): which API, where, which model, and the name
//! of the keyring secret that holds its key. The key itself is never read from the file.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Any OpenAI-compatible Chat Completions endpoint.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
}

impl ProviderKind {
    fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Openai => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

/// mcp.json's `sampling.provider`. The key itself is never here: only the name of the keyring secret that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Without a trailing slash. OpenAI-compatible: the part before `/chat/completions` (`.../v1`). Anthropic: the
    /// host, or the host with `/v1`.
    pub base_url: String,
    /// The model used when the server's preferences name none of the allowed ones.
    pub model: String,
    /// The keyring secret holding the API key (`wharf secret set NAME`); none for a local endpoint without a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub api_key_secret: Option<String>,
    /// The models offered to servers' hints; empty means only `model`.
    #[serde(default)]
    pub models: Vec<String>,
}

/// A `sampling.provider` entry Wharf cannot use. The message is a sentence for the user that names the key; it
/// never repeats an API key written in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderConfigError {
    /// The key at fault (`baseUrl`, `kind`...), or `None` when the entry as a whole is wrong.
    pub key: Option<String>,
    pub message: String,
}

impl ProviderConfigError {
    fn at(key: &str, message: impl Into<String>) -> Self {
        ProviderConfigError {
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> Self {
        ProviderConfigError {
            key: None,
            message: message.into(),
        }
    }
}

impl ProviderConfig {
    /// An OpenAI-compatible endpoint without a key: a model runtime on this computer, or the bundled demo model.
    pub fn openai_compatible(base_url: &str, model: &str) -> ProviderConfig {
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key_secret: None,
            models: Vec::new(),
        }
    }

    /// Whether the model is given images when the configuration does not say: yes for Anthropic's models (all of
    /// them read images), no for an OpenAI-compatible server, where many local models take text only and fail the
    /// whole request on an image.
    pub fn reads_images_by_default(&self) -> bool {
        self.kind == ProviderKind::Anthropic
    }

    /// Reads mcp.json's `sampling.provider` object (keys `kind`, `baseUrl`, `model`, `apiKeySecret`, `models`).
    /// `baseUrl` defaults to the vendor's public endpoint. An API key written in the file is refused, never used:
    /// the error names the key, never its value.
    pub fn from_json(v: &Value) -> Result<Self, ProviderConfigError> {
        let obj = v
            .as_object()
            .ok_or_else(|| ProviderConfigError::whole("sampling.provider must be an object"))?;
        if let Some(key) = ["apiKey", "api_key"].iter().find(|k| obj.contains_key(**k)) {
            return Err(ProviderConfigError::at(
                key,
                format!(
                    "sampling.provider.{key}: an API key is never read from mcp.json; store it in the OS keyring \
                     with `wharf secret set NAME` (it reads the key from stdin), put NAME in `apiKeySecret`, and \
                     delete `{key}` from the file"
                ),
            ));
        }
        let kind = match obj.get("kind") {
            Some(Value::String(s)) if s == "openai" => ProviderKind::Openai,
            Some(Value::String(s)) if s == "anthropic" => ProviderKind::Anthropic,
            Some(Value::String(s)) => {
                return Err(ProviderConfigError::at(
                    "kind",
                    format!(
                    "sampling.provider.kind: `{s}` is not a provider kind (openai or anthropic)"
                ),
                ))
            }
            Some(_) => {
                return Err(ProviderConfigError::at(
                    "kind",
                    "sampling.provider.kind must be a string (openai or anthropic)",
                ))
            }
            None => {
                return Err(ProviderConfigError::at(
                    "kind",
                    "sampling.provider.kind is missing (openai or anthropic)",
                ))
            }
        };
        let base_url = match optional_string(obj, "baseUrl")? {
            Some(url) => check_base_url(&url)?,
            None => kind.default_base_url().to_string(),
        };
        let model = optional_string(obj, "model")?.ok_or_else(|| {
            ProviderConfigError::at(
                "model",
                "sampling.provider.model is missing (the model used by default)",
            )
        })?;
        let api_key_secret = optional_string(obj, "apiKeySecret")?;
        let models = match obj.get("models") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|m| match m.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() => Ok(s.to_string()),
                    _ => Err(ProviderConfigError::at(
                        "models",
                        "sampling.provider.models must hold model names (non-empty strings)",
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(ProviderConfigError::at(
                    "models",
                    "sampling.provider.models must be a list of model names",
                ))
            }
        };
        Ok(ProviderConfig {
            kind,
            base_url,
            model,
            api_key_secret,
            models,
        })
    }
}

/// A present key must be a non-empty string; an empty one is a mistake worth naming, not "unset".
fn optional_string(
    obj: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, ProviderConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(_) => Err(ProviderConfigError::at(
            key,
            format!("sampling.provider.{key} must be a non-empty string"),
        )),
    }
}

fn check_base_url(raw: &str) -> Result<String, ProviderConfigError> {
    let bad = |message: String| ProviderConfigError::at("baseUrl", message);
    let url = url::Url::parse(raw).map_err(|e| {
        bad(format!(
            "sampling.provider.baseUrl: `{raw}` is not a URL ({e})"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad(format!(
            "sampling.provider.baseUrl: `{raw}` must be an http:// or https:// URL"
        )));
    }
    // Credentials in the URL would be a key written in the file; the message does not repeat them.
    if url.password().is_some() || !url.username().is_empty() {
        return Err(bad(
            "sampling.provider.baseUrl must not carry credentials; store the key with `wharf secret set NAME` and \
             name it in `apiKeySecret`"
                .into(),
        ));
    }
    Ok(raw.trim_end_matches('/').to_string())
}
