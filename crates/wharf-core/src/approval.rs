//! The approval engine: one decision for every tool call the user did not make themselves (a model's, in a
//! conversation). The server's `toolApproval` and `trusted` settings, the user's grants and the tool's annotations
//! decide whether the call is sent, refused, or shown to the user first.
//!
//! The rules, in order:
//! 1. `toolApproval: "deny"` refuses every call of the server.
//! 2. A trusted server that says a tool is destructive (`destructiveHint: true`, not read-only) is always asked
//!    about: no grant and no server default lets it through.
//! 3. `toolApproval: "allow"` sends every call.
//! 4. A grant for this conversation, or an "always" grant, sends the call while the tool is still the one it was
//!    given for (same pin: the tool's definition and the server's command, arguments or URL). A tool that changed
//!    is asked about again, with what changed.
//! 5. A trusted server's read-only tool (`readOnlyHint: true`) is sent, unless a grant of it was suspended by a
//!    change. Annotations of a server that is not trusted decide nothing: the spec calls them untrusted, and any
//!    server can claim to be read-only.
//! 6. Everything else is asked about.
//!
//! "Always" grants are kept per user in `tool-grants.json` beside mcp.json (a `UserStore`); grants for a
//! conversation are kept in memory for as long as Wharf runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub mod diff;
pub mod pin;

pub use crate::config::{ServerStance, ToolApproval};
pub use crate::question::tool_call::{GrantKind, ToolCallChoice};

use crate::question::tool_call::ToolChange;
use crate::user_store::{StoreError, StoreKind, UserStore};
use pin::Pinned;

/// The engine's decision on one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Granted(GrantKind),
    /// The server's `toolApproval` is `deny`.
    Refused,
    /// Show the card.
    Ask(AskReason),
}

/// What the card says beyond the call itself.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AskReason {
    /// What changed since a grant was given for this tool: the grant is suspended until the user answers.
    pub changes: Vec<ToolChange>,
    /// A trusted server says the tool is destructive: it is asked about every time.
    pub destructive: bool,
}

/// An "always" grant as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "ToolGrant")]
pub struct StoredGrant {
    pub server: String,
    pub tool: String,
    pub pin: String,
    /// The definition the grant was given for, to show what changed when it no longer matches.
    pub definition: Pinned,
    /// Seconds since the Unix epoch.
    #[ts(type = "number")]
    pub granted_at: u64,
}

static GRANTS_FILE: StoreKind = StoreKind {
    section: "grants",
    entry: "grant",
    label: "tool grants",
    meanwhile: "every tool call will ask",
};

/// A conversation's grant: the definition it was given for.
#[derive(Debug, Clone)]
struct ConversationGrant {
    pin: String,
    definition: Pinned,
}

/// The grants of each conversation, by conversation, then by server and tool.
type ConversationGrants = HashMap<String, HashMap<(String, String), ConversationGrant>>;

/// The engine, shared by the whole host (`Send + Sync`).
#[derive(Debug)]
pub struct Approvals {
    always: UserStore<StoredGrant>,
    conversations: Mutex<ConversationGrants>,
}

/// The key of a stored grant: server and tool as a JSON pair, so no name can be read as another (`"a/b"` + `"c"`
/// against `"a"` + `"b/c"`).
fn grant_key(server: &str, tool: &str) -> String {
    serde_json::to_string(&(server, tool)).unwrap_or_default()
}

impl Approvals {
    /// Opens the grants at `path`. The string is a notice for the user when the file could not be used.
    pub fn open(path: PathBuf) -> (Approvals, Option<String>) {
        let (always, notice) = UserStore::open(path, &GRANTS_FILE);
        let approvals = Approvals {
            always,
            conversations: Mutex::default(),
        };
        (approvals, notice)
    }

    /// `$XDG_CONFIG_HOME/wharf/tool-grants.json`, beside mcp.json.
    pub fn default_path() -> PathBuf {
        crate::user_dirs::config_dir().join("tool-grants.json")
    }

    pub fn path(&self) -> &Path {
        self.always.path()
    }

