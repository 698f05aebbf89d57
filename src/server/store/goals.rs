//! Goals: a goal tree with phases (§5.5), per-goal timelines (§5.6); planning (§5.7) is
//! computed from these rows and the tasks family.

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339, tasks};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "goals",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "goals and goal timelines",
        sql: "CREATE TABLE goals (
        id TEXT PRIMARY KEY,
        parent_id TEXT,
        sort_key INTEGER NOT NULL,
        title TEXT NOT NULL,
        phase TEXT NOT NULL,
        priority INTEGER NOT NULL,
        metric TEXT,
        target_value TEXT,
        due_date TEXT,
        last_review_note TEXT,
        last_review_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_activity_at TEXT NOT NULL
    );
    CREATE TABLE goal_timeline (
        goal_id TEXT NOT NULL,
        ts TEXT NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        title TEXT NOT NULL,
        summary TEXT NOT NULL,
        severity TEXT NOT NULL
    );
    CREATE INDEX goal_timeline_by_goal ON goal_timeline (goal_id, ts);",
    },
    Migration {
        version: 2,
        name: "goal proof-ledger rows",
        // The JSON MASC joins from the proof ledger (§5.7 `verification`); NULL = no ledger row,
        // which the planning body omits (read as "proof unreadable", never as idle).
        sql: "ALTER TABLE goals ADD COLUMN verification TEXT;",
    },
];

/// (id, parent, title, phase, priority, metric, target, due)
type SeedGoal = (
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
    i64,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

const SEED: &[SeedGoal] = &[
    (
        "goal-1",
        None,
        "Ship masc-tui 1.0",
        "executing",
        1,
        Some("open blockers"),
        Some("0"),
        Some("2026-12-15"),
    ),
    (
        "goal-2",
        Some("goal-1"),
        "Chat screen parity with the OCaml TUI",
        "executing",
        2,
        Some("C-rules covered"),
        Some("74"),
        None,
    ),
    (
        "goal-3",
        Some("goal-1"),
        "Workspace admission everywhere (seed 001)",
        "verifying",
        1,
        None,
        None,
        Some("2026-12-01"),
    ),
    (
        "goal-4",
        Some("goal-1"),
        "런타임 카탈로그 화면",
        "blocked",
        3,
        None,
        None,
        None,
    ),
    (
        "goal-5",
        None,
        "Ops hygiene on build hosts",
        "paused",
        4,
        Some("disk free %"),
        Some("30"),
        None,
    ),
    (
        "goal-6",
        Some("goal-5"),
        "로그 로테이션 자동화",
        "completed",
        3,
        None,
        None,
        Some("2026-11-01"),
    ),
    (
        "goal-7",
        None,
        "Korean operator docs",
        "executing",
        3,
        Some("pages"),
        Some("12"),
        Some("2027-01-10"),
    ),
    (
        "goal-8",
        None,
        "Legacy web dashboard parity",
        "dropped",
        5,
        None,
        None,
        None,
    ),
];

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for (i, (id, parent, title, phase, priority, metric, target, due)) in SEED.iter().enumerate() {
        let created = SEED_EPOCH - 86_400 * (50 - i as i64 * 3);
        let updated = SEED_EPOCH - 3_600 * (5 + i as i64 * 7);
        let review = (i % 2 == 0).then(|| "주간 리뷰: 진행 순조, blocker 없음".to_string());
        tx.execute(
            "INSERT INTO goals (id, parent_id, sort_key, title, phase, priority, metric,
                target_value, due_date, last_review_note, last_review_at, created_at,
                updated_at, last_activity_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                id,
                parent,
                i as i64,
                title,
                phase,
                priority,
                metric,
                target,
                due,
                review,
                review.as_ref().map(|_| rfc3339(updated - 86_400)),
                rfc3339(created),
                rfc3339(updated),
                rfc3339(updated + 1_800),
            ],
        )?;
        if let Some(ledger) = seed_verification(id, phase, updated) {
            tx.execute(
                "UPDATE goals SET verification = ?2 WHERE id = ?1",
                params![id, ledger.to_string()],
            )?;
        }
        // Timeline: the goal's phase changes plus its tasks' transitions.
        let mut events: Vec<(i64, &str, String, String, String, &str)> = vec![
            (
                created,
                "goal_phase",
                "goal".into(),
                "Goal created".into(),
                "phase=executing by operator".into(),
                "ok",
            ),
            (
                updated,
                "goal_phase",
                "goal".into(),
                "Goal Phase".into(),
                format!("phase={phase} by rondo"),
                match *phase {
                    "blocked" | "dropped" => "bad",
                    "paused" | "verifying" => "warn",
                    _ => "ok",
                },
            ),
        ];
        let linked = tasks::tasks_of_goal(tx, id)?;
        for (k, t) in linked.iter().enumerate() {
            let tid = t["id"].as_str().unwrap_or_default().to_string();
            let status = t["status"].as_str().unwrap_or_default().to_string();
            let severity = match status.as_str() {
                "done" => "ok",
                "cancelled" => "bad",
                _ => "warn",
            };
            events.push((
                updated - 600 * (k as i64 + 1),
                "task",
                format!("task:{tid}"),
                t["title"].as_str().unwrap_or_default().to_string(),
                status,
                severity,
            ));
        }
        if *id == "goal-2" {
            events.push((
                updated - 120,
                "keeper_runtime",
                "keeper:rondo".into(),
                "rondo turn".into(),
                "tool calls: 4 · reply delivered 💬".into(),
                "ok",
            ));
            events.push((
                updated - 90,
                "approval",
                "approval:appr-17".into(),
                "Execute approval".into(),
                "pending operator confirmation".into(),
                "warn",
            ));
        }
        for (ts, kind, lane, title, summary, severity) in events {
            tx.execute(
                "INSERT INTO goal_timeline (goal_id, ts, kind, lane, title, summary, severity)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, rfc3339(ts), kind, lane, title, summary, severity],
            )?;
        }
    }
    Ok(())
}

