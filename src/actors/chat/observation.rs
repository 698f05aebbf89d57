//! What the chat actors tell the view, and what the view asks of them.
//!
//! Every [`ChatObservation`] is posted to the chat inbox with a ticket naming its [`ChatSlot`]
//! (the Keeper, and for sends and reconciliations the exact request id), a generation of that
//! slot and the read scope; the view admits it only for the chat it has open, in the current
//! epoch, from a ticket it owns, and for the request its slot names (G-2, G-7).

use super::interrupt::TurnInterrupt;
use super::steer::TurnSteer;
use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceControl, SourceKey, Ticket};
use crate::actors::saves::{SAVES, SaveEvent};
use crate::outbox::SaveRowState;
use crate::protocol::chat::{
    ChatHistoryArray, ChatHistoryPage, ChatOperationRecord, ChatStreamEvent, InteractiveAdmission,
    OperationState, ReplyDetails,
};
use crate::protocol::outcome::SaveClass;

/// The chat hub (supervision key): spawns one chat source per open Keeper. Sends are saves
/// (`crate::actors::saves`, kind [`super::ChatSend`]).
pub const CHAT_HUB: SourceKey = SourceKey("chat_hub");

/// The slots of the chat surface: each read of one Keeper's chat is its own slot (a history
/// page, the outbox restore, the reconciliation of one request id, one send), so a panicking
/// or late worker of one never holds another (G-7).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ChatSlot {
    /// History pages (§4.5): at most one page read in flight.
    History { keeper: String },
    /// The bare-array history (§15.9), read once per open for the autonomous turns the pages
    /// do not carry.
    Autonomous { keeper: String },
    /// The outbox restore on open.
    Restore { keeper: String },
    /// Reconciliation of one exact request id (§4.4).
    Reconcile { keeper: String, request_id: String },
    /// One send (§4.3): a save of kind `chat_send`, run by the save hub.
    Send { keeper: String, request_id: String },
    /// One turn control save (§14.13 interrupt, §14.14 steer), run by the save hub; `kind`
    /// is the save kind's name (`turn_interrupt`, `turn_steer`).
    Control {
        keeper: String,
        kind: &'static str,
        save_id: crate::actors::saves::SaveId,
    },
}

impl ChatSlot {
    pub fn keeper(&self) -> &str {
        match self {
            Self::History { keeper }
            | Self::Autonomous { keeper }
            | Self::Restore { keeper }
            | Self::Reconcile { keeper, .. }
            | Self::Send { keeper, .. }
            | Self::Control { keeper, .. } => keeper,
        }
    }

    /// The request id this slot is bound to (sends and reconciliations).
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::Reconcile { request_id, .. } | Self::Send { request_id, .. } => Some(request_id),
            Self::History { .. }
            | Self::Autonomous { .. }
            | Self::Restore { .. }
            | Self::Control { .. } => None,
        }
    }
}

impl SlotKey for ChatSlot {
    fn trace_name(&self) -> String {
        // The keeper name is an identifier, not body text; request ids stay out (G-10).
        let (kind, keeper) = match self {
            Self::History { keeper } => ("chat_history", keeper),
            Self::Autonomous { keeper } => ("chat_autonomous", keeper),
            Self::Restore { keeper } => ("chat_restore", keeper),
            Self::Reconcile { keeper, .. } => ("chat_reconcile", keeper),
            Self::Send { keeper, .. } => ("save:chat_send", keeper),
            Self::Control { keeper, kind, .. } => return format!("save:{kind}:{keeper}"),
        };
        format!("{kind}:{keeper}")
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Send { .. } | Self::Control { .. } => SAVES,
            Self::History { .. }
            | Self::Autonomous { .. }
            | Self::Restore { .. }
            | Self::Reconcile { .. } => CHAT_HUB,
        }
    }
}

/// Commands to the chat hub (through its typed handle).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatCommand {
    /// Open (or re-open) `keeper`'s chat: newest history page and its unsettled sends.
    Open { keeper: String },
    /// The chat screen closed: retire that chat's reads. Sends keep running (H-5: navigation
    /// is not cancellation; they are saves, owned by the save hub).
    Close { keeper: String },
    /// PgUp at the top: the next older history page, if the last page said `has_more`.
    LoadOlder { keeper: String },
    /// Reconcile an exact request id with §4.4 (a send that ended "outcome unknown").
    Reconcile { keeper: String, request_id: String },
    /// Record a fact about a send durably by its request id (C-65).
    Mark {
        request_id: String,
        mark: super::ChatMark,
    },
}

