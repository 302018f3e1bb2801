//! Sampling: a server asks the host for an LLM completion (`sampling/createMessage` on the handshake era, an MRTR
//! input request on 2026-07-28). Deprecated since 2026-07-28 (SEP-2577) but still used: served well, and each
//! modern server is told once that it is deprecated.
//!
//! ```text
//! request -> throttle -> preference (ask / allow with limits / deny, per user, per server + definition hash)
//!         -> ask: the user reviews and may edit the prompt -> provider -> the user reviews and may edit the reply
//!         -> allow: limits applied (tokens clamped, models filtered, requests per hour) -> provider
//!         -> the reply goes back; a refusal is the spec's error (legacy: -1; modern: the retry is not sent)
//! ```

mod choice;
pub mod prefs;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::broker::Broker;
use crate::events::{EventSink, HostEvent, NoticeCode};
use crate::model::{
    Completion, Keyring, ModelOpener, ProviderConfig, ProviderError, SampledMessage,
};
use crate::question::sampling::{PromptEdits, Remember};
pub use crate::question::sampling::{SamplingStage, SamplingView};
use crate::question::{
    self, AnswerAction, AnswerContent, Cause, InputAnswer, InputKind, InputRequest, InputView,
};
use choice::choose_model;
use prefs::{Decision, Limits, Policy, SamplingPrefs};

/// More sampling requests than this from one server in a minute are refused with a notice: no dialog storm, no bill.
pub const FLOOD_LIMIT: usize = 20;
const FLOOD_WINDOW: Duration = Duration::from_secs(60);
/// How long a provider may take to answer one completion.
pub const PROVIDER_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a sampling request got no completion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SamplingError {
    /// The user (or their stored preference) refused: legacy `-1`, modern: the retry is not sent.
    #[error("{0}")]
    Rejected(String),
    /// No provider, a provider failure, a missing key: the server gets an error, the user a clear message.
    #[error("{0}")]
    Failed(String),
    /// `tools` in a request while `sampling.tools` was not declared, or a malformed request.
    #[error("{0}")]
    Invalid(String),
}

impl SamplingError {
    /// The JSON-RPC code of a legacy answer (sampling.mdx: the user rejected -> -1).
    pub fn jsonrpc_code(&self) -> i32 {
        match self {
            SamplingError::Rejected(_) => -1,
            SamplingError::Failed(_) => -32603,
            SamplingError::Invalid(_) => -32602,
        }
    }
}

/// The host's sampling state: the user's preferences, the configured provider, where its model comes from (the
/// keyring's key), and the flood guard.
pub struct SamplingService {
    pub prefs: SamplingPrefs,
    provider: RwLock<Option<ProviderConfig>>,
    models: Arc<dyn ModelOpener>,
    told_deprecated: Mutex<HashSet<String>>,
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl std::fmt::Debug for SamplingService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SamplingService")
    }
}

/// One sampling request on its way.
pub struct Sampling<'a> {
    pub broker: &'a Broker,
    /// The user's preferences and provider; `None`: sampling is not served.
    pub service: Option<&'a std::sync::Arc<SamplingService>>,
    pub events: &'a EventSink,
    pub server: &'a str,
    pub definition_hash: &'a str,
    pub cause: Option<Cause>,
    pub params: &'a Value,
    /// The server speaks 2026-07-28, where sampling is deprecated: it is told once.
    pub modern: bool,
}

impl SamplingService {
    pub fn new(prefs: SamplingPrefs, provider: Option<ProviderConfig>) -> Self {
        SamplingService {
            prefs,
            provider: RwLock::new(provider),
            models: Arc::new(Keyring),
            told_deprecated: Mutex::default(),
            recent: Mutex::default(),
        }
    }

    /// The same service with its provider's model opened by `models` rather than with the keyring's key.
    pub fn with_models(mut self, models: Arc<dyn ModelOpener>) -> Self {
        self.models = models;
        self
    }

