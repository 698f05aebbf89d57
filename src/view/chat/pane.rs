//! The open chat in the model: its state, the admission of chat observations and its progress
//! row (sources.md G-2, G-6, G-7; chat-screen.md C-39…C-45). Its sends are in `send`, applying
//! an admitted observation in `apply`, a send's steps into transcript rows in `steps`.
//!
//! Admission order for a chat observation: epoch gate (stale epoch / withdrawn) → the ticket
//! names this pane's Keeper and workspace (else `other_target`) → the ticket is owned by this
//! pane (registered on `Dispatched`, else `withdrawn`) → a send or reconciliation names a
//! request this pane holds and the request its ticket's slot names (else `other_target`).

use crate::actors::chat::{ChatObservation, ChatSlot};
use crate::actors::contract::Ticket;
use crate::protocol::admission::WorkspaceId;
use crate::protocol::chat::{ChatHistoryRow, RowCounts};
use crate::protocol::client::ErrorClass;
use crate::view::admission::{EpochGate, RejectReason};
use crate::view::chat::batch::{BatchIndex, Execution};
use crate::view::composer::RecallList;
use crate::view::theme::Theme;
use crate::view::transcript::{EntryKind, LiveTurn, Speaker, Transcript, TranscriptView};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

mod apply;
mod send;
mod steps;
mod turn_end;

pub use send::{Activity, PendingSend, SendPhase, Unconfirmed, UnknownStanding};

/// The one progress row (C-40): the chat target's current call and response state only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    Idle,
    /// Typed or in the outbox, not yet on the wire (`전송 대기`, the pending label's words).
    Waiting,
    Sending,
    /// Accepted, waiting for the Keeper (receipt is not processing: C-34). Drawn as no
    /// progress line: the pending label `처리 대기` already says it (C-42, C-54, C-55).
    Queued,
    Active(Activity),
    /// An interrupt is asked and its stop not yet confirmed by the stream or the record.
    Stopping,
    /// Unconfirmed send results (always visible, C-44).
    Unconfirmed(Unconfirmed),
}

/// The newest-window history state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryState {
    Loading,
    Ready,
    /// The first page failed (G-5: never an empty chat).
    Failed {
        class: ErrorClass,
    },
}

/// The autonomous turns of the bare-array history (§15.9), read once per open.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum AutonomousTurns {
    #[default]
    NotRead,
    /// The autonomous rows, server order; each joins the transcript by time once the shown
    /// history reaches back to it.
    Read(Vec<ChatHistoryRow>),
    /// This MASC does not serve the bare-array route.
    NotServed,
    /// The read failed; rows read before stay (`Read` is replaced only by a success).
    Failed {
        class: ErrorClass,
        last: Vec<ChatHistoryRow>,
    },
}

impl AutonomousTurns {
    fn rows(&self) -> &[ChatHistoryRow] {
        match self {
            Self::Read(rows) | Self::Failed { last: rows, .. } => rows,
            Self::NotRead | Self::NotServed => &[],
        }
    }
}

/// Side effects the view actor applies to UI state after an observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatEffect {
    /// Nothing reached the Keeper: the text goes back to that chat's draft.
    RestoreDraft {
        workspace: String,
        keeper: String,
        text: String,
    },
    /// A send of this chat ended "outcome unknown": its chat source reconciles the exact
    /// request id (§4.4); nothing is resent.
    Reconcile { keeper: String, request_id: String },
    /// Record a fact about a send durably (C-65: a text given back to the draft is never
    /// given back again, after a reopen or a restart either).
    Mark {
        request_id: String,
        mark: crate::actors::chat::ChatMark,
    },
    /// A `/steer` input was accepted as queued: ask that it run next (§14.14).
    Steer { keeper: String, request_id: String },
    /// An acceptance's interactive block carried a fresh chat control token (§14.15).
    ControlToken {
        workspace: String,
        keeper: String,
        token: String,
    },
}

