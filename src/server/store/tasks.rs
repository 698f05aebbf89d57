//! Tasks: task objects (§5 task JSON), goal links, and per-task event logs with generations
//! (a replaced log gets a new generation, which invalidates older cursors, §5.3).

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339, seed_rng};
use crate::server::seeded::SeededRng;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "tasks",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "tasks, goal links, event logs",
    sql: "CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        sort_key INTEGER NOT NULL,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        priority INTEGER NOT NULL,
        assignee TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        completed_at TEXT,
        archived INTEGER NOT NULL,
        body_json TEXT NOT NULL
    );
    CREATE TABLE task_goal_links (
        task_id TEXT NOT NULL,
        goal_id TEXT NOT NULL,
        PRIMARY KEY (task_id, goal_id)
    );
    CREATE TABLE task_event_logs (
        task_id TEXT PRIMARY KEY,
        generation INTEGER NOT NULL
    );
    CREATE TABLE task_events (
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line_json TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
    );",
}];

/// The task with several pages of history (§5.3 paging demos and tests).
pub const LONG_HISTORY_TASK: &str = "task-1013";
/// Events of [`LONG_HISTORY_TASK`].
pub const LONG_HISTORY_EVENTS: usize = 400;
/// A task with no stored history at all.
pub const NO_HISTORY_TASK: &str = "task-1040";

const TITLES: &[&str] = &[
    "Set up CI for the workspace server",
    "Roster decoder: refuse unknown status rows",
    "채팅 화면 스크롤 버그 수정",
    "Write receipts middleware",
    "Candle balance strings beyond 64 bits",
    "Keeper turn census endpoint",
    "온보딩 문서 초안 작성",
    "Board hearth census caching",
    "Connector name cursor chains",
    "Runtime raw config CAS",
    "Goal timeline sorting by ts",
    "Planning rollup warming body",
    "Write decoder",
    "Async request detail echo checks",
    "하늘 keeper 런타임 교체",
    "Nightly verification report",
    "Fix flaky SSE reconnect test",
    "Operator approvals: scope to actor",
    "Sandbox profile editor",
    "릴리스 노트 0.3 정리",
    "Terminal resize gate",
    "Markdown link reference definitions stay hidden",
    "Coop report leak check in finals",
    "Discord channel bindings audit",
    "ops-bot 로그 로테이션",
    "Trace timeline report",
    "PTY smoke test",
    "Keeper create route",
    "Ask follow-up SSE",
    "Task history cursor invalidation",
    "build-02 디스크 정리",
    "Slack connector status triple",
    "Migrate seeds to fixed RNG",
    "Korean width handling in composer",
    "Emoji grapheme clusters in transcript",
    "Benchmark projection of long transcripts",
    "NO_COLOR theme",
    "검증 대기 작업 목록 정리",
    "Retire legacy history fallback",
    "Empty-history placeholder task",
];

const STATUSES: &[&str] = &[
    "todo",
    "claimed",
    "in_progress",
    "awaiting_verification",
    "done",
    "cancelled",
];
const ASSIGNEES: &[&str] = &["rondo", "sangsu", "하늘", "mira", "ops-bot", "scout"];
const GOALS: &[&str] = &[
    "goal-1", "goal-2", "goal-3", "goal-4", "goal-5", "goal-6", "goal-7", "goal-8",
];

fn task_id(i: usize) -> String {
    format!("task-{}", 1001 + i)
}

