//! The view's model: workspace identity, the epoch gate and one model per surface.
//!
//! Pure: messages in, changed-or-not out. Every surface model implements one trait
//! ([`SurfaceModel`](super::surface::SurfaceModel)); this file routes source events to them
//! with one loop over [`Model::surfaces`]. Every admission verdict on a result is traced as a
//! stage event (`admit` / `reject{reason}`, architecture.md §3).

use super::activity::ActivityModel;
use super::admission::EpochGate;
use super::approvals::asks::AsksModel;
use super::approvals::decisions::DecisionsModel;
use super::board::BoardModel;
use super::chat::ChatModel;
use super::connectors::ConnectorsModel;
use super::fleet::FleetModel;
use super::gate_queue::GateQueueModel;
use super::inspector::InspectorModel;
use super::keepers::detail::KeeperDetailModel;
use super::keepers::{KeepersModel, WaitingModel};
use super::preparation_report::PreparationReportModel;
use super::runtime::RuntimeModel;
use super::saves::journal::SaveJournalModel;
use super::sources::SourcesModel;
use super::surface::{AnySurface, Drained};
use super::system_logs::SystemLogsModel;
use super::tools::ToolsModel;
use super::work::WorkModel;
use crate::actors::contract::{IdentityState, InboxId, Inboxes, SlotEvent, SlotKey, SourceKey};
use crate::protocol::admission::AdmissionMode;
use crate::protocol::routes::RouteFamily;
use std::time::Instant;

/// The connection state the header shows (surfaces.md: header connection states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionState {
    /// No identity confirmed yet.
    Connecting,
    /// `/health` says the server is still starting (`state_ready: false`).
    Booting,
    /// Identity confirmed and every slot's last read succeeded (or is pending).
    Connected,
    /// Identity confirmed but some slot's last read failed (a route this MASC does not serve
    /// is not such a failure: the header lists those apart).
    Degraded,
    /// Identity was confirmed before and is now lost, or the server serves another workspace.
    Disconnected,
}

impl ConnectionState {
    pub fn label(self) -> &'static str {
        match self {
            Self::Connecting => "connecting...",
            Self::Booting => "server booting...",
            Self::Connected => "connected",
            Self::Degraded => "degraded",
            Self::Disconnected => "disconnected",
        }
    }
}

/// The model every projection reads.
#[derive(Debug)]
pub struct Model {
    /// The last identity judgement, `None` before the workspace actor said anything.
    pub identity: Option<IdentityState>,
    ever_confirmed: bool,
    gate: EpochGate,
    /// The inboxes the surfaces drain (shared with the runtime's sources).
    inboxes: Inboxes,
    /// Keepers: the roster.
    pub keepers: KeepersModel,
    /// Keepers: what each Keeper waits on (§15.8).
    pub waiting: WaitingModel,
    /// Keeper detail: per watched Keeper its metadata, Live Context and metrics.
    pub keeper_detail: KeeperDetailModel,
    /// The open Keeper chat (the chat target), if any.
    pub chat: ChatModel,
    /// Work: Planning, Task list, the open Task detail and Goal detail.
    pub work: WorkModel,
    /// Board: posts, hearth census and the open post.
    pub board: BoardModel,
    /// System: Tools inventory, Skills catalogue, async requests.
    pub tools: ToolsModel,
    /// Runtime: the catalogue and its probe, `runtime.toml`, the form and raw config saves.
    pub runtime: RuntimeModel,
    /// Connectors: status with bindings, name chains, bind and unbind saves.
    pub connectors: ConnectorsModel,
    /// Decisions: this actor's pending approvals and the open asks.
    pub decisions: DecisionsModel,
    /// Asks: follow-ups of answers and pinned turns' transcripts.
    pub asks: AsksModel,
    /// The open chat's preparation detail (§14.12, M-1…M-9).
    pub preparation: PreparationReportModel,
    /// Turn records and serialized inputs the inspectors show (§14.11, K-14…K-17).
    pub inspector: InspectorModel,
    /// The outbox rows the saves journal lists (every session's).
    pub journal: SaveJournalModel,
    /// The live Sources view's snapshot (the System `sources` pane).
    pub sources: SourcesModel,
    /// MASC's log ring at the chosen filters (the System `logs` pane, §15.1).
    pub system_logs: SystemLogsModel,
    /// The durable Gate queue and its decisions (§15.3).
    pub gate_queue: GateQueueModel,
    /// Every configured workspace's line from its background watch (never the active
    /// workspace's epoch).
    pub fleet: FleetModel,
    /// The observer feed's rows and where it stands (§15.2).
    pub activity: ActivityModel,
    /// A read-only session (`--read-only` on a state directory another masc-tui holds): the
    /// header's banner; no outbox, every save refused before it leaves.
    pub read_only: Option<String>,
}

