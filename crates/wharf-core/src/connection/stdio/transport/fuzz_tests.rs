//! Fuzzing the line decoder with whatever a server might write: raw bytes, and JSON-RPC-shaped lines with ids
//! Wharf is and is not waiting for. The transport never panics, reads to the end, and delivers each pending
//! request's answer at most once, and none for an id it never sent.

use std::collections::HashSet;

use proptest::prelude::*;
use serde_json::{json, Map, Number, Value};
use tokio::io::AsyncWriteExt;

use super::*;

/// The ids the fuzzed transport is waiting for; lines also carry others.
const PENDING: [i64; 3] = [1, 2, 3];

fn json_value() -> impl Strategy<Value = Value> {
    let words = prop::sample::select(vec![
        "",
        "a",
        "2.0",
        "jsonrpc",
        "id",
        "method",
        "result",
        "error",
        "code",
        "message",
        "data",
        "tools/list",
        "notifications/progress",
        "resultType",
        "complete",
        "input_required",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-4i64..8).prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        words.prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{0,6}|id|result|error", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0i64..6).prop_map(Value::from),
        1 => Just(json!("wharf-probe")),
        1 => json_value(),
    ]
}

/// One line a server could write: a response, an error, a request, a notification, or JSON of any shape.
fn message() -> impl Strategy<Value = Value> {
    let version = prop_oneof![8 => Just(json!("2.0")), 1 => json_value()];
    let error = prop_oneof![
        (any::<i32>(), ".{0,8}").prop_map(|(code, m)| json!({"code": code, "message": m})),
        json_value(),
    ];
    let method = prop_oneof![
        Just(json!("notifications/tools/list_changed")),
        Just(json!("notifications/progress")),
        Just(json!("ping")),
        Just(json!("roots/list")),
        json_value(),
    ];
    // Results shaped like a tool's, with a field of another shape now and then, reach the direct reading.
    let result = prop_oneof![
        json_value(),
        (".{0,8}", any::<bool>(), json_value()).prop_map(|(text, is_error, extra)| {
            json!({"content": [{"type": "text", "text": text}], "isError": is_error, "messages": extra})
        }),
    ];
    prop_oneof![
        (version.clone(), id(), result)
            .prop_map(|(v, id, result)| json!({"jsonrpc": v, "id": id, "result": result})),
        (version.clone(), prop::option::of(id()), error)
            .prop_map(|(v, id, error)| json!({"jsonrpc": v, "id": id, "error": error})),
        (
            version,
            prop::option::of(id()),
            method,
            prop::option::of(json_value())
        )
            .prop_map(|(v, id, method, params)| {
                let mut m = json!({"jsonrpc": v, "method": method});
                if let Some(id) = id {
                    m["id"] = id;
                }
                if let Some(params) = params {
                    m["params"] = params;
                }
                m
            }),
        json_value(),
    ]
}

/// A line as bytes: serialized, or cut short, or with a BOM or CR, or raw bytes.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => message().prop_map(|m| m.to_string().into_bytes()),
        1 => (message(), any::<prop::sample::Index>()).prop_map(|(m, cut)| {
            let bytes = m.to_string().into_bytes();
            let at = cut.index(bytes.len() + 1);
            bytes[..at].to_vec()
        }),
        1 => message().prop_map(|m| [b"\xEF\xBB\xBF".as_slice(), m.to_string().as_bytes(), b"\r"].concat()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]
}

/// Everything `receive` returned for `input`, read to the end; `None` if it did not reach the end.
fn decode(input: Vec<u8>, max_message_bytes: usize) -> Option<Vec<ServerJsonRpcMessage>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let (mut server_end, client_end) = tokio::io::duplex(1 << 12);
        let mut t = StdioTransport::new(
            "fuzz",
            client_end,
            tokio::io::sink(),
            max_message_bytes,
            EventSink::discard(),
        );
        t.pending.lock().unwrap().extend(PENDING.iter().map(|n| {
            // Half the requests are tool calls, whose answers are read the direct way.
            let expecting = if n % 2 == 0 {
                Expecting::ToolResult
            } else {
                Expecting::AnyResult
            };
            (RequestId::Number(*n), expecting)
        }));
        let writer = tokio::spawn(async move {
            server_end.write_all(&input).await.unwrap();
        });
        let mut out = Vec::new();
        let read_all = async {
            while let Some(m) = t.receive().await {
                out.push(m);
            }
        };
        let ended = tokio::time::timeout(Duration::from_secs(10), read_all).await;
        writer.await.unwrap();
        ended.ok().map(|()| out)
    })
}

