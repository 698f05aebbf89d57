//! The open chat in the model: its transcript, its sends, its progress, and the admission of
//! chat observations (sources.md G-2, G-6, G-7; chat-screen.md C-32…C-35, C-39…C-45).
//!
//! Admission order for a chat observation: epoch gate (stale epoch / withdrawn) → the ticket
//! names this pane's Keeper and workspace (else `other_target`) → the ticket is owned by this
//! pane (registered on `Dispatched`, else `withdrawn`) → a send or reconciliation names a
//! request this pane holds and the request its ticket's slot names (else `other_target`).

use crate::actors::chat::{
    ChatObservation, ChatSlot, Reconciliation, RestoredSend, SendOutcome, SendStep, UnknownCause,
};
use crate::actors::contract::Ticket;
use crate::actors::saves::refusal;
use crate::outbox::SaveRowState;
use crate::protocol::admission::WorkspaceId;
use crate::protocol::chat::{
    BatchBinding, ChatHistoryPage, ChatStreamEvent, InteractiveAdmission, OperationProgress,
    OperationState,
};
use crate::protocol::client::ErrorClass;
use crate::protocol::outcome::SaveClass;
use crate::view::admission::{EpochGate, RejectReason};
use crate::view::chat::batch::{self, BatchIndex, Execution};
use crate::view::chat::turn_bind::{KnownTurn, bind_operator_rows};
use crate::view::chat::{
    Entry, EntryKind, FailureOrigin, LiveTurn, PendingState, Speaker, Transcript, TranscriptView,
    settle_unknown_note,
};
use crate::view::composer::RecallList;
use crate::view::theme::Theme;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a send stands, as the screen shows it (C-33: exactly one label while pending).
#[derive(Debug, Clone, PartialEq)]
pub enum SendPhase {
    /// Registered by Enter; not yet on disk.
    Typed,
    /// In the outbox (`전송 대기`).
    Written,
    /// The POST may be on the wire (`전송 중`).
    Sending,
    /// Receipt only: queued, not processed (`처리 대기`).
    Accepted(OperationState),
    /// The run started: the input is part of the conversation now (C-34).
    Running,
    /// The send ended with this outcome.
    Ended(SendOutcome),
    /// Read back from the outbox: sent by an earlier run or an ended send; outcome unknown
    /// until reconciled (`전송 확인 중`).
    Restored,
}

/// What the current turn is doing, for the one progress row (C-39…C-42).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// Run started; no delta yet (`working`, never `THINKING` before a delta: C-39).
    Working,
    Thinking,
    Streaming,
    Tool(String),
}

/// One send of this chat.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingSend {
    /// The operator's text as typed; shared (`Arc`) so the batch index holds the same body,
    /// never a copy (C-37).
    pub text: Arc<str>,
    pub phase: SendPhase,
    /// The last reconciliation of this exact request id.
    pub reconciliation: Option<Reconciliation>,
    /// The input row joined the conversation (run started or confirmed).
    pub promoted: bool,
    pub activity: Option<Activity>,
    /// Length of streamed text not (yet) confirmed as a reply; never shown as a reply.
    pub partial_text_len: usize,
    /// Transcript ids of the streamed text messages of this send.
    partial_ids: Vec<String>,
    /// How many times its cut stream was resumed with `since_seq` (§4.3).
    pub resumes: u32,
    /// A newer MASC's interactive admission of this send (§14.15), as its acceptance said.
    pub admission: Option<InteractiveAdmission>,
}

impl PendingSend {
    fn new(text: Arc<str>, phase: SendPhase) -> Self {
        Self {
            text,
            phase,
            reconciliation: None,
            promoted: false,
            activity: None,
            partial_text_len: 0,
            partial_ids: Vec::new(),
            resumes: 0,
            admission: None,
        }
    }

