//! Keeper chat: per-keeper message history (§4.5) and chat operations (§4.3, §4.4).

use super::{Migration, SEED_EPOCH, StoreError, seed_rng};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Map, Value, json};

pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "chat messages and operations",
        sql: "CREATE TABLE chat_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        keeper TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        ts REAL NOT NULL,
        kind TEXT,
        turn_ref TEXT,
        tool_call_id TEXT,
        tool_call_name TEXT
    );
    CREATE INDEX chat_messages_by_keeper_ts ON chat_messages (keeper, ts);
    CREATE TABLE chat_operations (
        operation_id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        created_at REAL NOT NULL,
        state TEXT NOT NULL,
        execution_digest TEXT NOT NULL,
        source TEXT NOT NULL,
        input_json TEXT NOT NULL,
        started_at REAL,
        completed_at REAL,
        outcome_ref TEXT,
        failure_kind TEXT,
        failure_detail TEXT
    );",
    },
    Migration {
        version: 2,
        name: "newer chat store fields and autonomous rows",
        sql: "ALTER TABLE chat_messages ADD COLUMN extra TEXT;
        ALTER TABLE chat_messages ADD COLUMN autonomous INTEGER NOT NULL DEFAULT 0;",
    },
];

/// The keeper with the long history (several pages, tool rows, report lines).
pub const LONG_CHAT_KEEPER: &str = "rondo";

/// A final whose hidden report line is well formed (coop-report.md control case).
pub const FINAL_WITH_HIDDEN_REPORT: &str = "아빠, 로스터 디코더 작업 끝냈어. `src/protocol/keepers.rs`에 반영했고 테스트도 전부 통과했어.\n아빠는 PR만 확인해 주면 돼.\n\n[coop-report]: <{\"coop_reports\":[{\"binding_id\":\"b-1\",\"outcome\":\"done\",\"body\":\"Roster decoder refuses rows with an unknown status; other rows kept. Tests green.\",\"evidence\":[],\"for_dad\":\"디코더 작업 끝! PR 확인만 부탁해.\"}]}>";

/// A final whose report line breaks (F1: an angle bracket inside the JSON), so it renders.
pub const FINAL_WITH_BROKEN_REPORT: &str = "아빠, 훅 설정 고쳤어. 이제 저장소마다 자동으로 돌아가.\n\n[coop-report]: <{\"coop_reports\":[{\"binding_id\":\"b-2\",\"outcome\":\"done\",\"body\":\"Hook covers ~/CWK/<repo> for every checkout.\",\"evidence\":[],\"for_dad\":\"훅 설정 완료, 따로 할 일 없어.\"}]}>";

const QUESTIONS: &[&str] = &[
    "status?",
    "오늘 할 일 정리해 줘",
    "task-1013 어디까지 됐어?",
    "Can you check the CI failure on main?",
    "빌드 서버 디스크 상태 봐 줘 🙏",
    "Summarise yesterday's board posts",
    "goal-3 검증 상황은?",
    "Why is juno in error?",
    "릴리스 노트 초안 부탁해",
    "Run the decoder tests again please",
];

/// Demo tool calls: name and arguments (a history tool row holds no result).
const TOOLS: &[(&str, &str)] = &[
    ("masc_task_list", "{\"status\":\"in_progress\"}"),
    ("read_file", "{\"path\":\"src/protocol/keepers.rs\"}"),
    ("bash", "{\"cmd\":\"cargo test --lib protocol\"}"),
    (
        "masc_board_post",
        "{\"title\":\"Nightly verification\",\"hearth\":\"verification\"}",
    ),
];

const ANSWERS: &[&str] = &[
    "지금 진행 중인 작업은 7개예요. task-1013(디코더)이 제일 급하고, 나머지는 리뷰 대기 중이에요.",
    "**Summary**\n\n- CI is green again after the rebase\n- 2 flaky tests quarantined\n- Next: fix `sse_reconnect` for real",
    "디스크 여유 공간 41% 남았어요 💾 로그 로테이션은 ops-bot이 매일 새벽에 돌리고 있어요.",
    "Done ✅ — posted the nightly verification summary to the board (post-88).",
    "juno는 meta.json을 읽지 못해서 멈춰 있어요. 백업에서 복구한 뒤 재시작하면 됩니다.",
    "```rust\nlet rows = decode_roster(&body)?;\n```\n\n테스트 41개 전부 통과했어요 🎉",
];

