//! Per-user sampling preferences per server: `ask` (the default), `allow` with limits, or `deny`, kept in
//! `$XDG_CONFIG_HOME/wharf/sampling.json` beside mcp.json, plus "allow for this session" kept in memory only.
//!
//! A server is its name and its definition hash together: an `allow` given to one definition does not carry over to
//! a changed one (another command or URL under the same name), which asks again and says why. The file is a
//! `UserStore`: shared by every Wharf process of the user, a corrupt file set aside and reported.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use crate::question::sampling::Policy;
use crate::user_store::{StoreError, StoreKind, UserStore};

/// What an allowed server may do. No value (null) and an empty list mean no limit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(export, rename = "SamplingLimits")]
pub struct Limits {
    /// The most tokens one request may ask of the provider.
    pub max_tokens: Option<u32>,
    pub requests_per_hour: Option<u32>,
    /// The models it may use; empty means any.
    pub models: Vec<String>,
}

impl Limits {
    /// The tokens to ask of the provider: the server's request, never above the user's limit.
    pub fn cap_max_tokens(&self, requested: u32) -> u32 {
        self.max_tokens.map_or(requested, |max| requested.min(max))
    }

    pub fn allows_model(&self, model: &str) -> bool {
        self.models.is_empty() || self.models.iter().any(|m| m == model)
    }
}

/// One server's stored preference, as in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "SamplingPreference")]
pub struct ServerPreference {
    pub policy: Policy,
    #[serde(default)]
    pub limits: Limits,
    /// The `ServerDef::definition_hash()` the user chose for; an `allow` holds for that definition only.
    #[serde(default)]
    pub definition_hash: String,
}

/// One row of the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "SamplingPreferenceRow")]
pub struct PreferenceRow {
    pub server: String,
    pub preference: ServerPreference,
    /// "Allow for this session": in memory only, gone when Wharf quits.
    pub session_only: bool,
}

/// What to do with a server's sampling request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "decision", rename_all = "lowercase")]
#[ts(export, rename = "SamplingDecision")]
pub enum Decision {
    /// Show the dialog; `reason` says why a server the user had allowed is asked about again.
    Ask {
        reason: Option<String>,
    },
    Allow(Limits),
    Deny,
}

/// A preference that could not be stored.
pub type PrefsError = StoreError;

const HOUR: Duration = Duration::from_secs(3600);

/// A sampling request over the server's hourly limit; the message is a sentence for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", rate_limit_sentence(.server, *.max, *.wait))]
pub struct RateLimited {
    pub server: String,
    pub max: u32,
    /// How long until the next request passes; `None` when the limit is zero and none ever will.
    pub wait: Option<Duration>,
}

fn rate_limit_sentence(server: &str, max: u32, wait: Option<Duration>) -> String {
    let plural = if max == 1 { "" } else { "s" };
    match wait {
        Some(wait) => format!(
            "\"{server}\" has made its {max} sampling request{plural} allowed per hour; the next one is possible \
             in {}.",
            human_wait(wait)
        ),
        None => format!("Sampling requests from \"{server}\" are limited to 0 per hour."),
    }
}

const CHANGED_REASON: &str =
    "its definition (command, arguments or URL) changed since you allowed it";
const CHANGED_SESSION_REASON: &str =
    "its definition (command, arguments or URL) changed since you allowed it for this session";

static PREFS_FILE: StoreKind = StoreKind {
    section: "servers",
    entry: "server",
    label: "sampling preferences",
    meanwhile: "every server will ask before sampling",
};

/// The preferences of this user, shared by the whole host (`Send + Sync`).
#[derive(Debug)]
pub struct SamplingPrefs {
    stored: UserStore<ServerPreference>,
    state: Mutex<State>,
}

/// What is kept in memory only.
#[derive(Debug, Default)]
struct State {
    session: HashMap<String, SessionAllow>,
    /// Admitted requests of the last hour per server, oldest first.
    windows: HashMap<String, VecDeque<Instant>>,
}

#[derive(Debug, Clone)]
struct SessionAllow {
    definition_hash: String,
    limits: Limits,
}

impl SamplingPrefs {
    /// Reads the preferences at `path`. The string is a notice for the user when the file could not be used (set
    /// aside as corrupt, unreadable, or from a newer Wharf); defaults (everything asks) apply then.
    pub fn open(path: PathBuf) -> (SamplingPrefs, Option<String>) {
        let (stored, notice) = UserStore::open(path, &PREFS_FILE);
        let prefs = SamplingPrefs {
            stored,
            state: Mutex::new(State::default()),
        };
        (prefs, notice)
    }

    /// `$XDG_CONFIG_HOME/wharf/sampling.json`, beside mcp.json.
    pub fn default_path() -> PathBuf {
        crate::user_dirs::config_dir().join("sampling.json")
    }

    pub fn path(&self) -> &Path {
        self.stored.path()
    }

    /// Notices that arose after `open` (the file turned corrupt or unreadable later, found by a read or a write);
    /// each is given once.
    pub fn take_notices(&self) -> Vec<String> {
        self.stored.take_notices()
    }

