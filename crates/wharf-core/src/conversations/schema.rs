//! The database's tables, as numbered migrations: `PRAGMA user_version` says how many have run. A database from a
//! newer Wharf (a higher number) is left as it is.

use rusqlite::{Connection, TransactionBehavior};

/// Each step, in order; step `n` brings the database to version `n + 1`. A step is never edited once released: a
/// change is a new step.
const MIGRATIONS: &[&str] = &[
    // 1: conversations, their messages, and full-text search over the messages' text.
    "CREATE TABLE conversations (
         id TEXT PRIMARY KEY,
         title TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         updated_at INTEGER NOT NULL
     );
     CREATE TABLE messages (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
         seq INTEGER NOT NULL,
         role TEXT NOT NULL,
         text TEXT NOT NULL,
         data TEXT,
         created_at INTEGER NOT NULL,
         UNIQUE (conversation, seq)
     );
     CREATE INDEX conversations_by_update ON conversations(updated_at DESC);
     CREATE VIRTUAL TABLE messages_fts USING fts5(text, content='messages', content_rowid='id');
     CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
         INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
     END;
     CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
         INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
     END;
     CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
         INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
         INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
     END;",
];

/// The version this Wharf writes.
pub(super) const LATEST: i64 = MIGRATIONS.len() as i64;

/// What the migrations found.
pub(super) enum Migrated {
    Current,
    /// Written by a newer Wharf: not touched.
    Newer(i64),
}

/// Runs the steps the database has not had, each in its own transaction with its version number, so a crash
/// between two steps leaves a database at one version or the next, never between.
///
/// The app, `wharf` and any program a server starts may open the same new database at once. Each step takes the
/// write lock first (`BEGIN IMMEDIATE`, waiting out the busy timeout) and reads the version under it: a version
/// read before the lock may already be stale, and its step would then fail on tables another opener just made.
pub(super) fn migrate(conn: &mut Connection) -> rusqlite::Result<Migrated> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version > LATEST {
            return Ok(Migrated::Newer(version));
        }
        let Some(step) = usize::try_from(version)
            .ok()
            .and_then(|at| MIGRATIONS.get(at))
        else {
            // At the latest version (or a negative one no Wharf writes, which no step can bring forward).
            return Ok(Migrated::Current);
        };
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}
