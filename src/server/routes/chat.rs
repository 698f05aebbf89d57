//! Chat family: the chat stream (§4.3, scripted SSE replies), operation reconciliation (§4.4)
//! and the history page (§4.5).

use super::chat_batch::{Claim, try_claim};
use super::chat_journal::{Journal, frame};
use crate::server::faults::{BatchBoundFault, ChatTurnFault};
use crate::server::http::{ApiResult, Faults, Guard, Operator, error_body, json_status};
use crate::server::seeded::seeded_rng;
use crate::server::state::{AppState, ChatTurn};
use crate::server::store::chat::{self, NewMessage};
use crate::server::store::{StoreError, keepers, now_unix};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/chat/stream", post(stream))
        .route(
            "/api/v1/keepers/{name}/chat/operations/{request_id}",
            get(super::chat_reads::operation),
        )
        .route(
            "/api/v1/keepers/{name}/chat/history/page",
            get(super::chat_reads::history_page),
        )
}

/// §4.3 body. Unknown keys and duplicate keys are refused by serde (400).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatRequest {
    request_id: String,
    name: String,
    message: String,
    #[serde(default)]
    attachments: Option<Value>,
    #[serde(default)]
    user_blocks: Option<Value>,
    /// Newer MASC: resume a cut stream of the same `request_id` after this journal sequence.
    #[serde(default)]
    since_seq: Option<u64>,
    /// Newer MASC (§14.15): `{"kind":"interactive","control_token":str}`.
    #[serde(default)]
    admission_intent: Option<Value>,
}

/// The fields MASC v0.24.0 declares for this body (lib/server/server_routes_http_keeper_stream.ml
/// `parse_keeper_chat_stream_request`); any other is refused with its 400.
const AUG_FIELDS: &[&str] = &[
    "request_id",
    "name",
    "message",
    "user_blocks",
    "turn_instructions",
    "surface_context",
    "channel",
    "channel_user_id",
    "channel_user_name",
    "channel_workspace_id",
    "attachments",
];

fn bad_request(message: &str) -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({"error": {"message": message}}),
    )
}

