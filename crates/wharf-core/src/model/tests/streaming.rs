//! Against a provider on loopback that answers with the bytes each test gives it, written piece by piece.

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

const KEY: &str = "sk-test-key-1234";

/// What the provider received: the request's head (lower-cased) and its body.
struct Received {
    head: String,
    body: Value,
}

/// Serves one request: answers `status` with `pieces` written one by one, then closes, unless `hold` keeps the
/// connection open without a word (a stalled provider).
async fn provider(
    status: &'static str,
    content_type: &'static str,
    pieces: Vec<Vec<u8>>,
    hold: bool,
) -> (String, tokio::task::JoinHandle<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let served = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        let (head, body) = loop {
            let n = socket.read(&mut buf).await.unwrap();
            request.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&request).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let head = text[..end].to_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .unwrap_or(0);
                if request.len() >= end + 4 + length {
                    break (head, request[end + 4..end + 4 + length].to_vec());
                }
            }
        };
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\nretry-after: 7\r\nconnection: close\r\n\r\n"
        );
        socket.write_all(response.as_bytes()).await.unwrap();
        for piece in pieces {
            socket.write_all(&piece).await.unwrap();
            socket.flush().await.unwrap();
        }
        if hold {
            // Until the client gives up and closes.
            let _ = socket.read(&mut buf).await;
        }
        Received {
            head,
            body: serde_json::from_slice(&body).unwrap(),
        }
    });
    (url, served)
}

/// Streams the reply to a one-message conversation from `config`'s model.
async fn stream(
    config: &ProviderConfig,
    key: Option<&str>,
    limits: ReplyLimits,
    mut on_delta: impl FnMut(Delta) + Send,
) -> Result<Reply, ProviderError> {
    let messages = [TurnMessage::User("hi".into())];
    let request = ChatRequest {
        model: "m",
        system: None,
        max_tokens: 10,
        messages: &messages,
        tools: &[],
    };
    model_for(config, key)
        .stream(&request, limits, &mut on_delta)
        .await
}

/// Limits with `idle` and a whole reply far longer than any test.
fn limits(idle: Duration) -> ReplyLimits {
    ReplyLimits {
        idle,
        whole: Duration::from_secs(120),
    }
}

fn config(kind: &str, url: &str) -> ProviderConfig {
    ProviderConfig::from_json(&json!({"kind": kind, "baseUrl": url, "model": "m"})).unwrap()
}

/// The events as SSE, cut into pieces of 7 bytes so that fields, lines and multi-byte characters are split.
fn sse(events: &[Value], done: bool) -> Vec<Vec<u8>> {
    let mut text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    if done {
        text.push_str("data: [DONE]\n\n");
    }
    text.into_bytes().chunks(7).map(<[u8]>::to_vec).collect()
}

