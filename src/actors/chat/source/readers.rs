//! The workers of the chat source's reads, each a [`Reader`] on the shared read owner: the
//! history page (§4.5, with the repeated-cursor check and the supervision drill), the outbox
//! restore of this Keeper's unsettled sends (durably classed "not sent" or "outcome unknown",
//! never resent), and the reconciliation of one exact request id (§4.4).

use super::super::control_receipt::{CONTROL_RECEIPT, ControlReceipt};
use super::super::observation::{
    ChatObservation, ChatSlot, Reconciliation, RestoredSend, SentTurn, UnknownWindow,
};
use super::super::{
    InterruptIntent, KeptTurns, SendMarks, SteerIntent, TurnControlEvent, TurnInterrupt, TurnSteer,
};
use crate::actors::contract::{ReadResult, Ticket};
use crate::actors::read::{Reader, reader};
use crate::actors::saves::refusal::Refusal;
use crate::actors::saves::{SaveEvent, SaveId, SaveKind, SaveStep};
use crate::outbox::{Outbox, SaveRow, SaveRowState};
use crate::protocol::admission::{ReadAuthority, ReadScope, WorkspaceId};
use crate::protocol::chat::{ChatHistoryArray, ChatHistoryPage, ChatOperationRecord};
use crate::protocol::client::{ClientError, WorkspaceClient, path_segment};
use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::protocol::outcome::SaveClass;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) fn page_reader(
    keeper: String,
    before: Option<f64>,
    drill: Arc<AtomicU32>,
) -> Reader<ChatObservation> {
    let path = history_path(&keeper, before);
    reader(move |auth, client| {
        let path = path.clone();
        let drill = drill.clone();
        async move {
            drill_panic(&drill);
            let result = read_page(&client, &auth, &path, before).await;
            ChatObservation::HistoryPage { before, result }
        }
    })
}

/// The page-worker drill: a real panic inside the worker when the test asked for one.
#[allow(clippy::panic)]
fn drill_panic(drill: &AtomicU32) {
    let armed = drill
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if armed {
        panic!("chat page worker drill");
    }
}

/// The bare-array history (§15.9): one GET, no cursor.
pub(super) fn autonomous_reader(keeper: String) -> Reader<ChatObservation> {
    let path = format!("/api/v1/keepers/{}/chat/history", path_segment(&keeper));
    reader(move |auth, client| {
        let path = path.clone();
        async move {
            let result = client.get::<ChatHistoryArray>(&auth, &path).await;
            ChatObservation::Autonomous { result }
        }
    })
}

pub(super) fn restore_reader(outbox: Outbox, keeper: String) -> Reader<ChatObservation> {
    reader(move |auth, _client| {
        let outbox = outbox.clone();
        let keeper = keeper.clone();
        async move {
            let workspace = auth.scope.workspace.0.clone();
            let read =
                tokio::task::spawn_blocking(move || restore_rows(&outbox, &keeper, &workspace))
                    .await;
            let Restore {
                sends,
                turns,
                ended,
                tool_calls,
                controls,
            } = match read {
                Ok(Ok(read)) => read,
                Ok(Err(err)) => {
                    tracing::warn!(target: "masc_tui::chat", error = err.class(), "outbox unreadable");
                    Restore::default()
                }
                Err(_) => Restore::default(),
            };
            ChatObservation::Restored {
                sends,
                turns,
                ended,
                kept: Box::new(KeptTurns {
                    tool_calls,
                    controls,
                }),
            }
        }
    })
}