/// The hub's mailbox: control like every source, and the chat commands of the view.
#[derive(Debug)]
pub enum ChatHubMsg {
    Control(SourceControl),
    Command(ChatCommand),
}

crate::source_message!(ChatHubMsg);

impl From<ChatCommand> for ChatHubMsg {
    fn from(c: ChatCommand) -> Self {
        Self::Command(c)
    }
}

impl TryFrom<ChatHubMsg> for ChatCommand {
    type Error = ChatHubMsg;
    fn try_from(m: ChatHubMsg) -> Result<Self, ChatHubMsg> {
        match m {
            ChatHubMsg::Command(c) => Ok(c),
            other => Err(other),
        }
    }
}

/// One unsettled send read back from the outbox when a chat opens.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoredSend {
    pub request_id: String,
    pub text: String,
    /// The stored state (before this restore) and the reason of its last transition.
    pub stored: SaveRowState,
    pub reason: Option<String>,
    /// Written by this process's session (a send that ended while its chat was closed).
    pub this_session: bool,
    /// The ticket of the send still running in this session, if any: the rest of its steps
    /// are admitted with it.
    pub live: Option<Ticket<ChatSlot>>,
    /// Not live: what it is now — not sent (an earlier run stopped before it left) or outcome
    /// unknown (it may have left, or ended unknown here). Never resent.
    pub now: Option<SaveClass>,
    /// What this client recorded about it since (C-65: read back, never learned again).
    pub marks: super::SendMarks,
}

/// A send of this client and the turn its reply was recorded under, read back from the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentTurn {
    pub request_id: String,
    pub text: String,
    pub turn_ref: String,
}

/// Why a send's outcome is unknown (§11: the request may have had an effect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownCause {
    /// The stream ended without a terminal event (C-… "interrupted"); partial text is never a
    /// reply, only its length is kept. `resume` says why it was not (or no longer) resumed
    /// with `since_seq` (§4.3): reconciliation is the fallback.
    StreamInterrupted {
        partial_text_len: usize,
        resume: ResumeStanding,
    },
    /// The stream broke the §4.3 order or identity rules (duplicate acceptance, wrong
    /// operation id, ...): `reason` is the decode reason.
    ProtocolError { reason: String },
    /// The connection failed after the request may have left.
    Transport,
    /// A status that proves nothing (5xx), or a 2xx that is not an event stream.
    Unclassified { status: u16 },
    /// Read back from the outbox after a crash or restart.
    Restored,
    /// The send's actor ended without a receipt (`reason`: the save machinery's token).
    NoReceipt { reason: String },
}

/// Why a cut stream of an accepted send was not continued with `since_seq` (§4.3, newer
/// MASC), so that its outcome is reconciled (§4.4) instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeStanding {
    /// The stream carried no journal sequence (`id:` on every event): this MASC offers no
    /// resume (an older server); never re-posted.
    NotOffered,
    /// Cut before the acceptance: nothing proves the operation exists; never re-posted.
    NotAccepted,
    /// The re-POST with `since_seq` was answered without a usable stream (`class`: e.g.
    /// `status_400` from a server that does not declare the field, `transport`, or the
    /// resumed stream's own refusal).
    Refused { class: String },
    /// Resumed this many times and cut again each time.
    Exhausted { attempts: u32 },
}

impl ResumeStanding {
    pub fn class(&self) -> String {
        match self {
            Self::NotOffered => "not_offered".into(),
            Self::NotAccepted => "not_accepted".into(),
            Self::Refused { class } => format!("refused_{class}"),
            Self::Exhausted { .. } => "exhausted".into(),
        }
    }
}

impl UnknownCause {
    pub fn class(&self) -> &'static str {
        match self {
            Self::StreamInterrupted { .. } => "stream_interrupted",
            Self::ProtocolError { .. } => "protocol_error",
            Self::Transport => "transport",
            Self::Unclassified { .. } => "unclassified_status",
            Self::Restored => "restored",
            Self::NoReceipt { .. } => "no_receipt",
        }
    }
}

