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
    t.pending.lock().unwrap().insert(RequestId::Number(7));
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
