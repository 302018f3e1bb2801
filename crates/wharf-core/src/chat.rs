//! Chat: a conversation with the user's own model, which uses the servers' tools. Built in pieces behind the facade:
//! the tools a model is offered, each under one name (`tools`); the conversation sent to the model and its reply
//! streamed back as text and tool calls (`crate::model`); each tool call checked against what was offered (`vet`),
//! then judged by the approval engine (`crate::approval`) before it takes the same call path as the user's own.
//! Conversations are kept in `crate::conversations`.

pub mod approve;
pub mod attach;
pub mod context;
pub mod summary;
pub mod tools;
pub mod turn;
pub mod vet;