    /// The decision for a request of `server`, whose current definition hashes to `definition_hash`. Reads the
    /// file again if it changed, so a choice made in another Wharf applies at once.
    pub fn decide(&self, server: &str, definition_hash: &str) -> Decision {
        let stored = self.stored.read(|servers| servers.get(server).cloned());
        let stored = stored.as_ref();
        let state = self.state();
        let session = state.session.get(server);
        // Deny wins over everything, a changed definition included: it never needs confirming again.
        if stored.is_some_and(|p| p.policy == Policy::Deny) {
            return Decision::Deny;
        }
        // A stored allow is the later, explicit choice (settings, "always", another Wharf): it wins over the
        // session's.
        if let Some(pref) = stored.filter(|p| p.policy == Policy::Allow) {
            if pref.definition_hash == definition_hash {
                return Decision::Allow(pref.limits.clone());
            }
        }
        if let Some(allow) = session.filter(|s| s.definition_hash == definition_hash) {
            return Decision::Allow(allow.limits.clone());
        }
        let reason = if stored.is_some_and(|p| p.policy == Policy::Allow) {
            Some(CHANGED_REASON.to_string())
        } else if session.is_some() {
            Some(CHANGED_SESSION_REASON.to_string())
        } else {
            None
        };
        Decision::Ask { reason }
    }

    /// Stores a choice for `server` ("always" or "never" from the dialog, or the settings screen). It replaces any
    /// session allow of that server. Another Wharf writing at the same time loses nothing: the file is re-read under
    /// a lock and only this server's entry changes.
    pub fn set(
        &self,
        server: &str,
        definition_hash: &str,
        policy: Policy,
        limits: Limits,
    ) -> Result<(), PrefsError> {
        let pref = ServerPreference {
            policy,
            limits,
            definition_hash: definition_hash.to_string(),
        };
        self.stored.set(server, pref)?;
        self.state().session.remove(server);
        Ok(())
    }

    /// Removes what is stored for `server`, and its session allow: it asks again. The session allow is kept if the
    /// write failed, so that the user's last choice still holds.
    pub fn forget(&self, server: &str) -> Result<(), PrefsError> {
        self.stored.remove(server)?;
        self.state().session.remove(server);
        Ok(())
    }

    /// "Allow for this session": kept in memory only, never written; gone with this `SamplingPrefs`.
    pub fn allow_for_session(&self, server: &str, definition_hash: &str, limits: Limits) {
        self.state().session.insert(
            server.to_string(),
            SessionAllow {
                definition_hash: definition_hash.to_string(),
                limits,
            },
        );
    }

    /// Every stored preference and every session allow, by server name (a server may have both).
    pub fn list(&self) -> Vec<PreferenceRow> {
        let stored: Vec<PreferenceRow> = self.stored.read(|servers| {
            servers
                .iter()
                .map(|(name, pref)| PreferenceRow {
                    server: name.clone(),
                    preference: pref.clone(),
                    session_only: false,
                })
                .collect()
        });
        let state = self.state();
        let session = state.session.iter().map(|(name, allow)| PreferenceRow {
            server: name.clone(),
            preference: ServerPreference {
                policy: Policy::Allow,
                limits: allow.limits.clone(),
                definition_hash: allow.definition_hash.clone(),
            },
            session_only: true,
        });
        let mut rows: Vec<PreferenceRow> = stored.into_iter().chain(session).collect();
        rows.sort_by(|a, b| (&a.server, a.session_only).cmp(&(&b.server, b.session_only)));
        rows
    }

    /// Counts a request of `server` against `limits.requests_per_hour` (a sliding hour, in memory). A refused
    /// request is not counted.
    pub fn admit(&self, server: &str, limits: &Limits) -> Result<(), RateLimited> {
        self.admit_at(server, limits, Instant::now())
    }

    /// [`admit`](Self::admit) at a given time, so that tests need no waiting.
    pub fn admit_at(&self, server: &str, limits: &Limits, now: Instant) -> Result<(), RateLimited> {
        let Some(max) = limits.requests_per_hour else {
            return Ok(());
        };
        let mut state = self.state();
        let window = state.windows.entry(server.to_string()).or_default();
        while window
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= HOUR)
        {
            window.pop_front();
        }
        if window.len() < max as usize {
            window.push_back(now);
            return Ok(());
        }
        let wait = window
            .front()
            .map(|oldest| HOUR.saturating_sub(now.saturating_duration_since(*oldest)));
        Err(RateLimited {
            server: server.to_string(),
            max,
            wait,
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is consistent after every statement that changes it, so a panic elsewhere leaves it usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn human_wait(wait: Duration) -> String {
    let secs = wait.as_secs().max(1);
    if secs < 90 {
        format!("{secs} second{}", if secs == 1 { "" } else { "s" })
    } else {
        let mins = secs.div_ceil(60);
        format!("{mins} minutes")
    }
}

#[cfg(test)]
mod tests;
