//! The scripted Keeper turn behind one chat operation of the embedded server (§4.3): its
//! acceptance, the wait for the Keeper's turn slot (alone, or batched as a newer MASC does:
//! `super::chat_batch`), the run's events into the turn's journal, and the outcome committed
//! before the terminal event (§4.4). Split out of `chat.rs` (the route) by job.

use super::chat_batch::{Claim, try_claim};
use super::chat_journal::Journal;
use crate::server::faults::{BatchBoundFault, ChatTurnFault};
use crate::server::seeded::seeded_rng;
use crate::server::state::AppState;
use crate::server::store::chat::{self, NewMessage};
use crate::server::store::{StoreError, keepers, now_unix};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The newer store's fields of a tool row written for a send: its delivery pair and the
/// execution it ran in (§15.9, the exact join to §14.10).
fn tool_row_fields(request_id: &str, execution_id: &str) -> Value {
    let mut fields = chat::delivery(
        request_id,
        json!({"kind": "tool_call", "execution_id": execution_id, "ordinal": 0}),
    );
    if let Some(o) = fields.as_object_mut() {
        o.insert("execution_id".into(), json!(execution_id));
    }
    fields
}

pub(super) fn acceptance(operation_id: &str, state: &str, echo_wrong: bool) -> Value {
    let id = if echo_wrong {
        format!("{operation_id}-wrong-echo")
    } else {
        operation_id.to_string()
    };
    json!({
        "type": "CUSTOM",
        "threadId": "default",
        "timestamp": now_unix(),
        "name": "KEEPER_CHAT_OPERATION_ACCEPTED",
        "value": {"operation_id": id, "state": state, "queued_count": 0},
    })
}

/// The scripted keeper turn behind one chat operation. It runs to completion even when the
/// client went away (the operation still finishes and lands in history, as in MASC).
pub(super) struct Script {
    pub(super) state: AppState,
    pub(super) request_id: String,
    pub(super) keeper: String,
    pub(super) message: String,
    pub(super) turn_ref: String,
    pub(super) echo_wrong: bool,
    /// A scripted end without a reply (`{"chat_turn": …}` fault).
    pub(super) ends: Option<ChatTurnFault>,
    /// Where the turn's events go (every stream of this request id follows it).
    pub(super) journal: std::sync::Arc<Journal>,
    /// The acceptance's §14.15 block, when the send carried an admission intent.
    pub(super) interactive: Option<Value>,
    /// Set by an interrupt (§14.13) or a steer naming this turn (§14.14).
    pub(super) stop: Arc<AtomicBool>,
    /// Turns of the same Keeper held before this one when it was accepted.
    pub(super) queued_count: usize,
    /// Newer MASC: queued inputs of one Keeper run together (`super::chat_batch`).
    pub(super) batching: bool,
    /// A wrong binding to send (`{"batch_bound": …}` fault; newer MASC only).
    pub(super) batch_fault: Option<crate::server::faults::BatchBoundFault>,
}

impl Script {
    async fn emit(&mut self, event: Value) {
        self.journal.push(event);
    }

