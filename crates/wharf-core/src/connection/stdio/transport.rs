//! Our own stdio transport for rmcp: newline-delimited JSON-RPC over a child's pipes, with the checks a desktop host
//! needs and rmcp leaves to us. Every bad line becomes a `server_error` event and the connection goes on; a line over
//! the size limit disconnects the server before it can grow memory.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientRequest, ErrorCode, JsonRpcMessage,
    JsonRpcResponse, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::events::{EventSink, ServerErrorCode};

/// Default largest message a server may send on one line.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

const PROBE_ID: &str = "wharf-probe";

type Writer = Box<dyn AsyncWrite + Send + Sync + Unpin>;
type Reader = BufReader<Box<dyn AsyncRead + Send + Sync + Unpin>>;

pub struct StdioTransport {
    server: String,
    reader: Reader,
    line: Vec<u8>,
    writer: Arc<tokio::sync::Mutex<Option<Writer>>>,
    /// Requests we sent and have not seen answered, with what each expects back: a response to anything else is
    /// reported, not delivered.
    pending: Arc<Mutex<HashMap<RequestId, Expecting>>>,
    /// Ids whose late answers are expected and dropped quietly (a probe that timed out).
    ignored: HashSet<RequestId>,
    max_message_bytes: usize,
    events: EventSink,
    /// Why the transport stopped, when it was our decision (e.g. an unreadable stream).
    close_reason: Arc<Mutex<Option<String>>>,
    /// The rest of an oversized line is being skipped: read and dropped, never held.
    skipping: bool,
}

/// What a request we sent expects as its answer, as far as reading the answer goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expecting {
    /// A `tools/call`: its result is read as a tool result, whatever other result shape it also resembles.
    ToolResult,
    /// Anything else: the result is read by trying each result shape in turn.
    AnyResult,
}

/// What `server/discover` told us about the server's era.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    /// The server answered discover (or a modern-era error): it speaks 2026-07-28 or later.
    Modern,
    /// A non-modern error or silence: fall back to the `initialize` handshake.
    Legacy { reason: String },
    /// The server went away during the probe.
    Closed,
}

impl StdioTransport {
    pub fn new(
        server: &str,
        reader: impl AsyncRead + Send + Sync + Unpin + 'static,
        writer: impl AsyncWrite + Send + Sync + Unpin + 'static,
        max_message_bytes: usize,
        events: EventSink,
    ) -> Self {
        let reader: Box<dyn AsyncRead + Send + Sync + Unpin> = Box::new(reader);
        let writer: Writer = Box::new(writer);
        StdioTransport {
            server: server.to_string(),
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            writer: Arc::new(tokio::sync::Mutex::new(Some(writer))),
            pending: Arc::default(),
            ignored: HashSet::new(),
            max_message_bytes,
            events,
            close_reason: Arc::default(),
            skipping: false,
        }
    }

    /// A handle on why the transport closed itself, readable after rmcp consumed the transport.
    pub fn close_reason(&self) -> Arc<Mutex<Option<String>>> {
        self.close_reason.clone()
    }

