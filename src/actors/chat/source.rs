//! The chat source of one open Keeper: history pages (§4.5), the outbox restore on open, and
//! reconciliation of exact request ids (§4.4).
//!
//! Ownership: every result carries a ticket of `SourceKey::Chat { keeper }` (generation from
//! the supervisor's book, never reset; scope = the epoch it was read under). At most one page
//! read is in flight: a newest-window load supersedes an older-page read (retired, G-3); an
//! older-page demand during a read is dropped (the next PgUp asks again). `has_more: false`
//! stops paging (`refused{history_exhausted}`). A withdrawn epoch retires every owned read
//! (G-6); a late worker result is dropped here (`reject{late_after_retire}`), never forwarded.

use super::observation::{ChatObservation, Reconciliation, RestoredSend};
use crate::actors::messages::{IdentityState, Observation, ObservationPayload, ViewMsg};
use crate::actors::read::{GenerationCounter, ViewSink};
use crate::actors::ticket::{SourceKey, Ticket};
use crate::outbox::{Outbox, SendState};
use crate::protocol::admission::{ReadAuthority, WorkspaceId};
use crate::protocol::chat::{ChatHistoryPage, ChatOperationRecord};
use crate::protocol::client::{ClientError, WorkspaceClient, path_segment};
use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::collections::HashMap;
use std::time::Duration;

/// Tuning of one chat source.
#[derive(Debug, Clone)]
pub struct ChatSourceConfig {
    /// Re-check delay of a reconciliation that found the operation still queued or running,
    /// or could not read it.
    pub recheck_after: Duration,
    /// Automatic re-checks per request id (an explicit `Reconcile` always runs).
    pub max_rechecks: u32,
}

impl Default for ChatSourceConfig {
    fn default() -> Self {
        Self {
            recheck_after: Duration::from_secs(3),
            max_rechecks: 20,
        }
    }
}

pub enum ChatSourceMsg {
    Identity(IdentityState),
    /// Newest page + outbox restore. `live`: sends of this Keeper whose actors still run here.
    Load {
        live: HashMap<String, Ticket>,
    },
    LoadOlder,
    Reconcile {
        request_id: String,
        explicit: bool,
    },
    PageReturned {
        ticket: Ticket,
        before: Option<f64>,
        result: Box<crate::actors::messages::ReadResult<ChatHistoryPage>>,
    },
    ReconcileReturned {
        ticket: Ticket,
        request_id: String,
        result: Reconciliation,
    },
    RestoreReturned {
        ticket: Ticket,
        sends: Vec<RestoredSend>,
    },
}

pub struct ChatSourceArgs {
    pub keeper: String,
    pub client: WorkspaceClient,
    pub view: ActorRef<ViewMsg>,
    pub generations: GenerationCounter,
    pub outbox: Option<Outbox>,
    pub config: ChatSourceConfig,
}

struct InFlight {
    ticket: Ticket,
    task: tokio::task::JoinHandle<()>,
}

pub struct ChatSourceState {
    args: ChatSourceArgs,
    source: SourceKey,
    authority: Option<ReadAuthority>,
    page: Option<(InFlight, Option<f64>)>,
    /// Cursor of the next older page; `None` before the newest page or when exhausted.
    next_before: Option<f64>,
    has_more: bool,
    /// The workspace whose history is loaded (a new workspace reloads, G-6).
    loaded_in: Option<WorkspaceId>,
    /// A load asked while no epoch was open; served on the next confirmation.
    wanted_load: Option<HashMap<String, Ticket>>,
    reconciling: HashMap<String, InFlight>,
    rechecks: HashMap<String, u32>,
    restore: Option<InFlight>,
}

impl ChatSourceState {
    fn ticket(&self) -> Option<(Ticket, ReadAuthority)> {
        let auth = self.authority.clone()?;
        let ticket = Ticket {
            source: self.source.clone(),
            generation: self.args.generations.next(),
            scope: auth.scope.clone(),
        };
        stage::dispatch(&ticket);
        self.args.view.send(ViewMsg::Dispatched(ticket.clone()));
        Some((ticket, auth))
    }

