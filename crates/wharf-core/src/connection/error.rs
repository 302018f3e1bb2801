//! The causes a connection's protocol errors and refusals are made of, kept structured so a caller can tell them
//! apart without reading the words; each says itself as the user reads it.

use crate::broker::BrokerRefusal;
use crate::question::AnswerAction;
use crate::serve::NotServed;

/// The server broke the protocol, or asked more than Wharf gives.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    /// A result that is not a JSON object (`null`, a bare value).
    #[error("the server's result is not an object: {shown}")]
    NotAnObject {
        /// The start of what it sent.
        shown: String,
    },
    #[error("the server answered with an unknown resultType \"{0}\"")]
    UnknownResultType(String),
    /// Still asking for input after the most MRTR rounds a call may take.
    #[error("the server kept asking for more input: gave up after {max_rounds} rounds of {what}")]
    RoundsExceeded { max_rounds: usize, what: String },
    /// rmcp's own count of rounds ran out.
    #[error("the server kept asking for input: gave up after {max_rounds} rounds")]
    InputRoundsExceeded { max_rounds: usize },
    #[error("the server asked for input, but its InputRequiredResult is malformed: {0}")]
    MalformedInputRequired(String),
    #[error(
        "the server's requestState is {bytes} bytes, over Wharf's limit of {}",
        super::MAX_REQUEST_STATE_BYTES
    )]
    RequestStateTooLarge { bytes: usize },
    #[error("the server asked for {count} inputs in one round, over Wharf's limit of {limit}")]
    TooManyInputRequests { count: usize, limit: usize },
    #[error("the server asked for input Wharf does not offer: {0}")]
    InputNotOffered(NotServed),
    /// An answer that is not what its request expects.
    #[error("cannot read the answer to {method}: {reason}")]
    Unreadable { method: String, reason: String },
    #[error("{server} tools/list: the answer is not a list of tools")]
    NotAToolList { server: String },
    /// Past a bound of the tool list: a partial list would hide tools from the path check and the model.
    #[error(
        "{server} tools/list: stopped reading the tool list ({why}); Wharf does not use a partial tool list"
    )]
    ToolListBounded { server: String, why: String },
    /// What the server did not declare (`resource subscriptions`, `logging`).
    #[error("{server} does not offer {what}")]
    NotOffered { server: String, what: &'static str },
    #[error("subscriptions unavailable")]
    SubscriptionsUnavailable,
    #[error("{server} did not acknowledge the subscription to {uri}")]
    NotAcknowledged { server: String, uri: String },
    #[error("{level:?} is not a log level ({})", LOG_LEVELS.join(", "))]
    NotALogLevel { level: String },
    /// What the SDK said, in its words (its errors carry nothing more to keep).
    #[error("{0}")]
    Sdk(String),
}

/// The log levels a server may be asked for, from the least severe (RFC 5424's names).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Why Wharf did not send a call, or ended it: the user's answer, or what the call needed and did not get.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// Without the tool's schema its path arguments cannot be checked.
    #[error(
        "{server} lists no tool named {tool:?} (its tool list was read again), so its arguments cannot be \
         checked and the call was not sent"
    )]
    ToolNotListed { server: String, tool: String },
    /// The page a `-32042` call needs first: opened, but the user did not say they finished.
    #[error("{message}: you did not finish in the browser")]
    UrlNotFinished { message: String },
    #[error("{message}: the page it needs was not opened ({action})")]
    UrlNotOpened {
        message: String,
        action: AnswerAction,
    },
    #[error("{message}: {refusal}")]
    UrlRefused {
        message: String,
        refusal: BrokerRefusal,
    },
    /// Sampling asked for inside a call's round: refused by the user's preference or answer, or failed.
    #[error("sampling for {cause}: {reason}")]
    Sampling { cause: String, reason: String },
}
