//! Save operations (architecture.md "How to add a save"; sources.md H-4…H-6, H-15,
//! H-16, I-2, I-5, K-1…K-5).
//!
//! One generic operation ([`operation::SaveOperation`]) over a per-kind definition
//! ([`SaveKind`]: the intent, the request, the §11 classifier, the surface slot its receipt
//! lands in). Every submitted save is its own actor, spawned and supervised by one hub
//! ([`hub::SaveHub`]). Its order: outbox row `written` (durable before anything leaves) →
//! fresh `/health` pre-check of the submit-time epoch (§2.4) → outbox `sending` → the request
//! → the typed receipt, written to the outbox and then posted to the surface's inbox once (an
//! unbounded queue: never dropped, the worker never waits for space). Never resent: a save
//! whose outcome is unknown keeps its inputs and waits for the operator. Navigation is not
//! cancellation (H-5): nothing but the hub's shutdown stops a save in flight.
//!
//! Each kind lives beside the surface that shows it (the approval decision:
//! `crate::actors::decisions::approval`); the one list of kinds (the hub's trace names and the
//! kinds it restores after a crash) is [`registry::KINDS`].

pub mod env;
pub mod hub;
pub mod journal;
pub mod operation;
pub mod refusal;
pub mod registry;
pub mod restore;
pub mod run;

use crate::actors::contract::{Payload, SlotKey, SourceKey};
use crate::protocol::admission::{ReadAuthority, ReadScope};
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{SaveClass, SaveOutcome};
use futures::future::BoxFuture;
use refusal::Refusal;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;

pub use hub::{SaveHubSpawner, Submission};
pub use run::SaveRun;

use crate::actors::contract::SourceControl;

/// The save hub (supervision key).
pub const SAVES: SourceKey = SourceKey("saves");

/// One save: `save-<uuidv7>`, made once by the view when the operator submits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SaveId(pub String);

impl SaveId {
    pub fn fresh() -> Self {
        Self(format!("save-{}", uuid::Uuid::now_v7()))
    }
}

impl fmt::Display for SaveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What every receipt says about itself: its §11 class and reason, and the receipts the
/// machinery itself makes (refused before sending; left unsettled by an earlier run).
pub trait Receipt: Clone + fmt::Debug + Send + Sync + 'static {
    fn class(&self) -> SaveClass;
    fn reason(&self) -> Option<String>;
    fn not_sent(reason: String) -> Self;
    fn unknown(reason: String) -> Self;

    /// The receipt of a machinery refusal: its class is the refusal's, its reason the token.
    fn refused(refusal: Refusal) -> Self {
        match refusal.class() {
            SaveClass::NotSent => Self::not_sent(refusal.token()),
            _ => Self::unknown(refusal.token()),
        }
    }

    /// The machinery's refusal this receipt carries, if it is one (typed: match on this,
    /// never on the reason text).
    fn refusal(&self) -> Option<Refusal> {
        match self.class() {
            SaveClass::NotSent | SaveClass::OutcomeUnknown => {
                self.reason().as_deref().and_then(Refusal::parse)
            }
            _ => None,
        }
    }
}

impl<A, C> Receipt for SaveOutcome<A, C>
where
    A: Clone + fmt::Debug + Send + Sync + 'static,
    C: Clone + fmt::Debug + Send + Sync + 'static,
{
    fn class(&self) -> SaveClass {
        self.save_class()
    }
    fn reason(&self) -> Option<String> {
        SaveOutcome::reason(self).map(str::to_string)
    }
    fn not_sent(reason: String) -> Self {
        SaveOutcome::NotSent { reason }
    }
    fn unknown(reason: String) -> Self {
        SaveOutcome::OutcomeUnknown { reason }
    }
}

/// One step of a save, in order, as its surface receives it.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveStep<R> {
    /// The outbox holds it; nothing has left the machine.
    Written,
    /// The request may be on the wire from now on.
    Sending,
    /// The typed receipt (posted once).
    Ended(R),
    /// A save an earlier run left unsettled, read back from the outbox: not sent (it never
    /// reached the network) or outcome unknown (it may have). Never resent.
    Restored(R),
}

