//! Asks: keeper questions to the operator (§10.1), first-write-wins answers (§10.2), what
//! became of an answer (§10.3 follow-up sources) and retained turn transcripts (§10.4).

use super::{Family, Migration, SEED_EPOCH, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

mod follow_up;

pub use follow_up::{FollowUp, follow_up, transcript};

pub const FAMILY: Family = Family {
    name: "asks",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "asks, questions, follow-up sources, transcripts",
    sql: "CREATE TABLE asks (
        ask_id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        asked_at REAL NOT NULL,
        context TEXT NOT NULL,
        state TEXT NOT NULL,
        answered_at REAL,
        answered_question_ids TEXT,
        withdrawn_reason TEXT,
        withdrawn_at REAL,
        answer_actor TEXT,
        answers_json TEXT,
        task_id TEXT,
        task_status TEXT
    );
    CREATE TABLE ask_questions (
        ask_id TEXT NOT NULL,
        ord INTEGER NOT NULL,
        question_id TEXT NOT NULL,
        header TEXT NOT NULL,
        prompt TEXT NOT NULL,
        mode TEXT NOT NULL,
        free_text_allowed INTEGER NOT NULL,
        free_text_hint TEXT,
        choices_json TEXT NOT NULL,
        PRIMARY KEY (ask_id, question_id)
    );
    CREATE TABLE ask_wake_turns (
        ask_id TEXT NOT NULL,
        turn_ref TEXT NOT NULL,
        wake_reason TEXT NOT NULL,
        started_at REAL NOT NULL
    );
    CREATE TABLE ask_tool_results (
        ask_id TEXT NOT NULL,
        bucket TEXT NOT NULL,
        tool TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE TABLE turn_transcripts (
        keeper TEXT NOT NULL,
        turn_ref TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        ts REAL NOT NULL,
        PRIMARY KEY (keeper, turn_ref, seq)
    );",
}];

fn choices(list: &[(&str, &str, Option<&str>)]) -> String {
    let rows: Vec<Value> = list
        .iter()
        .map(|(id, label, desc)| {
            let mut v = json!({"choice_id": id, "label": label});
            if let (Some(d), Some(obj)) = (desc, v.as_object_mut()) {
                obj.insert("description".into(), json!(d));
            }
            v
        })
        .collect();
    Value::Array(rows).to_string()
}

/// A 3,000-character option label (demo data: a long label wraps in whole rows and scrolls
/// in the answer reader; Hangul and emoji take two cells).
pub fn long_option_label() -> String {
    const PART: &str = "hybrid: two columns on wide terminals, tabs below 100 cells, \
        채널 트리는 서버별로 묶고 🔌 연결 상태를 앞에 둡니다; bindings stay editable in place, \
        names resolve page by page and never block the status list. ";
    PART.chars().cycle().take(3_000).collect()
}

type SeedQuestion<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    Option<Option<&'a str>>,
    String,
);

