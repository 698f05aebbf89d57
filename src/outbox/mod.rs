//! The durable local outbox (protocol.md §2.4, §4.3, §11): every write masc-tui
//! makes is recorded here before it leaves the machine.
//!
//! One SQLite file (WAL, `synchronous=FULL`: a row is on disk when the write returns) with one
//! table of [`saves`] of every kind: chat sends, approval decisions, ask answers, … (the chat
//! sends' own older table, `chat_outbox`, is moved into it when the file is opened:
//! [`legacy`]). Each step of a write is recorded, rows only move forward, and after a crash or
//! restart a row left unsettled is shown as "not sent" (it never reached the network) or
//! "outcome unknown" (it may have), with its inputs, and is never resent automatically.
//!
//! The file lives under `$XDG_STATE_HOME/masc-tui/` (else `~/.local/state/masc-tui/`); tests
//! inject a path. Every call is blocking (SQLite + fsync): actors call it through
//! `tokio::task::spawn_blocking`.

mod chat_marks;
mod instance;
mod legacy;
mod saves;
mod shared;

pub use chat_marks::{MarkedSave, StoredMark};
pub use instance::{InstanceLock, InstanceLockError};
pub use saves::{NewSave, SaveRow, SaveRowState};
pub use shared::SharedOutbox;

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// File name inside the state directory.
pub const OUTBOX_FILE: &str = "chat-outbox.sqlite3";

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error("no state directory: neither XDG_STATE_HOME nor HOME is set")]
    NoStateDir,
    #[error("outbox directory {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("outbox database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("stored state {0:?} is not a known save state")]
    BadState(String),
    #[error("save {0} is already in the outbox")]
    DuplicateSave(String),
    #[error("save {0} is not in the outbox")]
    UnknownSave(String),
    #[error("read-only session: no outbox (another masc-tui holds the state directory)")]
    ReadOnly,
}

impl OutboxError {
    /// Stable class for traces.
    pub fn class(&self) -> &'static str {
        match self {
            Self::NoStateDir => "no_state_dir",
            Self::Dir { .. } => "dir",
            Self::Sql(_) => "sql",
            Self::BadState(_) => "bad_state",
            Self::DuplicateSave(_) => "duplicate_save",
            Self::UnknownSave(_) => "unknown_save",
            Self::ReadOnly => "read_only",
        }
    }
}

/// Where the outbox file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboxLocation {
    /// `$XDG_STATE_HOME/masc-tui/chat-outbox.sqlite3`, else `$HOME/.local/state/masc-tui/…`.
    StateDir,
    /// An explicit file (tests, `--outbox`).
    File(PathBuf),
    /// A read-only session (`--read-only`): the state directory is another masc-tui's, so this
    /// one opens no outbox at all (it never reads, relabels or writes that session's saves);
    /// every write is refused before it leaves.
    ReadOnly,
}

impl OutboxLocation {
    pub fn resolve(&self) -> Result<PathBuf, OutboxError> {
        match self {
            Self::File(p) => Ok(p.clone()),
            Self::ReadOnly => Err(OutboxError::ReadOnly),
            Self::StateDir => {
                let base = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
                    Some(dir) => PathBuf::from(dir),
                    None => {
                        let home = std::env::var_os("HOME")
                            .filter(|v| !v.is_empty())
                            .ok_or(OutboxError::NoStateDir)?;
                        PathBuf::from(home).join(".local").join("state")
                    }
                };
                Ok(base.join("masc-tui").join(OUTBOX_FILE))
            }
        }
    }
}

/// `epoch` and `generation` are the ticket the save's operation posts its steps with: a chat
/// re-opened while its send still runs in this session admits the rest of that send's steps.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS saves (
    save_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    workspace TEXT NOT NULL,
    target TEXT NOT NULL,
    intent_key TEXT NOT NULL,
    intent TEXT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    session TEXT NOT NULL,
    written_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    generation INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS saves_by_workspace ON saves (workspace, state, written_at_ms);
CREATE INDEX IF NOT EXISTS saves_by_target ON saves (kind, workspace, target, written_at_ms);";

/// A handle on the outbox file; cheap to clone (one connection behind a mutex).
#[derive(Clone)]
pub struct Outbox {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
    /// This process's session: a save row written by another session that is still
    /// unsettled was left by a crash or an earlier run (never "live" here).
    session: Arc<str>,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox").field("path", &self.path).finish()
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl Outbox {
    /// Opens (creating) the outbox at `location`.
    pub fn open(location: &OutboxLocation) -> Result<Self, OutboxError> {
        let path = location.resolve()?;
        Self::open_path(&path)
    }

    pub fn open_path(path: &Path) -> Result<Self, OutboxError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| OutboxError::Dir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        // Operator input lives here: owner-only (0600) before SQLite creates it, so no other
        // local user can read it.
        crate::private_file::ensure_private(path).map_err(|source| OutboxError::Dir {
            path: path.to_path_buf(),
            source,
        })?;
        let conn = Connection::open(path)?;
        // WAL + FULL: a committed write survives a crash of this process and of the machine.
        let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA synchronous=FULL;")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(chat_marks::SCHEMA)?;
        saves::add_ticket_columns(&conn)?;
        legacy::move_chat_outbox(&conn)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            path: path.to_path_buf(),
            session: Arc::from(format!("s-{}", uuid::Uuid::now_v7())),
        })
    }

    /// This process's session id (recorded with every save row it writes).
    pub fn session(&self) -> &str {
        &self.session
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // The connection holds no invariant across the lock; a poisoned one is still whole.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A fresh chat request id: `tui-<uuidv7>` (protocol.md §4.3).
pub fn new_request_id() -> String {
    format!("tui-{}", uuid::Uuid::now_v7())
}
