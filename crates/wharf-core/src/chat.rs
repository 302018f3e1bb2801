//! Chat: a conversation with the user's own model, which uses the servers' tools. Built in pieces behind the facade:
//! the model's streamed reply read into text and tool calls (`stream`); the tool calls go through the approval
//! engine (`crate::approval`) and the same call path as the user's own; the conversation is kept in
//! `crate::conversations`.

pub mod stream;
pub mod tools;
pub mod vet;