    /// Sends `server/discover` and classifies the answer, waiting at most `timeout` (our own: a slow `npx` start is
    /// given time before silence counts as legacy).
    pub(crate) async fn probe(&mut self, meta: Value, timeout: Duration) -> ProbeOutcome {
        let id = RequestId::String(PROBE_ID.into());
        let request = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": "server/discover",
                             "params": {"_meta": meta}});
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id.clone(), Expecting::AnyResult);
        }
        if self
            .write_line(request.to_string().into_bytes())
            .await
            .is_err()
        {
            return ProbeOutcome::Closed;
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let next = tokio::time::timeout_at(deadline, self.receive_message()).await;
            match next {
                Err(_elapsed) => {
                    self.forget(&id);
                    self.ignored.insert(id);
                    return ProbeOutcome::Legacy {
                        reason: format!("no answer to server/discover within {timeout:?}"),
                    };
                }
                Ok(None) => return ProbeOutcome::Closed,
                Ok(Some(JsonRpcMessage::Response(r))) if r.id == id => {
                    return match r.result {
                        ServerResult::DiscoverResult(_) => ProbeOutcome::Modern,
                        _ => ProbeOutcome::Legacy {
                            reason:
                                "server/discover returned something other than a DiscoverResult"
                                    .into(),
                        },
                    };
                }
                Ok(Some(JsonRpcMessage::Error(e))) if e.id.as_ref() == Some(&id) => {
                    let code = e.error.code;
                    return if is_modern_error(code) {
                        ProbeOutcome::Modern
                    } else {
                        ProbeOutcome::Legacy {
                            reason: format!(
                                "server/discover answered {}: {}",
                                code.0, e.error.message
                            ),
                        }
                    };
                }
                // A legacy server may log or notify before answering; nothing else is expected yet.
                Ok(Some(other)) => {
                    tracing::debug!(server = %self.server, ?other, "message during probe")
                }
            }
        }
    }

    fn forget(&self, id: &RequestId) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(id);
        }
    }

    async fn write_line(&self, mut bytes: Vec<u8>) -> std::io::Result<()> {
        bytes.push(b'\n');
        write_to(&self.writer, bytes).await
    }

    /// Reads one line into `self.line`, cancel-safe: a partial line stays buffered for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(buf) => buf,
                Err(e) => return LineRead::Io(e),
            };
            if available.is_empty() {
                return LineRead::Eof;
            }
            let (take, complete) = match available.iter().position(|b| *b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if self.skipping {
                self.reader.consume(take);
                self.skipping = !complete;
                continue;
            }
            if self.line.len() + take > self.max_message_bytes + 1 {
                // Keep only the start (where the id is); the rest is skipped as it arrives.
                let mut head = std::mem::take(&mut self.line);
                head.truncate(OVERSIZED_HEAD_BYTES);
                let more = OVERSIZED_HEAD_BYTES.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..more]);
                self.reader.consume(take);
                self.skipping = !complete;
                return LineRead::Oversized(head);
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if complete {
                return LineRead::Line;
            }
        }
    }

    /// The next well-formed message addressed to us; everything malformed is reported and skipped.
    async fn receive_message(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Eof => return None,
                LineRead::Io(e) => {
                    self.close_with(
                        ServerErrorCode::ReadError,
                        format!("cannot read from the server: {e}"),
                    );
                    return None;
                }
                LineRead::Oversized(head) => {
                    self.line.clear();
                    self.line.shrink_to(64 * 1024);
                    let limit = self.max_message_bytes;
                    let message = format!(
                        "the server sent a message larger than {limit} bytes; skipped without reading it"
                    );
                    self.events.server_error(
                        &self.server,
                        ServerErrorCode::MessageTooLarge,
                        message,
                    );
                    // The request it answers (its id is near the start) fails now instead of waiting forever.
                    if let Some(answer) = self.too_large_answer(&head) {
                        return Some(answer);
                    }
                    continue;
                }
            }
            let raw = std::mem::take(&mut self.line);
            let text = trim_line(&raw);
            let message = if text.is_empty() {
                None
            } else {
                self.check(text)
            };
            // Keep the allocation for the next line.
            self.line = raw;
            self.line.clear();
            if message.is_some() {
                return message;
            }
        }
    }

    fn check(&mut self, text: &[u8]) -> Option<ServerJsonRpcMessage> {
        // Straight from the bytes: this is every message's path. The line is parsed a second time, as plain JSON,
        // only when Wharf must see it as written (a server's request, an input-required result; both rare) or to
        // say what was wrong with it.
        let parsed = match self.read_as_tool_result(text) {
            Some(message) => Ok(message),
            None => serde_json::from_slice::<ServerJsonRpcMessage>(text),
        };
        let message = match parsed {
            Ok(m) if !needs_screening(&m) => m,
            parsed => {
                let value: Value = match serde_json::from_slice(text) {
                    Ok(v) => v,
                    Err(e) => {
                        self.events.server_error(
                            &self.server,
                            ServerErrorCode::InvalidJson,
                            format!("ignored a line that is not JSON ({e}): {}", preview(text)),
                        );
                        return None;
                    }
                };
                match (crate::raw_message::screen(&value), parsed) {
                    (Some(screened), _) => match serde_json::from_value(screened) {
                        Ok(m) => m,
                        Err(e) => {
                            tracing::error!(server = %self.server, "a screened message does not parse: {e}");
                            return None;
                        }
                    },
                    (None, Ok(m)) => m,
                    (None, Err(e)) => return self.invalid(text, &value, e),
                }
            }
        };
        let answered = match &message {
            JsonRpcMessage::Response(r) => Some(Some(r.id.clone())),
            JsonRpcMessage::Error(e) => Some(e.id.clone()),
            _ => None,
        };
        match answered {
            None => Some(message),
            Some(None) => {
                if let JsonRpcMessage::Error(e) = &message {
                    self.events.server_error(
                        &self.server,
                        ServerErrorCode::ErrorWithoutId,
                        format!(
                            "the server reported an error: {} ({})",
                            e.error.message, e.error.code.0
                        ),
                    );
                }
                None
            }
            Some(Some(id)) => {
                let known = self
                    .pending
                    .lock()
                    .is_ok_and(|mut pending| pending.remove(&id).is_some());
                if known {
                    Some(message)
                } else if self.ignored.remove(&id) {
                    None
                } else {
                    self.events.server_error(
                        &self.server,
                        ServerErrorCode::UnknownResponseId,
                        format!(
                            "ignored a response to request id {} that Wharf never sent",
                            id_text(&id)
                        ),
                    );
                    None
                }
            }
        }
    }

    /// The answer to a pending `tools/call`, read straight as a tool result. rmcp reads a result by trying each of its
    /// twenty result shapes in order, and a tool result comes sixteenth: each failed try costs a formatted error,
    /// and a tool result that also carries a field of an earlier shape (`messages`, `action`, `tools`) would be read
    /// as that shape and lose its content. `None` for every other line, and for a tool result rmcp must judge
    /// (input required, or none of a tool result's fields): the general reading takes those.
    fn read_as_tool_result(&self, text: &[u8]) -> Option<ServerJsonRpcMessage> {
        let response = serde_json::from_slice::<JsonRpcResponse<CallToolResult>>(text).ok()?;
        let expecting = self.pending.lock().ok()?.get(&response.id).copied();
        (expecting == Some(Expecting::ToolResult)).then(|| {
            JsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: response.jsonrpc,
                id: response.id,
                result: ServerResult::CallToolResult(response.result),
            })
        })
    }

    /// Reports a line that is JSON but not a message Wharf can take; an answer to a request we sent still settles it.
    fn invalid(
        &self,
        text: &[u8],
        value: &Value,
        e: serde_json::Error,
    ) -> Option<ServerJsonRpcMessage> {
        let method = value.get("method").and_then(Value::as_str);
        if value.get("id").is_none() && method.is_some() {
            // Notifications we do not know (LSP, vendor extensions) are allowed by the spec; skip them quietly.
            tracing::debug!(server = %self.server, ?method, "ignored unknown notification");
            return None;
        }
        self.events.server_error(
            &self.server,
            ServerErrorCode::InvalidJsonrpc,
            format!(
                "ignored a message that is not valid JSON-RPC for MCP ({e}): {}",
                preview(text)
            ),
        );
        // An answer to a request we sent still settles it: the caller gets the reason now, instead of a timeout
        // minutes later.
        if value.get("result").is_some() || value.get("error").is_some() {
            let id = value.get("id").cloned().map(serde_json::from_value);
            if let Some(Ok(id)) = id {
                return self.fail_pending(
                    id,
                    format!("the server's answer is not valid JSON-RPC for MCP ({e})"),
                );
            }
        }
        None
    }

    /// An error answer for the pending request whose oversized response starts with `head`, if its id is there.
    fn too_large_answer(&self, head: &[u8]) -> Option<ServerJsonRpcMessage> {
        let id = id_in_head(head)?;
        self.fail_pending(
            id,
            format!(
                "the answer is larger than Wharf's limit of {} bytes and was not read",
                self.max_message_bytes
            ),
        )
    }

    /// An error answer (-32603, `message`) for `id` if it is a request we are waiting for, which it settles.
    fn fail_pending(&self, id: RequestId, message: String) -> Option<ServerJsonRpcMessage> {
        let pending = self
            .pending
            .lock()
            .is_ok_and(|mut pending| pending.remove(&id).is_some());
        if !pending {
            return None;
        }
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32603, "message": message}
        });
        serde_json::from_value(error).ok()
    }

    fn close_with(&self, code: ServerErrorCode, message: String) {
        self.events
            .server_error(&self.server, code, message.clone());
        if let Ok(mut reason) = self.close_reason.lock() {
            reason.get_or_insert(message);
        }
    }
}