/// (ask id, keeper, asked at, context, state, task id, task status).
type SeedAsk = (
    &'static str,
    &'static str,
    f64,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
);

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let t = SEED_EPOCH as f64;
    let asks: &[SeedAsk] = &[
        (
            "ask-rondo-0412",
            "rondo",
            t - 1_800.0,
            "디코더 픽스처 재녹화 범위를 정해야 합니다 (fixture re-record scope).",
            "open",
            Some("task-1013"),
            Some("in_progress"),
        ),
        (
            "ask-sky-0415",
            "하늘",
            t - 600.0,
            "Connectors screen review: which layout ships?",
            "open",
            None,
            None,
        ),
        (
            "ask-sangsu-0398",
            "sangsu",
            t - 9_000.0,
            "Who takes the intake backlog this week?",
            "answered",
            Some("task-1021"),
            Some("claimed"),
        ),
        (
            "ask-ops-0377",
            "ops-bot",
            t - 20_000.0,
            "build-02 disk at 93%: prune caches now?",
            "withdrawn",
            None,
            None,
        ),
    ];
    for (id, keeper, at, context, state, task, task_status) in asks {
        let answered = (*state == "answered").then_some(at + 1_200.0);
        let withdrawn = (*state == "withdrawn").then_some(at + 2_400.0);
        tx.execute(
            "INSERT INTO asks (ask_id, keeper, asked_at, context, state, answered_at,
                answered_question_ids, withdrawn_reason, withdrawn_at, answer_actor, answers_json,
                task_id, task_status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                id,
                keeper,
                at,
                context,
                state,
                answered,
                answered.map(|_| json!(["q-1"]).to_string()),
                withdrawn.map(|_| "disk freed by log rotation before anyone answered"),
                withdrawn,
                answered.map(|_| "masc-tui"),
                answered.map(|_| json!([{"question_id": "q-1", "response": {"kind": "chose", "choice_ids": ["c-sangsu"]}}]).to_string()),
                task,
                task_status,
            ],
        )?;
    }
    let questions: Vec<(&str, SeedQuestion<'_>)> = vec![
        (
            "ask-rondo-0412",
            (
                "q-1",
                "Scope",
                "Re-record every fixture, or only the failing ones?",
                "single",
                None,
                choices(&[
                    ("c-all", "all fixtures", Some("slow: about 40 minutes")),
                    ("c-failing", "failing only", None),
                ]),
            ),
        ),
        (
            "ask-rondo-0412",
            (
                "q-2",
                "대상",
                "Which surfaces should the new fixtures cover?",
                "multi",
                Some(Some("다른 화면이 있으면 적어 주세요")),
                choices(&[
                    ("c-board", "board", None),
                    ("c-tasks", "tasks", None),
                    ("c-runtime", "runtime", None),
                ]),
            ),
        ),
        (
            "ask-sky-0415",
            (
                "q-1",
                "Layout",
                "Which connectors layout ships?",
                "single",
                Some(None),
                choices(&[
                    ("route-1", "two columns", None),
                    ("route-2", "tabs", None),
                    ("route-3", "single list", None),
                    ("route-4", "채널 트리", Some("grouped by server")),
                    (
                        "route-5",
                        &long_option_label(),
                        Some("the whole plan, as the Keeper wrote it"),
                    ),
                ]),
            ),
        ),
        (
            "ask-sangsu-0398",
            (
                "q-1",
                "Owner",
                "Who owns intake this week?",
                "single",
                None,
                choices(&[("c-sangsu", "sangsu", None), ("c-mira", "mira", None)]),
            ),
        ),
        (
            "ask-ops-0377",
            (
                "q-1",
                "Prune",
                "Prune the build caches now?",
                "single",
                None,
                choices(&[("c-yes", "prune now", None), ("c-no", "wait", None)]),
            ),
        ),
    ];
    for (ord, (ask, (qid, header, prompt, mode, free, choices))) in
        questions.into_iter().enumerate()
    {
        tx.execute(
            "INSERT INTO ask_questions (ask_id, ord, question_id, header, prompt, mode,
                free_text_allowed, free_text_hint, choices_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                ask,
                ord as i64,
                qid,
                header,
                prompt,
                mode,
                free.is_some(),
                free.flatten(),
                choices
            ],
        )?;
    }
    tx.execute(
        "INSERT INTO ask_wake_turns VALUES ('ask-sangsu-0398', 'trace-sangsu#17', 'ask_answered', ?1)",
        params![t - 9_000.0 + 1_201.5],
    )?;
    for (bucket, tool, dt) in [
        ("success", "masc_claim_task", 1_230.0),
        ("success", "masc_board_post", 1_260.0),
        ("held", "masc_broadcast", 1_300.0),
    ] {
        tx.execute(
            "INSERT INTO ask_tool_results VALUES ('ask-sangsu-0398', ?1, ?2, ?3)",
            params![bucket, tool, t - 9_000.0 + dt],
        )?;
    }
    let transcripts: &[(&str, &str, &str, &str, &str, f64)] = &[
        (
            "rondo",
            "trace-rondo#41",
            "utterance",
            "user",
            "픽스처 상태 알려줘",
            t - 3_000.0,
        ),
        (
            "rondo",
            "trace-rondo#41",
            "utterance",
            "assistant",
            "142 decode, 31 reject; all as the manifest expects.",
            t - 2_990.0,
        ),
        (
            "rondo",
            "trace-rondo#42",
            "utterance",
            "user",
            "Re-run the chat stream fixtures.",
            t - 2_000.0,
        ),
        (
            "rondo",
            "trace-rondo#42",
            "request_failure",
            "assistant",
            "provider rate limited (429); retry after 15m",
            t - 1_995.0,
        ),
        (
            "sangsu",
            "trace-sangsu#17",
            "utterance",
            "user",
            "[ask answer] Owner: sangsu",
            t - 9_000.0 + 1_201.5,
        ),
        (
            "sangsu",
            "trace-sangsu#17",
            "utterance",
            "assistant",
            "접수 백로그는 제가 맡겠습니다. 3건 분배 완료.",
            t - 9_000.0 + 1_290.0,
        ),
        (
            "하늘",
            "trace-하늘#5",
            "utterance",
            "assistant",
            "커넥터 화면 시안 두 개를 보드에 올렸어요.",
            t - 700.0,
        ),
    ];
    for (i, (keeper, turn, kind, role, content, ts)) in transcripts.iter().enumerate() {
        tx.execute(
            "INSERT INTO turn_transcripts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![keeper, turn, i as i64, kind, role, content, ts],
        )?;
    }
    Ok(())
}