    pub fn provider(&self) -> Option<ProviderConfig> {
        self.provider.read().ok().and_then(|p| p.clone())
    }

    pub fn set_provider(&self, provider: Option<ProviderConfig>) {
        if let Ok(mut p) = self.provider.write() {
            *p = provider;
        }
    }

    fn flooded(&self, server: &str) -> bool {
        let now = Instant::now();
        let Ok(mut recent) = self.recent.lock() else {
            return false;
        };
        let times = recent.entry(server.to_string()).or_default();
        crate::elicitation::guard::record(times, now, FLOOD_WINDOW) > FLOOD_LIMIT
    }

    fn first_time_deprecated(&self, server: &str) -> bool {
        self.told_deprecated
            .lock()
            .map(|mut told| told.insert(server.to_string()))
            .unwrap_or(false)
    }
}

fn notice(s: &Sampling<'_>, code: NoticeCode, message: String) {
    s.events.emit(HostEvent::Notice {
        server: Some(s.server.to_string()),
        code,
        message,
    });
}

/// The messages as the events show them: images and audio stand as their type and size, not their bytes.
fn shown_messages(messages: &[Value]) -> Vec<Value> {
    fn shown(block: &Value) -> Value {
        match block {
            Value::Array(blocks) => Value::Array(blocks.iter().map(shown).collect()),
            Value::Object(map) => {
                let mut map = map.clone();
                if let Some(Value::String(data)) = map.get("data") {
                    let note = format!("<{} base64 characters>", data.len());
                    map.insert("data".into(), Value::String(note));
                }
                if let Some(content) = map.get("content").cloned() {
                    map.insert("content".into(), shown(&content));
                }
                Value::Object(map)
            }
            other => other.clone(),
        }
    }
    messages.iter().map(shown).collect()
}