/// The fields a Task of `status` must carry (protocol.md §5: each state names its assignee and
/// times), at `t(hours after creation)`. The ordinary seed and the scaled workspace share it, so
/// every stored body decodes as the state it claims.
pub(super) fn state_fields(
    obj: &mut serde_json::Map<String, Value>,
    status: &str,
    assignee: &str,
    t: &dyn Fn(i64) -> String,
    i: usize,
) {
    match status {
        "claimed" => {
            obj.insert("assignee".into(), json!(assignee));
            obj.insert("claimed_at".into(), json!(t(2)));
        }
        "in_progress" => {
            obj.insert("assignee".into(), json!(assignee));
            obj.insert("started_at".into(), json!(t(3)));
        }
        "awaiting_verification" => {
            obj.insert("assignee".into(), json!(assignee));
            obj.insert("started_at".into(), json!(t(3)));
            obj.insert("submitted_at".into(), json!(t(20)));
            obj.insert(
                "verification_id".into(),
                json!(format!("verif-{}", 501 + i)),
            );
        }
        "done" => {
            obj.insert("assignee".into(), json!(assignee));
            obj.insert("completed_at".into(), json!(t(30)));
            obj.insert("notes".into(), json!("merged; 검증 완료 ✅"));
        }
        "cancelled" => {
            obj.insert("cancelled_by".into(), json!("operator"));
            obj.insert("cancelled_at".into(), json!(t(10)));
            obj.insert("reason".into(), json!("superseded by a newer task"));
        }
        _ => {}
    }
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let mut rng = seed_rng("tasks");
    for (i, title) in TITLES.iter().enumerate() {
        let id = task_id(i);
        let status = if id == LONG_HISTORY_TASK {
            "in_progress"
        } else {
            STATUSES[i % STATUSES.len()]
        };
        let assignee = ASSIGNEES[(i * 7 + 3) % ASSIGNEES.len()];
        let assignee = if id == LONG_HISTORY_TASK {
            "rondo"
        } else {
            assignee
        };
        let created = SEED_EPOCH - 86_400 * (45 - i as i64) - rng.gen_range(0..3_600);
        let t = |offset_h: i64| rfc3339(created + offset_h * 3_600);
        let priority = 1 + (i as i64 * 3) % 5;
        let mut body = json!({
            "id": id,
            "title": title,
            "description": format!("{title}.\n\n담당: {assignee}. Acceptance: tests green, docs updated."),
            "priority": priority,
            "files": if i % 3 == 0 { json!(["src/server/mod.rs", "docs/fault-plans.md"]) } else { json!([]) },
            "created_at": t(0),
            "created_by": if i % 4 == 0 { "operator" } else { "rondo" },
            "status": status,
        });
        if let Some(obj) = body.as_object_mut() {
            state_fields(obj, status, assignee, &t, i);
        }
        let completed_at = (status == "done").then(|| t(30));
        let shown_assignee = (status != "todo" && status != "cancelled").then_some(assignee);
        let archived = matches!(status, "done" | "cancelled") && i < 12;
        tx.execute(
            "INSERT INTO tasks (id, sort_key, title, status, priority, assignee, created_at,
                updated_at, completed_at, archived, body_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                id,
                i as i64,
                title,
                status,
                priority,
                shown_assignee,
                t(0),
                t(30),
                completed_at,
                archived,
                body.to_string()
            ],
        )?;
        if i % 5 != 4 {
            tx.execute(
                "INSERT INTO task_goal_links (task_id, goal_id) VALUES (?1, ?2)",
                params![id, GOALS[i % GOALS.len()]],
            )?;
            if i % 7 == 0 {
                tx.execute(
                    "INSERT OR IGNORE INTO task_goal_links (task_id, goal_id) VALUES (?1, ?2)",
                    params![id, "goal-1"],
                )?;
            }
        }
        if id == NO_HISTORY_TASK {
            continue;
        }
        let n = if id == LONG_HISTORY_TASK {
            LONG_HISTORY_EVENTS
        } else {
            2 + rng.gen_range(0..7)
        };
        let lines = seed_events(&id, status, assignee, created, n, &mut rng);
        store_log(tx, &id, 1, &lines)?;
    }
    Ok(())
}