/// How one send ended (protocol.md §11, keeper chat send).
#[derive(Debug, Clone, PartialEq)]
pub enum SendOutcome {
    /// `RUN_FINISHED` after the reply details.
    Completed { reply: ReplyDetails },
    /// A re-POST of an operation that had already ended.
    Replayed { state: OperationState },
    /// Provably never left the machine (no epoch, failed `/health` pre-check, connection
    /// refused, outbox unwritable). The draft is kept.
    NotSent { cause: String },
    /// Verified not applied: 400/401/403/404/409/429 before the stream, or a pre-acceptance
    /// `RUN_ERROR` with a listed code. The draft is kept for editing.
    NotApplied {
        cause: String,
        /// The server's own reason (its error text), kept for the error row (C-35); shown
        /// sanitised.
        detail: Option<String>,
    },
    /// The accepted turn failed (`RUN_ERROR` after acceptance). `message` is server text.
    Failed {
        code: Option<String>,
        message: String,
    },
    /// May have had an effect; reconciled by exact id, never resent automatically.
    OutcomeUnknown { cause: UnknownCause, accepted: bool },
}

impl SendOutcome {
    /// Stable class for traces and cause columns (no body text, G-10).
    pub fn class(&self) -> String {
        match self {
            Self::Completed { .. } => "completed".into(),
            Self::Replayed { state } => format!("replayed_{}", state.as_str().to_lowercase()),
            Self::NotSent { cause } => format!("not_sent_{cause}"),
            Self::NotApplied { cause, .. } => format!("not_applied_{cause}"),
            Self::Failed { .. } => "failed".into(),
            Self::OutcomeUnknown { cause, .. } => format!("unknown_{}", cause.class()),
        }
    }

    /// The `outcome` of this send's stage events: a completed turn is the successful end of
    /// the operation (`ok`); the timeline report counts every other outcome by its class.
    pub fn trace_outcome(&self) -> String {
        match self {
            Self::Completed { .. }
            | Self::Replayed {
                state: OperationState::Succeeded,
            } => "ok".into(),
            other => other.class(),
        }
    }

    /// The operator's text goes back into the composer (nothing reached the Keeper).
    pub fn keeps_draft(&self) -> bool {
        matches!(self, Self::NotSent { .. } | Self::NotApplied { .. })
    }
}

/// One step of a send, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum SendStep {
    /// The outbox holds the send (`전송 대기`).
    Written,
    /// The POST may be on the wire (`전송 중`).
    Sending,
    /// The acceptance receipt: queued, not processed (`처리 대기`, C-34); `interactive` is a
    /// newer MASC's §14.15 block (only when the send carried an admission intent).
    Accepted {
        state: OperationState,
        interactive: Option<InteractiveAdmission>,
    },
    /// A validated stream event after the acceptance (each admitted once: a resumed stream's
    /// events at or below the last journal sequence seen are dropped before this).
    Event(ChatStreamEvent),
    /// The cut stream was re-opened with `since_seq` (§4.3, newer MASC) and the server
    /// accepted the resume; the turn's events continue after that sequence.
    Resumed {
        since_seq: u64,
        state: OperationState,
    },
    /// The send ended.
    Ended(SendOutcome),
}

/// The result of reconciling an exact request id (§4.4).
#[derive(Debug, Clone, PartialEq)]
pub enum Reconciliation {
    /// The operation record, its `operation_id` equal to the request id.
    Found(Box<ChatOperationRecord>),
    /// 404 while the send may still be on its way (inside the unknown window, see
    /// [`UnknownWindow`]): a POST held by the server or a hop that does not cancel upstream
    /// requests can still be applied. Re-checked with backoff; never "not recorded".
    NotYetRecorded { waited_secs: u64 },
    /// 404 after the whole unknown window: the server holds no operation with this id and no
    /// request of this client can still be on its way. Not resent automatically.
    Absent { after_secs: u64 },
    /// The record could not be read (auth, transport, decode, wrong echo): `class` says why.
    Unreadable { class: String },
    /// This MASC does not serve the §4.4 route (its unknown-route 404): the outcome cannot be
    /// reconciled here and is not re-checked (asking again would not change the answer).
    NotServed,
}

impl Reconciliation {
    pub fn class(&self) -> String {
        match self {
            Self::Found(r) => format!("found_{}", r.progress.state().as_str().to_lowercase()),
            Self::NotYetRecorded { .. } => "not_yet_recorded".into(),
            Self::Absent { .. } => "absent".into(),
            Self::Unreadable { class } => format!("unreadable_{class}"),
            Self::NotServed => "not_served".into(),
        }
    }

    /// Whether the source reads the record again (after `recheck_after`): only a record still
    /// queued or running, one that could not be read, or an operation not recorded yet inside
    /// the unknown window. A terminal record — `Failed` with `outcome_ref: null` included —
    /// an operation absent after the window and a route this MASC does not serve are never
    /// re-read.
    pub fn needs_recheck(&self) -> bool {
        match self {
            Self::Found(r) => !r.progress.state().is_terminal(),
            Self::Unreadable { .. } | Self::NotYetRecorded { .. } => true,
            Self::Absent { .. } | Self::NotServed => false,
        }
    }