/// Serves one sampling request end to end: the completion, or why there is none.
pub async fn sample(s: Sampling<'_>) -> Result<SampledMessage, SamplingError> {
    let Some(service) = s.service.cloned() else {
        return Err(SamplingError::Failed(
            "Wharf offers no sampling: no LLM provider is configured".into(),
        ));
    };
    if s.modern && service.first_time_deprecated(s.server) {
        notice(
            &s,
            NoticeCode::DeprecatedCapability,
            format!(
                "sampling is deprecated since 2026-07-28 (SEP-2577); {} still uses it",
                s.server
            ),
        );
    }
    let has_tools = s
        .params
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if has_tools && !s.broker.capabilities.sampling_tools {
        return Err(SamplingError::Invalid(
            "this request has tools, but Wharf did not declare sampling.tools".into(),
        ));
    }
    if service.flooded(s.server) {
        notice(
            &s,
            NoticeCode::SamplingThrottled,
            format!(
                "{} asked for more than {FLOOD_LIMIT} completions in a minute: refused until it slows down",
                s.server
            ),
        );
        return Err(SamplingError::Rejected(
            "too many sampling requests: slow down".into(),
        ));
    }
    let requested_max = s
        .params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            SamplingError::Invalid("maxTokens is missing or not a positive integer".into())
        })?;
    let provider = service.provider().ok_or_else(|| {
        SamplingError::Failed(
            "no LLM provider is configured: add sampling.provider to mcp.json, or choose one in the app's settings"
                .into(),
        )
    })?;
    let decision = service.prefs.decide(s.server, s.definition_hash);
    // A preferences file that went bad since start-up is reported here, once.
    for message in service.prefs.take_notices() {
        notice(&s, NoticeCode::PreferencesProblem, message);
    }
    let (policy, limits, note) = match decision {
        Decision::Deny => {
            let outcome = Outcome::new(&s, Policy::Deny, requested_max, provider.model.clone());
            outcome.report(AnswerAction::Decline);
            return Err(SamplingError::Rejected(format!(
                "the user does not allow {} to use their language model",
                s.server
            )));
        }
        Decision::Allow(limits) => (Policy::Allow, Some(limits), None),
        Decision::Ask { reason } => (Policy::Ask, None, reason),
    };
    if let Some(limits) = &limits {
        if let Err(limited) = service.prefs.admit(s.server, limits) {
            let why = limited.to_string();
            notice(&s, NoticeCode::SamplingLimit, why.clone());
            return Err(SamplingError::Rejected(why));
        }
    }
    let limits = limits.unwrap_or_default();
    let allowed = if limits.models.is_empty() {
        provider.models.clone()
    } else {
        limits.models.clone()
    };
    let model = choose_model(s.params.get("modelPreferences"), &allowed, &provider.model);
    let max_tokens = limits
        .max_tokens
        .map_or(requested_max, |cap| cap.min(requested_max));
    let mut params = s.params.clone();
    let mut outcome = Outcome::new(&s, policy, max_tokens, model.clone());
    let ask = policy == Policy::Ask;
    if ask {
        let view = outcome.view(SamplingStage::Prompt, &params, note.clone(), None);
        match ask_user(&s, view).await {
            InputAnswer::Accept { content } => {
                let edits = match content {
                    Some(AnswerContent::SamplingPrompt(edits)) => edits,
                    _ => PromptEdits::default(),
                };
                let remembered = edits.remember;
                apply_prompt_edits(&mut params, edits);
                remember(&s, &service, remembered);
            }
            other => {
                outcome.report(other_action(&other));
                return Err(SamplingError::Rejected(
                    "the user rejected the sampling request".into(),
                ));
            }
        }
    }
    outcome.update_prompt(&params);
    let reply = complete(&s, &service, &provider, &params, &model, max_tokens).await;
    let mut reply = match reply {
        Ok(reply) => reply,
        Err(e) => {
            outcome.report(AnswerAction::Accept);
            return Err(e);
        }
    };
    if ask {
        let view = outcome.view(SamplingStage::Reply, &params, None, Some(reply.clone()));
        match ask_user(&s, view).await {
            InputAnswer::Accept {
                content: Some(AnswerContent::SamplingReply(edit)),
            } => reply.replace_text(edit.text),
            InputAnswer::Accept { .. } => {}
            other => {
                outcome.report(other_action(&other));
                return Err(SamplingError::Rejected(
                    "the user did not send the reply".into(),
                ));
            }
        }
    }
    outcome.report(AnswerAction::Accept);
    Ok(reply)
}

fn other_action(answer: &InputAnswer) -> AnswerAction {
    answer.action()
}

async fn ask_user(s: &Sampling<'_>, view: SamplingView) -> InputAnswer {
    s.broker
        .ask(InputRequest {
            server: s.server.to_string(),
            kind: InputKind::Sampling,
            cause: s.cause.as_ref().map(|c| c.text.clone()),
            origin: s.cause.as_ref().and_then(|c| c.origin.clone()),
            params: s.params.clone(),
            view: Some(InputView::Sampling(Box::new(view))),
            check: None,
        })
        .await
        .unwrap_or(InputAnswer::Cancel)
}

/// The user's edits of the prompt: the system prompt, the messages, the texts of their text blocks, each when given.
fn apply_prompt_edits(params: &mut Value, edits: PromptEdits) {
    let Value::Object(params) = params else {
        return;
    };
    if let Some(system) = edits.system_prompt {
        params.insert("systemPrompt".into(), Value::String(system));
    }
    if let Some(messages) = edits.messages {
        params.insert("messages".into(), Value::Array(messages));
    }
    if let (Some(texts), Some(messages)) = (edits.texts, params.get_mut("messages")) {
        apply_texts(messages, &texts);
    }
}