    /// The outcome is still unknown (interrupted, dropped, restored) and not yet settled by
    /// a reconciliation.
    pub fn outcome_unknown(&self) -> bool {
        let unknown = matches!(
            self.phase,
            SendPhase::Restored | SendPhase::Ended(SendOutcome::OutcomeUnknown { .. })
        );
        let settled = matches!(&self.reconciliation, Some(Reconciliation::Found(r))
            if r.progress.state().is_terminal());
        unknown && !settled
    }

    /// Where an unknown outcome stands: still being reconciled, or reconciled as far as the
    /// server allows (no operation recorded for the id; a MASC without the §4.4 route).
    /// `None` when the outcome is not unknown.
    pub fn unknown_standing(&self) -> Option<UnknownStanding> {
        if !self.outcome_unknown() {
            return None;
        }
        Some(match &self.reconciliation {
            Some(Reconciliation::Absent) => UnknownStanding::NotRecorded,
            Some(Reconciliation::NotServed) => UnknownStanding::Unreconcilable,
            None | Some(Reconciliation::Found(_)) | Some(Reconciliation::Unreadable { .. }) => {
                UnknownStanding::Reconciling
            }
        })
    }

    /// The words of a refused send's error row (C-35: the server's reason included); `None`
    /// unless it ended not sent or not applied.
    pub fn refusal(&self) -> Option<String> {
        match &self.phase {
            SendPhase::Ended(SendOutcome::NotApplied { cause, detail }) => {
                let cause = cause
                    .strip_prefix("status_")
                    .map(|s| format!("HTTP {s}"))
                    .or_else(|| cause.strip_prefix("run_error_").map(str::to_string))
                    .unwrap_or_else(|| cause.clone());
                Some(match detail {
                    Some(reason) => format!(
                        "refused by the server ({cause}): {reason} · not applied, the text is back in the draft"
                    ),
                    None => format!(
                        "refused by the server ({cause}) · not applied, the text is back in the draft"
                    ),
                })
            }
            SendPhase::Ended(SendOutcome::NotSent { cause }) => Some(format!(
                "not sent ({}) · the text is back in the draft",
                refusal::describe(cause)
            )),
            _ => None,
        }
    }