/// The seeded proof-ledger row of a goal, by phase: verifying goals wait for a proof, the
/// completed one is proven, the dropped one was refuted, one paused goal has a ledger row that
/// does not decode (`ledger_error`), and `goal-7` has none at all (the body omits the key).
fn seed_verification(id: &str, phase: &str, updated: i64) -> Option<Value> {
    let completion = match (id, phase) {
        ("goal-7", _) => return None,
        ("goal-5", _) => {
            return Some(json!({
                "state": "ledger_error",
                "detail": "proof ledger row 5 does not decode: missing completion",
            }));
        }
        (_, "verifying") => json!({"state": "proof_pending", "requested_at": rfc3339(updated)}),
        (_, "completed") => json!({
            "state": "proof_proven",
            "verdict": {
                "outcome": "proven",
                "reason": "로테이션 스크립트가 3일 연속 정상 동작",
                "evidence": ["task:task-1011", "ci:nightly-2026-11-17"],
            },
        }),
        (_, "dropped") => json!({
            "state": "proof_refuted",
            "verdict": {
                "outcome": "refuted",
                "reason": "the web dashboard is retired; parity is moot",
                "evidence": [],
            },
        }),
        _ => json!({"state": "idle"}),
    };
    Some(json!({
        "goal_id": id,
        "completion": completion,
        "updated_at": rfc3339(updated),
    }))
}

/// A flat goal row (no tasks, no children).
#[derive(Debug, Clone)]
pub struct GoalRow {
    pub id: String,
    pub parent_id: Option<String>,
    pub body: Value,
}

