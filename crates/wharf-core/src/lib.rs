//! wharf-core: the host behind the Wharf app and the `wharf` command.
//!
//! Everything a test can drive without a window lives here: configuration, connections to MCP servers in both
//! protocol eras, process hygiene, and the input broker that every server-to-user request goes through.

#[macro_use]
mod wire_codes;

pub mod approval;
pub mod apps;
pub mod auth;
pub mod broker;
pub mod chat;
pub mod config;
pub mod connection;
pub mod conversations;
pub mod display_text;
pub mod elicitation;
pub mod era;
pub mod events;
pub mod facade;
pub mod fsutil;
pub mod host;
pub mod login_env;
pub mod model;
pub mod process;
pub mod protocol;
pub mod question;
pub mod raw_message;
pub mod redact;
pub mod roots;
pub mod sampling;
pub mod schema;
pub mod secrets;
pub mod serve;
pub mod sse;
pub mod uri_template;
pub mod user_dirs;
pub mod user_store;
pub mod view;
pub mod workspace;

#[cfg(test)]
mod test_http;

pub use broker::{ScriptedAgent, UserAgent};
pub use config::{Config, ConfigError, ServerDef, TransportDef};
pub use connection::{
    CallOptions, ConnectContext, Connection, ConnectionError, ServerIdentity, ToolInfo,
};
pub use era::{Era, EraCache};
pub use events::{EventSink, HostEvent, ServerStatus, SignInState};
pub use host::{Host, HostOptions, ServerSummary};
pub use question::{InputAnswer, InputKind, InputRequest};

/// The name and version Wharf announces to servers.
pub const CLIENT_NAME: &str = "wharf";
pub const CLIENT_VERSION: &str = env!("CARGO_PKG_VERSION");
