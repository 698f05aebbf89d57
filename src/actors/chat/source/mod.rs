//! The chat source of one open Keeper: history pages (§4.5), the outbox restore on open, and
//! reconciliation of exact request ids (§4.4), all on the shared read owner
//! (`crate::actors::read`): every read has its own slot ([`ChatSlot`]), ticket and worker with
//! the owner's panic catch, so a panicking worker retires only its own read.
//!
//! - History: at most one page read in flight. A newest-window load supersedes an older-page
//!   read (retired, G-3); an older-page demand during a read is refused (`page_in_flight`; the
//!   next PgUp asks again). `has_more: false` stops paging (`refused{history_exhausted}`).
//! - Restore: the unsettled chat-send rows of this Keeper and workspace. A row this session
//!   wrote and still runs is live (its ticket is rebuilt from the row, so the reopened chat
//!   admits the rest of its steps); a row an earlier run left `written` is "not sent", any
//!   other is "outcome unknown", durably, and reconciled by its exact request id — unless an
//!   earlier reconciliation already ended it for good (`super::marks`: not recorded after the
//!   window, or no §4.4 route), which is read back, not asked again. Never resent.
//! - Reconcile: one slot per request id; a demand while one is in flight shares it. A record
//!   still queued or running, or unreadable, is re-checked after `recheck_after`, at most
//!   `max_rechecks` times (an explicit `Reconcile` always runs). A 404 inside the unknown
//!   window ([`UnknownWindow`], counted from the id's first reconciliation here) is "not
//!   recorded yet": re-checked with a doubling delay, the last check just after the window,
//!   and only a 404 then is "absent".
//! - A withdrawn epoch retires every owned read (G-6); a late worker result is dropped by the
//!   owner (`reject{late_after_retire}`), never forwarded. Demand made without an epoch is
//!   served on the next confirmation of the same workspace; a different workspace reloads the
//!   newest window and never borrows this one's history.
//!
//! This file holds the source actor and its slot bookkeeping; `readers` the workers of the three
//! reads (a history page, the outbox restore, one reconciliation) and the history page path.

mod readers;

pub use readers::{before_param, history_path};

use super::observation::{ChatObservation, ChatSlot, Reconciliation, UnknownWindow};
use crate::actors::contract::{DemandKind, GenerationBook, IdentityState, Outlet, SlotKey};
use crate::actors::read::{
    ExplicitPolicy, ReadOwner, ReturnOutcome, SlotSpec, WorkerReturn, reader,
};
use crate::outbox::Outbox;
use crate::protocol::admission::WorkspaceId;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::SaveClass;
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use readers::{autonomous_reader, page_reader, reconcile_reader, restore_reader};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Tuning of one chat source.
#[derive(Debug, Clone)]
pub struct ChatSourceConfig {
    /// Re-check delay of a reconciliation that found the operation still queued or running,
    /// or could not read it.
    pub recheck_after: Duration,
    /// Automatic re-checks per request id (an explicit `Reconcile` always runs).
    pub max_rechecks: u32,
    /// How long a send may still land after it ended unknown; `None`: from the client's own
    /// timeouts ([`UnknownWindow::for_client`]).
    pub unknown_window: Option<UnknownWindow>,
    /// Supervision drill: this many of the next history-page workers panic inside the worker
    /// (tests only; 0 in production).
    pub drill_page_panics: Arc<AtomicU32>,
}

impl Default for ChatSourceConfig {
    fn default() -> Self {
        Self {
            recheck_after: Duration::from_secs(3),
            max_rechecks: 20,
            unknown_window: None,
            drill_page_panics: Arc::new(AtomicU32::new(0)),
        }
    }
}

pub enum ChatSourceMsg {
    Identity(IdentityState),
    /// Newest page + outbox restore.
    Load,
    LoadOlder,
    Reconcile {
        request_id: String,
        explicit: bool,
    },
    /// A worker of this source finished (the owner checks the ticket, G-7).
    Returned(WorkerReturn<ChatSlot, ChatObservation>),
}

impl From<WorkerReturn<ChatSlot, ChatObservation>> for ChatSourceMsg {
    fn from(r: WorkerReturn<ChatSlot, ChatObservation>) -> Self {
        Self::Returned(r)
    }
}

pub struct ChatSourceArgs {
    pub keeper: String,
    pub client: WorkspaceClient,
    pub outlet: Outlet<ChatSlot, ChatObservation>,
    pub generations: GenerationBook,
    pub outbox: Option<Outbox>,
    pub config: ChatSourceConfig,
}

type Owner = ReadOwner<ChatSlot, ChatObservation, ActorRef<ChatSourceMsg>>;

pub struct ChatSourceState {
    keeper: String,
    outbox: Option<Outbox>,
    config: ChatSourceConfig,
    generations: GenerationBook,
    owner: Owner,
    /// Cursor of the next older page; `None` before the newest page or when exhausted.
    next_before: Option<f64>,
    has_more: bool,
    /// The workspace whose history is loaded (a new workspace reloads, G-6).
    loaded_in: Option<WorkspaceId>,
    rechecks: HashMap<String, u32>,
    /// The unknown window of this source's client.
    window: UnknownWindow,
    /// When each request id was first reconciled here, and how many "not recorded yet"
    /// re-checks it had (the backoff's exponent).
    unknown_since: HashMap<String, (std::time::Instant, u32)>,
}

