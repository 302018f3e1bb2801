use serde_json::json;

use super::*;
use crate::model::{anthropic, openai};

fn openai_chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

fn read_openai(events: &[String]) -> (Vec<Delta>, Result<Reply, StreamError>) {
    let mut reader = ReplyReader::default();
    let mut deltas = Vec::new();
    for event in events {
        match openai::read_event(&mut reader, event) {
            Ok(d) => deltas.extend(d),
            Err(e) => return (deltas, Err(e)),
        }
    }
    (deltas, reader.finish())
}

fn read_anthropic(events: &[Value]) -> (Vec<Delta>, Result<Reply, StreamError>) {
    let mut reader = ReplyReader::default();
    let mut deltas = Vec::new();
    for event in events {
        match anthropic::read_event(&mut reader, &event.to_string()) {
            Ok(d) => deltas.extend(d),
            Err(e) => return (deltas, Err(e)),
        }
    }
    (deltas, reader.finish())
}

/// Splits `text` into pieces of the given sizes, in turn, across a multi-byte character too.
fn pieces(text: &str, sizes: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < chars.len() {
        let n = sizes[i % sizes.len()].max(1);
        out.push(chars[at..(at + n).min(chars.len())].iter().collect());
        at += n;
        i += 1;
    }
    out
}

#[test]
fn openai_text_streams_and_ends_with_its_usage() {
    let mut events: Vec<String> = pieces("Hello, wörld — ok", &[1, 3, 2])
        .into_iter()
        .map(|p| openai_chunk(json!({"content": p}), None))
        .collect();
    events.push(openai_chunk(json!({}), Some("stop")));
    events.push(
        json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5}}).to_string(),
    );
    events.push("[DONE]".into());
    let (deltas, reply) = read_openai(&events);
    let reply = reply.unwrap();
    assert_eq!(reply.text, "Hello, wörld — ok");
    assert_eq!(reply.stop, StopReason::EndTurn);
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 12,
            output_tokens: 5
        }
    );
    let streamed: String = deltas
        .iter()
        .map(|d| match d {
            Delta::Text(t) => t.as_str(),
            Delta::ToolCall { .. } => panic!("no tool call here"),
        })
        .collect();
    assert_eq!(streamed, reply.text);
}

#[test]
fn openai_parallel_tool_calls_interleave_and_keep_their_arguments_apart() {
    let a = r#"{"path": "/w/a.txt"}"#;
    let b = r#"{"query": "ünïcode \"quoted\""}"#;
    let mut events = vec![
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                   "function": {"name": "fs__read_file", "arguments": ""}}]}),
            None,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                                   "function": {"name": "web__search"}}]}),
            None,
        ),
    ];
    let (pa, pb) = (pieces(a, &[2, 5]), pieces(b, &[1, 4, 3]));
    for i in 0..pa.len().max(pb.len()) {
        for (index, parts) in [(0, &pa), (1, &pb)] {
            if let Some(part) = parts.get(i) {
                events.push(openai_chunk(
                    json!({"tool_calls": [{"index": index, "function": {"arguments": part}}]}),
                    None,
                ));
            }
        }
    }
    events.push(openai_chunk(json!({}), Some("tool_calls")));
    events.push("[DONE]".into());
    let (deltas, reply) = read_openai(&events);
    let reply = reply.unwrap();
    assert_eq!(reply.stop, StopReason::ToolUse);
    assert_eq!(
        reply.tool_calls,
        [
            ToolCall {
                id: "call_0".into(),
                model_id: Some("call_a".into()),
                name: "fs__read_file".into(),
                arguments: a.into()
            },
            ToolCall {
                id: "call_1".into(),
                model_id: Some("call_b".into()),
                name: "web__search".into(),
                arguments: b.into()
            },
        ]
    );
    assert_eq!(
        deltas,
        [
            Delta::ToolCall {
                index: 0,
                name: "fs__read_file".into()
            },
            Delta::ToolCall {
                index: 1,
                name: "web__search".into()
            },
        ]
    );
}