    /// The outbox state (and reason) a reconciliation moves an unsettled send to, if it
    /// moves it: a terminal record settles it (the input reached the Keeper), a queued or
    /// running one says it was accepted (an "outcome unknown" row stays to be reconciled).
    pub fn save_state(&self) -> Option<(SaveRowState, &'static str)> {
        match self {
            Self::Found(r) => Some(match r.progress.state() {
                OperationState::Succeeded => (
                    SaveRowState::Settled(SaveClass::Applied),
                    "reconciled_succeeded",
                ),
                OperationState::Failed => (
                    SaveRowState::Settled(SaveClass::Applied),
                    "reconciled_failed",
                ),
                OperationState::Cancelled => (
                    SaveRowState::Settled(SaveClass::Applied),
                    "reconciled_cancelled",
                ),
                OperationState::Queued | OperationState::Running => {
                    (SaveRowState::Accepted, "reconciled_pending")
                }
            }),
            Self::NotYetRecorded { .. }
            | Self::Absent { .. }
            | Self::Unreadable { .. }
            | Self::NotServed => None,
        }
    }
}

/// How long a send whose outcome is unknown may still land on the server: a POST that timed
/// out here can be held by the server, or by a proxy that does not cancel upstream requests,
/// and be applied later. Until the window has passed since the first reconciliation, a §4.4
/// 404 means "not recorded yet", never "not recorded". The window is
/// [`UnknownWindow::FACTOR`] times the longest wait of one request of this client (its connect
/// timeout plus its request timeout: 3 × (3 s + 10 s) = 39 s with the default timeouts), so
/// it outlasts every request timeout on the client's side of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownWindow(pub std::time::Duration);

impl UnknownWindow {
    pub const FACTOR: u32 = 3;

    /// The window for a client with these timeouts.
    pub fn for_client(config: &crate::protocol::client::ClientConfig) -> Self {
        Self((config.connect_timeout + config.request_timeout) * Self::FACTOR)
    }

    /// What a §4.4 404 means `waited` after the first reconciliation of the send.
    pub fn absent(self, waited: std::time::Duration) -> Reconciliation {
        if waited < self.0 {
            Reconciliation::NotYetRecorded {
                waited_secs: waited.as_secs(),
            }
        } else {
            Reconciliation::Absent {
                after_secs: waited.as_secs(),
            }
        }
    }
}

/// One chat observation.
#[derive(Debug, Clone)]
pub enum ChatObservation {
    /// A history page; `before = None` is the newest window (it replaces what is shown).
    HistoryPage {
        before: Option<f64>,
        result: ReadResult<ChatHistoryPage>,
    },
    /// The bare-array history (§15.9): its autonomous turns join the transcript by time.
    Autonomous {
        result: ReadResult<ChatHistoryArray>,
    },
    /// Unsettled sends of this Keeper in this workspace, read from the outbox on open.
    Restored {
        sends: Vec<RestoredSend>,
        /// This Keeper's newest sends whose reply turn is known (C-50).
        turns: Vec<SentTurn>,
        /// How the turns of this Keeper's newest sends ended, by request id (C-44).
        ended: std::collections::HashMap<String, String>,
        /// The tool calls and turn control saves kept (boxed: the observation stays small).
        kept: Box<KeptTurns>,
    },
    /// A step of the send `request_id`.
    Send { request_id: String, step: SendStep },
    /// Reconciliation of the exact `request_id`.
    Reconciled {
        request_id: String,
        result: Reconciliation,
    },
    /// A step of a turn control save (interrupt, steer).
    Control(Box<TurnControlEvent>),
}

/// What the outbox kept of this Keeper's earlier turns beyond their sends.
#[derive(Debug, Clone, Default)]
pub struct KeptTurns {
    /// The tool call ids the streams of this Keeper's newest sends announced, by request id:
    /// their history rows carry how the send's turn ended.
    pub tool_calls: std::collections::HashMap<String, Vec<String>>,
    /// This Keeper's turn control saves of earlier runs, each with the receipt kept beside it:
    /// the chat surface's books are in memory, a restart rebuilds their rows from these.
    pub controls: Vec<TurnControlEvent>,
}

/// A step of one turn control save, by kind.
#[derive(Debug, Clone)]
pub enum TurnControlEvent {
    Interrupt(SaveEvent<TurnInterrupt>),
    Steer(SaveEvent<TurnSteer>),
}