impl Default for Model {
    /// A model with inboxes of its own (tests, benches, screens without a runtime).
    fn default() -> Self {
        Self::new(Inboxes::new())
    }
}

impl Model {
    /// A model draining `inboxes` (the runtime's sources post into the same ones).
    pub fn new(inboxes: Inboxes) -> Self {
        Self {
            identity: None,
            ever_confirmed: false,
            gate: EpochGate::default(),
            keepers: KeepersModel::new(&inboxes),
            waiting: WaitingModel::new(&inboxes),
            keeper_detail: KeeperDetailModel::new(&inboxes),
            chat: ChatModel::new(&inboxes),
            work: WorkModel::new(&inboxes),
            board: BoardModel::new(&inboxes),
            tools: ToolsModel::new(&inboxes),
            runtime: RuntimeModel::new(&inboxes),
            connectors: ConnectorsModel::new(&inboxes),
            decisions: DecisionsModel::new(&inboxes),
            asks: AsksModel::new(&inboxes),
            preparation: PreparationReportModel::new(&inboxes),
            inspector: InspectorModel::new(&inboxes),
            journal: SaveJournalModel::new(&inboxes),
            sources: SourcesModel::new(&inboxes),
            system_logs: SystemLogsModel::new(&inboxes),
            gate_queue: GateQueueModel::new(&inboxes),
            fleet: FleetModel::new(&inboxes),
            activity: ActivityModel::new(&inboxes),
            read_only: None,
            inboxes,
        }
    }

    /// The inboxes this model drains (a runtime started for it posts into these).
    pub fn inboxes(&self) -> &Inboxes {
        &self.inboxes
    }

    /// Every surface, for the one routing loop. A new surface is one line here.
    pub fn surfaces(&mut self) -> [&mut dyn AnySurface; 19] {
        [
            &mut self.keepers,
            &mut self.waiting,
            &mut self.keeper_detail,
            &mut self.chat,
            &mut self.work,
            &mut self.board,
            &mut self.tools,
            &mut self.runtime,
            &mut self.connectors,
            &mut self.decisions,
            &mut self.asks,
            &mut self.preparation,
            &mut self.inspector,
            &mut self.journal,
            &mut self.sources,
            &mut self.system_logs,
            &mut self.gate_queue,
            &mut self.fleet,
            &mut self.activity,
        ]
    }

    fn surfaces_ref(&self) -> [&dyn AnySurface; 19] {
        [
            &self.keepers,
            &self.waiting,
            &self.keeper_detail,
            &self.chat,
            &self.work,
            &self.board,
            &self.tools,
            &self.runtime,
            &self.connectors,
            &self.decisions,
            &self.asks,
            &self.preparation,
            &self.inspector,
            &self.journal,
            &self.sources,
            &self.system_logs,
            &self.gate_queue,
            &self.fleet,
            &self.activity,
        ]
    }

    pub fn gate(&self) -> &EpochGate {
        &self.gate
    }

    /// The admission mode of the open epoch, if any.
    pub fn admission_mode(&self) -> Option<AdmissionMode> {
        match &self.identity {
            Some(IdentityState::Confirmed { mode, .. }) => Some(*mode),
            _ => None,
        }
    }

    /// The workspace base path of the last confirmed identity, or the expected one.
    pub fn base_path(&self) -> Option<&str> {
        match &self.identity {
            Some(IdentityState::Confirmed { base_path, .. }) => Some(base_path),
            Some(IdentityState::Mismatch { expected, .. }) => Some(expected),
            _ => None,
        }
    }

    pub fn connection(&self) -> ConnectionState {
        match &self.identity {
            None => ConnectionState::Connecting,
            Some(IdentityState::Booting) => ConnectionState::Booting,
            Some(IdentityState::Mismatch { .. }) => ConnectionState::Disconnected,
            Some(IdentityState::Unconfirmed { .. }) if self.ever_confirmed => {
                ConnectionState::Disconnected
            }
            Some(IdentityState::Unconfirmed { .. }) => ConnectionState::Connecting,
            Some(IdentityState::Confirmed { .. }) => {
                if self.surfaces_ref().iter().any(|s| s.any_failed()) {
                    ConnectionState::Degraded
                } else {
                    ConnectionState::Connected
                }
            }
        }
    }

