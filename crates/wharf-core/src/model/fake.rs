//! A model in the same process, for tests: it answers from a script (streamed replies with their pieces of text and
//! tool calls, completions, failures) and keeps every request it was sent, so that what stands on the model layer
//! (the chat's turn loop, summaries, sampling) is tested without a provider or a subprocess.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::{
    ApiKeyError, ChatRequest, Completion, Delta, Model, ModelOpener, ProviderConfig, ProviderError,
    Reply, ReplyLimits, SampledMessage, StopReason, ToolCall, TurnMessage, Usage,
};

/// What the model does when it is next asked.
#[derive(Debug, Clone)]
pub enum Step {
    /// A streamed reply.
    Reply(FakeReply),
    /// A streamed reply that fails after its pieces of text were shown.
    Fail {
        shown: Vec<String>,
        error: ProviderError,
    },
    /// A streamed reply that shows its pieces of text, then never ends (until the caller stops waiting).
    Hang { shown: Vec<String> },
    /// A completion's `CreateMessageResult`.
    Completion(SampledMessage),
    /// A completion that fails.
    CompletionFails(ProviderError),
}

/// A streamed reply as scripted: its text in the pieces it streams in, its tool calls, why it stops, its usage.
#[derive(Debug, Clone, Default)]
pub struct FakeReply {
    pieces: Vec<String>,
    calls: Vec<(String, String)>,
    stop: Option<StopReason>,
    usage: Usage,
}

impl FakeReply {
    /// A reply whose text streams in these pieces.
    pub fn text(pieces: &[&str]) -> FakeReply {
        FakeReply {
            pieces: pieces.iter().map(|p| p.to_string()).collect(),
            ..FakeReply::default()
        }
    }

    /// The reply also calls the tool the model knows as `name`, with `arguments` as the model writes them.
    pub fn call(mut self, name: &str, arguments: &str) -> FakeReply {
        self.calls.push((name.to_string(), arguments.to_string()));
        self
    }

    /// Why the reply ends, when not what its calls say (tool use) or the end of the turn.
    pub fn stop(mut self, stop: StopReason) -> FakeReply {
        self.stop = Some(stop);
        self
    }

    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> FakeReply {
        self.usage = Usage {
            input_tokens,
            output_tokens,
        };
        self
    }
}

/// A streamed request as the model got it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenRequest {
    pub model: String,
    pub system: Option<String>,
    pub max_tokens: u32,
    pub messages: Vec<TurnMessage>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
}

/// A completion as the model got it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenCompletion {
    pub params: Value,
    pub model: String,
    pub max_tokens: u32,
    pub timeout: Duration,
}

#[derive(Default)]
struct State {
    script: VecDeque<Step>,
    requests: Vec<SeenRequest>,
    completions: Vec<SeenCompletion>,
    opened: Vec<ProviderConfig>,
    models: Vec<String>,
}

/// The scripted model. Clones share their script and what was seen: a test keeps one and gives another to the code
/// under test, as its model or as the [`ModelOpener`] that opens it for any provider.
#[derive(Clone, Default)]
pub struct FakeModel(Arc<Mutex<State>>);

impl FakeModel {
    pub fn new(script: impl IntoIterator<Item = Step>) -> FakeModel {
        let model = FakeModel::default();
        model.state().script.extend(script);
        model
    }

    /// The model also lists these models.
    pub fn listing(self, models: &[&str]) -> FakeModel {
        self.state().models = models.iter().map(|m| m.to_string()).collect();
        self
    }

    /// The streamed requests, in the order they came.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.state().requests.clone()
    }

    /// The completions asked for, in the order they came.
    pub fn completions(&self) -> Vec<SeenCompletion> {
        self.state().completions.clone()
    }

    /// The providers it was opened for, in order.
    pub fn opened(&self) -> Vec<ProviderConfig> {
        self.state().opened.clone()
    }

    /// The steps not taken yet.
    pub fn left(&self) -> usize {
        self.state().script.len()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A test that failed while holding the lock has failed already; what it left is still worth reading.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn next(&self, asked: &str) -> Result<Step, ProviderError> {
        self.state().script.pop_front().ok_or_else(|| {
            ProviderError::Malformed(format!("the fake model has nothing scripted for {asked}"))
        })
    }
}

fn unscripted(asked: &str, step: &Step) -> ProviderError {
    ProviderError::Malformed(format!(
        "the fake model was asked for {asked}, and its script says {step:?}"
    ))
}

fn shown(pieces: &[String], on_delta: &mut (dyn FnMut(Delta) + Send)) {
    for piece in pieces.iter().filter(|p| !p.is_empty()) {
        on_delta(Delta::Text(piece.clone()));
    }
}

#[async_trait]
impl Model for FakeModel {
    async fn stream(
        &self,
        request: &ChatRequest<'_>,
        _limits: ReplyLimits,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Reply, ProviderError> {
        self.state().requests.push(SeenRequest {
            model: request.model.to_string(),
            system: request.system.map(str::to_string),
            max_tokens: request.max_tokens,
            messages: request.messages.to_vec(),
            tools: request.tools.iter().map(|t| t.name.to_string()).collect(),
        });
        match self.next("a streamed reply")? {
            Step::Reply(reply) => {
                shown(&reply.pieces, on_delta);
                let tool_calls: Vec<ToolCall> = reply
                    .calls
                    .iter()
                    .enumerate()
                    .map(|(index, (name, arguments))| {
                        on_delta(Delta::ToolCall {
                            index,
                            name: name.clone(),
                        });
                        ToolCall {
                            id: format!("call_{index}"),
                            model_id: Some(format!("fake_{index}")),
                            name: name.clone(),
                            arguments: arguments.clone(),
                        }
                    })
                    .collect();
                let stop = reply.stop.unwrap_or(if tool_calls.is_empty() {
                    StopReason::EndTurn
                } else {
                    StopReason::ToolUse
                });
                Ok(Reply {
                    text: reply.pieces.concat(),
                    tool_calls,
                    stop,
                    usage: reply.usage,
                })
            }
            Step::Fail {
                shown: pieces,
                error,
            } => {
                shown(&pieces, on_delta);
                Err(error)
            }
            Step::Hang { shown: pieces } => {
                shown(&pieces, on_delta);
                std::future::pending().await
            }
            other => Err(unscripted("a streamed reply", &other)),
        }
    }

    async fn complete(&self, request: &Completion<'_>) -> Result<SampledMessage, ProviderError> {
        self.state().completions.push(SeenCompletion {
            params: request.params.clone(),
            model: request.model.to_string(),
            max_tokens: request.max_tokens,
            timeout: request.timeout,
        });
        match self.next("a completion")? {
            Step::Completion(result) => Ok(result),
            Step::CompletionFails(error) => Err(error),
            other => Err(unscripted("a completion", &other)),
        }
    }

    async fn list_models(&self, _timeout: Duration) -> Result<Vec<String>, ProviderError> {
        Ok(self.state().models.clone())
    }
}

#[async_trait]
impl ModelOpener for FakeModel {
    async fn open(&self, provider: &ProviderConfig) -> Result<Box<dyn Model>, ApiKeyError> {
        self.state().opened.push(provider.clone());
        Ok(Box::new(self.clone()))
    }
}
