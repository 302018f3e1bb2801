//! An MCP server in the test's own process, over Streamable HTTP on loopback, in the handshake era: one tool, `echo`,
//! that says its `text` back. It keeps the arguments of every `tools/call` it is sent.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// The server, running until the test ends.
pub(crate) struct Mirror {
    pub url: String,
    calls: Arc<Mutex<Vec<Value>>>,
}

impl Mirror {
    pub(crate) async fn start() -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let calls = Arc::new(Mutex::new(Vec::new()));
        let kept = calls.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let (line, body) = crate::test_http::read_request(&mut stream).await;
                    let answer = if line.starts_with("POST ") {
                        let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                        match answer(&message, &kept) {
                            Some(reply) => http(
                                "200 OK",
                                "content-type: application/json\r\n",
                                &reply.to_string(),
                            ),
                            // A notification: accepted, nothing to answer.
                            None => http("202 Accepted", "", ""),
                        }
                    } else {
                        // No stream of the server's own: it never speaks first.
                        http("405 Method Not Allowed", "", "")
                    };
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        Mirror { url, calls }
    }

    /// The arguments of each `tools/call`, in order.
    pub(crate) fn calls(&self) -> Vec<Value> {
        self.calls.lock().unwrap().clone()
    }
}

fn http(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The JSON-RPC answer to `message`, or `None` for a notification.
fn answer(message: &Value, calls: &Mutex<Vec<Value>>) -> Option<Value> {
    let id = message.get("id")?;
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let result = match message.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mirror", "version": "1.0.0"},
        }),
        Some("tools/list") => json!({"tools": [{
            "name": "echo",
            "description": "Says the text back.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        }]}),
        Some("tools/call") => {
            let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
            let text = arguments["text"].as_str().unwrap_or_default().to_string();
            calls.lock().unwrap().push(arguments);
            json!({"content": [{"type": "text", "text": format!("echo: {text}")}], "isError": false})
        }
        Some("ping") => json!({}),
        _ => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}}))
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}