#[tokio::test]
async fn an_openai_reply_streams_text_and_a_tool_call() {
    let chunk = |delta: Value, finish: Option<&str>| json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    let events = [
        chunk(json!({"content": "Looking"}), None),
        chunk(json!({"content": " now."}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "fs__read_file", "arguments": "{\"pa"}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "th\": \"a\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}),
    ];
    let (url, served) = provider("200 OK", "text/event-stream", sse(&events, true), false).await;
    let mut deltas = Vec::new();
    let reply = stream(
        &config("openai", &url),
        Some(KEY),
        limits(Duration::from_secs(10)),
        |d| deltas.push(d),
    )
    .await
    .unwrap();
    assert_eq!(reply.text, "Looking now.");
    assert_eq!(reply.stop, StopReason::ToolUse);
    assert_eq!(reply.tool_calls[0].arguments, r#"{"path": "a"}"#);
    assert_eq!(reply.usage.input_tokens, 9);
    assert_eq!(deltas.len(), 3, "{deltas:?}");
    let received = served.await.unwrap();
    assert!(
        received.head.starts_with("post /v1/chat/completions "),
        "{}",
        received.head
    );
    assert!(
        received
            .head
            .contains(&format!("authorization: bearer {KEY}")),
        "{}",
        received.head
    );
    assert_eq!(received.body["stream"], true);
    assert_eq!(received.body["stream_options"]["include_usage"], true);
    assert_eq!(
        received.body["messages"],
        json!([{"role": "user", "content": "hi"}])
    );
}

#[tokio::test]
async fn an_anthropic_reply_is_read_with_its_own_headers() {
    let events = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 5}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Hé"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "llo ✓"}}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ];
    let (url, served) = provider("200 OK", "text/event-stream", sse(&events, false), false).await;
    let reply = stream(
        &config("anthropic", &url),
        Some(KEY),
        limits(Duration::from_secs(10)),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(reply.text, "Héllo ✓");
    assert_eq!(reply.stop, StopReason::EndTurn);
    let received = served.await.unwrap();
    assert!(
        received.head.starts_with("post /v1/messages "),
        "{}",
        received.head
    );
    assert!(
        received.head.contains(&format!("x-api-key: {KEY}")),
        "{}",
        received.head
    );
    assert!(
        received.head.contains("anthropic-version: "),
        "{}",
        received.head
    );
    assert_eq!(received.body["stream"], true);
}

#[tokio::test]
async fn refusals_become_errors_the_user_can_act_on() {
    for (status, expect) in [
        ("429 Too Many Requests", "rate"),
        ("401 Unauthorized", "key"),
        ("400 Bad Request", "context"),
    ] {
        let body = json!({"error": {"message": format!("context too long for {KEY}")}}).to_string();
        let (url, _served) =
            provider(status, "application/json", vec![body.into_bytes()], false).await;
        let error = stream(
            &config("openai", &url),
            Some(KEY),
            limits(Duration::from_secs(10)),
            |_| {},
        )
        .await
        .unwrap_err();
        let said = error.user_message();
        assert!(said.to_lowercase().contains(expect), "{status}: {said}");
        assert!(!said.contains(KEY), "{said}");
        if status.starts_with("429") {
            assert_eq!(
                error,
                ProviderError::RateLimited {
                    retry_after: Some(Duration::from_secs(7))
                }
            );
        }
    }
}

#[tokio::test]
async fn an_error_mid_stream_keeps_what_was_shown_and_hides_the_key() {
    let events = [
        json!({"choices": [{"index": 0, "delta": {"content": "Part"}}]}),
        json!({"error": {"message": format!("upstream failed for key {KEY}")}}),
    ];
    let (url, _served) = provider("200 OK", "text/event-stream", sse(&events, false), false).await;
    let mut shown = String::new();
    let error = stream(
        &config("openai", &url),
        Some(KEY),
        limits(Duration::from_secs(10)),
        |d| {
            if let Delta::Text(t) = d {
                shown.push_str(&t)
            }
        },
    )
    .await
    .unwrap_err();
    assert_eq!(shown, "Part");
    match error {
        ProviderError::Stream(message) => {
            assert!(message.contains("upstream failed"), "{message}");
            assert!(!message.contains(KEY), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_stalled_or_cut_stream_ends_with_an_error_not_a_reply() {
    let events = [json!({"choices": [{"index": 0, "delta": {"content": "Hm"}}]})];
    let (url, _served) = provider("200 OK", "text/event-stream", sse(&events, false), true).await;
    let error = stream(
        &config("openai", &url),
        None,
        limits(Duration::from_millis(300)),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(error, ProviderError::Stalled(_)), "{error:?}");

    let (url, _served) = provider("200 OK", "text/event-stream", sse(&events, false), false).await;
    let error = stream(
        &config("openai", &url),
        None,
        limits(Duration::from_secs(10)),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(error, ProviderError::Stream(_)), "{error:?}");
}

/// A provider that answers a stream and then writes `start` once and `piece` again and again, every `every`, until
/// the client goes away.
async fn endless(start: String, piece: String, every: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 65536];
        let _ = socket.read(&mut buf).await;
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        if socket
            .write_all(format!("{head}{start}").as_bytes())
            .await
            .is_err()
        {
            return;
        }
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            if socket.write_all(piece.as_bytes()).await.is_err() || socket.flush().await.is_err() {
                return;
            }
        }
    });
    url
}

#[tokio::test]
async fn a_stream_that_only_keeps_itself_alive_ends_the_reply() {
    let text = |t: &str| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": t}}]})
        )
    };
    let empty = format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {}}]})
    );
    let limits = ReplyLimits {
        idle: Duration::from_millis(400),
        whole: Duration::from_secs(120),
    };
    // Empty chunks after some text: the reply stopped growing.
    let url = endless(text("Hel"), empty.clone(), Duration::from_millis(20)).await;
    let mut shown = String::new();
    let error = stream(&config("openai", &url), None, limits, |d| {
        if let Delta::Text(t) = d {
            shown.push_str(&t)
        }
    })
    .await
    .unwrap_err();
    assert_eq!(error, ProviderError::Stalled(limits.idle));
    assert_eq!(shown, "Hel");
    assert!(
        error.user_message().contains("chat.idleSeconds"),
        "{}",
        error.user_message()
    );
    // Only empty chunks, and SSE comments (keep-alives): the reply never started.
    for piece in [empty, ": keep-alive\n\n".to_string()] {
        let url = endless(String::new(), piece, Duration::from_millis(20)).await;
        let error = stream(&config("openai", &url), None, limits, |_| {})
            .await
            .unwrap_err();
        assert_eq!(error, ProviderError::Timeout(limits.idle));
    }
    // Anthropic's pings are no growth either.
    let ping = format!("event: ping\ndata: {}\n\n", json!({"type": "ping"}));
    let url = endless(String::new(), ping, Duration::from_millis(20)).await;
    let error = stream(&config("anthropic", &url), None, limits, |_| {})
        .await
        .unwrap_err();
    assert_eq!(error, ProviderError::Timeout(limits.idle));
}

#[tokio::test]
async fn a_reply_that_grows_forever_is_stopped_at_the_whole_reply_limit() {
    let word = format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": "la "}}]})
    );
    let limits = ReplyLimits {
        idle: Duration::from_millis(400),
        whole: Duration::from_millis(900),
    };
    let url = endless(String::new(), word, Duration::from_millis(20)).await;
    let mut shown = 0usize;
    let error = stream(&config("openai", &url), None, limits, |d| {
        if let Delta::Text(t) = d {
            shown += t.len()
        }
    })
    .await
    .unwrap_err();
    assert_eq!(error, ProviderError::ReplyTooLong(limits.whole));
    assert!(shown > 0, "the text streamed until the limit");
    assert!(
        error.user_message().contains("chat.replySeconds"),
        "{}",
        error.user_message()
    );
}