    fn event(&self, kind: &str, extra: Value) -> Value {
        let mut v = json!({
            "type": kind,
            "threadId": format!("keeper:{}", self.keeper),
            "timestamp": now_unix(),
            "runId": format!("keeper-operation-run-{}", self.request_id),
        });
        if let (Some(obj), Value::Object(more)) = (v.as_object_mut(), extra) {
            obj.extend(more);
        }
        v
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Waits until no other turn of this Keeper runs (one execution at a time per Keeper, as
    /// in MASC), then marks this one running — alone, or (newer MASC) batched with the other
    /// inputs waiting (`super::chat_batch`). A turn asked to run next (§14.14) goes before the
    /// others waiting.
    async fn wait_for_turn(&self) -> Claim {
        loop {
            let claim = self
                .state
                .chat_turns(|turns| try_claim(turns, &self.request_id, self.batching));
            if let Some(claim) = claim {
                return claim;
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    /// `KEEPER_CHAT_BATCH_BOUND` on this turn's stream (C-37), as MASC's dashboard decoder
    /// pins it: exactly `{operation_id, execution_id}`.
    fn binding(&self, operation_id: &str, execution_id: &str) -> Value {
        self.event(
            "CUSTOM",
            json!({"name": "KEEPER_CHAT_BATCH_BOUND",
                   "value": {"operation_id": operation_id, "execution_id": execution_id}}),
        )
    }

    /// A stopped turn ends as MASC ends it: the operation `Failed` with `Turn_cancelled`
    /// (committed first), then `RUN_ERROR` with that code.
    async fn end_interrupted(mut self) -> Result<(), StoreError> {
        let (id, keeper) = (self.request_id.clone(), self.keeper.clone());
        let detail = "interrupted by the operator";
        self.state
            .store()
            .write(move |tx| {
                chat::mark_failed(tx, &id, now_unix(), "Turn_cancelled", detail)?;
                keepers::set_chat_turn(tx, &keeper, None, None)
            })
            .await?;
        let e = self.event(
            "RUN_ERROR",
            json!({"message": format!("turn_cancelled: {detail}"), "code": "Turn_cancelled"}),
        );
        self.emit(e).await;
        Ok(())
    }

    /// A message asking for a long reply (`long reply` anywhere in it) gets one of about
    /// 3,500 characters, streamed over ~15 s: something to interrupt in the demo.
    fn long_reply(&self) -> bool {
        self.message.to_lowercase().contains("long reply")
    }

    /// A message asking for a paced reply (`paced reply N tokens at R/s`) gets N tokens, one
    /// per stream event, R a second: a reply that streams for minutes at a known rate (the
    /// streaming bench, docs/performance.md).
    fn paced_reply(&self) -> Option<(usize, u32)> {
        let lower = self.message.to_lowercase();
        let rest = lower.split("paced reply ").nth(1)?;
        let mut words = rest.split_whitespace();
        let tokens: usize = words.next()?.parse().ok()?;
        let (Some("tokens"), Some("at")) = (words.next(), words.next()) else {
            return None;
        };
        let rate: u32 = words.next()?.strip_suffix("/s")?.parse().ok()?;
        (tokens > 0 && (1..=1_000).contains(&rate)).then_some((tokens.min(1_000_000), rate))
    }

    fn reply_text(&self) -> String {
        if let Some((tokens, _)) = self.paced_reply() {
            return (0..tokens).map(paced_token).collect();
        }
        if self.long_reply() {
            let mut text = format!(
                "{}, 긴 답변을 시작할게요. 워크스페이스의 작업을 하나씩 살펴봅니다.\n\n",
                self.keeper
            );
            for n in 1..=60 {
                text.push_str(&format!(
                    "- step {n}: task-{} 상태 확인, 검증 기록과 연결된 목표를 읽는 중…\n",
                    1000 + n
                ));
            }
            text.push_str("\nThat is the whole list.");
            return text;
        }
        let quoted: String = self.message.lines().map(|l| format!("> {l}\n")).collect();
        format!(
            "{quoted}\n{}, 메시지 잘 받았어요 👋 \"{}\"에 대해 워크스페이스를 확인해 봤어요.\n\n\
             - 진행 중인 작업: **7개** (task-1013 우선)\n- 검증 대기: 2개\n\n\
             Anything else you want me to look at?",
            self.keeper,
            self.message.chars().take(40).collect::<String>(),
        )
    }

    pub(super) async fn run(mut self) -> Result<(), StoreError> {
        let mut rng = seeded_rng(
            self.request_id
                .bytes()
                .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))),
        );
        let mut pause = move |lo: u64, hi: u64| Duration::from_millis(rng.gen_range(lo..=hi));
        let mut acc = acceptance(&self.request_id, "Queued", self.echo_wrong);
        acc["value"]["queued_count"] = json!(self.queued_count);
        if let Some(block) = &self.interactive {
            acc["value"]["interactive"] = block.clone();
        }
        self.emit(acc).await;
        tokio::time::sleep(pause(30, 80)).await;
        let claim = self.wait_for_turn().await;

        let (id, keeper) = (self.request_id.clone(), self.keeper.clone());
        let preview = self.message.chars().take(60).collect::<String>();
        self.state
            .store()
            .write(move |tx| {
                let at = now_unix();
                chat::mark_running(tx, &id, at)?;
                keepers::set_chat_turn(tx, &keeper, Some(at), Some(&preview))
            })
            .await?;
        // The binding comes before `RUN_STARTED`, as in MASC's batch fixture.
        if let Claim::Batched { execution_id } = &claim {
            let bound = self.binding(&self.request_id, execution_id);
            self.emit(bound).await;
        }
        if let Some(BatchBoundFault::UnknownRequest) = self.batch_fault {
            let execution_id = match &claim {
                Claim::Batched { execution_id } => execution_id.clone(),
                Claim::Alone => self.request_id.clone(),
            };
            let stray = self.binding(&format!("{}-unknown", self.request_id), &execution_id);
            self.emit(stray).await;
        }
        let started = self.event("RUN_STARTED", json!({}));
        self.emit(started).await;

        let thinking = self.event(
            "CUSTOM",
            json!({"name": "KEEPER_THINKING_DELTA", "value": {"delta": "워크스페이스 상태를 먼저 확인할게요…"}}),
        );
        self.emit(thinking).await;
        tokio::time::sleep(pause(30, 80)).await;

        let call_id = format!("tool-{}-1", self.request_id);
        let args = "{\"status\":\"in_progress\"}";
        for (kind, extra) in [
            (
                "TOOL_CALL_START",
                json!({"toolCallId": call_id, "toolCallName": "masc_task_list"}),
            ),
            (
                "TOOL_CALL_ARGS",
                json!({"toolCallId": call_id, "delta": args}),
            ),
            ("TOOL_CALL_END", json!({"toolCallId": call_id})),
        ] {
            let e = self.event(kind, extra);
            self.emit(e).await;
            tokio::time::sleep(pause(30, 80)).await;
        }
        // Newer MASC: a held call's wait on this turn's stream (§15.9), hints beside §14.5.
        match self.ends {
            Some(ChatTurnFault::HoldsCall) => {
                let asked = self.event(
                    "CUSTOM",
                    json!({"name": "KEEPER_TOOL_APPROVAL_REQUESTED",
                           "value": {"tool_call_id": call_id, "tool_call_name": "masc_task_list",
                                     "args": args, "question": "작업 목록을 읽어도 될까요?",
                                     "because": "this Keeper asks before reading tasks"}}),
                );
                self.emit(asked).await;
                tokio::time::sleep(pause(120, 200)).await;
                let settled = self.event(
                    "CUSTOM",
                    json!({"name": "KEEPER_TOOL_APPROVAL_SETTLED",
                           "value": {"tool_call_id": call_id, "outcome": "approved"}}),
                );
                self.emit(settled).await;
            }
            Some(ChatTurnFault::SettledUnannounced) => {
                let settled = self.event(
                    "CUSTOM",
                    json!({"name": "KEEPER_TOOL_APPROVAL_SETTLED",
                           "value": {"tool_call_id": format!("{call_id}-never-asked"),
                                     "outcome": "approved"}}),
                );
                self.emit(settled).await;
            }
            _ => {}
        }
        let (id, keeper, turn_ref, cid) = (
            self.request_id.clone(),
            self.keeper.clone(),
            self.turn_ref.clone(),
            call_id.clone(),
        );
        let execution = match &claim {
            Claim::Batched { execution_id } => execution_id.clone(),
            Claim::Alone => self.request_id.clone(),
        };
        self.state
            .store()
            .write(move |tx| {
                let ts = chat::next_ts(tx, &keeper, now_unix())?;
                chat::insert_message(
                    tx,
                    &NewMessage {
                        id: format!("m-{id}-tool-1"),
                        keeper,
                        role: "tool".into(),
                        // As MASC persists a tool row: the arguments, not the result.
                        content: args.to_string(),
                        ts,
                        kind: None,
                        turn_ref: Some(turn_ref),
                        tool_call_id: Some(cid),
                        tool_call_name: Some("masc_task_list".into()),
                        extra: Some(tool_row_fields(&id, &execution)),
                    },
                )
            })
            .await?;
        let ready = self.event(
            "CUSTOM",
            json!({"name": "KEEPER_TOOL_RESULT_READY",
                   "value": {"tool_call_id": call_id, "tool_call_name": "masc_task_list", "ok": true}}),
        );
        self.emit(ready).await;

        if self.stopped() {
            return self.end_interrupted().await;
        }
        let message_id = format!("keeper-operation-message-{}", self.request_id);
        let start = self.event(
            "TEXT_MESSAGE_START",
            json!({"messageId": message_id, "role": "assistant"}),
        );
        self.emit(start).await;
        let reply = self.reply_text();
        if let Some(end) = self.ends.filter(|e| e.ends_without_reply()) {
            return self.end_without_reply(end, &message_id, &reply).await;
        }
        if let Some((tokens, rate)) = self.paced_reply() {
            let mut tick = tokio::time::interval(Duration::from_secs(1) / rate);
            for n in 0..tokens {
                tick.tick().await;
                if self.stopped() {
                    return self.end_interrupted().await;
                }
                let e = self.event(
                    "TEXT_MESSAGE_CONTENT",
                    json!({"messageId": message_id, "delta": paced_token(n)}),
                );
                self.emit(e).await;
            }
            return self.finish_reply(reply, &message_id).await;
        }
        let chars: Vec<char> = reply.chars().collect();
        for chunk in chars.chunks(12) {
            tokio::time::sleep(pause(30, 80)).await;
            if self.stopped() {
                return self.end_interrupted().await;
            }
            let delta: String = chunk.iter().collect();
            let e = self.event(
                "TEXT_MESSAGE_CONTENT",
                json!({"messageId": message_id, "delta": delta}),
            );
            self.emit(e).await;
        }
        self.finish_reply(reply, &message_id).await
    }

    /// The reply's details and end, the outcome committed, then `RUN_FINISHED`.
    async fn finish_reply(mut self, reply: String, message_id: &str) -> Result<(), StoreError> {
        let details = self.event(
            "CUSTOM",
            json!({"name": "KEEPER_REPLY_DETAILS",
                   "value": {"reply": reply, "turn_outcome": "visible_reply", "turn_ref": self.turn_ref}}),
        );
        self.emit(details).await;
        let end = self.event("TEXT_MESSAGE_END", json!({"messageId": message_id}));
        self.emit(end).await;

        // Commit the outcome before the terminal event, so a client that saw RUN_FINISHED
        // reconciles to Succeeded (§4.4).
        let (id, keeper, turn_ref) = (
            self.request_id.clone(),
            self.keeper.clone(),
            self.turn_ref.clone(),
        );
        self.state
            .store()
            .write(move |tx| {
                let now = now_unix();
                let ts = chat::next_ts(tx, &keeper, now)?;
                chat::insert_message(
                    tx,
                    &NewMessage {
                        id: format!("m-{id}-assistant"),
                        keeper: keeper.clone(),
                        role: "assistant".into(),
                        content: reply,
                        ts,
                        kind: None,
                        turn_ref: Some(turn_ref.clone()),
                        tool_call_id: None,
                        tool_call_name: None,
                        extra: Some(chat::delivery(&id, json!({"kind": "terminal_assistant"}))),
                    },
                )?;
                chat::mark_succeeded(tx, &id, now, &turn_ref)?;
                keepers::set_chat_turn(tx, &keeper, None, None)
            })
            .await?;
        let finished = self.event("RUN_FINISHED", json!({}));
        self.emit(finished).await;
        Ok(())
    }
}

impl Script {
    /// Partial text, then the scripted end; the operation is recorded `Failed` with
    /// `outcome_ref: null` before the terminal event (as a reconciling client will read it).
    async fn end_without_reply(
        mut self,
        end: ChatTurnFault,
        message_id: &str,
        reply: &str,
    ) -> Result<(), StoreError> {
        let partial: String = reply.chars().take(24).collect();
        let e = self.event(
            "TEXT_MESSAGE_CONTENT",
            json!({"messageId": message_id, "delta": partial}),
        );
        self.emit(e).await;
        let (kind, detail) = match end {
            ChatTurnFault::Cancelled => ("Turn_cancelled", "turn cancelled"),
            ChatTurnFault::RunError
            | ChatTurnFault::HoldsCall
            | ChatTurnFault::SettledUnannounced => ("Turn_exception", "provider stream failed"),
        };
        let (id, keeper) = (self.request_id.clone(), self.keeper.clone());
        let failed = end == ChatTurnFault::RunError;
        self.state
            .store()
            .write(move |tx| {
                chat::mark_failed(tx, &id, now_unix(), kind, detail)?;
                if failed {
                    // MASC persists a failed request so it survives a reload, under the
                    // send's own delivery key (§15.9).
                    let ts = chat::next_ts(tx, &keeper, now_unix())?;
                    chat::insert_message(
                        tx,
                        &NewMessage {
                            id: format!("m-{id}-failure"),
                            keeper: keeper.clone(),
                            role: "assistant".into(),
                            content: format!("Keeper request failed: {detail}"),
                            ts,
                            kind: Some("transport_failure".into()),
                            turn_ref: None,
                            tool_call_id: None,
                            tool_call_name: None,
                            extra: Some(chat::delivery(&id, json!({"kind": "terminal_assistant"}))),
                        },
                    )?;
                }
                keepers::set_chat_turn(tx, &keeper, None, None)
            })
            .await?;
        let terminal = match end {
            ChatTurnFault::Cancelled => {
                let e = self.event("TEXT_MESSAGE_END", json!({"messageId": message_id}));
                self.emit(e).await;
                self.event("RUN_FINISHED", json!({}))
            }
            ChatTurnFault::RunError
            | ChatTurnFault::HoldsCall
            | ChatTurnFault::SettledUnannounced => self.event(
                "RUN_ERROR",
                json!({"message": detail, "code": "turn_exception"}),
            ),
        };
        self.emit(terminal).await;
        Ok(())
    }
}

/// Token `n` of a paced reply: Korean and English words, as a Keeper's reply mixes them.
fn paced_token(n: usize) -> String {
    const WORDS: &[&str] = &[
        "작업을 ",
        "확인 ",
        "하고 ",
        "있어요. ",
        "the ",
        "task ",
        "is ",
        "on ",
        "track ",
        "— ",
    ];
    let word = WORDS[n % WORDS.len()];
    if n % 97 == 96 {
        format!("{word}\n\n")
    } else {
        word.to_string()
    }
}