fn sse_response(rx: mpsc::Receiver<Bytes>) -> Response {
    let mut rx = rx;
    let body = async_stream::stream! {
        while let Some(chunk) = rx.recv().await {
            yield Ok::<Bytes, std::io::Error>(chunk);
        }
    };
    let mut resp = Response::new(Body::from_stream(body));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

fn acceptance(operation_id: &str, state: &str, echo_wrong: bool) -> Value {
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

async fn stream(
    _: Guard<Operator>,
    State(state): State<AppState>,
    Faults(faults): Faults,
    body: Bytes,
) -> ApiResult {
    // An older MASC (a played release) declares no `since_seq` / `admission_intent` and
    // writes no `id:` lines: a stream it cut cannot be resumed.
    let journaled = state.release().is_none();
    if !journaled
        && let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body)
        && let Some(key) = fields.keys().find(|k| !AUG_FIELDS.contains(&k.as_str()))
    {
        return Ok(bad_request(&format!(
            "request body field {key} is undeclared; accepted fields: {}",
            AUG_FIELDS.join(", ")
        )));
    }
    let req: ChatRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(err) => return Ok(bad_request(&format!("invalid request body: {err}"))),
    };
    let _ = (&req.attachments, &req.user_blocks);
    // §14.15 (newer MASC): `{"kind":"interactive","control_token":str}`; its answer rides the
    // acceptance as the `interactive` block.
    let intent_token = match &req.admission_intent {
        None => None,
        Some(intent) => match (
            intent.get("kind").and_then(Value::as_str),
            intent.get("control_token").and_then(Value::as_str),
        ) {
            (Some("interactive"), Some(token)) if !token.trim().is_empty() => {
                Some(token.to_string())
            }
            _ => {
                return Ok(bad_request(
                    "admission_intent must be {\"kind\":\"interactive\",\"control_token\":str}",
                ));
            }
        },
    };
    if req.request_id.trim().is_empty() {
        return Ok(bad_request("request_id is required"));
    }
    if req.name.trim().is_empty() {
        return Ok(bad_request("name is required"));
    }
    if req.message.trim().is_empty() && req.attachments.is_none() && req.user_blocks.is_none() {
        return Ok(bad_request("message is required"));
    }
    let name = req.name.clone();
    if !state
        .store()
        .read(move |c| keepers::exists(c, &name))
        .await?
    {
        return Ok(error_body(
            StatusCode::NOT_FOUND,
            &format!("unknown keeper: {}", req.name),
        ));
    }

    // The embedded server holds no pause after a stop: an admission with the current token is
    // `applied` (it signals and resumes nothing), another token `stale_control`.
    let interactive = match intent_token {
        None => None,
        Some(token) => {
            let current = super::turn_control::census(&state, &req.name)
                .await?
                .map(|(control, _)| control)
                .unwrap_or_default();
            Some(json!({
                "outcome": if token == current { "applied" } else { "stale_control" },
                "chat_control_token": current,
                "signalled": false,
                "resumed": false,
                "interrupt_error": null,
            }))
        }
    };
    let now = now_unix();
    let digest = hex::encode(Sha256::digest(
        format!("{}\n{}\n{}", req.request_id, req.name, req.message).as_bytes(),
    ))[..16]
        .to_string();
    let digest_again = digest.clone();
    let input = json!({"name": req.name, "message": req.message});
    let (id, keeper, message) = (
        req.request_id.clone(),
        req.name.clone(),
        req.message.clone(),
    );
    // One operation per request_id: the insert and the user row commit together, or an
    // existing operation is replayed.
    let created = state
        .store()
        .write(move |tx| {
            if !chat::insert_operation(tx, &id, &keeper, now, &digest, &input)? {
                return Ok(None);
            }
            let ts = chat::next_ts(tx, &keeper, now)?;
            chat::insert_message(
                tx,
                &NewMessage {
                    id: format!("m-{id}-user"),
                    keeper: keeper.clone(),
                    role: "user".into(),
                    content: message,
                    ts,
                    kind: None,
                    turn_ref: None,
                    tool_call_id: None,
                    tool_call_name: None,
                },
            )?;
            Ok(Some(chat::turn_count(tx, &keeper)? + 1))
        })
        .await?;

    let (tx, rx) = mpsc::channel::<Bytes>(64);
    match created {
        None => {
            let id = req.request_id.clone();
            let op = state.store().read(move |c| chat::operation(c, &id)).await?;
            // A re-post replays the acceptance only when it is the same send: same Keeper,
            // same message (the digest covers id, Keeper and message). Anything else reusing
            // the id is refused before any effect (issue 16): nothing was stored for it.
            let Some(op) =
                op.filter(|o| o.keeper == req.name && o.execution_digest == digest_again)
            else {
                return Ok(json_status(
                    StatusCode::CONFLICT,
                    json!({
                        "error": "request_id_conflict: this request_id belongs to another Keeper or message",
                        "request_id": req.request_id,
                    }),
                ));
            };
            let mut event = acceptance(&req.request_id, &op.state, faults.echo_wrong);
            if let Some(mut block) = interactive.clone() {
                // A re-POST of the same request id admits nothing new.
                block["outcome"] = json!("replayed");
                event["value"]["interactive"] = block;
            }
            let journal = state.chat_journals(|j| j.get(&req.request_id));
            match (req.since_seq, journal) {
                // A resume (newer MASC): this stream's own acceptance, then the turn's events
                // after `since_seq`, the ones still to come included.
                (Some(since), Some(journal)) if journaled => {
                    let _ = tx.send(frame(None, &event)).await;
                    let after = if faults.resume_overlap { 0 } else { since };
                    journal.follow(after, tx, journaled);
                }
                _ => {
                    let _ = tx.send(frame(journaled.then_some(1), &event)).await;
                }
            }
        }
        Some(turn_no) => {
            let stop = Arc::new(AtomicBool::new(false));
            let ahead = state.chat_turns(|turns| {
                let ahead = turns.values().filter(|t| t.keeper == req.name).count();
                turns.insert(
                    req.request_id.clone(),
                    ChatTurn {
                        keeper: req.name.clone(),
                        turn_id: turn_no,
                        started: false,
                        prioritized: false,
                        stop: stop.clone(),
                        execution: None,
                    },
                );
                ahead
            });
            let journal = state.chat_journals(|j| j.open(&req.request_id));
            journal.follow(0, tx, journaled);
            let script = Script {
                stop,
                queued_count: ahead,
                state: state.clone(),
                request_id: req.request_id.clone(),
                keeper: req.name.clone(),
                message: req.message.clone(),
                turn_ref: format!("trace-{}#{turn_no}", req.name),
                echo_wrong: faults.echo_wrong,
                ends: faults.chat_turn,
                journal: journal.clone(),
                interactive,
                batching: journaled,
                batch_fault: faults.batch_bound.filter(|_| journaled),
            };
            tokio::spawn(async move {
                let id = script.request_id.clone();
                let state = script.state.clone();
                if let Err(err) = script.run().await {
                    tracing::error!(request_id = %id, error = %err, "chat script failed");
                }
                journal.end();
                state.chat_turns(|turns| turns.remove(&id));
            });
        }
    }
    Ok(sse_response(rx))
}

