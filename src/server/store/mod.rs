//! SQLite store of the embedded server.
//!
//! One connection behind a mutex, used from `spawn_blocking`. Each endpoint family owns a file
//! here with its numbered migrations and its deterministic seed, listed in [`FAMILIES`]. Every
//! write runs in one transaction, so revisions and compare-and-swap checks are real.

pub mod asks;
pub mod async_requests;
pub mod board;
pub mod calm;
pub mod chat;
pub mod chat_newer;
pub mod connectors;
pub mod gate_queue;
pub mod goals;
pub mod held_calls;
pub mod keeper_config;
pub mod keeper_detail;
pub mod keeper_ops;
pub mod keepers;
pub mod operator;
pub mod runtime;
pub mod scale;
pub mod skills;
pub mod tasks;
pub mod tools;
pub mod turn_records;
pub mod waiting;

use crate::server::seeded::{SeededRng, seeded_rng};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use std::path::Path;
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("store task failed: {0}")]
    Task(String),
    #[error("store connection poisoned")]
    Poisoned,
    #[error("invalid stored data: {0}")]
    Invalid(String),
}

/// One numbered schema step of a family. Versions start at 1 and only grow; an applied
/// migration is never edited, a new one is appended.
#[derive(Debug)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// A family's schema and seed. The seed runs once per data directory, after the migrations,
/// inside the same transaction as the `seeds` marker.
pub struct Family {
    pub name: &'static str,
    pub migrations: &'static [Migration],
    pub seed: fn(&Transaction<'_>) -> Result<(), StoreError>,
}

/// Keeper chat (§4.5): the long seeded chats, then Keeper `ops-bot`'s newer-store transcript
/// (§15.9) written with chat's own rows. One family, so a data directory seeded once keeps its
/// one `chat` marker; composed here so the newer rows depend on chat and not the reverse.
const CHAT: Family = Family {
    name: "chat",
    migrations: chat::MIGRATIONS,
    seed: seed_chat,
};

fn seed_chat(tx: &Transaction<'_>) -> Result<(), StoreError> {
    chat::seed(tx)?;
    chat_newer::seed(tx)
}

/// Every family, in dependency order (a later family's seed may read an earlier one's rows).
pub const FAMILIES: &[&Family] = &[
    &keepers::FAMILY,
    &CHAT,
    &tasks::FAMILY,
    &goals::FAMILY,
    &tools::FAMILY,
    &skills::FAMILY,
    &async_requests::FAMILY,
    &connectors::FAMILY,
    &board::FAMILY,
    &runtime::FAMILY,
    &keeper_config::FAMILY,
    &keeper_detail::FAMILY,
    &keeper_ops::FAMILY,
    &asks::FAMILY,
    &operator::FAMILY,
    &held_calls::FAMILY,
    &turn_records::FAMILY,
    &waiting::FAMILY,
    &gate_queue::FAMILY,
];

/// The fixed "now" of the seeded workspace: 2026-11-20T09:00:00Z. Seeds derive every time
/// from it so two fresh data directories hold the same rows.
pub const SEED_EPOCH: i64 = 1_795_165_200;

/// A deterministic RNG for a family's seed.
pub fn seed_rng(family: &str) -> SeededRng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in family.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    seeded_rng(h)
}

/// RFC 3339 UTC text of a unix time (seconds).
pub fn rfc3339(unix: i64) -> String {
    let t =
        time::OffsetDateTime::from_unix_timestamp(unix).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

/// Current unix time as a float.
pub fn now_unix() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    /// Bumped after every write transaction: the data revision the response cache keys on.
    /// A read that overlaps a write sees the revision move and is not cached.
    revision: Arc<std::sync::atomic::AtomicU64>,
}