enum LineRead {
    Line,
    Eof,
    /// The first bytes of a line over the limit; the rest is being skipped.
    Oversized(Vec<u8>),
    Io(std::io::Error),
}

/// How much of an oversized line is kept to find its id.
const OVERSIZED_HEAD_BYTES: usize = 4096;

/// The top-level `"id"` of a JSON-RPC message from its first bytes, when the id comes before the result (as every
/// SDK writes it). A wrong guess costs nothing: only an id Wharf is waiting for is answered.
fn id_in_head(head: &[u8]) -> Option<RequestId> {
    let text = String::from_utf8_lossy(head);
    let mut rest = text.as_ref();
    while let Some(at) = rest.find("\"id\"") {
        let after = rest[at + 4..].trim_start();
        rest = &rest[at + 4..];
        let Some(value) = after.strip_prefix(':') else {
            continue;
        };
        let value = value.trim_start();
        let end = value.find([',', '}']).unwrap_or(value.len());
        if let Ok(id) = serde_json::from_str::<RequestId>(value[..end].trim()) {
            return Some(id);
        }
    }
    None
}

/// Whether rmcp's reading of a message may have lost what Wharf must see as written (see `crate::raw_message`):
/// every request of the server, and results rmcp read as input-required or could not type.
fn needs_screening(message: &ServerJsonRpcMessage) -> bool {
    match message {
        JsonRpcMessage::Request(_) => true,
        JsonRpcMessage::Response(r) => matches!(
            r.result,
            ServerResult::InputRequiredResult(_) | ServerResult::CustomResult(_)
        ),
        _ => false,
    }
}