impl ChatSourceState {
    fn history_key(&self) -> ChatSlot {
        ChatSlot::History {
            keeper: self.keeper.clone(),
        }
    }

    fn autonomous_key(&self) -> ChatSlot {
        ChatSlot::Autonomous {
            keeper: self.keeper.clone(),
        }
    }

    fn restore_key(&self) -> ChatSlot {
        ChatSlot::Restore {
            keeper: self.keeper.clone(),
        }
    }

    fn reconcile_key(&self, request_id: &str) -> ChatSlot {
        ChatSlot::Reconcile {
            keeper: self.keeper.clone(),
            request_id: request_id.to_string(),
        }
    }

    fn page_in_flight(&self) -> bool {
        self.owner
            .snapshot(&self.history_key())
            .is_some_and(|s| s.in_flight.is_some())
    }

    /// Newest window and outbox restore. Without an epoch the demand waits for the next
    /// confirmation (the owner keeps it).
    fn load(&mut self) {
        self.next_before = None;
        self.has_more = false;
        self.loaded_in = self.owner.authority().map(|a| a.scope.workspace.clone());
        let history = self.history_key();
        self.owner.set_reader(
            &history,
            page_reader(
                self.keeper.clone(),
                None,
                self.config.drill_page_panics.clone(),
            ),
        );
        // A newest-window load supersedes a page read in flight (G-3).
        self.owner.demand(&history, DemandKind::Explicit);
        // The autonomous turns (§15.9): once per open, beside the newest window.
        self.owner
            .demand(&self.autonomous_key(), DemandKind::Explicit);
        if let Some(outbox) = self.outbox.clone() {
            let restore = self.restore_key();
            self.owner
                .set_reader(&restore, restore_reader(outbox, self.keeper.clone()));
            self.owner.demand(&restore, DemandKind::Explicit);
        }
    }

    fn load_older(&mut self) {
        let history = self.history_key();
        if self.page_in_flight() {
            // A page read is in flight: its result moves the cursor first.
            stage::refused(&history.trace_name(), "page_in_flight");
        } else if !self.has_more || self.next_before.is_none() {
            stage::refused(&history.trace_name(), "history_exhausted");
        } else {
            self.owner.set_reader(
                &history,
                page_reader(
                    self.keeper.clone(),
                    self.next_before,
                    self.config.drill_page_panics.clone(),
                ),
            );
            self.owner.demand(&history, DemandKind::Explicit);
        }
    }

    /// Reconciles `request_id` (§4.4); shares a reconciliation already in flight.
    fn reconcile(&mut self, request_id: &str) {
        let key = self.reconcile_key(request_id);
        if self.owner.snapshot(&key).is_none() {
            let since = self
                .unknown_since
                .entry(request_id.to_string())
                .or_insert((std::time::Instant::now(), 0))
                .0;
            self.owner.add_slot(SlotSpec {
                key: key.clone(),
                explicit: ExplicitPolicy::Coalesce,
                standing: false,
                generations: self.generations.counter(&key),
                reader: reconcile_reader(
                    self.keeper.clone(),
                    request_id.to_string(),
                    self.outbox.clone(),
                    since,
                    self.window,
                ),
            });
        }
        self.owner.demand(&key, DemandKind::Cadence);
    }

    /// The delay before the next check of an id not recorded yet: `recheck_after` doubled per
    /// check, never past the window's end (the last check lands just after it, so "absent"
    /// is said as soon as it is true).
    fn not_yet_delay(&mut self, request_id: &str) -> Duration {
        let (since, checks) = self
            .unknown_since
            .entry(request_id.to_string())
            .or_insert((std::time::Instant::now(), 0));
        let backoff = self
            .config
            .recheck_after
            .saturating_mul(1u32 << (*checks).min(16));
        *checks += 1;
        let left = self.window.0.saturating_sub(since.elapsed());
        backoff.min(left + Duration::from_millis(50))
    }

    fn identity(&mut self, identity: &IdentityState) {
        let before = self.owner.authority().cloned();
        self.owner.identity(identity);
        let Some(now) = self.owner.authority() else {
            return;
        };
        if before.as_ref() == Some(now) {
            return;
        }
        let other_workspace = self
            .loaded_in
            .as_ref()
            .is_some_and(|w| *w != now.scope.workspace);
        if other_workspace {
            // A different workspace never borrows this one's history (G-6).
            self.load();
        } else if self.loaded_in.is_none() {
            self.loaded_in = Some(now.scope.workspace.clone());
        }
    }

