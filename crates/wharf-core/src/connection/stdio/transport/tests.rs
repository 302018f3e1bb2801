use std::sync::Mutex as StdMutex;

use super::*;
use crate::events::HostEvent;
use tokio::io::AsyncWriteExt;

fn collecting_sink() -> (EventSink, Arc<StdMutex<Vec<HostEvent>>>) {
    let seen: Arc<StdMutex<Vec<HostEvent>>> = Arc::default();
    let store = seen.clone();
    (EventSink::new(move |e| store.lock().unwrap().push(e)), seen)
}

fn codes(seen: &Arc<StdMutex<Vec<HostEvent>>>) -> Vec<&'static str> {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            HostEvent::ServerError { code, .. } => Some(code.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn bad_lines_are_reported_and_skipped_then_good_messages_flow() {
    let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
    let (sink, seen) = collecting_sink();
    let mut t = StdioTransport::new("s", client_end, tokio::io::sink(), 1024, sink);
    server_end
        .write_all(
            b"not json at all\n{\"hello\": 1}\n{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n\n\
              {\"jsonrpc\":\"2.0\",\"method\":\"notifications/vendor/thing\"}\n\
              {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n",
        )
        .await
        .unwrap();
    let msg = t.receive().await.expect("the valid notification arrives");
    assert!(matches!(msg, JsonRpcMessage::Notification(_)));
    assert_eq!(
        codes(&seen),
        vec!["invalid_json", "invalid_jsonrpc", "unknown_response_id"]
    );
}

#[tokio::test]
async fn an_oversized_line_is_skipped_unread_its_request_fails_and_the_stream_goes_on() {
    let (mut server_end, client_end) = tokio::io::duplex(1 << 12);
    let (sink, seen) = collecting_sink();
    let mut t = StdioTransport::new("s", client_end, tokio::io::sink(), 100, sink);
    t.pending
        .lock()
        .unwrap()
        .insert(RequestId::Number(7), Expecting::AnyResult);
    let writer = tokio::spawn(async move {
        // Far more than the limit and than the pipe holds: the reader must skip it as it comes, not buffer it.
        server_end
            .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"result\": {\"text\": \"")
            .await
            .unwrap();
        let chunk = vec![b'x'; 4096];
        for _ in 0..1000 {
            server_end.write_all(&chunk).await.unwrap();
        }
        server_end.write_all(b"\"}}\n").await.unwrap();
        server_end
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n")
            .await
            .unwrap();
    });
    let failed = t.receive().await.expect("the request's answer: an error");
    let JsonRpcMessage::Error(error) = failed else {
        panic!("not an error: {failed:?}");
    };
    assert_eq!(error.id, Some(RequestId::Number(7)));
    assert!(error
        .error
        .message
        .contains("larger than Wharf's limit of 100 bytes"));
    assert!(
        t.line.capacity() <= 64 * 1024,
        "the line was buffered: {}",
        t.line.capacity()
    );
    let next = t.receive().await.expect("the stream goes on");
    assert!(matches!(next, JsonRpcMessage::Notification(_)));
    assert_eq!(codes(&seen), vec!["message_too_large"]);
    assert!(t.close_reason().lock().unwrap().is_none());
    writer.await.unwrap();
}