    fn forward(&self, ticket: Ticket, obs: ChatObservation) {
        self.args.view.send(ViewMsg::Observed(Observation {
            ticket,
            payload: ObservationPayload::Chat(Box::new(obs)),
        }));
    }

    fn retire(&self, flight: InFlight, reason: &str) {
        stage::cancel_requested(&flight.ticket, reason);
        flight.task.abort();
        self.args.view.send(ViewMsg::Retired(flight.ticket.clone()));
        stage::retire(&flight.ticket, reason);
        stage::unregistered(&flight.ticket, reason);
    }

    fn retire_all(&mut self, reason: &str) {
        if let Some((flight, _)) = self.page.take() {
            self.retire(flight, reason);
        }
        if let Some(flight) = self.restore.take() {
            self.retire(flight, reason);
        }
        let recs: Vec<InFlight> = self.reconciling.drain().map(|(_, f)| f).collect();
        for flight in recs {
            self.retire(flight, reason);
        }
    }

    fn load(&mut self, myself: &ActorRef<ChatSourceMsg>, live: HashMap<String, Ticket>) {
        if self.authority.is_none() {
            stage::refused(&self.source, "no_epoch");
            self.wanted_load = Some(live);
            return;
        }
        if let Some((flight, _)) = self.page.take() {
            self.retire(flight, "superseded");
        }
        self.next_before = None;
        self.has_more = false;
        self.loaded_in = self.authority.as_ref().map(|a| a.scope.workspace.clone());
        self.dispatch_page(myself, None);
        self.dispatch_restore(myself, live);
    }

    fn dispatch_page(&mut self, myself: &ActorRef<ChatSourceMsg>, before: Option<f64>) {
        let Some((ticket, auth)) = self.ticket() else {
            return;
        };
        let client = self.args.client.clone();
        let me = myself.clone();
        let path = history_path(&self.args.keeper, before);
        let worker_ticket = ticket.clone();
        let task = tokio::spawn(async move {
            stage::worker_enter(&worker_ticket);
            let result = read_page(&client, &auth, &path, before).await;
            let outcome = match &result {
                Ok(_) => "ok".to_string(),
                Err(e) => e.class(),
            };
            stage::worker_return(&worker_ticket, &outcome);
            let _ = me.cast(ChatSourceMsg::PageReturned {
                ticket: worker_ticket,
                before,
                result: Box::new(result),
            });
        });
        self.page = Some((InFlight { ticket, task }, before));
    }

