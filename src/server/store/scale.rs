//! A workspace at scale: thousands of Keepers, tens of thousands of Tasks and
//! history events and a 100k-entry chat, added on top of the ordinary seed so every figure in
//! docs/performance.md can be reproduced with one command (`masc-tui demo --scale`, `masc-tui
//! serve --scale`). Deterministic: two fresh data directories hold the same rows. Applied once
//! per data directory (the `seeds` marker `scale`).

use super::{SEED_EPOCH, StoreError, rfc3339, seed_rng};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::json;

/// How much to add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    /// Keepers `k-00001` … (the roster route still answers at most 200 of them, §4.1).
    pub keepers: usize,
    /// Tasks `task-s00001` …, each with a short history.
    pub tasks: usize,
    /// History events of [`SCALE_HISTORY_TASK`].
    pub history_events: usize,
    /// Chat messages of [`SCALE_CHAT_KEEPER`].
    pub chat_messages: usize,
}

impl Scale {
    /// The scale of docs/performance.md's figures: 5,000 Keepers, 20,000 Tasks (with ~60,000
    /// history events), one Task with 10,000 events and a 100,000-message chat.
    pub const STANDARD: Scale = Scale {
        keepers: 5_000,
        tasks: 20_000,
        history_events: 10_000,
        chat_messages: 100_000,
    };
}

/// The scaled Task with the long history.
pub const SCALE_HISTORY_TASK: &str = "task-s00001";
/// The scaled Keeper with the long chat.
pub const SCALE_CHAT_KEEPER: &str = "k-00001";

const MARKER: &str = "scale";

const STATUSES: &[&str] = &[
    "active",
    "busy",
    "listening",
    "inactive",
    "offline",
    "idle",
    "error",
];
const RUNTIMES: &[&str] = &[
    "anthropic.claude-opus-5",
    "anthropic.claude-sonnet-4",
    "openai.gpt-5",
    "local.qwen3-32b",
];
const TASK_STATUSES: &[&str] = &[
    "todo",
    "claimed",
    "in_progress",
    "awaiting_verification",
    "done",
    "cancelled",
];

/// Adds the rows of `scale` unless this data directory already has them.
pub fn apply(tx: &Transaction<'_>, scale: &Scale) -> Result<bool, StoreError> {
    let done: Option<String> = tx
        .query_row(
            "SELECT seeded_at FROM seeds WHERE family = ?1",
            params![MARKER],
            |r| r.get(0),
        )
        .optional()?;
    if done.is_some() {
        return Ok(false);
    }
    keepers(tx, scale.keepers)?;
    tasks(tx, scale.tasks, scale.history_events)?;
    chat(tx, scale.chat_messages)?;
    tx.execute(
        "INSERT INTO seeds (family, seeded_at) VALUES (?1, ?2)",
        params![MARKER, rfc3339(SEED_EPOCH)],
    )?;
    Ok(true)
}

fn keeper_name(i: usize) -> String {
    format!("k-{:05}", i + 1)
}

fn keepers(tx: &Transaction<'_>, n: usize) -> Result<(), StoreError> {
    let mut stmt = tx.prepare(
        "INSERT INTO keepers (name, sort_key, agent_name, status, keepalive_running,
            autoboot_enabled, proactive_enabled, runtime_id, meta_json, meta_error_json,
            health, paused, phase, activation_mode, created_at, updated_at, current_task,
            turn_lane, turn_started_at, turn_preview_json, census_detail, chat_control_token)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
            NULL, ?17, NULL, NULL, ?18)",
    )?;
    for i in 0..n {
        let name = keeper_name(i);
        let status = STATUSES[i % STATUSES.len()];
        let created = rfc3339(SEED_EPOCH - 86_400 * 90 + i as i64 * 60);
        let meta = json!({
            "name": name,
            "trace_id": format!("trace-{name}"),
        })
        .to_string();
        let busy = status == "busy";
        stmt.execute(params![
            name,
            1_000 + i as i64,
            name,
            status,
            matches!(status, "active" | "busy" | "listening" | "idle"),
            i % 2 == 0,
            i % 3 == 0,
            RUNTIMES[i % RUNTIMES.len()],
            meta,
            if status == "error" {
                "unhealthy"
            } else {
                "healthy"
            },
            i % 11 == 0,
            if status == "offline" {
                "stopped"
            } else {
                "running"
            },
            ["manual", "on_demand", "autonomous"][i % 3],
            created,
            created,
            busy.then(|| format!("task-s{:05}", i % 20_000 + 1)),
            busy.then(|| (SEED_EPOCH - 60 - (i as i64 % 600)) as f64),
            format!("control-{name}"),
        ])?;
    }
    Ok(())
}