#[test]
fn the_id_is_found_at_the_start_of_an_oversized_answer() {
    assert_eq!(
        id_in_head(br#"{"jsonrpc":"2.0","id":12,"result":{"#),
        Some(RequestId::Number(12))
    );
    assert_eq!(
        id_in_head(br#"{"jsonrpc": "2.0", "id" : "abc", "result": "#),
        Some(RequestId::String("abc".into()))
    );
    assert_eq!(
        id_in_head(br#"{"jsonrpc":"2.0","result":{"text":"xxxx"#),
        None
    );
    assert_eq!(id_in_head(b"\xff\xfe garbage"), None);
}

#[tokio::test]
async fn responses_to_sent_requests_are_delivered_once() {
    let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
    let (sink, seen) = collecting_sink();
    let mut t = StdioTransport::new("s", client_end, tokio::io::sink(), 1 << 20, sink);
    let ping = ClientJsonRpcMessage::request(
        rmcp::model::ClientRequest::PingRequest(Default::default()),
        RequestId::Number(7),
    );
    t.send(ping).await.unwrap();
    let reply = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    server_end.write_all(reply).await.unwrap();
    server_end.write_all(reply).await.unwrap();
    server_end
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n")
        .await
        .unwrap();
    assert!(matches!(
        t.receive().await,
        Some(JsonRpcMessage::Response(_))
    ));
    assert!(matches!(
        t.receive().await,
        Some(JsonRpcMessage::Notification(_))
    ));
    assert_eq!(
        codes(&seen),
        vec!["unknown_response_id"],
        "the duplicate answer is reported"
    );
}

#[tokio::test]
async fn probe_classifies_answers() {
    async fn probe_with(answer: &'static [u8]) -> ProbeOutcome {
        let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
        let mut t = StdioTransport::new(
            "s",
            client_end,
            tokio::io::sink(),
            1 << 20,
            EventSink::discard(),
        );
        server_end.write_all(answer).await.unwrap();
        t.probe(json!({}), Duration::from_secs(5)).await
    }
    let legacy = probe_with(b"{\"jsonrpc\":\"2.0\",\"id\":\"wharf-probe\",\"error\":{\"code\":-32601,\"message\":\"nope\"}}\n").await;
    assert!(matches!(legacy, ProbeOutcome::Legacy { .. }), "{legacy:?}");
    let modern = probe_with(b"{\"jsonrpc\":\"2.0\",\"id\":\"wharf-probe\",\"error\":{\"code\":-32022,\"message\":\"v\",\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"x\"}}}\n").await;
    assert_eq!(modern, ProbeOutcome::Modern);
    let discover = probe_with(b"{\"jsonrpc\":\"2.0\",\"id\":\"wharf-probe\",\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{},\"ttlMs\":0,\"cacheScope\":\"private\"}}\n").await;
    assert_eq!(discover, ProbeOutcome::Modern);
}

#[tokio::test(start_paused = true)]
async fn silent_server_is_legacy_after_our_timeout_and_its_late_answer_is_dropped() {
    let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
    let (sink, seen) = collecting_sink();
    let mut t = StdioTransport::new("s", client_end, tokio::io::sink(), 1 << 20, sink);
    let outcome = t.probe(json!({}), Duration::from_secs(30)).await;
    assert!(matches!(outcome, ProbeOutcome::Legacy { .. }));
    server_end
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"wharf-probe\",\"error\":{\"code\":-32601,\"message\":\"late\"}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n")
        .await
        .unwrap();
    assert!(matches!(
        t.receive().await,
        Some(JsonRpcMessage::Notification(_))
    ));
    assert!(codes(&seen).is_empty());
}

/// The answer to a `tools/call` is read as a tool result even when it also carries a field of a result shape rmcp
/// tries first (`messages` is a prompt's): read the general way it would become a prompt and lose its content. The
/// same line answering another request is read the general way, and a tool call that needs input still reaches the
/// input-required reading.
#[tokio::test]
async fn a_tool_calls_answer_is_read_as_a_tool_result() {
    let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
    let (sink, seen) = collecting_sink();
    let mut t = StdioTransport::new("s", client_end, tokio::io::sink(), 1 << 20, sink);
    let call = |id: i64| {
        ClientJsonRpcMessage::request(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
                rmcp::model::CallToolRequestParams::new("echo"),
            )),
            RequestId::Number(id),
        )
    };
    let prompt = ClientJsonRpcMessage::request(
        ClientRequest::GetPromptRequest(rmcp::model::GetPromptRequest::new(
            rmcp::model::GetPromptRequestParams::new("p"),
        )),
        RequestId::Number(2),
    );
    t.send(call(1)).await.unwrap();
    t.send(prompt).await.unwrap();
    t.send(call(3)).await.unwrap();
    let both = r#"{"content":[{"type":"text","text":"hi"}],"messages":[]}"#;
    for (id, result) in [
        (1, both),
        (2, both),
        (3, r#"{"resultType":"input_required","inputRequests":{}}"#),
    ] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n");
        server_end.write_all(line.as_bytes()).await.unwrap();
    }
    let mut results = Vec::new();
    for _ in 0..2 {
        match t.receive().await {
            Some(JsonRpcMessage::Response(r)) => results.push(r.result),
            other => panic!("expected a response, got {other:?}"),
        }
    }
    match &results[0] {
        ServerResult::CallToolResult(r) => assert_eq!(r.content.len(), 1),
        other => panic!("the tool call's answer was read as {other:?}"),
    }
    assert!(
        matches!(results[1], ServerResult::GetPromptResult(_)),
        "the prompt's answer: {:?}",
        results[1]
    );
    // Input required travels as an error that keeps the result as written (see `crate::raw_message`).
    match t.receive().await {
        Some(JsonRpcMessage::Error(e)) => {
            let data = e.error.data.unwrap_or_default();
            assert!(
                crate::raw_message::input_required(e.error.code.0, Some(&data)).is_some(),
                "{data}"
            );
        }
        other => panic!("input required was read as {other:?}"),
    }
    assert!(codes(&seen).is_empty(), "{:?}", codes(&seen));
}