/// True for the JSON-RPC errors only a modern-era server sends (version negotiation, header or capability checks).
pub fn is_modern_error(code: ErrorCode) -> bool {
    matches!(code.0, -32022..=-32020)
}

async fn write_to(
    writer: &tokio::sync::Mutex<Option<Writer>>,
    bytes: Vec<u8>,
) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the server's stdin is closed",
        ));
    };
    w.write_all(&bytes).await?;
    w.flush().await
}

fn trim_line(raw: &[u8]) -> &[u8] {
    let mut s = raw;
    while let [rest @ .., b'\n' | b'\r'] = s {
        s = rest;
    }
    s.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(s)
}

fn preview(text: &[u8]) -> String {
    let lossy = String::from_utf8_lossy(&text[..text.len().min(120)]);
    let mut out: String = lossy
        .chars()
        .flat_map(char::escape_default)
        .take(160)
        .collect();
    if text.len() > 120 {
        out.push('…');
    }
    out
}

fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => format!("{s:?}"),
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item {
            let expecting = match r.request {
                ClientRequest::CallToolRequest(_) => Expecting::ToolResult,
                _ => Expecting::AnyResult,
            };
            if let Ok(mut pending) = self.pending.lock() {
                pending.insert(r.id.clone(), expecting);
            }
        }
        let bytes = serde_json::to_vec(&item);
        let writer = self.writer.clone();
        async move {
            let mut bytes = bytes.map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            write_to(&writer, bytes).await
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.receive_message()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing stdin is the first step of the spec's shutdown.
        let writer = self.writer.lock().await.take();
        if let Some(mut w) = writer {
            let _ = w.shutdown().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fuzz_tests;
