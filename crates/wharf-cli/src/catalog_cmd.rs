//! `wharf resources | read | prompts | prompt | complete`: what a server offers besides tools (docs/cli.md). JSON
//! on stdout; a connection, protocol or usage error exits 2 with one line.

use std::process::ExitCode;

use serde_json::Value;
use wharf_core::protocol::CompletionReference;
use wharf_core::{CallOptions, Host};

use crate::{parse_args, print_json, Command, Failure};

pub async fn run(host: &Host, command: Command) -> Result<ExitCode, Failure> {
    let options = CallOptions {
        on_behalf_of_user: true,
        ..CallOptions::default()
    };
    let connect = |server: String| async move {
        host.connection(&server)
            .await
            .map_err(|e| Failure(format!("{server}: {e}")))
    };
    // Each answer is printed as the server sent it.
    fn sent<T>(value: Result<T, serde_json::Error>) -> Result<T, Failure> {
        value.map_err(|e| Failure(format!("internal: cannot print the answer: {e}")))
    }
    let output = match command {
        Command::Resources { server } => {
            let conn = connect(server.clone()).await?;
            let fail = |e| Failure(format!("{server}: {e}"));
            let resources = conn.list_resources().await.map_err(fail)?;
            let templates = conn.list_resource_templates().await.map_err(fail)?;
            let all: Result<Vec<Value>, _> = (resources.iter().map(serde_json::to_value))
                .chain(templates.iter().map(serde_json::to_value))
                .collect();
            Value::Array(sent(all)?)
        }
        Command::Read { server, uri } => {
            let conn = connect(server.clone()).await?;
            conn.read_resource(&uri, &options)
                .await
                .map_err(|e| Failure(format!("{server}: {uri}: {e}")))?
                .into_sent()
        }
        Command::Prompts { server } => {
            let conn = connect(server.clone()).await?;
            let prompts = conn
                .list_prompts()
                .await
                .map_err(|e| Failure(format!("{server}: {e}")))?;
            sent(serde_json::to_value(prompts))?
        }
        Command::Prompt { server, name, args } => {
            let args = prompt_args(parse_args(args.as_deref())?)?;
            let conn = connect(server.clone()).await?;
            conn.get_prompt(&name, args, &options)
                .await
                .map_err(|e| Failure(format!("{server}: {name}: {e}")))?
                .into_sent()
        }
        Command::Complete {
            server,
            kind,
            target,
            arg,
            value,
            context,
        } => {
            let reference = match kind.as_str() {
                "prompt" => CompletionReference::Prompt { name: target },
                "template" => CompletionReference::ResourceTemplate { uri: target },
                other => {
                    return Err(Failure(format!(
                        "complete: say `prompt NAME` or `template URI`, not {other:?}"
                    )))
                }
            };
            // The spec's context holds the other arguments' values as text.
            let context = parse_args(context.as_deref())?
                .unwrap_or_default()
                .into_iter()
                .map(|(name, value)| match value {
                    Value::String(text) => (name, text),
                    other => (name, other.to_string()),
                })
                .collect();
            let conn = connect(server.clone()).await?;
            let completion = conn
                .complete(reference, &arg, &value, context, &options)
                .await
                .map_err(|e| Failure(format!("{server}: {e}")))?;
            sent(serde_json::to_value(completion.values))?
        }
        _ => return Err(Failure("internal: not a catalog command".into())),
    };
    print_json(&output);
    Ok(ExitCode::SUCCESS)
}

/// Prompt arguments are strings in MCP: numbers and booleans given in the JSON are passed as their text.
fn prompt_args(
    args: Option<serde_json::Map<String, Value>>,
) -> Result<Option<serde_json::Map<String, Value>>, Failure> {
    let Some(args) = args else { return Ok(None) };
    let mut out = serde_json::Map::new();
    for (key, value) in args {
        let text = match value {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                return Err(Failure(format!(
                    "prompt argument {key} must be a string, not {other}"
                )))
            }
        };
        out.insert(key, Value::String(text));
    }
    Ok(Some(out))
}
