//! Conversations, kept in SQLite in the user's data folder: listed, searched (full text), renamed, deleted and
//! exported as Markdown or JSON. Every message is committed on its own as it completes, so a crash in the middle of
//! a turn loses nothing that was already shown. A database that cannot be read is set aside (never deleted) with a
//! notice, and a new one is started; one written by a newer Wharf is left as it is.
//!
//! The app and `wharf` may have the database open at once: SQLite's locking orders their writes (WAL mode, so
//! readers never wait for a writer).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, ErrorCode, OptionalExtension};
use serde::{Deserialize, Serialize};

mod export;
pub mod message;
mod schema;

pub use export::{ConversationExport, KeptMessage};
pub use message::MessageData;

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "MessageRole")]
pub enum Role {
    User,
    Assistant,
    /// A tool call's result, as the model is given it.
    Tool,
    /// Wharf's own word in the conversation (a provider error, a shortened context); never sent to the model.
    Notice,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Notice => "notice",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            "notice" => Role::Notice,
            _ => return None,
        })
    }
}

/// A message to append: its text, and what else it carries (the tools offered, tool calls and their results...).
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub role: Role,
    pub text: String,
    pub data: Option<MessageData>,
}

impl NewMessage {
    /// A message of text alone.
    pub fn text(role: Role, text: impl Into<String>) -> NewMessage {
        NewMessage {
            role,
            text: text.into(),
            data: None,
        }
    }
}

/// A message as kept.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct StoredMessage {
    #[ts(type = "number")]
    pub id: i64,
    /// Its place in the conversation, from 1.
    #[ts(type = "number")]
    pub seq: i64,
    pub role: Role,
    pub text: String,
    /// What it holds besides its text, by kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub data: Option<MessageData>,
    /// Milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub created_at: i64,
}

#[cfg(test)]
impl StoredMessage {
    /// A message as a test stores it: its id and place are `seq`.
    pub(crate) fn at(seq: i64, role: Role, text: &str, data: Option<MessageData>) -> StoredMessage {
        StoredMessage {
            id: seq,
            seq,
            role,
            text: text.into(),
            data,
            created_at: 0,
        }
    }
}

/// A row of the conversation list, newest activity first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationSummary {
    pub id: String,
    pub title: String,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
    pub messages: u32,
}

/// A message that matched a search, with its words in context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SearchHit {
    pub conversation: String,
    pub title: String,
    #[ts(type = "number")]
    pub message: i64,
    /// The matching words between `[` and `]`, with `…` where text was left out.
    pub snippet: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    #[error("the conversations database {}: could not {action}: {source}", path.display())]
    Database {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot make the folder {} for the conversations database: {source}", path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not set aside the unreadable conversations database {}: {source}", path.display())]
    SetAside {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the conversations database {} was written by a newer Wharf (version {version}); this one leaves it as it is",
        path.display()
    )]
    NewerVersion { path: PathBuf, version: i64 },
    #[error("the conversations database {} cannot be read, even as a new one: {why}", path.display())]
    Unreadable { path: PathBuf, why: String },
    #[error("no conversation \"{0}\"")]
    NotFound(String),
}

/// The time of a conversation's latest activity: now (`?2`, in milliseconds), or just after the latest activity of
/// any conversation when the clock has not moved on (two messages within a millisecond) or went back, so that the
/// list's order is always the order things happened in.
const ACTIVITY: &str = "max(?2, (SELECT coalesce(max(updated_at), 0) + 1 FROM conversations))";

/// The most search hits returned.
const MAX_HITS: usize = 50;
/// The title a conversation starts with.
pub const UNTITLED: &str = "New conversation";

pub struct ConversationStore {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for ConversationStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ConversationStore {
    /// `$XDG_DATA_HOME/wharf/conversations.db`.
    pub fn default_path() -> PathBuf {
        crate::user_dirs::data_dir().join("conversations.db")
    }