struct Writer<'a, 'b> {
    tx: &'a Transaction<'b>,
    keeper: &'a str,
    n: u32,
    ts: f64,
}

impl Writer<'_, '_> {
    fn push(
        &mut self,
        role: &str,
        content: &str,
        turn_ref: Option<&str>,
        tool: Option<(&str, &str)>,
        kind: Option<&str>,
    ) -> Result<(), StoreError> {
        self.n += 1;
        insert_message(
            self.tx,
            &NewMessage {
                id: format!("m-{}-{:04}", self.keeper, self.n),
                keeper: self.keeper.to_string(),
                role: role.to_string(),
                content: content.to_string(),
                ts: self.ts,
                kind: kind.map(str::to_string),
                turn_ref: turn_ref.map(str::to_string),
                tool_call_id: tool.map(|t| t.0.to_string()),
                tool_call_name: tool.map(|t| t.1.to_string()),
                extra: None,
            },
        )
    }
}

/// The long seeded chats of every Keeper (the newer store's rows are `chat_newer`'s, seeded
/// after these in the same family).
pub(super) fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let mut rng = seed_rng("chat");
    let plan: &[(&str, usize)] = &[
        (LONG_CHAT_KEEPER, 40),
        ("sangsu", 6),
        ("하늘", 5),
        ("mira", 3),
        ("ops-bot", 4),
        ("scout", 2),
    ];
    for (keeper, turns) in plan {
        let mut w = Writer {
            tx,
            keeper,
            n: 0,
            ts: (SEED_EPOCH - 7 * 86_400) as f64 + 0.25,
        };
        for turn in 0..*turns {
            let turn_ref = format!("trace-{keeper}#{}", turn + 1);
            w.ts += f64::from(rng.gen_range(300..5_000));
            w.push("user", QUESTIONS[turn % QUESTIONS.len()], None, None, None)?;
            let tools = if *keeper == LONG_CHAT_KEEPER {
                3
            } else {
                turn % 2
            };
            for k in 0..tools {
                let (name, args) = TOOLS[(turn + k) % TOOLS.len()];
                let call_id = format!("call-{keeper}-{}-{k}", turn + 1);
                w.ts += f64::from(rng.gen_range(2..40)) + 0.125;
                // As MASC persists a tool row: the call's accumulated arguments, not its result
                // (keeper_chat_store.ml).
                w.push("tool", args, Some(&turn_ref), Some((&call_id, name)), None)?;
            }
            w.ts += f64::from(rng.gen_range(5..120)) + 0.5;
            let answer = if *keeper == LONG_CHAT_KEEPER && turn == 12 {
                FINAL_WITH_HIDDEN_REPORT.to_string()
            } else if *keeper == LONG_CHAT_KEEPER && turn == 27 {
                FINAL_WITH_BROKEN_REPORT.to_string()
            } else {
                ANSWERS[(turn * 5 + keeper.len()) % ANSWERS.len()].to_string()
            };
            if *keeper == "scout" && turn == 1 {
                w.push(
                    "assistant",
                    "provider connection reset before the reply was delivered",
                    Some(&turn_ref),
                    None,
                    Some("transport_failure"),
                )?;
            } else {
                w.push("assistant", &answer, Some(&turn_ref), None, None)?;
            }
        }
    }
    Ok(())
}

/// A history row to insert.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub id: String,
    pub keeper: String,
    pub role: String,
    pub content: String,
    pub ts: f64,
    pub kind: Option<String>,
    pub turn_ref: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_call_name: Option<String>,
    /// The newer store's fields of the row (§15.9: delivery pair, `execution_id`,
    /// `approval_lifecycle`, speaker, surface, autonomous marker and blocks), merged into the
    /// row object as written; `None` for a row with only the §4.5 fields.
    pub extra: Option<Value>,
}

pub fn insert_message(tx: &Connection, m: &NewMessage) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO chat_messages (id, keeper, role, content, ts, kind, turn_ref, tool_call_id,
            tool_call_name, extra, autonomous) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            m.id,
            m.keeper,
            m.role,
            m.content,
            m.ts,
            m.kind,
            m.turn_ref,
            m.tool_call_id,
            m.tool_call_name,
            m.extra.as_ref().map(Value::to_string),
            m.extra
                .as_ref()
                .is_some_and(|e| e.get("autonomous_turn").is_some())
        ],
    )?;
    Ok(())
}