struct AskRow {
    ask_id: String,
    keeper: String,
    asked_at: f64,
    context: String,
    state: String,
    answered_at: Option<f64>,
    answered_ids: Option<String>,
    withdrawn_reason: Option<String>,
    withdrawn_at: Option<f64>,
    task_id: Option<String>,
    task_status: Option<String>,
}

const ASK_SELECT: &str = "SELECT ask_id, keeper, asked_at, context, state, answered_at,
    answered_question_ids, withdrawn_reason, withdrawn_at, task_id, task_status FROM asks";

fn ask_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<AskRow> {
    Ok(AskRow {
        ask_id: r.get(0)?,
        keeper: r.get(1)?,
        asked_at: r.get(2)?,
        context: r.get(3)?,
        state: r.get(4)?,
        answered_at: r.get(5)?,
        answered_ids: r.get(6)?,
        withdrawn_reason: r.get(7)?,
        withdrawn_at: r.get(8)?,
        task_id: r.get(9)?,
        task_status: r.get(10)?,
    })
}

/// A question as the answer check needs it.
pub struct Question {
    pub question_id: String,
    pub mode: String,
    pub free_text_allowed: bool,
    pub choice_ids: Vec<String>,
    pub json: Value,
}

pub fn questions(conn: &Connection, ask_id: &str) -> Result<Vec<Question>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT question_id, header, prompt, mode, free_text_allowed, free_text_hint, choices_json
         FROM ask_questions WHERE ask_id = ?1 ORDER BY ord",
    )?;
    let rows = stmt.query_map(params![ask_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, bool>(4)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (qid, header, prompt, mode, allowed, hint, choices) = row?;
        let choices: Value = serde_json::from_str(&choices)?;
        let choice_ids = choices
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|c| c["choice_id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let free = if allowed {
            json!({"allowed": true, "hint": hint})
        } else {
            json!({"allowed": false})
        };
        out.push(Question {
            json: json!({"question_id": qid, "header": header, "prompt": prompt, "mode": mode,
                         "free_text": free, "choices": choices}),
            question_id: qid,
            mode,
            free_text_allowed: allowed,
            choice_ids,
        });
    }
    Ok(out)
}