    /// Opens the database at `path`, made if missing. The string is a notice for the user when an unreadable
    /// database was set aside and a new one started.
    pub fn open(path: &Path) -> Result<(ConversationStore, Option<String>), ConversationError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| ConversationError::Folder {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let (conn, notice) = match open_checked(path) {
            Ok(conn) => (conn, None),
            Err(Opened::Unreadable(why)) => {
                let aside = set_aside(path)?;
                let notice = format!(
                    "The conversations database {} could not be read ({why}). It was moved to {} (nothing was \
                     deleted), and a new one was started.",
                    path.display(),
                    aside.display()
                );
                match open_checked(path) {
                    Ok(conn) => (conn, Some(notice)),
                    Err(e) => return Err(e.into_error(path)),
                }
            }
            Err(e) => return Err(e.into_error(path)),
        };
        let store = ConversationStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        };
        Ok((store, notice))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a conversation; its id is new and random.
    pub fn create(&self, title: Option<&str>) -> Result<ConversationSummary, ConversationError> {
        let now = now_ms();
        let title = title.unwrap_or(UNTITLED);
        let conn = self.conn();
        let (id, updated_at): (String, i64) = conn
            .query_row(
                &format!(
                    "INSERT INTO conversations (id, title, created_at, updated_at)
                     VALUES (lower(hex(randomblob(12))), ?1, ?2, {ACTIVITY}) RETURNING id, updated_at"
                ),
                params![title, now],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(self.failed("start a conversation"))?;
        Ok(ConversationSummary {
            id,
            title: title.to_string(),
            created_at: now,
            updated_at,
            messages: 0,
        })
    }

    /// Appends `message` to `conversation` and commits it before returning.
    pub fn append(
        &self,
        conversation: &str,
        message: NewMessage,
    ) -> Result<StoredMessage, ConversationError> {
        let now = now_ms();
        let data = message.data.as_ref().map(|data| data.stored().to_string());
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(self.failed("save a message"))?;
        let updated = tx
            .execute(
                &format!("UPDATE conversations SET updated_at = {ACTIVITY} WHERE id = ?1"),
                params![conversation, now],
            )
            .map_err(self.failed("save a message"))?;
        if updated == 0 {
            return Err(ConversationError::NotFound(conversation.to_string()));
        }
        let (id, seq): (i64, i64) = tx
            .query_row(
                "INSERT INTO messages (conversation, seq, role, text, data, created_at)
                 VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE conversation = ?1),
                         ?2, ?3, ?4, ?5)
                 RETURNING id, seq",
                params![conversation, message.role.as_str(), message.text, data, now],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(self.failed("save a message"))?;
        tx.commit().map_err(self.failed("save a message"))?;
        Ok(StoredMessage {
            id,
            seq,
            role: message.role,
            text: message.text,
            data: message.data,
            created_at: now,
        })
    }

    /// Every conversation, the most recently active first.
    pub fn list(&self) -> Result<Vec<ConversationSummary>, ConversationError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT c.id, c.title, c.created_at, c.updated_at,
                        (SELECT count(*) FROM messages m WHERE m.conversation = c.id)
                 FROM conversations c ORDER BY c.updated_at DESC",
            )
            .map_err(self.failed("list the conversations"))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(ConversationSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    created_at: row.get(2)?,
                    updated_at: row.get(3)?,
                    messages: row.get(4)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(self.failed("list the conversations"))?;
        Ok(rows)
    }

    /// One conversation's row.
    pub fn summary(&self, conversation: &str) -> Result<ConversationSummary, ConversationError> {
        self.list()?
            .into_iter()
            .find(|c| c.id == conversation)
            .ok_or_else(|| ConversationError::NotFound(conversation.to_string()))
    }