#[test]
fn anthropic_text_and_tool_use_blocks_are_read_with_usage() {
    let args = r#"{"path": "notes.md", "lines": [1, 2]}"#;
    let mut events = vec![
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 40, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
    ];
    for p in pieces("Let me look.", &[3, 1]) {
        events.push(json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": p}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "content_block_start", "index": 1,
                       "content_block": {"type": "tool_use", "id": "toolu_1", "name": "fs__read_file", "input": {}}}));
    for p in pieces(args, &[4, 1, 7]) {
        events.push(json!({"type": "content_block_delta", "index": 1,
                           "delta": {"type": "input_json_delta", "partial_json": p}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 1}));
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                       "usage": {"output_tokens": 33}}),
    );
    events.push(json!({"type": "message_stop"}));
    let (deltas, reply) = read_anthropic(&events);
    let reply = reply.unwrap();
    assert_eq!(reply.text, "Let me look.");
    assert_eq!(reply.stop, StopReason::ToolUse);
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 33
        }
    );
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].model_id.as_deref(), Some("toolu_1"));
    assert_eq!(reply.tool_calls[0].arguments, args);
    assert!(deltas.contains(&Delta::ToolCall {
        index: 1,
        name: "fs__read_file".into()
    }));
}

#[test]
fn an_error_mid_stream_ends_the_reply_with_the_providers_words() {
    let (deltas, reply) = read_anthropic(&[
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Par"}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded\u{1b}[2J"}}),
    ]);
    assert_eq!(
        deltas,
        [Delta::Text("Par".into())],
        "what was shown stays shown"
    );
    match reply {
        Err(StreamError::Provider(message)) => {
            assert!(message.starts_with("Overloaded"), "{message}");
            assert!(!message.contains('\u{1b}'), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let (_, reply) = read_openai(&[
        openai_chunk(json!({"content": "Hi"}), None),
        json!({"error": {"message": "context length exceeded"}}).to_string(),
    ]);
    assert_eq!(
        reply,
        Err(StreamError::Provider("context length exceeded".into()))
    );
}

#[test]
fn a_stream_cut_before_its_end_is_no_reply() {
    let (_, reply) = read_openai(&[openai_chunk(
        json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "rm", "arguments": "{\"pa"}}]}),
        None,
    )]);
    assert_eq!(
        reply,
        Err(StreamError::Cut),
        "a half-written call is never made"
    );
    let (_, reply) = read_anthropic(&[json!({"type": "message_start", "message": {}})]);
    assert_eq!(reply, Err(StreamError::Cut));
}

#[test]
fn hostile_replies_meet_their_bounds() {
    // A flood of calls in one reply.
    let flood: Vec<String> = (0..=MAX_TOOL_CALLS)
        .map(|i| {
            openai_chunk(
                json!({"tool_calls": [{"index": i, "id": format!("c{i}"), "function": {"name": "t", "arguments": "{}"}}]}),
                None,
            )
        })
        .collect();
    assert!(matches!(
        read_openai(&flood).1,
        Err(StreamError::TooLarge(_))
    ));
    // Endless arguments.
    let chunk = "x".repeat(64 * 1024);
    let mut events = vec![openai_chunk(
        json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "t"}}]}),
        None,
    )];
    events.extend((0..=MAX_ARGUMENT_BYTES / chunk.len()).map(|_| {
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": chunk}}]}),
            None,
        )
    }));
    assert!(matches!(
        read_openai(&events).1,
        Err(StreamError::TooLarge(_))
    ));
    // Arguments for a call never named, a call without a name, and bytes that are not JSON.
    for bad in [
        openai_chunk(
            json!({"tool_calls": [{"index": 3, "function": {"arguments": "{}"}}]}),
            None,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "id": "c", "function": {}}]}),
            None,
        ),
        "{not json".to_string(),
    ] {
        assert!(
            matches!(
                read_openai(std::slice::from_ref(&bad)).1,
                Err(StreamError::Malformed(_))
            ),
            "{bad}"
        );
    }
    assert!(matches!(
        read_anthropic(&[json!({"type": "content_block_delta", "index": 0,
                                "delta": {"type": "input_json_delta", "partial_json": "{}"}})])
        .1,
        Err(StreamError::Malformed(_))
    ));
}

#[test]
fn a_call_without_an_id_gets_one_and_other_choices_are_ignored() {
    let events = vec![
        json!({"choices": [
            {"index": 1, "delta": {"content": "other choice"}},
            {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"name": "t", "arguments": "{}"}}]}}
        ]})
        .to_string(),
        "[DONE]".to_string(),
    ];
    let reply = read_openai(&events).1.unwrap();
    assert_eq!(reply.text, "");
    assert_eq!(reply.tool_calls[0].id, "call_0");
    assert_eq!(reply.tool_calls[0].model_id, None);
    assert_eq!(
        reply.stop,
        StopReason::ToolUse,
        "calls and no reason: tool use"
    );
}