fn ask_json(conn: &Connection, a: &AskRow) -> Result<Value, StoreError> {
    let resolution = match a.state.as_str() {
        "answered" => json!({"state": "answered", "answered_at": a.answered_at,
            "answered_question_ids": match &a.answered_ids {
                Some(t) => serde_json::from_str(t)?, None => json!([]) }}),
        "withdrawn" => json!({"state": "withdrawn", "reason": a.withdrawn_reason,
                              "withdrawn_at": a.withdrawn_at}),
        _ => json!({"state": "open"}),
    };
    let qs: Vec<Value> = questions(conn, &a.ask_id)?
        .into_iter()
        .map(|q| q.json)
        .collect();
    Ok(json!({
        "keeper": a.keeper, "ask_id": a.ask_id, "asked_at": a.asked_at, "context": a.context,
        "resolution": resolution, "questions": qs,
    }))
}

/// §10.1 body; `keeper` narrows the scope.
pub fn list(
    conn: &Connection,
    keeper: Option<&str>,
    include_resolved: bool,
) -> Result<Value, StoreError> {
    let mut stmt = conn.prepare(&format!("{ASK_SELECT} ORDER BY asked_at DESC, ask_id"))?;
    let rows: Vec<AskRow> = stmt.query_map([], ask_of)?.collect::<Result<_, _>>()?;
    let in_scope: Vec<&AskRow> = rows
        .iter()
        .filter(|a| keeper.is_none_or(|k| a.keeper == k))
        .collect();
    let open = in_scope.iter().filter(|a| a.state == "open").count();
    let mut asks = Vec::new();
    for a in in_scope
        .iter()
        .filter(|a| include_resolved || a.state == "open")
    {
        asks.push(ask_json(conn, a)?);
    }
    Ok(json!({
        "scope": if keeper.is_some() { "keeper" } else { "fleet" },
        "keeper": keeper,
        "open_count": open,
        "asks": asks,
    }))
}

/// (keeper, state, task_id) of an ask.
pub fn ask_state(conn: &Connection, ask_id: &str) -> Result<Option<(String, String)>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT keeper, state FROM asks WHERE ask_id = ?1",
            params![ask_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Record an answer (the caller checked it is open, in the same transaction), wake the
/// keeper and retain the wake turn.
pub fn record_answer(
    tx: &Transaction<'_>,
    ask_id: &str,
    keeper: &str,
    actor: &str,
    answers: &Value,
    answered_ids: &[String],
    now: f64,
) -> Result<usize, StoreError> {
    tx.execute(
        "UPDATE asks SET state = 'answered', answered_at = ?2, answered_question_ids = ?3,
            answer_actor = ?4, answers_json = ?5 WHERE ask_id = ?1 AND state = 'open'",
        params![
            ask_id,
            now,
            json!(answered_ids).to_string(),
            actor,
            answers.to_string()
        ],
    )?;
    let n: i64 = tx.query_row(
        "SELECT COUNT(DISTINCT turn_ref) FROM turn_transcripts WHERE keeper = ?1",
        params![keeper],
        |r| r.get(0),
    )?;
    let turn_ref = format!("trace-{keeper}#{}", 100 + n);
    tx.execute(
        "INSERT INTO ask_wake_turns VALUES (?1, ?2, 'ask_answered', ?3)",
        params![ask_id, turn_ref, now + 0.5],
    )?;
    tx.execute(
        "INSERT INTO turn_transcripts VALUES (?1, ?2, 0, 'utterance', 'user', ?3, ?4)",
        params![
            keeper,
            turn_ref,
            format!("[ask answer] {ask_id} by {actor}"),
            now + 0.5
        ],
    )?;
    let open: i64 = tx.query_row("SELECT COUNT(*) FROM asks WHERE state = 'open'", [], |r| {
        r.get(0)
    })?;
    Ok(open as usize)
}
