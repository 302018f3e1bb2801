//! Per-user sampling preferences per server: `ask` (the default), `allow` with limits, or `deny`, kept in
//! `$XDG_CONFIG_HOME/wharf/sampling.json` beside mcp.json, plus "allow for this session" kept in memory only.
//!
//! A server is its name and its definition hash together: an `allow` given to one definition does not carry over to
//! a changed one (another command or URL under the same name), which asks again and says why. The file may be
//! written by two Wharf processes at once (the app and `wharf`), so every write re-reads it under a lock and merges
//! its one change; a corrupt file is set aside and reported, never silently reset.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

mod file;

use file::{Loaded, Stamp, Unusable};

/// What the user chose for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "SamplingPolicy")]
pub enum Policy {
    #[default]
    Ask,
    Allow,
    Deny,
}

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

#[derive(Debug, thiserror::Error)]
pub enum PrefsError {
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} was written by a newer Wharf (format version {version}); this one leaves it as it is and cannot change it",
        path.display()
    )]
    NewerVersion { path: PathBuf, version: u64 },
}

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

/// The preferences of this user, shared by the whole host (`Send + Sync`).
#[derive(Debug)]
pub struct SamplingPrefs {
    path: PathBuf,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The file as last read, and which version of it that was (`None`: nothing cached, read it).
    seen: Option<Seen>,
    servers: BTreeMap<String, ServerPreference>,
    session: HashMap<String, SessionAllow>,
    /// Admitted requests of the last hour per server, oldest first.
    windows: HashMap<String, VecDeque<Instant>>,
    notices: Vec<String>,
    /// The last problem reported, so that a file that stays unreadable is reported once, not on every request.
    last_problem: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Missing,
    File(Stamp),
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
        let prefs = SamplingPrefs {
            path,
            state: Mutex::new(State::default()),
        };
        let notices = {
            let mut state = prefs.state();
            prefs.refresh(&mut state);
            std::mem::take(&mut state.notices)
        };
        let notice = (!notices.is_empty()).then(|| notices.join(" "));
        (prefs, notice)
    }

    /// `$XDG_CONFIG_HOME/wharf/sampling.json`, beside mcp.json.
    pub fn default_path() -> PathBuf {
        crate::config::config_dir().join("sampling.json")
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Notices that arose after `open` (the file turned corrupt or unreadable later, found by a read or a write);
    /// each is given once.
    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut self.state().notices)
    }

    /// The decision for a request of `server`, whose current definition hashes to `definition_hash`. Reads the
    /// file again if it changed, so a choice made in another Wharf applies at once.
    pub fn decide(&self, server: &str, definition_hash: &str) -> Decision {
        let mut state = self.state();
        self.refresh(&mut state);
        let stored = state.servers.get(server);
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
        // The file lock is taken without holding the state, and the state after it is released: `refresh` takes
        // them the other way round.
        let updated = file::update(&self.path, |doc| doc.set(server, &pref));
        self.after_update(server, updated)
    }

    /// Removes what is stored for `server`, and its session allow: it asks again.
    pub fn forget(&self, server: &str) -> Result<(), PrefsError> {
        let updated = file::update(&self.path, |doc| {
            doc.remove(server);
            Ok(())
        });
        self.after_update(server, updated)
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
        let mut state = self.state();
        self.refresh(&mut state);
        let stored = state.servers.iter().map(|(name, pref)| PreferenceRow {
            server: name.clone(),
            preference: pref.clone(),
            session_only: false,
        });
        let session = state.session.iter().map(|(name, allow)| PreferenceRow {
            server: name.clone(),
            preference: ServerPreference {
                policy: Policy::Allow,
                limits: allow.limits.clone(),
                definition_hash: allow.definition_hash.clone(),
            },
            session_only: true,
        });
        let mut rows: Vec<PreferenceRow> = stored.chain(session).collect();
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

    /// Brings `state.servers` up to the file, reading it only when it changed.
    fn refresh(&self, state: &mut State) {
        // A corrupt file is set aside and what is there then is read: twice at most, so that a file corrupted again
        // and again cannot hold a request up.
        for _ in 0..2 {
            if !self.refresh_once(state) {
                return;
            }
        }
    }

    /// One read; true when the file was corrupt, was dealt with, and should be read again.
    fn refresh_once(&self, state: &mut State) -> bool {
        let known = match state.seen {
            Some(Seen::File(stamp)) => Some(stamp),
            _ => None,
        };
        let loaded = match file::load(&self.path, known) {
            Ok(None) => return false,
            Ok(Some(loaded)) => loaded,
            Err(e) => {
                // Unknown contents: nothing is allowed or denied from it until it can be read again.
                state.seen = None;
                state.servers.clear();
                let problem = format!(
                    "The sampling preferences file {} could not be read ({e}); every server will ask before \
                     sampling until it can be.",
                    self.path.display()
                );
                report(state, problem);
                return false;
            }
        };
        match loaded {
            Loaded::Missing => {
                if state.seen != Some(Seen::Missing) {
                    state.servers.clear();
                    state.seen = Some(Seen::Missing);
                }
                state.last_problem = None;
            }
            Loaded::Read {
                stamp,
                doc: Ok(doc),
            } => {
                state.servers = doc.servers;
                state.seen = Some(Seen::File(stamp));
                state.last_problem = None;
            }
            Loaded::Read {
                stamp,
                doc: Err(Unusable::Newer(version)),
            } => {
                state.servers.clear();
                state.seen = Some(Seen::File(stamp));
                let problem = PrefsError::NewerVersion {
                    path: self.path.clone(),
                    version,
                }
                .to_string()
                    + "; every server will ask before sampling.";
                report(state, problem);
            }
            Loaded::Read {
                doc: Err(Unusable::Corrupt(_)),
                ..
            } => {
                state.servers.clear();
                // Set aside under the lock, after checking again that it is still corrupt: another Wharf may have
                // done it, or replaced the file, in between. The next read then finds whatever is there now.
                state.seen = None;
                match file::set_aside_if_corrupt(&self.path) {
                    Ok(Some(notice)) => {
                        report(state, notice);
                        return true;
                    }
                    Ok(None) => return true,
                    Err(e) => report(
                        state,
                        format!(
                            "The sampling preferences file {} is corrupt and could not be moved aside ({e}); \
                             every server will ask before sampling.",
                            self.path.display()
                        ),
                    ),
                }
            }
        }
        false
    }

    /// After a write of `server`'s entry: the session allow it replaces goes (kept if the write failed, so that the
    /// user's last choice still holds), and the file is read again before the next decision.
    fn after_update(&self, server: &str, updated: file::Updated) -> Result<(), PrefsError> {
        let mut state = self.state();
        state.seen = None;
        if let Some(notice) = updated.notice {
            report(&mut state, notice);
        }
        updated.result?;
        state.session.remove(server);
        Ok(())
    }
}

fn report(state: &mut State, problem: String) {
    if state.last_problem.as_deref() != Some(problem.as_str()) {
        state.last_problem = Some(problem.clone());
        state.notices.push(problem);
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