/// The open chat.
pub struct ChatPane {
    pub keeper: String,
    /// The workspace the chat was opened in (`None` before any confirmation).
    pub workspace: Option<WorkspaceId>,
    theme: Theme,
    view: Mutex<TranscriptView>,
    owned: HashSet<Ticket<ChatSlot>>,
    pub history: HistoryState,
    pub has_more: bool,
    pub loading_older: bool,
    /// The last older-page failure (the rows already shown stay, A-3 style).
    pub older_failure: Option<ErrorClass>,
    /// Sends by request id (`tui-<uuidv7>` sorts by time).
    pub sends: BTreeMap<String, PendingSend>,
    live: HashMap<String, LiveTurn>,
    effects: Vec<ChatEffect>,
    /// An interrupt of this chat's turn is asked and not yet confirmed (`control::sync`).
    pub stopping: bool,
    /// `/steer` inputs waiting for their acceptance: queued ones are asked to run next.
    steer_wanted: HashSet<String>,
    /// Which inputs run together in one execution (C-37; `super::batch`).
    pub batches: BatchIndex,
    /// What the history pages read held besides their rows (§15.9: dropped rows, unknown roles
    /// and kinds, ignored identity pairs), newest window plus the older pages read since.
    pub row_counts: RowCounts,
    pub autonomous: AutonomousTurns,
    /// Held calls this chat's streams announced (`KEEPER_TOOL_APPROVAL_REQUESTED`, §15.9),
    /// by tool call id: a hint until the §14.5 list shows the call.
    pub(crate) hinted_calls: HashSet<String>,
    /// This Keeper's earlier sends whose reply turn the outbox kept (C-50: a reopened chat
    /// binds the operator's persisted rows to their turns as the live chat did).
    known_turns: Vec<crate::actors::chat::SentTurn>,
    /// How the turns of this Keeper's earlier sends ended, kept in the outbox (C-44: a stop
    /// confirmed before a reopen stays confirmed).
    pub(crate) ended: HashMap<String, String>,
    /// The tool call ids the streams of this Keeper's earlier sends announced, kept in the
    /// outbox: their history rows say how the send's turn ended.
    kept_calls: HashMap<String, Vec<String>>,
}

impl std::fmt::Debug for ChatPane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatPane")
            .field("keeper", &self.keeper)
            .field("workspace", &self.workspace)
            .field("history", &self.history)
            .field("sends", &self.sends.len())
            .finish()
    }
}

fn now_unix() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The time a request id was made (`tui-<uuidv7>`: its first 48 bits are unix milliseconds),
/// in unix seconds: the own time of every row this client makes for that send (C-31).
/// `None` for an id not of that form.
pub fn request_time(request_id: &str) -> Option<f64> {
    uuid_time(request_id.strip_prefix("tui-")?)
}

/// The time a save id was made (`save-<uuidv7>`, or a request id): the own time of a turn
/// control row (C-31). `None` for an id not of either form.
pub fn save_time(save_id: &str) -> Option<f64> {
    match save_id.strip_prefix("save-") {
        Some(uuid) => uuid_time(uuid),
        None => request_time(save_id),
    }
}

fn uuid_time(uuid: &str) -> Option<f64> {
    let uuid = uuid::Uuid::parse_str(uuid).ok()?;
    let (secs, nanos) = uuid.get_timestamp()?.to_unix();
    Some(secs as f64 + f64::from(nanos) / 1e9)
}

impl ChatPane {
    pub fn new(keeper: impl Into<String>, workspace: Option<WorkspaceId>, theme: Theme) -> Self {
        Self {
            keeper: keeper.into(),
            workspace,
            theme,
            view: Mutex::new(TranscriptView::new(Transcript::new(), theme)),
            owned: HashSet::new(),
            history: HistoryState::Loading,
            has_more: false,
            loading_older: false,
            older_failure: None,
            sends: BTreeMap::new(),
            live: HashMap::new(),
            effects: Vec::new(),
            stopping: false,
            steer_wanted: HashSet::new(),
            batches: BatchIndex::default(),
            row_counts: RowCounts::default(),
            autonomous: AutonomousTurns::NotRead,
            hinted_calls: HashSet::new(),
            known_turns: Vec::new(),
            ended: HashMap::new(),
            kept_calls: HashMap::new(),
        }
    }

