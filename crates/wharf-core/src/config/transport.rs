//! How a server is reached: a command on stdio or a URL over Streamable HTTP, read from its entry with every variable
//! expanded.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::expand::Expander;

/// How a server is reached, with every variable already expanded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum TransportDef {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// How a server is reached, as its summary says; `invalid` when its definition cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum TransportKind {
    Stdio,
    Http,
    Invalid,
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Invalid => "invalid",
        })
    }
}

pub(super) fn parse(def: &Map<String, Value>, vars: &Expander<'_>) -> Result<TransportDef, String> {
    let kind = match def.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err("\"type\" must be a string".into()),
        None if def.contains_key("command") => "stdio",
        None if def.contains_key("url") => "http",
        None => return Err("needs a \"command\" (stdio) or a \"url\" (http)".into()),
    };
    match kind {
        "stdio" => {
            let command = string_field(def, "command")?
                .ok_or_else(|| "a stdio server needs a \"command\"".to_string())?;
            let command = vars.expand(&command, "command")?;
            if command.trim().is_empty() {
                return Err("\"command\" is empty".into());
            }
            let args = match def.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => {
                    let mut args = Vec::with_capacity(items.len());
                    for (i, v) in items.iter().enumerate() {
                        args.extend(vars.arg(v, &format!("args[{i}]"))?);
                    }
                    args
                }
                Some(_) => return Err("\"args\" must be an array of strings".into()),
            };
            let env_map = string_map(def, "env", vars)?;
            let cwd = string_field(def, "cwd")?
                .map(|c| vars.expand(&c, "cwd").map(PathBuf::from))
                .transpose()?;
            Ok(TransportDef::Stdio {
                command,
                args,
                env: env_map,
                cwd,
            })
        }
        "http" | "streamableHttp" | "streamable-http" => {
            let url = string_field(def, "url")?
                .ok_or_else(|| "an http server needs a \"url\"".to_string())?;
            let url = vars.expand(&url, "url")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "\"url\" must start with http:// or https://, got {url:?}"
                ));
            }
            Ok(TransportDef::Http {
                url,
                headers: string_map(def, "headers", vars)?,
            })
        }
        "sse" => {
            Err("the deprecated HTTP+SSE transport is not supported; use Streamable HTTP".into())
        }
        other => Err(format!(
            "unknown server type \"{other}\" (expected stdio or http)"
        )),
    }
}

fn string_field(def: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match def.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    }
}

fn string_map(
    def: &Map<String, Value>,
    key: &str,
    vars: &Expander<'_>,
) -> Result<BTreeMap<String, String>, String> {
    match def.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                let raw = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                Ok((k.clone(), vars.expand(&raw, &format!("{key}.{k}"))?))
            })
            .collect(),
        Some(_) => Err(format!("\"{key}\" must be an object of strings")),
    }
}