    fn dispatch_restore(
        &mut self,
        myself: &ActorRef<ChatSourceMsg>,
        live: HashMap<String, Ticket>,
    ) {
        let Some(outbox) = self.args.outbox.clone() else {
            return;
        };
        let Some((ticket, auth)) = self.ticket() else {
            return;
        };
        let keeper = self.args.keeper.clone();
        let me = myself.clone();
        let worker_ticket = ticket.clone();
        let task = tokio::spawn(async move {
            stage::worker_enter(&worker_ticket);
            let workspace = auth.scope.workspace.0.clone();
            let read = tokio::task::spawn_blocking(move || {
                let rows = outbox.unsettled(&keeper, &workspace)?;
                // A send no actor of this process owns is from an earlier run (crash,
                // restart) or ended unknown: it is "outcome unknown" now, durably.
                for row in rows.iter().filter(|r| !live.contains_key(&r.request_id)) {
                    if row.state != SendState::OutcomeUnknown {
                        outbox.set_state(
                            &row.request_id,
                            SendState::OutcomeUnknown,
                            Some("restored"),
                        )?;
                    }
                }
                Ok::<_, crate::outbox::OutboxError>(
                    rows.into_iter()
                        .map(|r| RestoredSend {
                            live: live.get(&r.request_id).cloned(),
                            request_id: r.request_id,
                            text: r.text,
                            stored: r.state,
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .await;
            let sends = match read {
                Ok(Ok(sends)) => sends,
                Ok(Err(err)) => {
                    tracing::warn!(target: "masc_tui::chat", error = err.class(), "outbox unreadable");
                    Vec::new()
                }
                Err(_) => Vec::new(),
            };
            stage::worker_return(&worker_ticket, "ok");
            let _ = me.cast(ChatSourceMsg::RestoreReturned {
                ticket: worker_ticket,
                sends,
            });
        });
        self.restore = Some(InFlight { ticket, task });
    }

    fn reconcile(&mut self, myself: &ActorRef<ChatSourceMsg>, request_id: String) {
        if self.reconciling.contains_key(&request_id) {
            return;
        }
        let Some((ticket, auth)) = self.ticket() else {
            return;
        };
        let client = self.args.client.clone();
        let path = format!(
            "/api/v1/keepers/{}/chat/operations/{}",
            path_segment(&self.args.keeper),
            path_segment(&request_id)
        );
        let outbox = self.args.outbox.clone();
        let me = myself.clone();
        let worker_ticket = ticket.clone();
        let id = request_id.clone();
        let task = tokio::spawn(async move {
            stage::worker_enter(&worker_ticket);
            let result = match client.get::<ChatOperationRecord>(&auth, &path).await {
                Ok(admitted) if admitted.value.operation_id == id => {
                    Reconciliation::Found(Box::new((*admitted.value).clone()))
                }
                Ok(_) => Reconciliation::Unreadable {
                    class: "decode_echo_mismatch".into(),
                },
                Err(ClientError::Status { status: 404, .. }) => Reconciliation::Absent,
                Err(ClientError::NotServed { .. }) => Reconciliation::NotServed,
                Err(e) => Reconciliation::Unreadable { class: e.class() },
            };
            if let (Some(outbox), Some(state)) = (outbox, result.send_state()) {
                let rid = id.clone();
                let written = tokio::task::spawn_blocking(move || {
                    outbox.set_state(&rid, state, Some("reconciled"))
                })
                .await;
                if !matches!(written, Ok(Ok(_))) {
                    tracing::warn!(target: "masc_tui::chat", "outbox update after reconciliation failed");
                }
            }
            stage::worker_return(&worker_ticket, &result.class());
            let _ = me.cast(ChatSourceMsg::ReconcileReturned {
                ticket: worker_ticket,
                request_id: id,
                result,
            });
        });
        self.reconciling
            .insert(request_id, InFlight { ticket, task });
    }

    /// Whether `ticket` is still the owner of its read; drops and traces it otherwise.
    fn owns(&self, owner: Option<&Ticket>, ticket: &Ticket) -> bool {
        let current = self.authority.as_ref().map(|a| &a.scope);
        if owner == Some(ticket) && current == Some(&ticket.scope) {
            return true;
        }
        stage::reject(ticket, "late_after_retire");
        false
    }
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
) -> crate::actors::messages::ReadResult<ChatHistoryPage> {
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

pub struct ChatSource;

impl Actor for ChatSource {
    type Msg = ChatSourceMsg;
    type State = ChatSourceState;
    type Arguments = ChatSourceArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<ChatSourceMsg>,
        args: ChatSourceArgs,
    ) -> Result<ChatSourceState, ActorProcessingErr> {
        Ok(ChatSourceState {
            source: SourceKey::Chat {
                keeper: args.keeper.clone(),
            },
            args,
            authority: None,
            page: None,
            next_before: None,
            has_more: false,
            loaded_in: None,
            wanted_load: None,
            reconciling: HashMap::new(),
            rechecks: HashMap::new(),
            restore: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<ChatSourceMsg>,
        msg: ChatSourceMsg,
        state: &mut ChatSourceState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ChatSourceMsg::Identity(identity) => match identity {
                IdentityState::Confirmed { scope, mode, .. } => {
                    let next = ReadAuthority {
                        expected_root: scope.workspace.0.clone(),
                        scope: scope.clone(),
                        mode,
                    };
                    if state.authority.as_ref() == Some(&next) {
                        return Ok(());
                    }
                    state.retire_all("epoch_changed");
                    state.authority = Some(next);
                    let other_workspace = state
                        .loaded_in
                        .as_ref()
                        .is_some_and(|w| *w != scope.workspace);
                    if let Some(live) = state.wanted_load.take() {
                        state.load(&myself, live);
                    } else if other_workspace {
                        // A different workspace never borrows this one's history (G-6).
                        state.load(&myself, HashMap::new());
                    }
                }
                IdentityState::Unconfirmed { .. }
                | IdentityState::Booting
                | IdentityState::Mismatch { .. } => {
                    state.authority = None;
                    state.retire_all("withdrawn");
                }
            },
            ChatSourceMsg::Load { live } => state.load(&myself, live),
            ChatSourceMsg::LoadOlder => {
                if state.page.is_some() {
                    // A page read is in flight: its result moves the cursor first.
                    stage::refused(&state.source, "page_in_flight");
                } else if !state.has_more || state.next_before.is_none() {
                    stage::refused(&state.source, "history_exhausted");
                } else {
                    let before = state.next_before;
                    state.dispatch_page(&myself, before);
                }
            }
            ChatSourceMsg::Reconcile {
                request_id,
                explicit,
            } => {
                if explicit {
                    state.rechecks.remove(&request_id);
                }
                state.reconcile(&myself, request_id);
            }
            ChatSourceMsg::PageReturned {
                ticket,
                before,
                result,
            } => {
                let owner = state.page.as_ref().map(|(f, _)| &f.ticket);
                let outcome = match result.as_ref() {
                    Ok(_) => "ok".to_string(),
                    Err(e) => e.class(),
                };
                stage::observe(&ticket, &outcome);
                if !state.owns(owner, &ticket) {
                    return Ok(());
                }
                state.page = None;
                stage::unregistered(&ticket, "returned");
                if let Ok(page) = result.as_ref() {
                    state.has_more = page.value.has_more;
                    state.next_before = page.value.next_before;
                }
                state.forward(
                    ticket,
                    ChatObservation::HistoryPage {
                        before,
                        result: *result,
                    },
                );
            }
            ChatSourceMsg::RestoreReturned { ticket, sends } => {
                stage::observe(&ticket, "ok");
                let owner = state.restore.as_ref().map(|f| &f.ticket);
                if !state.owns(owner, &ticket) {
                    return Ok(());
                }
                state.restore = None;
                stage::unregistered(&ticket, "returned");
                let unknown: Vec<String> = sends
                    .iter()
                    .filter(|s| s.live.is_none())
                    .map(|s| s.request_id.clone())
                    .collect();
                state.forward(ticket, ChatObservation::Restored { sends });
                // Reconciled by exact id; never resent (§11).
                for id in unknown {
                    state.reconcile(&myself, id);
                }
            }
            ChatSourceMsg::ReconcileReturned {
                ticket,
                request_id,
                result,
            } => {
                stage::observe(&ticket, &result.class());
                let owner = state.reconciling.get(&request_id).map(|f| &f.ticket);
                if !state.owns(owner, &ticket) {
                    return Ok(());
                }
                state.reconciling.remove(&request_id);
                stage::unregistered(&ticket, "returned");
                let again = result.needs_recheck();
                let confirmed = matches!(&result, Reconciliation::Found(r)
                    if r.progress.state() == crate::protocol::chat::OperationState::Succeeded);
                state.forward(
                    ticket,
                    ChatObservation::Reconciled {
                        request_id: request_id.clone(),
                        result,
                    },
                );
                if again {
                    let n = state.rechecks.entry(request_id.clone()).or_insert(0);
                    *n += 1;
                    if *n <= state.args.config.max_rechecks {
                        let id = request_id.clone();
                        myself.send_after(state.args.config.recheck_after, move || {
                            ChatSourceMsg::Reconcile {
                                request_id: id,
                                explicit: false,
                            }
                        });
                    }
                } else {
                    state.rechecks.remove(&request_id);
                }
                if confirmed && state.page.is_none() {
                    // The persisted input and reply are in history now (C-34).
                    state.next_before = None;
                    state.has_more = false;
                    state.dispatch_page(&myself, None);
                }
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<ChatSourceMsg>,
        state: &mut ChatSourceState,
    ) -> Result<(), ActorProcessingErr> {
        state.retire_all("chat_closed");
        Ok(())
    }
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