pub(crate) fn seed_events(
    id: &str,
    final_status: &str,
    agent: &str,
    created: i64,
    n: usize,
    rng: &mut SeededRng,
) -> Vec<Value> {
    const NOTES: &[&str] = &[
        "ran cargo test --lib protocol",
        "디코더 경로 에러 메시지 개선",
        "rebased on main",
        "fixture 추가: gate_keepers__status_outside_vocabulary",
        "waiting on review 👀",
        "clippy clean",
    ];
    let mut out = Vec::with_capacity(n);
    let mut ts = created;
    for k in 0..n {
        ts += 60 + rng.gen_range(0..900);
        let line = if k == 0 {
            json!({"ts": rfc3339(ts), "type": "task_transition", "action": "create",
                   "task_id": id, "to_status": "todo", "agent": "operator", "actor_kind": "human"})
        } else if k == 1 {
            json!({"ts": rfc3339(ts), "type": "task_transition", "action": "claim",
                   "task_id": id, "from_status": "todo", "to_status": "claimed",
                   "agent": agent, "actor_kind": "keeper", "assignee": agent})
        } else if k == n - 1 && final_status != "todo" && final_status != "claimed" {
            json!({"ts": rfc3339(ts), "type": "task_transition", "action": "set_status",
                   "task": id, "from_status": "in_progress", "to_status": final_status,
                   "agent": agent, "actor_kind": "keeper", "notes": "final transition"})
        } else if k % 25 == 0 {
            json!({"ts": rfc3339(ts), "type": "handoff", "action": "handoff",
                   "task_id": id, "agent": agent, "actor_kind": "keeper",
                   "handoff_context": {"summary": format!("checkpoint {k}: continue from the saved state")}})
        } else {
            // Legacy lines carry only `task`; the page adds `task_id`.
            let key = if k % 3 == 0 { "task" } else { "task_id" };
            json!({"ts": rfc3339(ts), "type": "task_note", "action": "note", key: id,
                   "agent": agent, "actor_kind": "keeper",
                   "notes": format!("#{k} {}", NOTES[k % NOTES.len()])})
        };
        out.push(line);
    }
    out
}

pub(crate) fn store_log(
    tx: &Transaction<'_>,
    task_id: &str,
    generation: i64,
    lines: &[Value],
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO task_event_logs (task_id, generation) VALUES (?1, ?2)
         ON CONFLICT(task_id) DO UPDATE SET generation = excluded.generation",
        params![task_id, generation],
    )?;
    tx.execute(
        "DELETE FROM task_events WHERE task_id = ?1",
        params![task_id],
    )?;
    let mut stmt =
        tx.prepare("INSERT INTO task_events (task_id, seq, line_json) VALUES (?1, ?2, ?3)")?;
    for (seq, line) in lines.iter().enumerate() {
        stmt.execute(params![task_id, seq as i64 + 1, line.to_string()])?;
    }
    Ok(())
}

/// One row of the task list (§5.1), its keys in the order they are sent. Serialized straight
/// to the body: at 20,000 Tasks a `serde_json::Value` per row, cloned again into the
/// body's `Value`, held ≈ 50 MB of maps for a 4.5 MB answer.
#[derive(Debug, serde::Serialize)]
pub struct ListRow {
    pub id: String,
    pub title: String,
    pub status: String,
    pub priority: i64,
    pub assignee: Option<String>,
    pub created_at: String,
    pub completed_at: Option<String>,
    pub archived: bool,
    pub goal_ids: Vec<String>,
}

/// The task list's rows in display order, each with its goal ids (sorted).
pub fn list(conn: &Connection) -> Result<Vec<ListRow>, StoreError> {
    // Every link in one query (not one query per task), grouped by task, goal ids sorted.
    let mut links: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::new();
    let mut stmt =
        conn.prepare("SELECT task_id, goal_id FROM task_goal_links ORDER BY task_id, goal_id")?;
    let pairs = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for pair in pairs {
        let (task, goal) = pair?;
        links.entry(task).or_default().push(goal);
    }
    let mut stmt = conn.prepare(
        "SELECT id, title, status, priority, assignee, created_at, completed_at, archived
         FROM tasks ORDER BY sort_key",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(ListRow {
            id: r.get(0)?,
            title: r.get(1)?,
            status: r.get(2)?,
            priority: r.get(3)?,
            assignee: r.get(4)?,
            created_at: r.get(5)?,
            completed_at: r.get(6)?,
            archived: r.get(7)?,
            goal_ids: Vec::new(),
        })
    })?;
    let mut out = Vec::new();
    for row in rows {
        let mut row = row?;
        row.goal_ids = links.remove(&row.id).unwrap_or_default();
        out.push(row);
    }
    Ok(out)
}

