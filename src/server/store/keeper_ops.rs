//! Keeper operations (§14.1–§14.4): pause, wake, boot, shutdown, purge and the per-Keeper tool
//! approval mode, on the keepers table the roster reads (so the roster follows).

use super::{Family, Migration, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

pub const FAMILY: Family = Family {
    name: "keeper_ops",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "tool approval modes and purge operations",
    sql: "CREATE TABLE tool_approval_modes (
        keeper TEXT PRIMARY KEY,
        mode TEXT NOT NULL
    );
    CREATE TABLE purge_operations (
        keeper TEXT PRIMARY KEY,
        operation_id TEXT NOT NULL
    );
    CREATE TABLE resume_operations (
        operation_id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL
    );",
}];

/// Nothing seeded: every Keeper starts on `auto` (MASC keeps the mode in memory only).
fn seed(_: &Transaction<'_>) -> Result<(), StoreError> {
    Ok(())
}

/// What the store knows of a Keeper's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifecycle {
    pub paused: bool,
    pub keepalive_running: bool,
}

pub fn lifecycle(c: &Connection, name: &str) -> Result<Option<Lifecycle>, StoreError> {
    Ok(c.query_row(
        "SELECT paused, keepalive_running FROM keepers WHERE name = ?1",
        params![name],
        |r| {
            Ok(Lifecycle {
                paused: r.get(0)?,
                keepalive_running: r.get(1)?,
            })
        },
    )
    .optional()?)
}

/// §14.1 pause: latches an operator pause. `false` when the Keeper has no metadata.
pub fn pause(tx: &Transaction<'_>, name: &str) -> Result<bool, StoreError> {
    let n = tx.execute(
        "UPDATE keepers SET paused = 1, phase = 'paused' WHERE name = ?1",
        params![name],
    )?;
    Ok(n > 0)
}

/// §14.1 resume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeOutcome {
    NotFound,
    NotPaused,
    /// The same operation id named another Keeper.
    OtherInput,
    /// `owner_nonce` is not the Keeper's current generation (§14.7 `meta.generation`).
    GenerationChanged,
    Committed,
    AlreadyCommitted,
}

pub fn resume(
    tx: &Transaction<'_>,
    name: &str,
    operation_id: &str,
    owner_nonce: u64,
) -> Result<ResumeOutcome, StoreError> {
    let seen: Option<String> = tx
        .query_row(
            "SELECT keeper FROM resume_operations WHERE operation_id = ?1",
            params![operation_id],
            |r| r.get(0),
        )
        .optional()?;
    match seen {
        Some(k) if k == name => return Ok(ResumeOutcome::AlreadyCommitted),
        Some(_) => return Ok(ResumeOutcome::OtherInput),
        None => {}
    }
    Ok(match lifecycle(tx, name)? {
        None => ResumeOutcome::NotFound,
        Some(_) if super::keeper_detail::generation_of(tx, name)? != owner_nonce => {
            ResumeOutcome::GenerationChanged
        }
        Some(l) if !l.paused => ResumeOutcome::NotPaused,
        Some(l) => {
            let phase = if l.keepalive_running {
                "running"
            } else {
                "stopped"
            };
            tx.execute(
                "UPDATE keepers SET paused = 0, phase = ?2 WHERE name = ?1",
                params![name, phase],
            )?;
            tx.execute(
                "INSERT INTO resume_operations (operation_id, keeper) VALUES (?1, ?2)",
                params![operation_id, name],
            )?;
            ResumeOutcome::Committed
        }
    })
}

/// §14.2 boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootOutcome {
    NotFound,
    OperatorPaused,
    AlreadyLive,
    Booted,
}

pub fn boot(tx: &Transaction<'_>, name: &str) -> Result<BootOutcome, StoreError> {
    Ok(match lifecycle(tx, name)? {
        None => BootOutcome::NotFound,
        Some(l) if l.paused => BootOutcome::OperatorPaused,
        Some(l) if l.keepalive_running => BootOutcome::AlreadyLive,
        Some(_) => {
            tx.execute(
                "UPDATE keepers SET keepalive_running = 1, phase = 'running' WHERE name = ?1",
                params![name],
            )?;
            BootOutcome::Booted
        }
    })
}

/// §14.2 shutdown: stops the fiber, then latches an operator pause. `false`: no such Keeper.
pub fn shutdown(tx: &Transaction<'_>, name: &str) -> Result<bool, StoreError> {
    let n = tx.execute(
        "UPDATE keepers SET keepalive_running = 0, paused = 1, phase = 'stopped' WHERE name = ?1",
        params![name],
    )?;
    Ok(n > 0)
}

/// §14.3 purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurgeOutcome {
    NotFound,
    /// The lane still runs: shutdown first.
    LaneExecuting,
    /// Accepted (a repeat answers the same operation id).
    Accepted {
        operation_id: String,
    },
}

/// The durable purge completes at once here: the Keeper leaves the roster and its settings.
pub fn purge(tx: &Transaction<'_>, name: &str, fresh_id: &str) -> Result<PurgeOutcome, StoreError> {
    let existing: Option<String> = tx
        .query_row(
            "SELECT operation_id FROM purge_operations WHERE keeper = ?1",
            params![name],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(operation_id) = existing {
        return Ok(PurgeOutcome::Accepted { operation_id });
    }
    match lifecycle(tx, name)? {
        None => Ok(PurgeOutcome::NotFound),
        Some(l) if l.keepalive_running => Ok(PurgeOutcome::LaneExecuting),
        Some(_) => {
            tx.execute("DELETE FROM keepers WHERE name = ?1", params![name])?;
            tx.execute(
                "DELETE FROM keeper_manifests WHERE name = ?1",
                params![name],
            )?;
            tx.execute(
                "INSERT INTO purge_operations (keeper, operation_id) VALUES (?1, ?2)",
                params![name, fresh_id],
            )?;
            Ok(PurgeOutcome::Accepted {
                operation_id: fresh_id.to_string(),
            })
        }
    }
}

/// §14.4: the overrides (a Keeper absent is `auto`).
pub fn tool_modes(c: &Connection) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt = c.prepare("SELECT keeper, mode FROM tool_approval_modes ORDER BY keeper")?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// §14.4 set: `false` when the Keeper is not registered.
pub fn set_tool_mode(tx: &Transaction<'_>, name: &str, mode: &str) -> Result<bool, StoreError> {
    if lifecycle(tx, name)?.is_none() {
        return Ok(false);
    }
    if mode == "auto" {
        tx.execute(
            "DELETE FROM tool_approval_modes WHERE keeper = ?1",
            params![name],
        )?;
    } else {
        tx.execute(
            "INSERT INTO tool_approval_modes (keeper, mode) VALUES (?1, ?2)
             ON CONFLICT(keeper) DO UPDATE SET mode = excluded.mode",
            params![name, mode],
        )?;
    }
    Ok(true)
}
