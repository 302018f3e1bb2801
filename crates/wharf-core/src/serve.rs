//! Serving a server's requests on the user's side. The broker only carries a question to the user and the answer
//! back; what decides around it (the elicitation guard, the sampling preferences and provider) lives here, above it.

use std::sync::Arc;

use serde_json::Value;

use crate::broker::{Broker, BrokerRefusal};
use crate::elicitation::guard::ElicitationGuard;
use crate::elicitation::{self, ElicitReply, Elicitation};
use crate::era::Era;
use crate::events::EventSink;
use crate::model::SampledMessage;
use crate::question::{Cause, InputKind};
use crate::roots::RootsAccess;
use crate::sampling::{self, Sampling, SamplingError, SamplingService};
use crate::workspace::Root;

/// What every server's requests are served with, shared by the whole host.
#[derive(Clone, Default)]
pub struct Services {
    /// One question per server at a time, pauses, declines remembered for the session.
    pub guard: Arc<ElicitationGuard>,
    /// The user's sampling preferences and provider; `None`: no provider configured, sampling not served.
    pub sampling: Option<Arc<SamplingService>>,
}

/// A server's request to the user's side, read once, whichever era carried it: a request of its own (2025-11-25,
/// through rmcp's handler) or an input request inside an MRTR round (2026-07-28).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerAsk {
    ListRoots,
    /// `sampling/createMessage`, its params as sent.
    CreateMessage(Value),
    /// `elicitation/create`, its params as the server wrote them.
    Elicit(Value),
}

/// What serving a request answers: the roots, the completion, or the elicitation's result. It serializes as the
/// result the spec gives each (an MRTR round's input response).
#[derive(Debug, Clone, PartialEq)]
pub enum Served {
    Roots(Vec<Root>),
    Sampled(SampledMessage),
    Elicited(ElicitReply),
}

impl serde::Serialize for Served {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Served::Roots(roots) => {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("roots", roots)?;
                map.end()
            }
            Served::Sampled(message) => message.serialize(serializer),
            Served::Elicited(reply) => reply.to_json().serialize(serializer),
        }
    }
}

/// Why a request was not served. Each era answers it its own way: an error response to a request of its own, a
/// declined or cancelled input, or the end of the call, in an MRTR round.
#[derive(Debug, Clone, PartialEq)]
pub enum NotServed {
    /// A kind Wharf did not declare to this server: no user saw it.
    Undeclared(InputKind),
    /// Params that do not fit the spec's request.
    Invalid {
        method: &'static str,
        reason: String,
    },
    /// Sampling refused by the user's preference or answer, or failed at the provider.
    Sampling(SamplingError),
}

impl std::fmt::Display for NotServed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotServed::Undeclared(kind) => BrokerRefusal::Undeclared(*kind).fmt(f),
            NotServed::Invalid { method, reason } => write!(f, "{method}: {reason}"),
            NotServed::Sampling(e) => e.fmt(f),
        }
    }
}

impl NotServed {
    /// The JSON-RPC error code of a request answered with an error.
    pub fn jsonrpc_code(&self) -> i32 {
        match self {
            NotServed::Undeclared(kind) => BrokerRefusal::Undeclared(*kind).jsonrpc_code(),
            NotServed::Invalid { .. } => crate::raw_message::INVALID_PARAMS,
            NotServed::Sampling(e) => e.jsonrpc_code(),
        }
    }
}

/// One server's request on its way to being served: who asks, in which era, and what answers it.
pub struct Asking<'a> {
    pub server: &'a str,
    pub broker: &'a Broker,
    pub services: &'a Services,
    pub events: &'a EventSink,
    pub roots: &'a RootsAccess,
    /// Who the server is for the user's sampling preferences, with its name.
    pub definition_hash: &'a str,
    pub era: Era,
    /// It came as an input request of an MRTR round rather than as a request of its own.
    pub in_round: bool,
    /// The user action that caused it, e.g. "calling tool echo", and the call's label.
    pub cause: Option<Cause>,
}

impl Asking<'_> {
    /// Serves any request.
    pub async fn serve(&self, ask: ServerAsk) -> Result<Served, NotServed> {
        Ok(match ask {
            ServerAsk::ListRoots => Served::Roots(self.roots()?),
            ServerAsk::CreateMessage(params) => Served::Sampled(self.sample(&params).await?),
            ServerAsk::Elicit(params) => Served::Elicited(self.elicit(&params).await?),
        })
    }

    /// The roots the server gets: the workspace and the server's preference answer, not a dialog.
    pub fn roots(&self) -> Result<Vec<Root>, NotServed> {
        if !self.broker.capabilities.roots {
            return Err(NotServed::Undeclared(InputKind::Roots));
        }
        Ok(self.roots.answer(self.broker, self.events, self.in_round))
    }

    /// A completion from the user's model, for the `sampling/createMessage` params as the server sent them.
    pub async fn sample(&self, params: &Value) -> Result<SampledMessage, NotServed> {
        if !self.broker.capabilities.sampling {
            return Err(NotServed::Undeclared(InputKind::Sampling));
        }
        sampling::sample(Sampling {
            broker: self.broker,
            service: self.services.sampling.as_ref(),
            events: self.events,
            server: self.server,
            definition_hash: self.definition_hash,
            cause: self.cause.clone(),
            params,
            modern: self.era == Era::Modern,
        })
        .await
        .map_err(NotServed::Sampling)
    }

    /// A form or a URL, from the params as the server wrote them.
    pub async fn elicit(&self, params: &Value) -> Result<ElicitReply, NotServed> {
        elicitation::spec::fits_spec(params).map_err(|reason| NotServed::Invalid {
            method: "elicitation/create",
            reason: format!("its params do not fit the spec's elicitation request ({reason})"),
        })?;
        elicitation::elicit(self.elicitation(params))
            .await
            .map_err(|BrokerRefusal::Undeclared(kind)| NotServed::Undeclared(kind))
    }

    /// The elicitation of `params` as it goes to the user, for a caller that follows it further (the pages a
    /// `-32042` error needs, waited on until finished).
    pub fn elicitation<'p>(&'p self, params: &'p Value) -> Elicitation<'p> {
        Elicitation {
            broker: self.broker,
            guard: &self.services.guard,
            events: self.events,
            server: self.server,
            cause: self.cause.clone(),
            params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn each_refusal_has_the_error_its_spec_page_names() {
        assert_eq!(
            NotServed::Undeclared(InputKind::Roots).jsonrpc_code(),
            -32601
        );
        assert_eq!(
            NotServed::Undeclared(InputKind::Sampling).jsonrpc_code(),
            -32601
        );
        assert_eq!(
            NotServed::Undeclared(InputKind::ElicitationUrl).jsonrpc_code(),
            -32602
        );
        let invalid = NotServed::Invalid {
            method: "elicitation/create",
            reason: "it has no message".into(),
        };
        assert_eq!(invalid.jsonrpc_code(), -32602);
        assert_eq!(invalid.to_string(), "elicitation/create: it has no message");
    }
}
