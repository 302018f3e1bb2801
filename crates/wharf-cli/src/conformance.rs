//! `wharf conformance URL`: the client the official MCP conformance suite launches. It connects the way any Wharf
//! connection does, then does what the scenario (`MCP_CONFORMANCE_SCENARIO`) expects a client to do.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use wharf_core::auth::{AuthOptions, ConsentAll, PreRegistered, TokenStore};
use wharf_core::broker::Broker;
use wharf_core::config::{ServerDef, TransportDef};
use wharf_core::connection::ConnectContext;
use wharf_core::secrets::Secret;
use wharf_core::{CallOptions, Connection, Era, EraCache};

use crate::events_file::EventsFile;
use crate::Failure;

pub async fn run(url: &str, broker: Broker, events: EventsFile) -> Result<ExitCode, Failure> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let def = ServerDef {
        name: "conformance".into(),
        transport: Ok(TransportDef::Http {
            url: url.to_string(),
            headers: Default::default(),
        }),
        probe_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(20),
        pinned_era: None,
        uses_workspace: false,
        expose_roots: true,
        path_arguments: wharf_core::config::PathArgumentPolicy::Refuse,
        elicitation: true,
        apps: true,
        oauth: None,
        missing_inputs: Vec::new(),
        stance: Default::default(),
    };
    let eras = EraCache::in_memory();
    // The suite says which revision a scenario is for; a wrong hint costs one re-probe, never a failure.
    match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => eras.put(&def.definition_hash(), Era::Modern),
        Ok(v) if !v.is_empty() => eras.put(&def.definition_hash(), Era::Legacy),
        _ => {}
    }
    let mut ctx = ConnectContext::new(broker, events.sink(), Arc::new(eras));
    ctx.auth = Some(auth_options(&def.name));
    let conn = Connection::connect(&def, &ctx).await?;
    let outcome = exercise(&conn, &scenario).await;
    conn.shutdown().await;
    outcome.map(|()| ExitCode::SUCCESS)
}

/// Sign-in for the auth scenarios: nobody to ask, so consent is given; the "browser" is `$BROWSER` (client.sh
/// points it at a script that follows the redirect); tokens stay in memory.
fn auth_options(server: &str) -> AuthOptions {
    let mut options = AuthOptions::new(Arc::new(ConsentAll), TokenStore::memory());
    options.sign_in_timeout = Duration::from_secs(20);
    // The URL the suite's authorization server expects as a Client ID Metadata Document client id.
    options.client_metadata_url =
        Some("https://conformance-test.local/client-metadata.json".into());
    // auth/pre-registration hands over the client its authorization server knows.
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    if let Some(client_id) = context.get("client_id").and_then(Value::as_str) {
        let client_secret = context
            .get("client_secret")
            .and_then(Value::as_str)
            .map(Secret::new);
        options.preregistered.insert(
            server.to_string(),
            PreRegistered {
                client_id: client_id.to_string(),
                client_secret,
            },
        );
    }
    options
}

async fn exercise(conn: &Connection, scenario: &str) -> Result<(), Failure> {
    if scenario == "initialize" {
        return Ok(());
    }
    let tools = conn.list_tools().await?;
    let options = CallOptions::default();
    match scenario {
        // Listing is the whole test: the client must not dereference a network $ref.
        "json-schema-ref-no-deref" => Ok(()),
        "json-schema-2020-12-preservation" => {
            let schema = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .map(|t| t.input_schema.clone())
                .unwrap_or(Value::Null);
            let args = object(json!({"schema": schema}));
            conn.call_tool("json_schema_echo", args, &options).await?;
            Ok(())
        }
        _ => {
            for tool in &tools {
                let args = arguments_for(&tool.name);
                if let Err(e) = conn.call_tool(&tool.name, args, &options).await {
                    crate::output::say(&format!("conformance: {}: {e}", tool.name));
                }
            }
            Ok(())
        }
    }
}

/// Arguments the scenarios' tools need; everything else is called with none.
fn arguments_for(tool: &str) -> Option<Map<String, Value>> {
    let args = match tool {
        "add_numbers" => json!({"a": 2, "b": 3}),
        "test_custom_headers" => json!({
            "region": "us-west1", "priority": 42, "verbose": false, "debug": true, "empty_val": "",
            "method_val": "tools/call", "float_val": 3.5, "non_ascii_val": "café 日本",
            "whitespace_val": " padded ", "leading_space_val": " lead", "trailing_space_val": "trail ",
            "internal_space_val": "a b c", "control_char_val": "a\u{1}b", "crlf_val": "a\r\nb", "tab_val": "\tx",
            "query": "q"
        }),
        "test_custom_headers_null" => {
            json!({"region": "eu", "priority": 1, "verbose": null, "query": "q"})
        }
        _ => json!({}),
    };
    object(args)
}

fn object(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}