/// Every goal in tree order.
pub fn goals(conn: &Connection) -> Result<Vec<GoalRow>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, parent_id, title, phase, priority, metric, target_value, due_date,
                last_review_note, last_review_at, created_at, updated_at, last_activity_at,
                verification
         FROM goals ORDER BY sort_key",
    )?;
    let rows = stmt
        .query_map([], |r| {
            let id: String = r.get(0)?;
            let mut body = json!({
                "id": id,
                "title": r.get::<_, String>(2)?,
                "phase": r.get::<_, String>(3)?,
                "priority": r.get::<_, i64>(4)?,
                "metric": r.get::<_, Option<String>>(5)?,
                "target_value": r.get::<_, Option<String>>(6)?,
                "due_date": r.get::<_, Option<String>>(7)?,
                "last_review_note": r.get::<_, Option<String>>(8)?,
                "last_review_at": r.get::<_, Option<String>>(9)?,
                "created_at": r.get::<_, String>(10)?,
                "updated_at": r.get::<_, String>(11)?,
                "last_activity_at": r.get::<_, String>(12)?,
            });
            // Stored as MASC's JSON; a row that is not JSON is left out (read as unreadable).
            if let Some(ledger) = r
                .get::<_, Option<String>>(13)?
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                && let Some(fields) = body.as_object_mut()
            {
                fields.insert("verification".into(), ledger);
            }
            Ok(GoalRow {
                parent_id: r.get(1)?,
                body,
                id,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Timeline rows of a goal, newest first.
pub fn timeline(conn: &Connection, goal_id: &str) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT ts, kind, lane, title, summary, severity FROM goal_timeline
         WHERE goal_id = ?1 ORDER BY ts DESC, rowid DESC",
    )?;
    let rows = stmt
        .query_map(params![goal_id], |r| {
            Ok(json!({
                "ts": r.get::<_, String>(0)?,
                "kind": r.get::<_, String>(1)?,
                "lane": r.get::<_, String>(2)?,
                "title": r.get::<_, String>(3)?,
                "summary": r.get::<_, String>(4)?,
                "severity": r.get::<_, String>(5)?,
            }))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Whether a goal exists.
pub fn exists(conn: &Connection, goal_id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM goals WHERE id = ?1",
            params![goal_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The newest `updated_at` of any goal: the stable `generated_at` of goal bodies (a clock
/// value would change every ETag).
pub fn generated_at(conn: &Connection) -> Result<String, StoreError> {
    let ts: Option<String> =
        conn.query_row("SELECT MAX(updated_at) FROM goals", [], |r| r.get(0))?;
    Ok(ts.unwrap_or_else(|| rfc3339(SEED_EPOCH)))
}

/// What the transition table says of one action in one phase (protocol-15-operator.md §15.4,
/// Aug): move to a phase, already there (nothing written), or invalid (`conflict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    MoveTo(&'static str),
    Already,
    Invalid,
}

/// §15.4's table over `request_complete`, `drop`, `reopen` (Aug). A `request_complete` on a
/// verifying goal is "already": it re-arms the pending proof.
pub fn decide(phase: &str, action: &str) -> Decision {
    use Decision::{Already, Invalid, MoveTo};
    match (phase, action) {
        ("executing", "request_complete") => MoveTo("verifying"),
        ("executing", "drop") => MoveTo("dropped"),
        ("executing", "reopen") => Already,
        ("verifying" | "completed" | "awaiting_confirmation", "request_complete") => Already,
        ("completed" | "awaiting_confirmation" | "paused" | "blocked", "drop") => MoveTo("dropped"),
        ("completed" | "dropped" | "awaiting_confirmation", "reopen") => MoveTo("executing"),
        ("dropped", "drop") => Already,
        _ => Invalid,
    }
}

/// What one transition did.
#[derive(Debug, Clone, PartialEq)]
pub enum Transitioned {
    /// Moved: the goal as written and, after `request_complete` or `reopen`, its proof record.
    Moved {
        goal: Value,
        verification: Option<Value>,
    },
    /// Already in the phase the action leads to: nothing written.
    Already {
        phase: String,
        goal: Value,
        verification: Option<Value>,
    },
    Invalid {
        phase: String,
    },
    NotFound,
}

fn goal_row(conn: &Connection, goal_id: &str) -> Result<Option<Value>, StoreError> {
    Ok(goals(conn)?
        .into_iter()
        .find(|g| g.id == goal_id)
        .map(|g| g.body))
}

/// Runs `action` on `goal_id` by `actor` at `now` (unix seconds): the table above; a moving
/// transition writes the phase, the note as `last_review_note`, a `goal_phase` timeline row and,
/// for `request_complete`, a durable proof request (`proof_pending`) before the phase.
pub fn transition(
    tx: &Transaction<'_>,
    goal_id: &str,
    action: &str,
    note: Option<&str>,
    actor: &str,
    now: i64,
) -> Result<Transitioned, StoreError> {
    let Some(goal) = goal_row(tx, goal_id)? else {
        return Ok(Transitioned::NotFound);
    };
    let phase = goal["phase"].as_str().unwrap_or_default().to_string();
    let verification = goal.get("verification").cloned();
    let to = match decide(&phase, action) {
        Decision::Invalid => return Ok(Transitioned::Invalid { phase }),
        Decision::Already => {
            return Ok(Transitioned::Already {
                phase,
                goal,
                verification,
            });
        }
        Decision::MoveTo(to) => to,
    };
    let at = rfc3339(now);
    let proof = match action {
        "request_complete" => Some(json!({"state": "proof_pending", "requested_at": at})),
        "reopen" => Some(json!({"state": "idle"})),
        _ => None,
    }
    .map(|completion| json!({"goal_id": goal_id, "completion": completion, "updated_at": at}));
    if let Some(record) = &proof {
        tx.execute(
            "UPDATE goals SET verification = ?2 WHERE id = ?1",
            params![goal_id, record.to_string()],
        )?;
    }
    tx.execute(
        "UPDATE goals SET phase = ?2, updated_at = ?3, last_activity_at = ?3 WHERE id = ?1",
        params![goal_id, to, at],
    )?;
    if let Some(note) = note {
        tx.execute(
            "UPDATE goals SET last_review_note = ?2, last_review_at = ?3 WHERE id = ?1",
            params![goal_id, note, at],
        )?;
    }
    let severity = match to {
        "dropped" => "bad",
        "verifying" => "warn",
        _ => "ok",
    };
    tx.execute(
        "INSERT INTO goal_timeline (goal_id, ts, kind, lane, title, summary, severity)
         VALUES (?1, ?2, 'goal_phase', 'goal', 'Goal Phase', ?3, ?4)",
        params![goal_id, at, format!("phase={to} by {actor}"), severity],
    )?;
    let goal = goal_row(tx, goal_id)?
        .ok_or_else(|| StoreError::Invalid(format!("goal {goal_id} vanished")))?;
    Ok(Transitioned::Moved {
        goal,
        verification: proof,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s15_4_the_transition_table_over_every_phase() {
        use Decision::{Already, Invalid, MoveTo};
        let rows: &[(&str, [Decision; 3])] = &[
            (
                "executing",
                [MoveTo("verifying"), MoveTo("dropped"), Already],
            ),
            ("verifying", [Already, Invalid, Invalid]),
            (
                "completed",
                [Already, MoveTo("dropped"), MoveTo("executing")],
            ),
            ("dropped", [Invalid, Already, MoveTo("executing")]),
            ("paused", [Invalid, MoveTo("dropped"), Invalid]),
            ("blocked", [Invalid, MoveTo("dropped"), Invalid]),
            (
                "awaiting_confirmation",
                [Already, MoveTo("dropped"), MoveTo("executing")],
            ),
        ];
        for (phase, expected) in rows {
            let got = ["request_complete", "drop", "reopen"].map(|a| decide(phase, a));
            assert_eq!(&got, expected, "{phase}");
        }
        assert_eq!(decide("executing", "pause"), Invalid);
    }
}