impl Store {
    /// Open (or create) the store file, apply pending migrations and seed new families.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        Self::init(conn)
    }

    /// An in-memory store (unit tests).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(mut conn: Connection) -> Result<Self, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&mut conn, FAMILIES)?;
        seed(&mut conn, FAMILIES)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            revision: Arc::default(),
        })
    }

    /// Adds the rows of `scale` (once per data directory). Blocking: run it before
    /// the server serves, or on the blocking pool. Returns whether rows were added.
    pub fn apply_scale(&self, scale: &scale::Scale) -> Result<bool, StoreError> {
        let mut guard = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let tx = guard.transaction()?;
        let added = scale::apply(&tx, scale)?;
        tx.commit()?;
        self.revision
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(added)
    }

    /// Makes the workspace calm ([`calm`]): no Keeper in error, no pending approval, no held
    /// call. Returns how many rows changed (0 once calm).
    pub fn apply_calm(&self) -> Result<usize, StoreError> {
        let mut guard = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let tx = guard.transaction()?;
        let changed = calm::apply(&tx)?;
        tx.commit()?;
        self.revision
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(changed)
    }

    /// The data revision: it changes whenever a write transaction ends.
    pub fn revision(&self) -> u64 {
        self.revision.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Run a read on the blocking pool.
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let guard = conn.lock().map_err(|_| StoreError::Poisoned)?;
            f(&guard)
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Run a write in one transaction on the blocking pool; committed only when `f` returns Ok.
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = self.conn.clone();
        let revision = self.revision.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().map_err(|_| StoreError::Poisoned)?;
            let tx = guard.transaction()?;
            let out = f(&tx).and_then(|out| tx.commit().map(|()| out).map_err(Into::into));
            // Bumped whether the transaction committed or rolled back: a cached answer is
            // only ever dropped early, never kept too long.
            revision.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            out
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }
}

fn migrate(conn: &mut Connection, families: &[&Family]) -> Result<(), StoreError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             family TEXT NOT NULL,
             version INTEGER NOT NULL,
             name TEXT NOT NULL,
             applied_at TEXT NOT NULL,
             PRIMARY KEY (family, version)
         );
         CREATE TABLE IF NOT EXISTS seeds (
             family TEXT PRIMARY KEY,
             seeded_at TEXT NOT NULL
         );",
    )?;
    let now = rfc3339(now_unix() as i64);
    for family in families {
        let tx = conn.transaction()?;
        let applied: u32 = tx.query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations WHERE family = ?1",
            params![family.name],
            |r| r.get(0),
        )?;
        for m in family.migrations.iter().filter(|m| m.version > applied) {
            tx.execute_batch(m.sql)?;
            tx.execute(
                "INSERT INTO schema_migrations (family, version, name, applied_at) VALUES (?1, ?2, ?3, ?4)",
                params![family.name, m.version, m.name, now],
            )?;
            tracing::debug!(
                family = family.name,
                version = m.version,
                name = m.name,
                "migration applied"
            );
        }
        tx.commit()?;
    }
    Ok(())
}

fn seed(conn: &mut Connection, families: &[&Family]) -> Result<(), StoreError> {
    let now = rfc3339(now_unix() as i64);
    for family in families {
        let tx = conn.transaction()?;
        let done: Option<String> = tx
            .query_row(
                "SELECT seeded_at FROM seeds WHERE family = ?1",
                params![family.name],
                |r| r.get(0),
            )
            .optional()?;
        if done.is_none() {
            (family.seed)(&tx)?;
            tx.execute(
                "INSERT INTO seeds (family, seeded_at) VALUES (?1, ?2)",
                params![family.name, now],
            )?;
        }
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_recorded_and_reopening_does_not_reseed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite3");
        let count = |p: &Path| {
            let c = Connection::open(p).unwrap();
            let m: i64 = c
                .query_row("SELECT COUNT(*) FROM schema_migrations", [], |r| r.get(0))
                .unwrap();
            let k: i64 = c
                .query_row("SELECT COUNT(*) FROM keepers", [], |r| r.get(0))
                .unwrap();
            (m, k)
        };
        drop(Store::open(&path).unwrap());
        let first = count(&path);
        assert!(first.0 >= FAMILIES.len() as i64);
        assert!(first.1 > 0);
        drop(Store::open(&path).unwrap());
        assert_eq!(count(&path), first);
    }

    #[test]
    fn rfc3339_of_the_seed_epoch() {
        assert_eq!(rfc3339(SEED_EPOCH), "2026-11-20T09:00:00Z");
    }
}