/// The unsettled sends of `keeper` in `workspace`, each live (this session runs it) or what it
/// is now, recorded durably: a row another run left `written` never left ("not sent"), any
/// other unsettled row may have ("outcome unknown").
fn restore_rows(
    outbox: &Outbox,
    keeper: &str,
    workspace: &str,
) -> Result<Restore, crate::outbox::OutboxError> {
    let rows = outbox.chat_sends_shown(keeper, workspace)?;
    let ids: Vec<&str> = rows.iter().map(|r| r.intent_key.as_str()).collect();
    let marks = outbox.chat_marks(&ids)?;
    let mut sends = Vec::new();
    for row in &rows {
        let Ok(intent) = serde_json::from_str::<crate::actors::chat::ChatSendIntent>(&row.intent)
        else {
            tracing::warn!(target: "masc_tui::chat", "stored send unreadable");
            continue;
        };
        let live = live_ticket(row, outbox.session(), keeper);
        let now = match (&live, row.state) {
            (Some(_), _) => None,
            // Refused, or never left: shown as it settled (C-8), never reconciled.
            (None, SaveRowState::Settled(class @ (SaveClass::NotApplied | SaveClass::NotSent))) => {
                Some(class)
            }
            (None, _) => {
                let class = row
                    .orphan_class(outbox.session())
                    .unwrap_or(SaveClass::OutcomeUnknown);
                if row.state != SaveRowState::Settled(class) {
                    let reason = Refusal::restored(class).token();
                    outbox.save_state(&row.save_id, SaveRowState::Settled(class), Some(&reason))?;
                }
                Some(class)
            }
        };
        let marks = marks
            .get(&intent.request_id)
            .map(|m| SendMarks::read(m))
            .unwrap_or_default();
        sends.push(RestoredSend {
            request_id: intent.request_id,
            text: intent.text,
            stored: row.state,
            reason: row.reason.clone(),
            this_session: row.session == outbox.session(),
            live,
            now,
            marks,
        });
    }
    let turns = outbox
        .chat_marked(keeper, workspace, "turn_ref", KNOWN_TURNS)?
        .into_iter()
        .filter_map(|(intent, turn_ref)| {
            let intent =
                serde_json::from_str::<crate::actors::chat::ChatSendIntent>(&intent).ok()?;
            Some(SentTurn {
                request_id: intent.request_id,
                text: intent.text,
                turn_ref,
            })
        })
        .collect();
    let by_request = |mark: &str| -> Result<Vec<(String, String)>, crate::outbox::OutboxError> {
        Ok(outbox
            .chat_marked(keeper, workspace, mark, KNOWN_TURNS)?
            .into_iter()
            .filter_map(|(intent, value)| {
                let intent =
                    serde_json::from_str::<crate::actors::chat::ChatSendIntent>(&intent).ok()?;
                Some((intent.request_id, value))
            })
            .collect())
    };
    let ended = by_request("ended")?.into_iter().collect();
    let tool_calls = by_request(super::super::marks::TOOL_CALLS)?
        .into_iter()
        .map(|(id, calls)| (id, super::super::marks::tool_call_ids(&calls)))
        .collect();
    Ok(Restore {
        sends,
        turns,
        ended,
        tool_calls,
        controls: restored_controls(outbox, keeper, workspace)?,
    })
}

/// This Keeper's turn control saves of earlier runs (`/interrupt`, `/steer`, `/run-next`), as
/// the events that put their rows back in the chat surface's books: the receipt kept beside
/// each (`control_receipt`); a save of an earlier run that settled without one (it was cut off)
/// reads as outcome unknown. This run's own saves are in the books already.
fn restored_controls(
    outbox: &Outbox,
    keeper: &str,
    workspace: &str,
) -> Result<Vec<TurnControlEvent>, crate::outbox::OutboxError> {
    let kinds = [TurnInterrupt::KIND, TurnSteer::KIND];
    let rows = outbox.saves_marked(keeper, workspace, &kinds, CONTROL_RECEIPT, KNOWN_TURNS)?;
    Ok(rows
        .into_iter()
        .filter(|row| row.session != outbox.session())
        .filter_map(|row| {
            let receipt = match row.mark.as_deref() {
                Some(kept) => serde_json::from_str::<ControlReceipt>(kept).ok()?,
                None => ControlReceipt::OutcomeUnknown {
                    reason: if row.settled {
                        Refusal::restored(SaveClass::OutcomeUnknown).token()
                    } else {
                        "restored".into()
                    },
                },
            };
            restored_event(&row, workspace, receipt)
        })
        .collect())
}

/// The event of one control save read back. `None` for a kind or intent that does not read.
fn restored_event(
    row: &crate::outbox::MarkedSave,
    workspace: &str,
    receipt: ControlReceipt,
) -> Option<TurnControlEvent> {
    let save_id = SaveId(row.save_id.clone());
    let workspace = workspace.to_string();
    if row.kind == TurnInterrupt::KIND {
        let intent: InterruptIntent = serde_json::from_str(&row.intent).ok()?;
        return Some(TurnControlEvent::Interrupt(SaveEvent {
            save_id,
            intent,
            workspace,
            step: SaveStep::Restored(receipt.into_interrupt()),
        }));
    }
    let intent: SteerIntent = serde_json::from_str(&row.intent).ok()?;
    Some(TurnControlEvent::Steer(SaveEvent {
        save_id,
        intent,
        workspace,
        step: SaveStep::Restored(receipt.into_steer()),
    }))
}

/// What the restore reads: the sends to show, the reply turns, the turn ends and the tool
/// calls kept.
#[derive(Default)]
struct Restore {
    sends: Vec<RestoredSend>,
    turns: Vec<SentTurn>,
    ended: std::collections::HashMap<String, String>,
    tool_calls: std::collections::HashMap<String, Vec<String>>,
    controls: Vec<TurnControlEvent>,
}

/// How many of this Keeper's newest sends with a known reply turn a chat reads on open (the
/// binding needs only the sends on the pages shown).
const KNOWN_TURNS: usize = 500;

