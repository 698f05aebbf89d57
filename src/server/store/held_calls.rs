//! Held tool calls (§14.5; newer MASC): calls a Keeper's turn waits on, and the answers the
//! server remembers for a call whose wait had ended. MASC keeps both in memory; the embedded
//! server keeps them in its store so a fault plan or a test can see them. A call is listed
//! while its wait runs (`asked_at + timeout_sec` after now by the wall clock); the seeded
//! demo calls are asked when the store is seeded.

use super::{Family, Migration, StoreError, now_unix};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

pub const FAMILY: Family = Family {
    name: "held_calls",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "held tool calls and remembered answers",
    sql: "CREATE TABLE held_tool_calls (
        keeper TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        question TEXT NOT NULL,
        because TEXT,
        asked_at REAL NOT NULL,
        timeout_sec REAL NOT NULL,
        PRIMARY KEY (keeper, tool_call_id)
    );
    CREATE TABLE held_call_answers (
        keeper TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        decision TEXT NOT NULL,
        PRIMARY KEY (keeper, tool_call_id)
    );",
}];

/// One seeded held call: (keeper, id, tool, args, question, because, wait in seconds).
pub type SeedCall = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    f64,
);

/// The demo's held calls.
pub const SEEDED: &[SeedCall] = &[
    (
        "rondo",
        "call-rondo-held-1",
        "bash",
        "{\"cmd\":\"rm -rf target/debug/incremental\"}",
        "Run bash to clear the incremental build cache?",
        Some("the disk is 91% full"),
        3_600.0,
    ),
    (
        "rondo",
        "call-rondo-held-2",
        "masc_board_post",
        "{\"title\":\"Cache cleared\",\"hearth\":\"ops\"}",
        "Post the result to the board?",
        None,
        3_600.0,
    ),
    (
        "mira",
        "call-mira-held-1",
        "web_fetch",
        "{\"url\":\"https://status.example.org\"}",
        "Fetch the status page?",
        None,
        3_600.0,
    ),
];

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    // Asked now by the wall clock (like the expiring approval): a demo started now shows
    // them waiting; their waits end an hour after the store was seeded.
    let now = now_unix();
    for (i, (keeper, id, tool, args, question, because, wait)) in SEEDED.iter().enumerate() {
        hold(
            tx,
            &HeldCall {
                keeper: (*keeper).into(),
                tool_call_id: (*id).into(),
                tool: (*tool).into(),
                args: (*args).into(),
                question: (*question).into(),
                because: because.map(str::to_string),
                asked_at: now - 60.0 + i as f64,
                timeout_sec: *wait,
            },
        )?;
    }
    Ok(())
}

/// One held call as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldCall {
    pub keeper: String,
    pub tool_call_id: String,
    pub tool: String,
    pub args: String,
    pub question: String,
    pub because: Option<String>,
    pub asked_at: f64,
    pub timeout_sec: f64,
}

impl HeldCall {
    pub fn waiting_at(&self, now: f64) -> bool {
        self.asked_at + self.timeout_sec > now
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "keeper": self.keeper,
            "tool_call_id": self.tool_call_id,
            "tool": self.tool,
            "args": self.args,
            "question": self.question,
            "because": self.because,
            "asked_at": self.asked_at,
            "timeout_sec": self.timeout_sec,
        })
    }
}

/// Holds a call (a turn starts waiting on it); replaces one with the same key.
pub fn hold(tx: &Transaction<'_>, c: &HeldCall) -> Result<(), StoreError> {
    tx.execute(
        "INSERT OR REPLACE INTO held_tool_calls
         (keeper, tool_call_id, tool, args, question, because, asked_at, timeout_sec)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            c.keeper,
            c.tool_call_id,
            c.tool,
            c.args,
            c.question,
            c.because,
            c.asked_at,
            c.timeout_sec
        ],
    )?;
    Ok(())
}

fn call_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<HeldCall> {
    Ok(HeldCall {
        keeper: r.get(0)?,
        tool_call_id: r.get(1)?,
        tool: r.get(2)?,
        args: r.get(3)?,
        question: r.get(4)?,
        because: r.get(5)?,
        asked_at: r.get(6)?,
        timeout_sec: r.get(7)?,
    })
}

const COLUMNS: &str = "keeper, tool_call_id, tool, args, question, because, asked_at, timeout_sec";

/// Every held call whose wait still runs at `now`, oldest first.
pub fn waiting(c: &Connection, now: f64) -> Result<Vec<HeldCall>, StoreError> {
    let mut stmt = c.prepare(&format!(
        "SELECT {COLUMNS} FROM held_tool_calls ORDER BY asked_at, keeper, tool_call_id"
    ))?;
    let rows = stmt
        .query_map([], call_of)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows.into_iter().filter(|c| c.waiting_at(now)).collect())
}

/// What an answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// The waiting call was released.
    Settled,
    /// The wait had ended: the answer is kept for the same call retried.
    Remembered,
    /// Nothing was waiting (already answered, or never held).
    Nothing,
}

/// Answers a held call: a waiting call is released (removed); one whose wait ended is removed
/// and its answer remembered; anything else answers nothing.
pub fn answer(
    tx: &Transaction<'_>,
    keeper: &str,
    tool_call_id: &str,
    decision: &str,
    now: f64,
) -> Result<Answered, StoreError> {
    let call = tx
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM held_tool_calls WHERE keeper = ?1 AND tool_call_id = ?2"
            ),
            params![keeper, tool_call_id],
            call_of,
        )
        .optional()?;
    let Some(call) = call else {
        return Ok(Answered::Nothing);
    };
    tx.execute(
        "DELETE FROM held_tool_calls WHERE keeper = ?1 AND tool_call_id = ?2",
        params![keeper, tool_call_id],
    )?;
    if call.waiting_at(now) {
        return Ok(Answered::Settled);
    }
    tx.execute(
        "INSERT OR REPLACE INTO held_call_answers (keeper, tool_call_id, decision)
         VALUES (?1, ?2, ?3)",
        params![keeper, tool_call_id, decision],
    )?;
    Ok(Answered::Remembered)
}