    /// The transcript view (painting needs `&mut`; the model is shared read-only).
    pub fn view(&self) -> MutexGuard<'_, TranscriptView> {
        self.view.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn send(&self, request_id: &str) -> Option<&PendingSend> {
        self.sends.get(request_id)
    }

    pub fn owns(&self, ticket: &Ticket<ChatSlot>) -> bool {
        self.owned.contains(ticket)
    }

    pub fn take_effects(&mut self) -> Vec<ChatEffect> {
        std::mem::take(&mut self.effects)
    }

    /// This Keeper's inputs for recall (C-65): pending sends first, then the operator's
    /// utterances in the transcript (history and this session's confirmed sends).
    pub fn recall_list(&self) -> RecallList {
        let pending: Vec<&str> = self
            .sends
            .values()
            .filter(|s| s.pending_state().is_some())
            .map(|s| &*s.text)
            .collect();
        let view = self.view();
        let sent: Vec<&str> = view
            .transcript()
            .entries()
            .iter()
            .filter(|e| e.speaker == Speaker::Operator && e.kind == EntryKind::Utterance)
            .map(|e| e.text.as_str())
            .collect();
        RecallList::new(pending.into_iter(), sent.into_iter())
    }

    /// Enter: the operator's text, before any actor has it (`전송 대기`).
    pub fn register_send(&mut self, request_id: &str, text: &str) {
        self.register_attempt(request_id, text, 0);
    }

    /// Enter on a text taken back unchanged: the same request id, its `attempt`-th send.
    pub fn register_attempt(&mut self, request_id: &str, text: &str, attempt: u32) {
        let mut send = PendingSend::new(Arc::from(text), SendPhase::Typed);
        send.attempt = attempt;
        self.sends.insert(request_id.to_string(), send);
        self.view()
            .transcript_mut()
            .remove(&format!("{request_id}:unconfirmed"));
        self.sync_entry(request_id);
    }

    /// `Ctrl-O`: the newest send nothing more will confirm is marked taken back; its text.
    pub fn take_back(&mut self) -> Option<String> {
        let (id, send) = self
            .sends
            .iter_mut()
            .rev()
            .find(|(_, s)| s.may_take_back())?;
        send.taken_back = true;
        let (id, text) = (id.clone(), send.text.to_string());
        self.effects.push(ChatEffect::Mark {
            request_id: id.clone(),
            mark: crate::actors::chat::ChatMark::DraftReturned,
        });
        self.sync_entry(&id);
        Some(text)
    }

    /// Gives a send's text back to its chat's draft, once: the fact is recorded durably, so a
    /// reopen or a restart never gives it back again (C-65).
    fn give_back(&mut self, request_id: &str, text: String) {
        let Some(workspace) = &self.workspace else {
            return;
        };
        self.effects.push(ChatEffect::RestoreDraft {
            workspace: workspace.0.clone(),
            keeper: self.keeper.clone(),
            text,
        });
        self.effects.push(ChatEffect::Mark {
            request_id: request_id.to_string(),
            mark: crate::actors::chat::ChatMark::DraftReturned,
        });
    }

    /// The request id (and its last attempt) of a send taken back with exactly `text`: sent
    /// again unchanged it is the same send.
    pub fn taken_back(&self, text: &str) -> Option<(&str, u32)> {
        self.sends
            .iter()
            .rev()
            .find(|(_, s)| s.taken_back && &*s.text == text)
            .map(|(id, s)| (id.as_str(), s.attempt))
    }