/// The scripted keeper turn behind one chat operation. It runs to completion even when the
/// client went away (the operation still finishes and lands in history, as in MASC).
struct Script {
    state: AppState,
    request_id: String,
    keeper: String,
    message: String,
    turn_ref: String,
    echo_wrong: bool,
    /// A scripted end without a reply (`{"chat_turn": …}` fault).
    ends: Option<ChatTurnFault>,
    /// Where the turn's events go (every stream of this request id follows it).
    journal: std::sync::Arc<Journal>,
    /// The acceptance's §14.15 block, when the send carried an admission intent.
    interactive: Option<Value>,
    /// Set by an interrupt (§14.13) or a steer naming this turn (§14.14).
    stop: Arc<AtomicBool>,
    /// Turns of the same Keeper held before this one when it was accepted.
    queued_count: usize,
    /// Newer MASC: queued inputs of one Keeper run together (`super::chat_batch`).
    batching: bool,
    /// A wrong binding to send (`{"batch_bound": …}` fault; newer MASC only).
    batch_fault: Option<crate::server::faults::BatchBoundFault>,
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

    fn reply_text(&self) -> String {
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

    async fn run(mut self) -> Result<(), StoreError> {
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
        let (id, keeper, turn_ref, cid) = (
            self.request_id.clone(),
            self.keeper.clone(),
            self.turn_ref.clone(),
            call_id.clone(),
        );
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
        if let Some(end) = self.ends {
            return self.end_without_reply(end, &message_id, &reply).await;
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
            ChatTurnFault::RunError => ("Turn_exception", "provider stream failed"),
        };
        let (id, keeper) = (self.request_id.clone(), self.keeper.clone());
        self.state
            .store()
            .write(move |tx| {
                chat::mark_failed(tx, &id, now_unix(), kind, detail)?;
                keepers::set_chat_turn(tx, &keeper, None, None)
            })
            .await?;
        let terminal = match end {
            ChatTurnFault::Cancelled => {
                let e = self.event("TEXT_MESSAGE_END", json!({"messageId": message_id}));
                self.emit(e).await;
                self.event("RUN_FINISHED", json!({}))
            }
            ChatTurnFault::RunError => self.event(
                "RUN_ERROR",
                json!({"message": detail, "code": "turn_exception"}),
            ),
        };
        self.emit(terminal).await;
        Ok(())
    }
}