    fn returned(
        &mut self,
        myself: &ActorRef<ChatSourceMsg>,
        ret: WorkerReturn<ChatSlot, ChatObservation>,
    ) {
        let admitted_page = match &ret.result {
            Ok(ChatObservation::HistoryPage {
                result: Ok(page), ..
            }) => Some((page.value.has_more, page.value.next_before)),
            _ => None,
        };
        let unknown: Vec<String> = match &ret.result {
            Ok(ChatObservation::Restored { sends, .. }) => sends
                .iter()
                // C-65: one reconciled as far as the server allows is not asked again.
                .filter(|s| {
                    s.now == Some(SaveClass::OutcomeUnknown)
                        && s.marks.settled_reconciliation().is_none()
                })
                .map(|s| s.request_id.clone())
                .collect(),
            _ => Vec::new(),
        };
        let reconciled = match &ret.result {
            Ok(ChatObservation::Reconciled { request_id, result }) => Some((
                request_id.clone(),
                result.needs_recheck(),
                matches!(result, Reconciliation::Found(r)
                    if r.progress.state() == crate::protocol::chat::OperationState::Succeeded),
                matches!(result, Reconciliation::NotYetRecorded { .. }),
            )),
            _ => None,
        };
        let outcome = self.owner.worker_returned(ret);
        if !matches!(outcome, ReturnOutcome::Forwarded { .. }) {
            return;
        }
        if let Some((has_more, next_before)) = admitted_page {
            self.has_more = has_more;
            self.next_before = next_before;
        }
        // Reconciled by exact id; never resent (§11).
        for id in unknown {
            self.reconcile(&id);
        }
        if let Some((request_id, again, confirmed, not_yet)) = reconciled {
            if not_yet {
                let delay = self.not_yet_delay(&request_id);
                myself.send_after(delay, move || ChatSourceMsg::Reconcile {
                    request_id,
                    explicit: false,
                });
            } else if again {
                let n = self.rechecks.entry(request_id.clone()).or_insert(0);
                *n += 1;
                if *n <= self.config.max_rechecks {
                    myself.send_after(self.config.recheck_after, move || {
                        ChatSourceMsg::Reconcile {
                            request_id,
                            explicit: false,
                        }
                    });
                }
            } else {
                self.rechecks.remove(&request_id);
            }
            if confirmed && !self.page_in_flight() {
                // The persisted input and reply are in history now (C-34).
                self.next_before = None;
                self.has_more = false;
                let history = self.history_key();
                self.owner.set_reader(
                    &history,
                    page_reader(
                        self.keeper.clone(),
                        None,
                        self.config.drill_page_panics.clone(),
                    ),
                );
                self.owner.demand(&history, DemandKind::Explicit);
            }
        }
    }
}

pub struct ChatSource;

impl Actor for ChatSource {
    type Msg = ChatSourceMsg;
    type State = ChatSourceState;
    type Arguments = ChatSourceArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ChatSourceMsg>,
        args: ChatSourceArgs,
    ) -> Result<ChatSourceState, ActorProcessingErr> {
        let window = args
            .config
            .unknown_window
            .unwrap_or_else(|| UnknownWindow::for_client(args.client.config()));
        let mut owner = ReadOwner::new(args.outlet, myself, args.client);
        let history = ChatSlot::History {
            keeper: args.keeper.clone(),
        };
        owner.add_slot(SlotSpec {
            generations: args.generations.counter(&history),
            reader: page_reader(
                args.keeper.clone(),
                None,
                args.config.drill_page_panics.clone(),
            ),
            key: history,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
        });
        let autonomous = ChatSlot::Autonomous {
            keeper: args.keeper.clone(),
        };
        owner.add_slot(SlotSpec {
            generations: args.generations.counter(&autonomous),
            reader: autonomous_reader(args.keeper.clone()),
            key: autonomous,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
        });
        let restore = ChatSlot::Restore {
            keeper: args.keeper.clone(),
        };
        owner.add_slot(SlotSpec {
            generations: args.generations.counter(&restore),
            reader: reader(|_auth, _client| async {
                ChatObservation::Restored {
                    sends: Vec::new(),
                    turns: Vec::new(),
                    ended: Default::default(),
                    kept: Box::default(),
                }
            }),
            key: restore,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
        });
        Ok(ChatSourceState {
            keeper: args.keeper,
            outbox: args.outbox,
            config: args.config,
            generations: args.generations,
            owner,
            next_before: None,
            has_more: false,
            loaded_in: None,
            rechecks: HashMap::new(),
            window,
            unknown_since: HashMap::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<ChatSourceMsg>,
        msg: ChatSourceMsg,
        state: &mut ChatSourceState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ChatSourceMsg::Identity(identity) => state.identity(&identity),
            ChatSourceMsg::Load => state.load(),
            ChatSourceMsg::LoadOlder => state.load_older(),
            ChatSourceMsg::Reconcile {
                request_id,
                explicit,
            } => {
                if explicit {
                    state.rechecks.remove(&request_id);
                }
                state.reconcile(&request_id);
            }
            ChatSourceMsg::Returned(ret) => state.returned(&myself, ret),
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<ChatSourceMsg>,
        state: &mut ChatSourceState,
    ) -> Result<(), ActorProcessingErr> {
        state.owner.retire_all("chat_closed");
        Ok(())
    }
}
