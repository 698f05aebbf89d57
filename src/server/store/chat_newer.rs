//! Seed rows of the newer chat store (protocol-15 §15.9, §15.13): Keeper `ops-bot`'s transcript
//! holds every row kind the newer store writes — Gate steps (`system` rows with
//! `approval_lifecycle`) of an approved-and-replayed call and of a rejected one, a `system` row
//! without a lifecycle (the neutral lane), a row of a role no release writes, delivery pairs
//! (paired and one unpaired), a failed request keyed to its request id, tool rows with their
//! `execution_id`, a user row from another Keeper — and two autonomous turns (bare-array route
//! only: one with a trace block, one with `content: null` and no blocks). Older releases
//! (`--compat v0.24.0|aug`) serve these rows in their own shapes (`crate::server::compat`).

use super::chat::{NewMessage, delivery, insert_message};
use super::{SEED_EPOCH, StoreError};
use rusqlite::Transaction;
use serde_json::{Value, json};

/// The Keeper whose transcript holds the newer rows.
pub const NEWER_CHAT_KEEPER: &str = "ops-bot";

/// The request id of the seeded send whose request failed (its row carries the operation key).
pub const FAILED_REQUEST_ID: &str = "tui-seed-ops-failed";

fn slot(kind: &str) -> Value {
    json!({"kind": kind})
}

fn merged(parts: &[Value]) -> Value {
    let mut out = serde_json::Map::new();
    for p in parts {
        if let Value::Object(o) = p {
            out.extend(o.clone());
        }
    }
    Value::Object(out)
}

fn gate(approval_id: &str, phase: &str, slot_kind: &str, tool: &str, summary: &str) -> Value {
    json!({
        "delivery_key": {"kind": "approval_lifecycle", "approval_id": approval_id},
        "transcript_slot": {"kind": slot_kind},
        "approval_lifecycle": {
            "approval_id": approval_id,
            "phase": phase,
            "tool_name": tool,
            "call_summary": summary,
        },
    })
}

/// (role, kind, content, turn_ref, (tool_call_id, tool_call_name), newer fields).
type SeedRow<'a> = (
    &'a str,
    &'a str,
    String,
    Option<&'a str>,
    Option<(&'a str, &'a str)>,
    Value,
);