    /// The turn this send's reply was recorded under: the stream's reply details, else the
    /// §4.4 record's `outcome_ref`; `None` when neither said.
    pub fn turn_ref(&self) -> Option<&str> {
        if let SendPhase::Ended(SendOutcome::Completed { reply }) = &self.phase {
            return Some(reply.turn_ref.as_str());
        }
        match &self.reconciliation {
            Some(Reconciliation::Found(r)) => match &r.progress {
                OperationProgress::Succeeded { outcome_ref, .. } => Some(outcome_ref.as_str()),
                OperationProgress::Failed { outcome_ref, .. } => outcome_ref.as_deref(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The pending label of C-33, or `None` once the input left the pending list.
    pub fn pending_state(&self) -> Option<PendingState> {
        if self.promoted {
            return None;
        }
        // Reconciled as far as the server allows: nothing is being confirmed any more, so no
        // pending label (C-33); the send's own status row says where it stands.
        if matches!(
            self.unknown_standing(),
            Some(UnknownStanding::NotRecorded | UnknownStanding::Unreconcilable)
        ) {
            return None;
        }
        if self.outcome_unknown() {
            return match &self.reconciliation {
                Some(Reconciliation::Found(r)) if r.progress.state() == OperationState::Queued => {
                    Some(PendingState::WaitingToProcess)
                }
                _ => Some(PendingState::ConfirmingDelivery),
            };
        }
        match &self.phase {
            SendPhase::Typed | SendPhase::Written => Some(PendingState::WaitingToSend),
            SendPhase::Sending => Some(PendingState::Sending),
            SendPhase::Accepted(_) => Some(PendingState::WaitingToProcess),
            SendPhase::Running | SendPhase::Ended(_) | SendPhase::Restored => None,
        }
    }
}

/// Where one send with an unknown outcome stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownStanding {
    /// Its exact request id is being read (or will be read again).
    Reconciling,
    /// The server holds no operation with its id (§4.4 404): not recorded; never resent.
    NotRecorded,
    /// This MASC does not serve the §4.4 route: it cannot be reconciled here.
    Unreconcilable,
}

impl UnknownStanding {
    /// The words of the send's status row once nothing more will confirm it (`None` while
    /// it is still being reconciled: the pending label `전송 확인 중` says that).
    pub fn words(self) -> Option<String> {
        match self {
            Self::Reconciling => None,
            Self::NotRecorded => Some(
                "not recorded by the server, not resent · the text is back in the draft".into(),
            ),
            Self::Unreconcilable => Some(
                "outcome unknown, not resent · this MASC cannot confirm it · the text is back in the draft"
                    .into(),
            ),
        }
    }
}

/// The sends of the chat target whose outcome is unknown, by where they stand (C-44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unconfirmed {
    pub reconciling: usize,
    pub not_recorded: usize,
    pub unreconcilable: usize,
}

impl Unconfirmed {
    pub fn total(&self) -> usize {
        self.reconciling + self.not_recorded + self.unreconcilable
    }
}

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
        self.sends.insert(
            request_id.to_string(),
            PendingSend::new(Arc::from(text), SendPhase::Typed),
        );
        self.sync_entry(request_id);
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

    /// Applies an admitted observation.
    pub fn apply(&mut self, ticket: &Ticket<ChatSlot>, obs: ChatObservation) {
        match obs {
            ChatObservation::HistoryPage { before, result } => {
                self.owned.remove(ticket);
                match (before, result) {
                    (None, Ok(page)) => self.newest_page(&page.value),
                    (None, Err(err)) => {
                        if self.history != HistoryState::Ready {
                            self.history = HistoryState::Failed { class: err.class() };
                        }
                    }
                    (Some(_), Ok(page)) => {
                        self.loading_older = false;
                        self.older_failure = None;
                        self.has_more = page.value.has_more;
                        let keeper = self.keeper.clone();
                        self.view()
                            .transcript_mut()
                            .prepend_history(&page.value.messages, &keeper);
                    }
                    (Some(_), Err(err)) => {
                        self.loading_older = false;
                        self.older_failure = Some(err.class());
                    }
                }
            }
            ChatObservation::Restored { sends } => {
                self.owned.remove(ticket);
                for restored in sends {
                    self.restore(restored);
                }
            }
            ChatObservation::Send { request_id, step } => {
                if matches!(step, SendStep::Ended(_)) {
                    self.owned.remove(ticket);
                }
                if let SendStep::Event(ChatStreamEvent::BatchBound(binding)) = &step {
                    self.bind_batch(ticket.slot.keeper(), binding);
                }
                self.step(&request_id, step);
            }
            ChatObservation::Reconciled { request_id, result } => {
                self.owned.remove(ticket);
                if let Some(send) = self.sends.get_mut(&request_id) {
                    // Issue 13 (defect 5): an unknown outcome settled by its record reads as
                    // what the record says (cancelled, failed, confirmed).
                    if send.outcome_unknown()
                        && let Reconciliation::Found(r) = &result
                    {
                        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                        settle_unknown_note(view.transcript_mut(), &request_id, &r.progress);
                    }
                    // Reconciled as far as the server allows (no record; no route): nothing
                    // will confirm it, so its text goes back to the draft once (never resent).
                    let ended_here =
                        matches!(result, Reconciliation::Absent | Reconciliation::NotServed)
                            && !matches!(
                                send.reconciliation,
                                Some(Reconciliation::Absent | Reconciliation::NotServed)
                            );
                    if send.outcome_unknown()
                        && ended_here
                        && let Some(workspace) = &self.workspace
                    {
                        self.effects.push(ChatEffect::RestoreDraft {
                            workspace: workspace.0.clone(),
                            keeper: self.keeper.clone(),
                            text: send.text.to_string(),
                        });
                    }
                    if let Reconciliation::Found(r) = &result
                        && matches!(
                            r.progress.state(),
                            OperationState::Running
                                | OperationState::Succeeded
                                | OperationState::Failed
                                | OperationState::Cancelled
                        )
                    {
                        // The run started (or ended): the input was processed (C-34).
                        send.promoted = true;
                    }
                    send.reconciliation = Some(result);
                }
                self.sync_entry(&request_id);
            }
            // Turn control receipts land in the chat surface's books (`control::sync`).
            ChatObservation::Control(_) => {}
        }
    }

    fn newest_page(&mut self, page: &ChatHistoryPage) {
        self.history = HistoryState::Ready;
        self.has_more = page.has_more;
        self.older_failure = None;
        let mut transcript = Transcript::new();
        transcript.extend_history(&page.messages, &self.keeper);
        // C-50: the operator's row keeps the rail its live twin had, where the evidence is exact.
        let known: Vec<KnownTurn<'_>> = self
            .sends
            .iter()
            .filter_map(|(id, s)| {
                s.turn_ref().map(|turn_ref| KnownTurn {
                    request_id: id,
                    text: &s.text,
                    turn_ref,
                })
            })
            .collect();
        bind_operator_rows(&mut transcript, &known);
        // A fresh view: the newest window replaces everything shown (older pages included).
        *self.view() = TranscriptView::new(transcript, self.theme);
        self.live.clear();
        // Processed inputs are in the history now; only the pending ones are re-added, and
        // the rows of sends the history never holds: a refusal (C-8: failure rows never
        // fold) and an outcome reconciled as far as the server allows.
        let ids: Vec<String> = self
            .sends
            .iter()
            .filter(|(_, s)| {
                s.pending_state().is_some()
                    || s.refusal().is_some()
                    || s.unknown_standing().is_some()
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.sync_entry(&id);
        }
        // An admission's interrupt error is never in the history: it stays (C-44). Only its
        // rows: the input itself is in the history now.
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        for (id, send) in &self.sends {
            if let Some(block) = send
                .admission
                .as_ref()
                .filter(|b| b.interrupt_error.is_some())
            {
                for row in super::admission::rows(id, block) {
                    if matches!(row.kind, EntryKind::Failure(_)) && t.get(&row.id).is_none() {
                        t.upsert(row);
                    }
                }
            }
        }
    }

    fn restore(&mut self, restored: RestoredSend) {
        let phase = match (restored.live, restored.now) {
            (Some(ticket), _) => {
                self.owned.insert(ticket);
                match restored.stored {
                    SaveRowState::Written => SendPhase::Written,
                    SaveRowState::Sending => SendPhase::Sending,
                    _ => SendPhase::Accepted(OperationState::Queued),
                }
            }
            // An earlier run stopped before it left: nothing reached the Keeper.
            (None, Some(SaveClass::NotSent)) => SendPhase::Ended(SendOutcome::NotSent {
                cause: refusal::RESTORED_UNSENT.into(),
            }),
            (None, _) => SendPhase::Restored,
        };
        if let SendPhase::Ended(outcome) = &phase
            && outcome.keeps_draft()
            && !self.sends.contains_key(&restored.request_id)
            && let Some(workspace) = &self.workspace
        {
            self.effects.push(ChatEffect::RestoreDraft {
                workspace: workspace.0.clone(),
                keeper: self.keeper.clone(),
                text: restored.text.clone(),
            });
        }
        let entry = self
            .sends
            .entry(restored.request_id.clone())
            .or_insert_with(|| PendingSend::new(Arc::from(restored.text.as_str()), phase.clone()));
        if !matches!(entry.phase, SendPhase::Ended(_)) {
            entry.phase = phase;
        }
        self.sync_entry(&restored.request_id);
    }

    fn step(&mut self, request_id: &str, step: SendStep) {
        let keeper = self.keeper.clone();
        let workspace = self
            .workspace
            .as_ref()
            .map(|w| w.0.clone())
            .unwrap_or_default();
        let Some(send) = self.sends.get_mut(request_id) else {
            return;
        };
        let mut promote = false;
        match step {
            SendStep::Written => send.phase = SendPhase::Written,
            SendStep::Sending => send.phase = SendPhase::Sending,
            SendStep::Accepted { state, interactive } => {
                send.phase = SendPhase::Accepted(state);
                if let Some(block) = &interactive {
                    self.effects.push(ChatEffect::ControlToken {
                        workspace: workspace.clone(),
                        keeper: keeper.clone(),
                        token: block.chat_control_token.clone(),
                    });
                }
                send.admission = interactive;
                promote = state != OperationState::Queued;
                // A steered input that runs at once has nothing to steer past.
                if self.steer_wanted.remove(request_id) && state == OperationState::Queued {
                    self.effects.push(ChatEffect::Steer {
                        keeper: keeper.clone(),
                        request_id: request_id.to_string(),
                    });
                }
            }
            // The cut stream continues (§4.3): the turn's rows stay as they are; the events
            // after `since_seq` follow, each admitted once.
            SendStep::Resumed { .. } => send.resumes += 1,
            SendStep::Event(event) => {
                match &event {
                    ChatStreamEvent::RunStarted => {
                        send.phase = SendPhase::Running;
                        send.activity = Some(Activity::Working);
                        promote = true;
                    }
                    ChatStreamEvent::ThinkingDelta { delta: Some(_) } => {
                        send.activity = Some(Activity::Thinking);
                    }
                    ChatStreamEvent::TextDelta { delta, .. } => {
                        send.activity = Some(Activity::Streaming);
                        send.partial_text_len += delta.len();
                    }
                    ChatStreamEvent::TextEnd { .. } | ChatStreamEvent::ToolCallEnd { .. } => {
                        // C-41: all chunks closed does not mean the response ended.
                        send.activity = Some(Activity::Working);
                    }
                    ChatStreamEvent::TextStart { message_id } => {
                        send.partial_ids.push(message_id.clone());
                    }
                    ChatStreamEvent::ToolCallStart { tool_call_name, .. } => {
                        send.activity = Some(Activity::Tool(tool_call_name.clone()));
                    }
                    _ => {}
                }
                let turn = self
                    .live
                    .entry(request_id.to_string())
                    .or_insert_with(|| LiveTurn::new(request_id, keeper.clone()));
                let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                turn.apply(view.transcript_mut(), &event, now_unix());
            }
            SendStep::Ended(outcome) => {
                send.activity = None;
                match &outcome {
                    SendOutcome::Completed { .. } | SendOutcome::Failed { .. } => promote = true,
                    SendOutcome::Replayed { state } => promote = *state != OperationState::Queued,
                    SendOutcome::NotSent { .. } | SendOutcome::NotApplied { .. } => {
                        self.effects.push(ChatEffect::RestoreDraft {
                            workspace,
                            keeper,
                            text: send.text.to_string(),
                        });
                    }
                    SendOutcome::OutcomeUnknown { cause, .. } => {
                        self.effects.push(ChatEffect::Reconcile {
                            keeper: keeper.clone(),
                            request_id: request_id.to_string(),
                        });
                        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                        let t = view.transcript_mut();
                        // Partial text of a turn without a terminal event is never a reply:
                        // its rows go; a status row says what happened.
                        for id in &send.partial_ids {
                            t.remove(id);
                        }
                        let note = match cause {
                            UnknownCause::ProtocolError { reason } => Entry::new(
                                format!("{request_id}:protocol"),
                                Speaker::System,
                                EntryKind::Failure(FailureOrigin::Other("protocol".into())),
                                format!("chat stream refused ({reason}) · outcome unknown"),
                            ),
                            _ => Entry::new(
                                format!("{request_id}:interrupted"),
                                Speaker::System,
                                EntryKind::Status,
                                format!(
                                    "interrupted ({}) · {} bytes of partial text not kept · outcome unknown",
                                    cause.class(),
                                    send.partial_text_len
                                ),
                            ),
                        };
                        t.upsert(note.with_request(request_id));
                    }
                }
                if let SendOutcome::Completed { reply } = &outcome
                    && let Some(last) = send.partial_ids.last()
                {
                    // Only the reply details count as the Keeper's reply (§4.3).
                    let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                    let text = reply.reply.clone();
                    view.transcript_mut().update(last, |e| {
                        e.text = text;
                        e.refresh_reports();
                    });
                }
                send.phase = SendPhase::Ended(outcome);
            }
        }
        if promote {
            send.promoted = true;
        }
        self.sync_entry(request_id);
    }

    /// Keeps the transcript rows of one send in step with its state: a pending row while
    /// pending (C-32/C-33), the operator's row once processed (C-34), an error row for a
    /// refusal (C-35).
    fn sync_entry(&mut self, request_id: &str) {
        let Some(send) = self.sends.get(request_id) else {
            return;
        };
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        let input_id = format!("{request_id}:input");
        let refused_id = format!("{request_id}:refused");
        // §14.15: the admission's notice (a status, never speech) and an interrupt error
        // (always visible, C-44), written only when they change.
        for row in send
            .admission
            .as_ref()
            .map(|b| super::admission::rows(request_id, b))
            .unwrap_or_default()
        {
            if t.get(&row.id).is_none_or(|e| e.text != row.text) {
                t.upsert(row);
            }
        }
        if let Some(state) = send.pending_state() {
            let kind = EntryKind::PendingInput {
                state,
                rejection: None,
            };
            if t.get(request_id).is_some() {
                t.update(request_id, |e| e.kind = kind);
            } else {
                t.upsert(
                    Entry::new(request_id, Speaker::Operator, kind, send.text.to_string())
                        .with_request(request_id),
                );
            }
            return;
        }
        t.remove(request_id);
        if let Some(words) = send.unknown_standing().and_then(UnknownStanding::words) {
            // C-44: a status (`○`), never the error mark: the outcome is unknown, not failed.
            let row = Entry::new(
                format!("{request_id}:unconfirmed"),
                Speaker::System,
                EntryKind::Status,
                words,
            )
            .with_request(request_id);
            if t.get(&row.id).is_none_or(|e| e.text != row.text) {
                t.upsert(row);
            }
        }
        if send.promoted {
            if t.get(&input_id).is_none() {
                t.upsert(
                    Entry::new(
                        input_id,
                        Speaker::Operator,
                        EntryKind::Utterance,
                        send.text.to_string(),
                    )
                    .with_ts(now_unix())
                    .with_request(request_id)
                    .with_turn(request_id),
                );
            }
        } else if let Some(words) = send.refusal()
            && t.get(&refused_id).is_none()
        {
            // C-35: the refusal and the server's reason in an error row of its own.
            t.upsert(
                Entry::new(
                    refused_id,
                    Speaker::System,
                    EntryKind::Failure(FailureOrigin::Rejected),
                    words,
                )
                .with_request(request_id),
            );
        }
    }

    /// C-37: the input a binding names joins its execution by the triple (request id, this
    /// chat's Keeper, its body); a binding on another Keeper's stream, or naming no input of
    /// this chat, is counted and traced, never attached.
    fn bind_batch(&mut self, stream_keeper: &str, binding: &BatchBinding) {
        let (execution, operation) = (&binding.execution_id, &binding.operation_id);
        if stream_keeper != self.keeper {
            self.batches
                .refuse(batch::Refused::OtherKeeper, execution, operation);
            return;
        }
        match self.sends.get(operation) {
            Some(send) => {
                self.batches
                    .bind(execution, operation, &self.keeper, &send.text);
            }
            None => self
                .batches
                .refuse(batch::Refused::UnknownRequest, execution, operation),
        }
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
                UnknownStanding::NotRecorded => unconfirmed.not_recorded += 1,
                UnknownStanding::Unreconcilable => unconfirmed.unreconcilable += 1,
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