fn check_answers(messages: &[ServerJsonRpcMessage]) -> Result<(), TestCaseError> {
    let mut answered = HashSet::new();
    for m in messages {
        let id = match m {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => continue,
        };
        let Some(id) = id else {
            return Err(TestCaseError::fail(format!(
                "an error without id was delivered: {m:?}"
            )));
        };
        prop_assert!(
            matches!(id, RequestId::Number(n) if PENDING.contains(&n)),
            "an answer to an id never sent was delivered: {:?}",
            m
        );
        prop_assert!(answered.insert(id), "answered twice: {:?}", m);
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_bytes_are_read_to_the_end(input in prop::collection::vec(any::<u8>(), 0..512)) {
        let messages = decode(input, 1 << 20);
        prop_assert!(messages.is_some(), "did not reach the end of the input");
        check_answers(&messages.unwrap_or_default())?;
    }

    #[test]
    fn jsonrpc_shaped_lines_give_each_pending_answer_at_most_once(
        lines in prop::collection::vec(line(), 0..12),
        small_limit in any::<bool>(),
    ) {
        // A small limit sends some lines down the oversized path (head kept, rest skipped).
        let limit = if small_limit { 48 } else { 1 << 20 };
        let input = lines.join(&b'\n');
        let messages = decode(input, limit);
        prop_assert!(messages.is_some(), "did not reach the end of the input");
        check_answers(&messages.unwrap_or_default())?;
    }

    #[test]
    fn the_id_of_an_oversized_answer_is_found_from_any_head(head in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = id_in_head(&head);
        let _ = preview(&head);
        let _ = trim_line(&head);
    }

    /// As every SDK writes a response (id before result), its id is found in the first bytes, cut anywhere after
    /// the id.
    #[test]
    fn a_written_id_is_found_in_the_head(
        id in prop_oneof![any::<i64>().prop_map(RequestId::Number), "[a-zA-Z0-9_ -]{0,12}".prop_map(|s| RequestId::String(s.into()))],
        result in json_value(),
        extra in 0usize..64,
    ) {
        let text = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        let id_end = text.find(",\"result\"").unwrap();
        let head = &text.as_bytes()[..(id_end + extra).min(text.len())];
        prop_assert_eq!(id_in_head(head), Some(id));
    }
}

proptest! {
    /// A pending request whose answer arrives must not wait for its timeout, whatever the answer holds: a result
    /// or error of the wrong shape fails the request at once.
    #[test]
    fn every_answer_to_a_pending_request_settles_it(
        body in prop_oneof![
            json_value().prop_map(|r| json!({"result": r})),
            json_value().prop_map(|e| json!({"error": e})),
        ],
        version in prop_oneof![4 => Just(json!("2.0")), 1 => json_value()],
    ) {
        let mut line = json!({"jsonrpc": version, "id": 1});
        line.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
        let messages = decode(format!("{line}\n").into_bytes(), 1 << 20).unwrap_or_default();
        check_answers(&messages)?;
        let answers = messages.iter().filter(|m| matches!(m, JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_))).count();
        prop_assert_eq!(answers, 1, "{} left request 1 waiting", line);
    }
}

/// Found by `every_answer_to_a_pending_request_settles_it`: `"error": null` is no JSON-RPC error, so the line was
/// reported and dropped, and the request it answered waited for its timeout (two minutes by default).
#[test]
fn a_malformed_answer_fails_its_request_at_once() {
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"error":null}"#,
        r#"{"jsonrpc":"1.0","id":2,"result":{}}"#,
    ] {
        let messages = decode(format!("{line}\n").into_bytes(), 1 << 20).unwrap();
        let [JsonRpcMessage::Error(e)] = messages.as_slice() else {
            panic!("{line}: {messages:?}");
        };
        assert!(matches!(e.id, Some(RequestId::Number(1 | 2))), "{e:?}");
        assert!(
            e.error.message.contains("not valid JSON-RPC"),
            "{}",
            e.error.message
        );
    }
}