pub(super) fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let keeper = NEWER_CHAT_KEEPER;
    let turn = format!("trace-{keeper}#7");
    let ok_request = "tui-seed-ops-ok";
    let rows: Vec<SeedRow> = vec![
        (
            "user",
            "",
            "오래된 로그 압축 파일 정리해 줘".into(),
            None,
            None,
            merged(&[
                delivery(ok_request, slot("accepted_user")),
                json!({"speaker_authority": "owner"}),
            ]),
        ),
        (
            "tool",
            "",
            "{\"cmd\":\"rm /var/log/old/*.gz\"}".into(),
            Some(&turn),
            Some(("call-ops-7-0", "tool_execute")),
            merged(&[
                delivery(
                    ok_request,
                    json!({"kind": "tool_call", "execution_id": "exec-ops-7", "ordinal": 0}),
                ),
                json!({"execution_id": "exec-ops-7"}),
            ]),
        ),
        (
            "system",
            "",
            String::new(),
            Some(&turn),
            None,
            gate(
                "appr-ops-1",
                "requested",
                "approval_request",
                "tool_execute",
                "rm /var/log/old/*.gz",
            ),
        ),
        (
            "system",
            "",
            String::new(),
            Some(&turn),
            None,
            gate(
                "appr-ops-1",
                "resolved_approved",
                "approval_resolution",
                "tool_execute",
                "rm /var/log/old/*.gz",
            ),
        ),
        (
            "system",
            "",
            String::new(),
            Some(&turn),
            None,
            gate(
                "appr-ops-1",
                "replay_applied",
                "approval_replay",
                "tool_execute",
                "rm /var/log/old/*.gz",
            ),
        ),
        (
            "assistant",
            "",
            "정리 끝났어요. 압축 로그 212개를 지워서 12 GB 확보했어요.".into(),
            Some(&turn),
            None,
            delivery(ok_request, slot("terminal_assistant")),
        ),
        (
            "system",
            "",
            "Librarian committed current memory revision 4 · now 1 added, 0 removed, 3 retained"
                .into(),
            None,
            None,
            json!({}),
        ),
        (
            "annotation",
            "",
            "운영자가 이 턴을 고정함".into(),
            None,
            None,
            json!({}),
        ),
        (
            "user",
            "",
            "로그 로테이션 주기 알려 줘".into(),
            None,
            None,
            // A delivery key without its slot: the row stays, the pair is ignored.
            json!({
                "delivery_key": {"kind": "operation", "operation_id": FAILED_REQUEST_ID},
                "speaker_authority": "owner",
            }),
        ),
        (
            "assistant",
            "transport_failure",
            "Keeper request failed: provider closed the connection".into(),
            None,
            None,
            delivery(FAILED_REQUEST_ID, slot("terminal_assistant")),
        ),
        (
            "user",
            "",
            "ops-bot, 백업 상태 공유해 줘".into(),
            None,
            None,
            json!({"speaker_id": "sangsu", "speaker_name": "sangsu",
                   "speaker_authority": "keeper", "surface": {"kind": "agent"}}),
        ),
        (
            "system",
            "",
            String::new(),
            None,
            None,
            gate(
                "appr-ops-2",
                "requested",
                "approval_request",
                "Execute",
                "git push --force origin main",
            ),
        ),
        (
            "system",
            "",
            String::new(),
            None,
            None,
            gate(
                "appr-ops-2",
                "resolved_rejected",
                "approval_resolution",
                "Execute",
                "git push --force origin main",
            ),
        ),
    ];
    let base = (SEED_EPOCH - 6 * 3600) as f64;
    for (n, (role, kind, content, turn_ref, tool, extra)) in rows.into_iter().enumerate() {
        insert_message(
            tx,
            &NewMessage {
                id: format!("m-{keeper}-newer-{n:02}"),
                keeper: keeper.into(),
                role: role.into(),
                content,
                ts: base + 60.0 * n as f64 + 0.5,
                kind: (!kind.is_empty()).then(|| kind.to_string()),
                turn_ref: turn_ref.map(str::to_string),
                tool_call_id: tool.map(|t| t.0.to_string()),
                tool_call_name: tool.map(|t| t.1.to_string()),
                extra: (extra != json!({})).then_some(extra),
            },
        )?;
    }
    // Autonomous turns: only on the bare-array route.
    let autonomous = [
        (
            format!("trace-{keeper}#5"),
            json!("야간 로그 로테이션 끝냈어요."),
            Some(json!([{"t": "trace", "omitted": 2, "trace": [
                {"kind": "think", "text": "", "content_withheld": true},
                {"kind": "reason", "text": "디스크 사용량이 임계치에 가까움"},
                {"kind": "tool", "name": "masc_task_history", "status": "ok", "dur": "32ms",
                 "execution_id": "trace-ops-1"},
                {"kind": "think", "text": "", "content_withheld": true},
                {"kind": "tool", "name": "tool_execute", "status": "err", "dur": "1200ms",
                 "execution_id": "trace-ops-2"},
                {"kind": "tool", "name": "logrotate", "status": "ok", "dur": "2s"}
            ]}])),
            base - 1800.0,
        ),
        (
            format!("trace-{keeper}#8"),
            Value::Null,
            None,
            base + 30.0 * 60.0,
        ),
    ];
    for (turn_id, content, blocks, ts) in autonomous {
        let mut extra = json!({
            "autonomous_turn": {"turn_id": turn_id},
            "turn_ref": turn_id,
            "content": content,
        });
        if let (Some(blocks), Some(o)) = (blocks, extra.as_object_mut()) {
            o.insert("blocks".into(), blocks);
        }
        insert_message(
            tx,
            &NewMessage {
                id: format!("autonomous:{turn_id}"),
                keeper: keeper.into(),
                role: "assistant".into(),
                content: String::new(),
                ts,
                kind: None,
                turn_ref: Some(turn_id.clone()),
                tool_call_id: None,
                tool_call_name: None,
                extra: Some(extra),
            },
        )?;
    }
    Ok(())
}