fn tasks(tx: &Transaction<'_>, n: usize, long_history: usize) -> Result<(), StoreError> {
    let mut rng = seed_rng("tasks-scale");
    let mut task = tx.prepare(
        "INSERT INTO tasks (id, sort_key, title, status, priority, assignee, created_at,
            updated_at, completed_at, archived, body_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut link =
        tx.prepare("INSERT OR IGNORE INTO task_goal_links (task_id, goal_id) VALUES (?1, ?2)")?;
    for i in 0..n {
        let id = format!("task-s{:05}", i + 1);
        let status = if id == SCALE_HISTORY_TASK {
            "in_progress"
        } else {
            TASK_STATUSES[i % TASK_STATUSES.len()]
        };
        let assignee = keeper_name(i % 5_000);
        let created = SEED_EPOCH - 86_400 * 60 + i as i64 * 120;
        let title = format!("Scaled task {} — 규모 시험 #{i}", i + 1);
        let priority = 1 + (i as i64 * 3) % 5;
        // The state's times fall within the Task's first two hours (minutes after creation).
        let t = |offset_min: i64| rfc3339(created + offset_min * 60);
        let completed = (status == "done").then(|| t(30));
        let shown = (status != "todo" && status != "cancelled").then_some(assignee.as_str());
        let mut body = json!({
            "id": id,
            "title": title,
            "description": format!("{title}.\n\nGenerated by --scale."),
            "priority": priority,
            "files": [],
            "created_at": rfc3339(created),
            "created_by": "operator",
            "status": status,
        });
        if let Some(obj) = body.as_object_mut() {
            super::tasks::state_fields(obj, status, &assignee, &t, i);
        }
        task.execute(params![
            id,
            10_000 + i as i64,
            title,
            status,
            priority,
            shown,
            rfc3339(created),
            rfc3339(created + 7_200),
            completed,
            status == "done" && i % 2 == 0,
            body.to_string(),
        ])?;
        link.execute(params![id, format!("goal-{}", 1 + i % 8)])?;
        let events = if id == SCALE_HISTORY_TASK {
            long_history
        } else {
            2 + i % 3
        };
        let lines = super::tasks::seed_events(&id, status, &assignee, created, events, &mut rng);
        super::tasks::store_log(tx, &id, 1, &lines)?;
    }
    Ok(())
}

fn chat(tx: &Transaction<'_>, n: usize) -> Result<(), StoreError> {
    const QUESTIONS: &[&str] = &[
        "status?",
        "오늘 할 일 정리해 줘",
        "Can you check the CI failure on main?",
        "빌드 서버 디스크 상태 봐 줘 🙏",
    ];
    const ANSWERS: &[&str] = &[
        "지금 진행 중인 작업은 7개예요. task-1013(디코더)이 제일 급하고, 나머지는 리뷰 대기 중이에요.",
        "**Summary**\n\n- CI is green again after the rebase\n- 2 flaky tests quarantined\n- Next: fix `sse_reconnect` for real",
        "디스크 여유 공간 41% 남았어요 💾 로그 로테이션은 ops-bot이 매일 새벽에 돌리고 있어요.",
    ];
    let mut stmt = tx.prepare(
        "INSERT INTO chat_messages (id, keeper, role, content, ts, kind, turn_ref, tool_call_id,
            tool_call_name) VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7, ?8)",
    )?;
    let start = (SEED_EPOCH - 200 * 86_400) as f64;
    for i in 0..n {
        let turn = i / 3;
        let turn_ref = format!("trace-{SCALE_CHAT_KEEPER}#{}", turn + 1);
        let ts = start + i as f64 * 7.0;
        let id = format!("s-{SCALE_CHAT_KEEPER}-{:06}", i + 1);
        match i % 3 {
            0 => stmt.execute(params![
                id,
                SCALE_CHAT_KEEPER,
                "user",
                QUESTIONS[turn % QUESTIONS.len()],
                ts,
                None::<String>,
                None::<String>,
                None::<String>,
            ])?,
            1 => stmt.execute(params![
                id,
                SCALE_CHAT_KEEPER,
                "tool",
                r#"{"path":"src/main.rs"}"#,
                ts,
                Some(&turn_ref),
                Some(format!("call-scale-{turn}")),
                Some("read_file"),
            ])?,
            _ => stmt.execute(params![
                id,
                SCALE_CHAT_KEEPER,
                "assistant",
                format!("#{turn} {}", ANSWERS[turn % ANSWERS.len()]),
                ts,
                Some(&turn_ref),
                None::<String>,
                None::<String>,
            ])?,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::Store;

    /// `--scale`: the rows are added once per data directory, on top of the seed,
    /// and the long history and the long chat belong to the named Task and Keeper.
    #[test]
    fn issue15_scale_adds_its_rows_once() {
        let store = Store::open_in_memory().unwrap();
        let small = Scale {
            keepers: 300,
            tasks: 40,
            history_events: 500,
            chat_messages: 90,
        };
        let seeded_revision = store.revision();
        assert!(store.apply_scale(&small).unwrap());
        assert!(
            store.revision() > seeded_revision,
            "cached answers are void"
        );
        assert!(
            !store.apply_scale(&small).unwrap(),
            "once per data directory"
        );
        let conn = store.conn.lock().unwrap();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        assert_eq!(
            count("SELECT COUNT(*) FROM keepers WHERE name LIKE 'k-%'"),
            300
        );
        assert_eq!(
            count("SELECT COUNT(*) FROM tasks WHERE id LIKE 'task-s%'"),
            40
        );
        assert_eq!(
            count(&format!(
                "SELECT COUNT(*) FROM chat_messages WHERE keeper = '{SCALE_CHAT_KEEPER}'"
            )),
            90
        );
        let roster = crate::server::store::keepers::roster(&conn).unwrap();
        assert!(roster.len() > 300, "the seed's Keepers stay");
        drop(conn);
    }

    /// Every scaled Task body decodes as the state it claims (§5): each of the six statuses
    /// carries its assignee and times, so the detail is never "decode_missing_field".
    #[test]
    fn scaled_task_bodies_decode_in_every_status() {
        let store = Store::open_in_memory().unwrap();
        let small = Scale {
            keepers: 10,
            tasks: 24,
            history_events: 10,
            chat_messages: 1,
        };
        assert!(store.apply_scale(&small).unwrap());
        let conn = store.conn.lock().unwrap();
        let mut statuses = std::collections::BTreeSet::new();
        for i in 1..=small.tasks {
            let id = format!("task-s{i:05}");
            let body = crate::server::store::tasks::task(&conn, &id)
                .unwrap()
                .unwrap_or_else(|| panic!("{id} stored"));
            let task = crate::protocol::tasks::Task::from_value(&body, ".task")
                .unwrap_or_else(|e| panic!("{id}: {e:?}"));
            assert_eq!(task.id, id);
            statuses.insert(body["status"].as_str().unwrap_or_default().to_string());
        }
        assert_eq!(statuses.len(), TASK_STATUSES.len(), "{statuses:?}");
    }
}