/// Goal ids linked to a task, sorted.
pub fn goal_ids(conn: &Connection, task_id: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT goal_id FROM task_goal_links WHERE task_id = ?1 ORDER BY goal_id",
    )?;
    let ids = stmt
        .query_map(params![task_id], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// The stored task object, if any.
pub fn task(conn: &Connection, id: &str) -> Result<Option<Value>, StoreError> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body_json FROM tasks WHERE id = ?1",
            params![id],
            |r| r.get(0),
        )
        .optional()?;
    body.map(|b| serde_json::from_str(&b).map_err(StoreError::from))
        .transpose()
}

/// Task summary rows linked to a goal (goals tree node `tasks`).
pub fn tasks_of_goal(conn: &Connection, goal_id: &str) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT t.id, t.title, t.status, t.priority, t.assignee, t.created_at, t.updated_at
         FROM tasks t JOIN task_goal_links l ON l.task_id = t.id
         WHERE l.goal_id = ?1 ORDER BY t.sort_key",
    )?;
    let rows = stmt
        .query_map(params![goal_id], |r| {
            let status: String = r.get(2)?;
            Ok(json!({
                "id": r.get::<_, String>(0)?,
                "title": r.get::<_, String>(1)?,
                "is_terminal": matches!(status.as_str(), "done" | "cancelled"),
                "status": status,
                "priority": r.get::<_, i64>(3)?,
                "assignee": r.get::<_, Option<String>>(4)?,
                "goal_id": goal_id,
                "created_at": r.get::<_, String>(5)?,
                "updated_at": r.get::<_, String>(6)?,
            }))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Counts of tasks by status.
pub fn status_counts(conn: &Connection) -> Result<Vec<(String, i64)>, StoreError> {
    let mut stmt = conn.prepare("SELECT status, COUNT(*) FROM tasks GROUP BY status")?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// The current generation of a task's event log (`None`: no log stored).
pub fn log_generation(conn: &Connection, task_id: &str) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT generation FROM task_event_logs WHERE task_id = ?1",
            params![task_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Up to `limit` event lines with `seq < before` (all when `None`), newest first, each with
/// its seq; plus whether older lines remain.
pub fn events_page(
    conn: &Connection,
    task_id: &str,
    before: Option<i64>,
    limit: i64,
) -> Result<(Vec<(i64, Value)>, bool), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT seq, line_json FROM task_events
         WHERE task_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
    )?;
    let rows: Vec<(i64, String)> = stmt
        .query_map(
            params![task_id, before.unwrap_or(i64::MAX), limit + 1],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .collect::<Result<_, _>>()?;
    let more = rows.len() as i64 > limit;
    let mut out = Vec::with_capacity(rows.len());
    for (seq, line) in rows.into_iter().take(limit as usize) {
        out.push((seq, serde_json::from_str(&line)?));
    }
    Ok((out, more))
}

/// Replace a task's event log (`None` = store the current lines again), bumping its
/// generation. Returns the new generation.
pub fn replace_log(
    tx: &Transaction<'_>,
    task_id: &str,
    lines: Option<Vec<Value>>,
) -> Result<i64, StoreError> {
    let current = tx
        .query_row(
            "SELECT generation FROM task_event_logs WHERE task_id = ?1",
            params![task_id],
            |r| r.get::<_, i64>(0),
        )
        .optional()?
        .unwrap_or(0);
    let lines = match lines {
        Some(l) => l,
        None => {
            let mut stmt = tx
                .prepare("SELECT line_json FROM task_events WHERE task_id = ?1 ORDER BY seq ASC")?;
            let texts: Vec<String> = stmt
                .query_map(params![task_id], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            texts
                .iter()
                .map(|t| serde_json::from_str(t))
                .collect::<Result<_, _>>()?
        }
    };
    store_log(tx, task_id, current + 1, &lines)?;
    Ok(current + 1)
}