    /// `/steer`: once `request_id` is accepted as queued, ask that it run next (§14.14).
    pub fn want_steer(&mut self, request_id: &str) {
        self.steer_wanted.insert(request_id.to_string());
    }

    /// A registered send that never reached any actor: gone from the pane and its transcript.
    pub fn forget(&mut self, request_id: &str) {
        self.sends.remove(request_id);
        self.view().transcript_mut().remove(request_id);
    }

    /// `Dispatched`: the ticket of a read or send of this chat now belongs to the pane.
    pub fn dispatched(&mut self, ticket: &Ticket<ChatSlot>, gate: &EpochGate) -> bool {
        if gate.check(ticket).is_err() || ticket.slot.keeper() != self.keeper {
            return false;
        }
        self.owned.insert(ticket.clone())
    }

    pub fn retired(&mut self, ticket: &Ticket<ChatSlot>) -> bool {
        let was = self.owned.remove(ticket);
        if was && self.loading_older {
            self.loading_older = false;
        }
        was
    }

    /// Epoch withdrawn or renewed: reads in flight lose their ownership (G-6).
    pub fn withdraw(&mut self) -> bool {
        let changed = !self.owned.is_empty();
        self.owned.clear();
        self.loading_older = false;
        changed
    }

    /// A different workspace opened: this one's history and sends are never shown there.
    pub fn reset_for(&mut self, workspace: WorkspaceId) {
        let keeper = std::mem::take(&mut self.keeper);
        let theme = self.theme;
        *self = Self::new(keeper, Some(workspace), theme);
    }

    /// The admission verdict of a chat observation (G-2, G-7).
    ///
    /// A send's steps are a save's (K-1, H-15, H-16): bound to this chat's Keeper and
    /// workspace and to a request this pane holds, they land whatever the epoch became since
    /// the send was submitted (a renewed epoch withdraws reads, not receipts), and its receipt
    /// lands once (`superseded` after it).
    pub fn judge(
        &mut self,
        ticket: &Ticket<ChatSlot>,
        obs: &ChatObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        if let ChatSlot::Send { .. } = &ticket.slot {
            return self.judge_send(ticket, obs);
        }
        gate.check(ticket)?;
        if ticket.slot.keeper() != self.keeper
            || self
                .workspace
                .as_ref()
                .is_some_and(|w| *w != ticket.scope.workspace)
        {
            return Err(RejectReason::OtherTarget);
        }
        if !self.owned.contains(ticket) {
            return Err(RejectReason::Withdrawn);
        }
        // A send or reconciliation result must name the request its slot is bound to, and a
        // request this pane holds; a history or restore slot never carries one.
        if obs.request_id() != ticket.slot.request_id() {
            return Err(RejectReason::OtherTarget);
        }
        if let Some(request_id) = obs.request_id()
            && !self.sends.contains_key(request_id)
        {
            return Err(RejectReason::OtherTarget);
        }
        Ok(())
    }

    fn judge_send(
        &self,
        ticket: &Ticket<ChatSlot>,
        obs: &ChatObservation,
    ) -> Result<(), RejectReason> {
        let same_chat = ticket.slot.keeper() == self.keeper
            && self.workspace.as_ref() == Some(&ticket.scope.workspace);
        let request = obs
            .request_id()
            .filter(|id| Some(*id) == ticket.slot.request_id());
        let (true, Some(request)) = (same_chat, request) else {
            return Err(RejectReason::OtherTarget);
        };
        match self.sends.get(request) {
            None => Err(RejectReason::OtherTarget),
            Some(send) if matches!(send.phase, SendPhase::Ended(_)) => {
                Err(RejectReason::Superseded)
            }
            Some(_) => Ok(()),
        }
    }