/// The ticket of a send this session still runs: written by this session and not settled (an
/// operation settles its row before it ends, a crashed one is settled by the save hub).
fn live_ticket(row: &SaveRow, session: &str, keeper: &str) -> Option<Ticket<ChatSlot>> {
    let running = matches!(
        row.state,
        SaveRowState::Written | SaveRowState::Sending | SaveRowState::Accepted
    );
    (row.session == session && running).then(|| Ticket {
        slot: ChatSlot::Send {
            keeper: keeper.to_string(),
            request_id: row.save_id.clone(),
        },
        generation: row.generation,
        scope: ReadScope {
            workspace: WorkspaceId(row.workspace.clone()),
            epoch: row.epoch,
        },
    })
}

/// The reader of one request id's §4.4 record; a 404 is judged against `window` counted from
/// `since` (the first reconciliation of that id in this source).
pub(super) fn reconcile_reader(
    keeper: String,
    request_id: String,
    outbox: Option<Outbox>,
    since: std::time::Instant,
    window: UnknownWindow,
) -> Reader<ChatObservation> {
    let path = format!(
        "/api/v1/keepers/{}/chat/operations/{}",
        path_segment(&keeper),
        path_segment(&request_id)
    );
    reader(move |auth, client| {
        let path = path.clone();
        let id = request_id.clone();
        let outbox = outbox.clone();
        async move {
            let result = match client.get::<ChatOperationRecord>(&auth, &path).await {
                Ok(admitted) if admitted.value.operation_id == id => {
                    Reconciliation::Found(Box::new((*admitted.value).clone()))
                }
                Ok(_) => Reconciliation::Unreadable {
                    class: "decode_echo_mismatch".into(),
                },
                Err(ClientError::Status { status: 404, .. }) => window.absent(since.elapsed()),
                Err(ClientError::NotServed { .. }) => Reconciliation::NotServed,
                Err(e) => Reconciliation::Unreadable {
                    class: e.class().to_string(),
                },
            };
            let state = result.save_state();
            let marks: Vec<_> = result
                .mark()
                .into_iter()
                .chain(result.record_marks())
                .collect();
            if let Some(outbox) = outbox.filter(|_| state.is_some() || !marks.is_empty()) {
                let rid = id.clone();
                let written = tokio::task::spawn_blocking(move || {
                    if let Some((state, reason)) = state {
                        outbox.save_state(&rid, state, Some(reason))?;
                    }
                    // C-65: nothing more will confirm it, or the turn it ended in: a reopen reads
                    // this, never asks again.
                    for mark in &marks {
                        outbox.chat_mark(&rid, mark.name(), mark.value().as_deref())?;
                    }
                    Ok::<_, crate::outbox::OutboxError>(())
                })
                .await;
                if !matches!(written, Ok(Ok(_))) {
                    tracing::warn!(target: "masc_tui::chat", "outbox update after reconciliation failed");
                }
            }
            ChatObservation::Reconciled {
                request_id: id,
                result,
            }
        }
    })
}

/// `…/chat/history/page[?before=<17 significant digits>]` (§4.5).
pub fn history_path(keeper: &str, before: Option<f64>) -> String {
    let base = format!("/api/v1/keepers/{}/chat/history/page", path_segment(keeper));
    match before {
        Some(b) => format!("{base}?before={}", before_param(b)),
        None => base,
    }
}

/// Unix seconds with 17 significant digits, no `+`, no exponent (§4.5).
pub fn before_param(value: f64) -> String {
    let abs = value.abs();
    let int_digits = if abs >= 1.0 {
        // Digits before the point; bounded for any finite f64 in the unix-seconds range.
        abs.log10().floor() as i64 + 1
    } else {
        1
    };
    let decimals = usize::try_from((17 - int_digits).clamp(0, 17)).unwrap_or(0);
    format!("{value:.decimals$}")
}

async fn read_page(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    path: &str,
    before: Option<f64>,
) -> ReadResult<ChatHistoryPage> {
    let admitted = client.get::<ChatHistoryPage>(auth, path).await?;
    // §4.5: a next_before that does not move older than the request repeats the cursor.
    if let (true, Some(next), Some(asked)) =
        (admitted.value.has_more, admitted.value.next_before, before)
        && next >= asked
    {
        return Err(ClientError::Decode(DecodeError::new(
            DecodeErrorKind::RepeatingCursor,
            ".next_before",
            "next_before does not move older than before",
        )));
    }
    Ok(admitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_has_17_significant_digits_and_no_plus() {
        assert_eq!(before_param(1_787_000_000.5), "1787000000.5000000");
        assert_eq!(before_param(0.25), "0.2500000000000000");
        let s = before_param(1_787_000_123.125);
        assert_eq!(s.replace('.', "").len(), 17);
        assert!(!s.contains('+') && !s.contains('e'));
        assert_eq!(s.parse::<f64>().unwrap(), 1_787_000_123.125);
    }

    #[test]
    fn history_path_encodes_the_keeper() {
        assert_eq!(
            history_path("하늘", None),
            "/api/v1/keepers/%ED%95%98%EB%8A%98/chat/history/page"
        );
        assert!(history_path("rondo", Some(10.5)).ends_with("?before=10.500000000000000"));
    }
}