impl TurnControlEvent {
    pub fn save_id(&self) -> &crate::actors::saves::SaveId {
        match self {
            Self::Interrupt(e) => &e.save_id,
            Self::Steer(e) => &e.save_id,
        }
    }

    fn trace_outcome(&self) -> String {
        match self {
            Self::Interrupt(e) => e.step.trace_outcome(),
            Self::Steer(e) => e.step.trace_outcome(),
        }
    }
}

impl Payload for ChatObservation {
    fn outcome(&self) -> String {
        self.outcome_class()
    }
}

impl ChatObservation {
    /// `outcome` of the stage events (closed vocabulary, G-10).
    pub fn outcome_class(&self) -> String {
        match self {
            Self::HistoryPage { result, .. } => match result {
                Ok(_) => "ok".into(),
                Err(e) => e.class().to_string(),
            },
            Self::Autonomous { result } => match result {
                Ok(_) => "ok".into(),
                Err(e) => e.class().to_string(),
            },
            Self::Restored { .. } => "ok".into(),
            Self::Send { step, .. } => match step {
                SendStep::Ended(outcome) => outcome.trace_outcome(),
                SendStep::Resumed { .. } => "resumed".into(),
                _ => "ok".into(),
            },
            Self::Reconciled { result, .. } => result.class(),
            Self::Control(event) => event.trace_outcome(),
        }
    }

    /// The request id this observation is about, if any.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::Send { request_id, .. } | Self::Reconciled { request_id, .. } => Some(request_id),
            Self::HistoryPage { .. }
            | Self::Autonomous { .. }
            | Self::Restored { .. }
            | Self::Control(_) => None,
        }
    }
}

#[cfg(test)]
mod outcome_class_tests {
    use super::*;
    use crate::protocol::decode::WireDecode;

    /// MASC's record of a cancelled turn (`Failed`, `outcome_ref: null`)
    /// settles the send and ends reconciliation; so do an absent operation and a route this
    /// MASC does not serve. Only an unsettled or unreadable record is read again.
    #[test]
    fn a_failed_record_with_null_outcome_ref_ends_reconciliation_issue13_defect1() {
        let record = ChatOperationRecord::decode(include_bytes!(
            "../../../tests/fixtures/compat/chat_operation__failed_turn_cancelled_null_outcome_ref.json"
        ))
        .unwrap();
        let failed = Reconciliation::Found(Box::new(record));
        assert!(!failed.needs_recheck());
        assert_eq!(
            failed.save_state(),
            Some((
                SaveRowState::Settled(SaveClass::Applied),
                "reconciled_failed"
            ))
        );
        assert_eq!(failed.class(), "found_failed");
        assert!(!Reconciliation::NotServed.needs_recheck());
        assert_eq!(Reconciliation::NotServed.save_state(), None);
        assert!(!Reconciliation::Absent { after_secs: 39 }.needs_recheck());
        assert!(Reconciliation::NotYetRecorded { waited_secs: 3 }.needs_recheck());
        assert!(
            Reconciliation::Unreadable {
                class: "timeout".into()
            }
            .needs_recheck()
        );
    }

    #[test]
    fn a_completed_send_traces_ok_and_an_unknown_one_its_cause() {
        let completed = ChatObservation::Send {
            request_id: "tui-1".into(),
            step: SendStep::Ended(SendOutcome::Completed {
                reply: crate::protocol::chat::ReplyDetails {
                    reply: "done".into(),
                    turn_outcome: crate::protocol::chat::TurnOutcome("visible_reply".into()),
                    turn_ref: "trace-rondo#1".into(),
                },
            }),
        };
        assert_eq!(completed.outcome_class(), "ok");
        // The send's own worker_return uses the same outcome, so the
        // timeline report never counts a completed send as failed.
        let replayed = SendOutcome::Replayed {
            state: OperationState::Succeeded,
        };
        assert_eq!(replayed.trace_outcome(), "ok");
        let failed = SendOutcome::Replayed {
            state: OperationState::Failed,
        };
        assert_eq!(failed.trace_outcome(), "replayed_failed");
        let not_sent = ChatObservation::Send {
            request_id: "tui-1".into(),
            step: SendStep::Ended(SendOutcome::NotSent {
                cause: "no_epoch".into(),
            }),
        };
        assert_eq!(not_sent.outcome_class(), "not_sent_no_epoch");
        let accepted = ChatObservation::Send {
            request_id: "tui-1".into(),
            step: SendStep::Written,
        };
        assert_eq!(accepted.outcome_class(), "ok");
    }
}