/// The delivery pair of a row this server wrote for a chat send (§15.9; MASC's append-once
/// paths: the send's `request_id` is the operation key).
pub fn delivery(request_id: &str, slot: Value) -> Value {
    json!({
        "delivery_key": {"kind": "operation", "operation_id": request_id},
        "transcript_slot": slot,
    })
}

/// A `ts` for a new row of this keeper: now, but never at or before the newest stored row,
/// so appended rows always sort last and page boundaries stay strict.
pub fn next_ts(conn: &Connection, keeper: &str, now: f64) -> Result<f64, StoreError> {
    let last: Option<f64> = conn.query_row(
        "SELECT MAX(ts) FROM chat_messages WHERE keeper = ?1",
        params![keeper],
        |r| r.get(0),
    )?;
    Ok(match last {
        Some(l) if l >= now => l + 0.001,
        _ => now,
    })
}

/// One page of history: direct rows with `ts < before` (newest window when `None`), oldest
/// first, plus whether older rows remain. Autonomous rows are not on pages (§15.9).
pub fn history_page(
    conn: &Connection,
    keeper: &str,
    before: Option<f64>,
    limit: i64,
) -> Result<(Vec<Value>, bool), StoreError> {
    let mut rows = select_rows(
        conn,
        "WHERE keeper = ?1 AND ts < ?2 AND autonomous = 0 ORDER BY ts DESC, seq DESC LIMIT ?3",
        params![keeper, before.unwrap_or(f64::MAX), limit + 1],
    )?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    rows.reverse();
    Ok((rows, more))
}

/// The bare-array history (§15.9): the newest window of direct rows, then every autonomous
/// row appended (not merged by time, as MASC's route does).
pub fn history_array(
    conn: &Connection,
    keeper: &str,
    window: i64,
) -> Result<Vec<Value>, StoreError> {
    let (mut rows, _) = history_page(conn, keeper, None, window)?;
    rows.extend(select_rows(
        conn,
        "WHERE keeper = ?1 AND autonomous = 1 ORDER BY ts, seq",
        params![keeper],
    )?);
    Ok(rows)
}