/// The user's edits of the messages' texts, by position (`texts[message][block]`, as `messages` shows them): each
/// given text replaces the text of that block when it is a text block; every other block stays as the server sent
/// it.
fn apply_texts(messages: &mut Value, texts: &[Vec<Option<String>>]) {
    let Value::Array(messages) = messages else {
        return;
    };
    for (message, texts) in messages.iter_mut().zip(texts) {
        let Some(content) = message.get_mut("content") else {
            continue;
        };
        let blocks: Vec<&mut Value> = match content {
            Value::Array(blocks) => blocks.iter_mut().collect(),
            one => vec![one],
        };
        for (block, text) in blocks.into_iter().zip(texts) {
            let is_text = block.get("type").and_then(Value::as_str) == Some("text");
            if let (true, Some(text), Value::Object(block)) = (is_text, text, block) {
                block.insert("text".into(), Value::String(text.clone()));
            }
        }
    }
}

/// "Remember for this server" from the dialog: for this session (memory), or always (the preferences file).
fn remember(s: &Sampling<'_>, service: &SamplingService, remember: Option<Remember>) {
    match remember {
        Some(Remember::Session) => {
            service
                .prefs
                .allow_for_session(s.server, s.definition_hash, Limits::default())
        }
        Some(Remember::Always) => {
            if let Err(e) = service.prefs.set(
                s.server,
                s.definition_hash,
                Policy::Allow,
                Limits::default(),
            ) {
                notice(
                    s,
                    NoticeCode::PreferencesNotSaved,
                    format!("cannot save the sampling preference: {e}"),
                );
            }
        }
        None => {}
    }
}

async fn complete(
    s: &Sampling<'_>,
    service: &SamplingService,
    provider: &ProviderConfig,
    params: &Value,
    model: &str,
    max_tokens: u32,
) -> Result<SampledMessage, SamplingError> {
    let opened = service
        .models
        .open(provider)
        .await
        .map_err(|e| SamplingError::Failed(e.to_string()))?;
    let completion = Completion {
        params,
        model,
        max_tokens,
        timeout: PROVIDER_TIMEOUT,
    };
    opened
        .complete(&completion)
        .await
        .map_err(|e: ProviderError| {
            let message = e.user_message();
            notice(s, NoticeCode::ProviderError, message.clone());
            match e {
                ProviderError::InvalidParams(_) => SamplingError::Invalid(message),
                _ => SamplingError::Failed(message),
            }
        })
}

/// What the user was shown, reported once with the answer (docs/cli.md's `sampling` event).
struct Outcome<'a> {
    s: &'a Sampling<'a>,
    policy: Policy,
    max_tokens: u32,
    model: String,
    system_prompt: Option<String>,
    messages: Vec<Value>,
}

impl<'a> Outcome<'a> {
    fn new(s: &'a Sampling<'a>, policy: Policy, max_tokens: u32, model: String) -> Self {
        let mut outcome = Outcome {
            s,
            policy,
            max_tokens,
            model,
            system_prompt: None,
            messages: Vec::new(),
        };
        outcome.update_prompt(s.params);
        outcome
    }

    fn update_prompt(&mut self, params: &Value) {
        self.system_prompt = params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.messages = params
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| shown_messages(m))
            .unwrap_or_default();
    }

    fn view(
        &self,
        stage: SamplingStage,
        params: &Value,
        note: Option<String>,
        reply: Option<SampledMessage>,
    ) -> SamplingView {
        let tools = params
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        SamplingView {
            stage,
            system_prompt: params
                .get("systemPrompt")
                .and_then(Value::as_str)
                .map(str::to_string),
            messages: question::sampling::messages(params.get("messages")),
            model_preferences: question::sampling::model_preferences(
                params.get("modelPreferences"),
            ),
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            tools,
            note,
            reply: reply
                .as_ref()
                .map(|r| question::sampling::reply(&r.content, &r.model, r.stop_reason.as_deref())),
        }
    }

    fn report(&self, answer: AnswerAction) {
        self.s.events.emit(HostEvent::Sampling {
            server: self.s.server.to_string(),
            system_prompt: self.system_prompt.clone(),
            messages: self.messages.clone(),
            max_tokens: self.max_tokens,
            model: self.model.clone(),
            policy: self.policy,
            answer,
        });
    }
}

#[cfg(test)]
mod tests;