    /// Problems with the grants file found since it was opened; each is given once.
    pub fn take_notices(&self) -> Vec<String> {
        self.always.take_notices()
    }

    /// The decision for a call of `tool` on `server` in `conversation`, as the tool is defined now.
    pub fn decide(
        &self,
        conversation: &str,
        server: &str,
        stance: ServerStance,
        tool: &Pinned,
    ) -> Verdict {
        if stance.approval == ToolApproval::Deny {
            return Verdict::Refused;
        }
        let hints = tool.tool.annotations.clone().unwrap_or_default();
        let read_only = hints.read_only_hint == Some(true);
        if stance.trusted && hints.destructive_hint == Some(true) && !read_only {
            return Verdict::Ask(AskReason {
                changes: Vec::new(),
                destructive: true,
            });
        }
        if stance.approval == ToolApproval::Allow {
            return Verdict::Granted(GrantKind::ServerAllow);
        }
        let pin = tool.pin();
        let name = &tool.tool.name;
        let mut changes = Vec::new();
        let in_conversation = self
            .conversations()
            .get(conversation)
            .and_then(|grants| grants.get(&(server.to_string(), name.clone())))
            .cloned();
        if let Some(grant) = in_conversation {
            if grant.pin == pin {
                return Verdict::Granted(GrantKind::Conversation);
            }
            changes = grant.definition.changes_to(tool);
        }
        let always = self
            .always
            .read(|grants| grants.get(&grant_key(server, name)).cloned());
        if let Some(grant) = always {
            if grant.pin == pin {
                return Verdict::Granted(GrantKind::Always);
            }
            if changes.is_empty() {
                changes = grant.definition.changes_to(tool);
            }
        }
        if stance.trusted && read_only && changes.is_empty() {
            return Verdict::Granted(GrantKind::TrustedReadOnly);
        }
        Verdict::Ask(AskReason {
            changes,
            destructive: false,
        })
    }

    /// Keeps what the user chose on the card for `tool` as it is defined now. Allow once and deny keep nothing.
    pub fn record(
        &self,
        conversation: &str,
        server: &str,
        tool: &Pinned,
        choice: ToolCallChoice,
    ) -> Result<(), StoreError> {
        let key = (server.to_string(), tool.tool.name.clone());
        match choice {
            ToolCallChoice::AllowOnce | ToolCallChoice::Deny => Ok(()),
            ToolCallChoice::AllowConversation => {
                self.conversations()
                    .entry(conversation.to_string())
                    .or_default()
                    .insert(
                        key,
                        ConversationGrant {
                            pin: tool.pin(),
                            definition: tool.clone(),
                        },
                    );
                Ok(())
            }
            ToolCallChoice::AllowAlways => {
                let granted_at = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                let grant = StoredGrant {
                    server: server.to_string(),
                    tool: tool.tool.name.clone(),
                    pin: tool.pin(),
                    definition: tool.clone(),
                    granted_at,
                };
                self.always.set(&grant_key(server, &tool.tool.name), grant)
            }
        }
    }

    /// Every "always" grant, by server and tool.
    pub fn list(&self) -> Vec<StoredGrant> {
        let mut grants: Vec<StoredGrant> = self.always.read(|g| g.values().cloned().collect());
        grants.sort_by(|a, b| (&a.server, &a.tool).cmp(&(&b.server, &b.tool)));
        grants
    }

    /// Takes back every grant of `tool` on `server`: the stored one and those of every conversation.
    pub fn revoke(&self, server: &str, tool: &str) -> Result<(), StoreError> {
        let key = (server.to_string(), tool.to_string());
        for grants in self.conversations().values_mut() {
            grants.remove(&key);
        }
        self.always.remove(&grant_key(server, tool))
    }

    /// A conversation was deleted: its grants go with it.
    pub fn forget_conversation(&self, conversation: &str) {
        self.conversations().remove(conversation);
    }

    fn conversations(&self) -> MutexGuard<'_, ConversationGrants> {
        // Every change is one insert or remove, so a panic elsewhere leaves the map usable.
        self.conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