    /// Places the autonomous turns the shown history reaches back to (all of them once the
    /// history is exhausted); the others wait for older pages (§15.9: joined by id, never
    /// duplicated, never placed above rows older than they are).
    pub(super) fn place_autonomous(&mut self) {
        let everything = !self.has_more && self.history == HistoryState::Ready;
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        let oldest = t.oldest_ts();
        let due: Vec<&ChatHistoryRow> = self
            .autonomous
            .rows()
            .iter()
            .filter(|r| everything || matches!((r.ts, oldest), (Some(ts), Some(o)) if ts >= o))
            .collect();
        t.place_by_time(&due, &self.keeper);
    }

    /// What the title says about the history beyond its rows (§15.9): rows the pages held that
    /// are not drawn as speech, and the autonomous turns when they could not be read. Empty
    /// when there is nothing to say.
    pub fn history_facts(&self) -> String {
        let c = self.row_counts;
        let mut parts: Vec<String> = Vec::new();
        if c.dropped > 0 {
            parts.push(format!("{} unreadable rows not shown", c.dropped));
        }
        let neutral = c.unknown_role + c.unknown_kind;
        if neutral > 0 {
            parts.push(format!(
                "{neutral} rows of an unknown role or kind in the memory lane (Ctrl-N)"
            ));
        }
        if c.identity_ignored > 0 {
            parts.push(format!(
                "{} delivery identities ignored (unpaired)",
                c.identity_ignored
            ));
        }
        match &self.autonomous {
            AutonomousTurns::NotServed => {
                parts.push("autonomous turns not served by this MASC".into())
            }
            AutonomousTurns::Failed { class, .. } => {
                parts.push(format!("autonomous turns failed: {class}"))
            }
            AutonomousTurns::NotRead | AutonomousTurns::Read(_) => {}
        }
        parts.iter().map(|p| format!(" · {p}")).collect()
    }

    /// The execution the send drawn on the progress line runs in, when it runs together with
    /// other inputs of this chat (C-37, C-42: one progress line for the whole run).
    pub fn current_batch(&self) -> Option<&Execution> {
        let (id, send) = self.current()?;
        self.batches
            .execution_of(id, &self.keeper, &send.text)
            .filter(|e| e.members.len() > 1)
    }

    /// The send the progress line follows: the run that runs, else the newest open send.
    fn current(&self) -> Option<(&str, &PendingSend)> {
        let open = || {
            self.sends
                .iter()
                .rev()
                .filter(|(_, s)| !matches!(s.phase, SendPhase::Ended(_) | SendPhase::Restored))
        };
        open()
            .find(|(_, s)| s.activity.is_some() || s.phase == SendPhase::Running)
            .or_else(|| open().next())
            .map(|(id, s)| (id.as_str(), s))
    }

    /// The progress row of the chat target (C-39…C-42, C-44).
    pub fn progress(&self) -> Progress {
        let mut unconfirmed = Unconfirmed::default();
        for standing in self
            .sends
            .values()
            .filter_map(PendingSend::unknown_standing)
        {
            match standing {
                UnknownStanding::Reconciling => unconfirmed.reconciling += 1,
                UnknownStanding::NotRecorded { .. } => unconfirmed.not_recorded += 1,
                UnknownStanding::Unreconcilable { .. } => unconfirmed.unreconcilable += 1,
            }
        }
        // C-42: the run that runs draws the progress line; a request waiting behind it for its
        // continuation (typed, sending or queued later) draws none and never hides it. With no
        // run running, the newest open send says where it stands.
        let current = self.current().map(|(_, s)| s);
        if self.stopping {
            return Progress::Stopping;
        }
        match current.map(|s| (&s.phase, &s.activity)) {
            Some((_, Some(activity))) => Progress::Active(activity.clone()),
            Some((SendPhase::Typed | SendPhase::Written, _)) => Progress::Waiting,
            Some((SendPhase::Sending, _)) => Progress::Sending,
            Some((SendPhase::Accepted(_), _)) => Progress::Queued,
            Some((SendPhase::Running, None)) => Progress::Active(Activity::Working),
            _ if unconfirmed.total() > 0 => Progress::Unconfirmed(unconfirmed),
            _ => Progress::Idle,
        }
    }
}