fn select_rows(
    conn: &Connection,
    filter: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, role, content, ts, kind, turn_ref, tool_call_id, tool_call_name, extra
         FROM chat_messages {filter}"
    ))?;
    let rows = stmt
        .query_map(args, |r| {
            let mut obj = Map::new();
            obj.insert("id".into(), json!(r.get::<_, String>(0)?));
            obj.insert("role".into(), json!(r.get::<_, String>(1)?));
            obj.insert("content".into(), json!(r.get::<_, String>(2)?));
            obj.insert("ts".into(), json!(r.get::<_, f64>(3)?));
            for (i, key) in [
                (4, "kind"),
                (5, "turn_ref"),
                (6, "tool_call_id"),
                (7, "tool_call_name"),
            ] {
                if let Some(v) = r.get::<_, Option<String>>(i)? {
                    obj.insert(key.into(), json!(v));
                }
            }
            if let Some(Ok(Value::Object(extra))) = r
                .get::<_, Option<String>>(8)?
                .map(|e| serde_json::from_str::<Value>(&e))
            {
                obj.extend(extra);
            }
            Ok(Value::Object(obj))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// A stored chat operation (§4.4).
#[derive(Debug, Clone)]
pub struct Operation {
    pub operation_id: String,
    pub keeper: String,
    pub sequence: i64,
    pub created_at: f64,
    pub state: String,
    pub execution_digest: String,
    pub source: String,
    pub input: Value,
    pub started_at: Option<f64>,
    pub completed_at: Option<f64>,
    pub outcome_ref: Option<String>,
    pub failure_kind: Option<String>,
    pub failure_detail: Option<String>,
}

impl Operation {
    /// The closed §4.4 body: the common keys plus exactly the keys of its state.
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("schema".into(), json!("masc.keeper_chat_operation.v1"));
        obj.insert("operation_id".into(), json!(self.operation_id));
        obj.insert("sequence".into(), json!(self.sequence.to_string()));
        obj.insert("created_at".into(), json!(self.created_at));
        obj.insert("state".into(), json!(self.state));
        obj.insert("execution_digest".into(), json!(self.execution_digest));
        obj.insert("source".into(), json!(self.source));
        obj.insert("input".into(), self.input.clone());
        match self.state.as_str() {
            "Running" => {
                obj.insert("started_at".into(), json!(self.started_at));
            }
            "Succeeded" | "Failed" => {
                obj.insert("completed_at".into(), json!(self.completed_at));
                obj.insert("outcome_ref".into(), json!(self.outcome_ref));
                if self.state == "Failed" {
                    obj.insert("failure_kind".into(), json!(self.failure_kind));
                    obj.insert("failure_detail".into(), json!(self.failure_detail));
                }
            }
            "Cancelled" => {
                obj.insert("completed_at".into(), json!(self.completed_at));
            }
            _ => {}
        }
        Value::Object(obj)
    }
}

pub fn operation(conn: &Connection, id: &str) -> Result<Option<Operation>, StoreError> {
    let row = conn
        .query_row(
            "SELECT operation_id, keeper, sequence, created_at, state, execution_digest, source,
                    input_json, started_at, completed_at, outcome_ref, failure_kind, failure_detail
             FROM chat_operations WHERE operation_id = ?1",
            params![id],
            |r| {
                Ok((
                    Operation {
                        operation_id: r.get(0)?,
                        keeper: r.get(1)?,
                        sequence: r.get(2)?,
                        created_at: r.get(3)?,
                        state: r.get(4)?,
                        execution_digest: r.get(5)?,
                        source: r.get(6)?,
                        input: Value::Null,
                        started_at: r.get(8)?,
                        completed_at: r.get(9)?,
                        outcome_ref: r.get(10)?,
                        failure_kind: r.get(11)?,
                        failure_detail: r.get(12)?,
                    },
                    r.get::<_, String>(7)?,
                ))
            },
        )
        .optional()?;
    match row {
        Some((mut op, input)) => {
            op.input = serde_json::from_str(&input)?;
            Ok(Some(op))
        }
        None => Ok(None),
    }
}

/// Insert a new Queued operation; `false` when the id already exists (nothing written).
pub fn insert_operation(
    tx: &Transaction<'_>,
    id: &str,
    keeper: &str,
    created_at: f64,
    digest: &str,
    input: &Value,
) -> Result<bool, StoreError> {
    let sequence: i64 =
        tx.query_row("SELECT COUNT(*) + 1 FROM chat_operations", [], |r| r.get(0))?;
    let n = tx.execute(
        "INSERT OR IGNORE INTO chat_operations (operation_id, keeper, sequence, created_at, state,
            execution_digest, source, input_json)
         VALUES (?1, ?2, ?3, ?4, 'Queued', ?5, 'http_stream', ?6)",
        params![id, keeper, sequence, created_at, digest, input.to_string()],
    )?;
    Ok(n == 1)
}

pub fn mark_running(tx: &Transaction<'_>, id: &str, at: f64) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE chat_operations SET state = 'Running', started_at = ?2 WHERE operation_id = ?1",
        params![id, at],
    )?;
    Ok(())
}

pub fn mark_succeeded(
    tx: &Transaction<'_>,
    id: &str,
    at: f64,
    outcome_ref: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE chat_operations SET state = 'Succeeded', completed_at = ?2, outcome_ref = ?3
         WHERE operation_id = ?1",
        params![id, at, outcome_ref],
    )?;
    Ok(())
}

/// A turn that left no outcome (MASC: `Failed` with `outcome_ref = None`, written `null`).
pub fn mark_failed(
    tx: &Transaction<'_>,
    id: &str,
    at: f64,
    failure_kind: &str,
    failure_detail: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE chat_operations SET state = 'Failed', completed_at = ?2, outcome_ref = NULL,
         failure_kind = ?3, failure_detail = ?4 WHERE operation_id = ?1",
        params![id, at, failure_kind, failure_detail],
    )?;
    Ok(())
}

/// Number of assistant turns stored for a keeper (the next turn ref).
pub fn turn_count(conn: &Connection, keeper: &str) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM chat_messages WHERE keeper = ?1 AND role = 'assistant'",
        params![keeper],
        |r| r.get(0),
    )?)
}