    /// The route families the surfaces' admitted reads found not served by this MASC, in
    /// contract order, each once: what the header lists as absent. Taken from the
    /// slots, not from the client's capability table: they are admitted under the current
    /// epoch and workspace (G-2, G-6), change only through the view's mailbox (so the header
    /// repaints with them), and name only what a surface actually shows as absent.
    pub fn not_served(&self) -> Vec<RouteFamily> {
        let mut all: Vec<RouteFamily> = self
            .surfaces_ref()
            .iter()
            .flat_map(|s| s.not_served())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// `Delivered`: the surface owning `inbox` handles its events up to `upto`.
    pub fn on_delivered(&mut self, inbox: InboxId, upto: u64, now: Instant) -> Drained {
        let gate = self.gate.clone();
        for surface in self.surfaces() {
            if surface.inbox_id() == inbox {
                return surface.drain(upto, &gate, now);
            }
        }
        // A source posted into an inbox no surface drains: a wiring fault, never silent.
        tracing::warn!(target: "masc_tui::view", inbox = inbox.0, "events for an inbox no surface drains");
        Drained::default()
    }

    /// Posts `event` into its surface's inbox and handles it at once (tests, benches and
    /// anything driving a model without a runtime; the actor path is the same drain).
    /// Events of a slot and payload type no surface drains are rejected (`unknown_slot`,
    /// traced), never lost silently.
    pub fn deliver<S: SlotKey, P: Send + 'static>(
        &mut self,
        event: SlotEvent<S, P>,
        now: Instant,
    ) -> Drained {
        let inbox = self.inboxes.get::<S, P>();
        let upto = inbox.push(event);
        if self.surfaces().iter().any(|s| s.inbox_id() == inbox.id()) {
            return self.on_delivered(inbox.id(), upto, now);
        }
        let mut out = Drained::default();
        for event in inbox.drain_upto(upto) {
            if let SlotEvent::Observed(ticket, _) = event {
                let reason = super::admission::RejectReason::UnknownSlot;
                super::surface::trace_verdict(&ticket, Err(reason));
                out.rejected.push(reason);
            }
        }
        out
    }

    /// Whether a slot of `inbox`'s surface is re-reading with its last value shown (G-4).
    pub fn any_refreshing(&mut self, inbox: InboxId) -> bool {
        self.surfaces()
            .into_iter()
            .any(|s| s.inbox_id() == inbox && s.any_refreshing())
    }

    /// The user asked `source` for a re-read: its slots' badges show at once (T.2).
    pub fn mark_asked(&mut self, source: SourceKey) {
        for surface in self.surfaces() {
            surface.mark_asked(source);
        }
    }

    /// `Identity`: a confirmed scope opens (or keeps) the epoch; anything else withdraws it.
    /// Either way reads of an earlier epoch lose their slots (G-6).
    pub fn on_identity(&mut self, state: IdentityState) -> bool {
        let mut changed = self.identity.as_ref() != Some(&state);
        match &state {
            IdentityState::Confirmed { scope, .. } => {
                self.ever_confirmed = true;
                if self.gate.confirm(scope.clone()) {
                    for surface in self.surfaces() {
                        changed |= surface.on_new_epoch(scope);
                    }
                }
            }
            IdentityState::Unconfirmed { .. }
            | IdentityState::Booting
            | IdentityState::Mismatch { .. } => {
                if self.gate.withdraw() {
                    for surface in self.surfaces() {
                        changed |= surface.on_withdrawn();
                    }
                }
            }
        }
        self.identity = Some(state);
        changed
    }

    /// `SourceRestarted`: that source's reads in flight fail with `source_restarted`.
    pub fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        let mut changed = false;
        for surface in self.surfaces() {
            changed |= surface.on_source_restarted(source);
        }
        changed
    }

    /// `SourceStopped`: that source's slots keep their last value, marked `source_stopped`.
    pub fn on_source_stopped(&mut self, source: SourceKey) -> bool {
        let mut changed = false;
        for surface in self.surfaces() {
            changed |= surface.on_source_stopped(source);
        }
        changed
    }
}