impl<R: Receipt> SaveStep<R> {
    /// The `outcome` of this step's stage events.
    pub fn trace_outcome(&self) -> String {
        match self {
            Self::Written | Self::Sending => "ok".into(),
            Self::Ended(r) | Self::Restored(r) => match r.class() {
                SaveClass::Applied | SaveClass::Unchanged => "ok".into(),
                other => other.as_str().into(),
            },
        }
    }
}

/// A save event of kind `K`, as carried in its surface's payload.
pub struct SaveEvent<K: SaveKind> {
    pub save_id: SaveId,
    pub intent: K::Intent,
    /// The workspace the save was submitted in (receipts never touch another, I-5).
    pub workspace: String,
    pub step: SaveStep<K::Receipt>,
}

impl<K: SaveKind> Clone for SaveEvent<K> {
    fn clone(&self) -> Self {
        Self {
            save_id: self.save_id.clone(),
            intent: self.intent.clone(),
            workspace: self.workspace.clone(),
            step: self.step.clone(),
        }
    }
}

impl<K: SaveKind> fmt::Debug for SaveEvent<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaveEvent")
            .field("kind", &K::KIND)
            .field("save_id", &self.save_id)
            .field("step", &self.step)
            .finish()
    }
}

/// One save kind: its intent, its request and classifier, and where its receipts land.
pub trait SaveKind: Send + Sync + Sized + 'static {
    /// Stable name: the outbox's `kind`, and traces (`save:<kind>`).
    const KIND: &'static str;
    /// The surface slot type and payload type its receipts land in.
    type Slot: SlotKey;
    type Payload: Payload;
    /// What the operator asked for, stored verbatim in the outbox before the request leaves.
    type Intent: Clone
        + fmt::Debug
        + PartialEq
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static;
    type Receipt: Receipt;

    /// The save's own slot.
    fn slot(save_id: &SaveId, intent: &Self::Intent) -> Self::Slot;
    /// Equal intents share one job (a repeated submit of the same intent).
    fn intent_key(intent: &Self::Intent) -> String;
    /// What it acts on, for the outbox (identifiers only, G-10).
    fn target(intent: &Self::Intent) -> String;
    /// The request and its §11 classification. Runs once, after the pre-check and with
    /// `sending` on disk; it never resends.
    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: Self::Intent,
    ) -> BoxFuture<'static, Self::Receipt>;
    /// [`SaveKind::perform`] as the operation runs it, with the save's own ticket at hand: a
    /// kind whose request reports progress before its receipt (the chat send's stream)
    /// overrides this to post those observations and record an acceptance.
    fn run(run: SaveRun<Self>) -> BoxFuture<'static, Self::Receipt> {
        Self::perform(
            run.client.clone(),
            run.authority.clone(),
            run.intent.clone(),
        )
    }
    /// The payload that carries `event` into the surface's inbox.
    fn payload(event: SaveEvent<Self>) -> Self::Payload;
}

/// The scope a save was submitted under (K-5: completion uses it; missing authority is never
/// back-filled later).
pub type SubmitScope = ReadScope;

/// What the view asks of the hub (through its typed handle).
pub enum SaveCommand {
    Submit(Submission),
}

impl std::fmt::Debug for SaveCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Submit(s) => write!(f, "Submit({} {})", s.kind(), s.save_id()),
        }
    }
}

/// The hub's own messages.
#[derive(Debug)]
pub enum HubMsg {
    /// A save operation ended with this outcome (sent by the operation itself).
    Settled { save_id: SaveId, class: SaveClass },
    /// The orphans of a workspace were read back from the outbox.
    Restored {
        workspace: crate::protocol::admission::WorkspaceId,
    },
}

/// The hub's mailbox.
#[derive(Debug)]
pub enum SaveHubMsg {
    Control(SourceControl),
    Command(SaveCommand),
    Hub(HubMsg),
}

crate::source_message!(SaveHubMsg);

impl From<SaveCommand> for SaveHubMsg {
    fn from(c: SaveCommand) -> Self {
        Self::Command(c)
    }
}

impl TryFrom<SaveHubMsg> for SaveCommand {
    type Error = SaveHubMsg;
    fn try_from(m: SaveHubMsg) -> Result<Self, SaveHubMsg> {
        match m {
            SaveHubMsg::Command(c) => Ok(c),
            other => Err(other),
        }
    }
}