    /// The messages of `conversation`, in order.
    pub fn messages(&self, conversation: &str) -> Result<Vec<StoredMessage>, ConversationError> {
        let conn = self.conn();
        let exists = conn
            .query_row(
                "SELECT 1 FROM conversations WHERE id = ?1",
                [conversation],
                |_| Ok(()),
            )
            .optional()
            .map_err(self.failed("read a conversation"))?;
        if exists.is_none() {
            return Err(ConversationError::NotFound(conversation.to_string()));
        }
        let mut stmt = conn
            .prepare(
                "SELECT id, seq, role, text, data, created_at FROM messages
                 WHERE conversation = ?1 ORDER BY seq",
            )
            .map_err(self.failed("read a conversation"))?;
        let rows = stmt
            .query_map([conversation], |row| {
                let role: String = row.get(2)?;
                // A role this version does not know (a newer Wharf's) is shown as Wharf's own word.
                let role = Role::parse(&role).unwrap_or(Role::Notice);
                let data: Option<String> = row.get(4)?;
                Ok(StoredMessage {
                    id: row.get(0)?,
                    seq: row.get(1)?,
                    role,
                    text: row.get(3)?,
                    data: data
                        .and_then(|d| serde_json::from_str(&d).ok())
                        .map(|d| MessageData::read(role, d)),
                    created_at: row.get(5)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(self.failed("read a conversation"))?;
        Ok(rows)
    }

    pub fn rename(&self, conversation: &str, title: &str) -> Result<(), ConversationError> {
        let changed = self
            .conn()
            .execute(
                "UPDATE conversations SET title = ?2 WHERE id = ?1",
                params![conversation, title],
            )
            .map_err(self.failed("rename a conversation"))?;
        match changed {
            0 => Err(ConversationError::NotFound(conversation.to_string())),
            _ => Ok(()),
        }
    }

    /// Deletes `conversation` and its messages.
    pub fn delete(&self, conversation: &str) -> Result<(), ConversationError> {
        let changed = self
            .conn()
            .execute("DELETE FROM conversations WHERE id = ?1", [conversation])
            .map_err(self.failed("delete a conversation"))?;
        match changed {
            0 => Err(ConversationError::NotFound(conversation.to_string())),
            _ => Ok(()),
        }
    }

    /// Messages whose text has every word of `query`, best match first. The words are searched as written:
    /// quotes, `*`, `OR` and the like are words here, not search syntax.
    pub fn search(&self, query: &str) -> Result<Vec<SearchHit>, ConversationError> {
        // Control characters are no part of any word the index keeps, and a NUL ends FTS5's reading of the query
        // with a syntax error: they are left out.
        let words: Vec<String> = query
            .split_whitespace()
            .map(|word| word.chars().filter(|c| !c.is_control()).collect::<String>())
            .filter(|word| !word.is_empty())
            .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT m.conversation, c.title, m.id,
                        snippet(messages_fts, 0, '[', ']', '…', 12)
                 FROM messages_fts
                 JOIN messages m ON m.id = messages_fts.rowid
                 JOIN conversations c ON c.id = m.conversation
                 WHERE messages_fts MATCH ?1
                 ORDER BY rank LIMIT ?2",
            )
            .map_err(self.failed("search the conversations"))?;
        let hits = stmt
            .query_map(params![words.join(" "), MAX_HITS as i64], |row| {
                Ok(SearchHit {
                    conversation: row.get(0)?,
                    title: row.get(1)?,
                    message: row.get(2)?,
                    snippet: row.get(3)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(self.failed("search the conversations"))?;
        Ok(hits)
    }

    /// The conversation as Markdown: its title, then each message under who said it.
    pub fn export_markdown(&self, conversation: &str) -> Result<String, ConversationError> {
        let summary = self.summary(conversation)?;
        Ok(export::markdown(&summary, &self.messages(conversation)?))
    }

    /// The conversation for its JSON export: its row and every message as kept.
    pub fn export_json(&self, conversation: &str) -> Result<ConversationExport, ConversationError> {
        let summary = self.summary(conversation)?;
        Ok(export::export(summary, self.messages(conversation)?))
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A statement either ran or not; a panic elsewhere leaves the connection usable.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn failed(&self, action: &'static str) -> impl Fn(rusqlite::Error) -> ConversationError + '_ {
        move |source| ConversationError::Database {
            action,
            path: self.path.clone(),
            source,
        }
    }
}

/// Why a database could not be opened.
enum Opened {
    /// Not a database, or a damaged one: set it aside.
    Unreadable(String),
    Newer(i64),
    Failed(&'static str, rusqlite::Error),
}

impl Opened {
    fn into_error(self, path: &Path) -> ConversationError {
        let path = path.to_path_buf();
        match self {
            Opened::Newer(version) => ConversationError::NewerVersion { path, version },
            Opened::Failed(action, source) => ConversationError::Database {
                action,
                path,
                source,
            },
            Opened::Unreadable(why) => ConversationError::Unreadable { path, why },
        }
    }
}

/// How long a write waits for another Wharf's to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens and checks the database, trying again while another opener holds it: switching a new database to WAL
/// needs it to itself, and SQLite answers "busy" at once there rather than waiting out the busy timeout.
fn open_checked(path: &Path) -> Result<Connection, Opened> {
    let gives_up = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match open_once(path) {
            Err(Opened::Failed(_, e))
                if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && std::time::Instant::now() < gives_up =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            opened => return opened,
        }
    }
}

fn open_once(path: &Path) -> Result<Connection, Opened> {
    let failed = |action| move |e: rusqlite::Error| classify(action, e);
    let mut conn = Connection::open(path).map_err(failed("open"))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(failed("open"))?;
    // WAL: a crash mid-write leaves the last commit whole, and the app reading never blocks `wharf` writing.
    // FULL: a commit is on disk when it returns, power cut included.
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(failed("open"))?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(failed("open"))?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(failed("open"))?;
    let check: String = conn
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(failed("check"))?;
    if check != "ok" {
        return Err(Opened::Unreadable(check));
    }
    match schema::migrate(&mut conn).map_err(failed("update"))? {
        schema::Migrated::Current => Ok(conn),
        schema::Migrated::Newer(version) => Err(Opened::Newer(version)),
    }
}

fn classify(action: &'static str, e: rusqlite::Error) -> Opened {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            Opened::Unreadable(e.to_string())
        }
        _ => Opened::Failed(action, e),
    }
}

/// Moves the database and its WAL aside together: the log belongs to the database it was written for.
fn set_aside(path: &Path) -> Result<PathBuf, ConversationError> {
    let failed = |source| ConversationError::SetAside {
        path: path.to_path_buf(),
        source,
    };
    let aside = crate::fsutil::set_aside(path).map_err(failed)?;
    for suffix in ["-wal", "-shm"] {
        let mut from = path.as_os_str().to_os_string();
        from.push(suffix);
        let mut to = aside.as_os_str().to_os_string();
        to.push(suffix);
        match std::fs::rename(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(failed(e)),
        }
    }
    Ok(aside)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
