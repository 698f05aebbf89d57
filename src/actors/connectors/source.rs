//! The Connectors source actor: the status list (one standing slot) and, once a status list
//! is forwarded, one name cursor chain per (connector, scope) in a second owner (D-1, D-5).
//!
//! - The status is delivered first and on its own (D-5): chains start only after it, from
//!   the connectors it lists, and are retired and restarted by the next admitted status.
//! - Each chain reads its pages in order, each with the cursor the previous page returned; the
//!   next page is dispatched only after the previous one was forwarded (D-1). Chains are
//!   independent: a failed page ends only its chain, keeping its earlier pages (D-6); the
//!   cadence does not loop a failed chain (D-14) — the next status read restarts it.
//! - Withdrawal retires every read (G-6); the status is standing, so the next confirmation
//!   reads it again and the chains follow.
//! - A quiet idle: a cadence status read restarts the chains only when the status
//!   says the connectors or their bindings changed ([`ChainsBasis`]), when a chain failed
//!   (D-14: the next status read restarts it), after an identity change, or after an explicit
//!   demand (the operator's refresh). An unchanged status leaves the admitted names standing.
//! - Where this MASC does not serve the names route (newer MASC, §7.2): once the
//!   client's capability table knows it (the first chains' answers), a status starts no chain
//!   at all — each (connector, scope) is traced `refused{not_served}` — so a known absent
//!   route is never looped on; the view shows channel ids without names. The table is
//!   forgotten when the server changes or an epoch is withdrawn, and the next status asks again.
//! - Write demand (D-10…D-13): a settled binding write (`ConnectorsCommand::BindingWritten`)
//!   withdraws the name chains at once (D-11) and asks for a status read dispatched after it.
//!   A status read already in flight merges that demand (D-10): its answer is forwarded, but it
//!   does not consume the demand — no chains start from it, and a new status read follows. Only
//!   a status dispatched after the write consumes it (D-12). A failed follow-up keeps the demand
//!   without looping (D-14): the next cadence or `r` serves it. Withdrawal keeps it; a
//!   confirmation of the same workspace serves it, another workspace clears it (D-13).

use super::chain::{NamesChain, SCOPES, chain_key, chain_slot, page_reader};
use super::{CONNECTORS, ConnectorsObservation, ConnectorsSlot};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SlotKey, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{
    ExplicitPolicy, ReadOwner, ReturnOutcome, SlotSpec, WorkerReturn, reader,
};
use crate::protocol::client::WorkspaceClient;
use crate::protocol::connectors::{ConnectorRow, ConnectorStatusList};
use crate::protocol::routes::{Capability, RouteFamily};
use crate::timeline::stage;
use std::sync::Arc;
use std::time::Duration;

pub const STATUS_PATH: &str = "/api/v1/gate/connectors";

/// What the view asks of the Connectors source (through its typed handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectorsCommand {
    /// A binding write settled: read the status again after it (D-10…D-13).
    BindingWritten,
}

crate::source_commands!(ConnectorsSlot, ConnectorsObservation, ConnectorsCommand);

/// The write demand (D-10…D-13): writes are numbered as heard; a status read covers the
/// writes heard before its dispatch.
#[derive(Debug, Default)]
struct WriteDemand {
    heard: u64,
    consumed: u64,
    /// The status read in flight: its generation and the newest write it covers.
    in_flight: Option<(u64, u64)>,
    workspace: Option<crate::protocol::admission::WorkspaceId>,
}

impl WriteDemand {
    fn outstanding(&self) -> bool {
        self.heard > self.consumed
    }
}
type Owner = ReadOwner<ConnectorsSlot, ConnectorsObservation, Myself<ConnectorsState>>;

fn status_slot(generations: &GenerationBook) -> SlotSpec<ConnectorsSlot, ConnectorsObservation> {
    SlotSpec {
        key: ConnectorsSlot::Status,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&ConnectorsSlot::Status),
        reader: reader(|auth, client| async move {
            ConnectorsObservation::Status(
                client.get::<ConnectorStatusList>(&auth, STATUS_PATH).await,
            )
        }),
    }
}

pub struct ConnectorsState {
    client: WorkspaceClient,
    outlet: Outlet<ConnectorsSlot, ConnectorsObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    status: Owner,
    chains: Owner,
    writes: WriteDemand,
    /// What the running chains were started from; `None` restarts them at the next status.
    chains_basis: Option<ChainsBasis>,
}

/// What of a status list the name chains depend on: each listed connector and its configured
/// bindings, in list order. Another value means the chains are read again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainsBasis(Vec<(String, Vec<(String, String)>)>);

impl ChainsBasis {
    pub fn of(list: &ConnectorStatusList) -> Self {
        Self(
            list.connectors()
                .map(|row: &ConnectorRow| {
                    let bindings = row
                        .configured_bindings
                        .iter()
                        .map(|b| (b.channel_id.clone(), b.keeper_name.clone()))
                        .collect();
                    (row.connector_id.clone(), bindings)
                })
                .collect(),
        )
    }
}

impl ConnectorsState {
    /// A status list was forwarded: the previous chains are retired and one fresh chain per
    /// (listed connector, scope) starts (D-1, D-5).
    fn restart_chains(&mut self, myself: &Myself<Self>, list: &ConnectorStatusList) {
        self.chains_basis = Some(ChainsBasis::of(list));
        self.chains.retire_all("superseded_by_status");
        let mut owner: Owner =
            ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        let names_absent =
            self.client.capabilities().get(RouteFamily::ConnectorNames) == Capability::NotServed;
        if names_absent {
            // A route known not served starts no chain (never looped on).
            for row in list.connectors() {
                for scope in SCOPES {
                    stage::refused(
                        &chain_key(&row.connector_id, scope).trace_name(),
                        "not_served",
                    );
                }
            }
            self.chains = owner;
            return;
        }
        let mut keys = Vec::new();
        for row in list.connectors() {
            for scope in SCOPES {
                let key = chain_key(&row.connector_id, scope);
                let fresh = Arc::new(NamesChain::fresh(&row.connector_id, scope));
                owner.add_slot(chain_slot(fresh, self.generations.counter(&key)));
                keys.push(key);
            }
        }
        for key in &keys {
            owner.demand(key, DemandKind::Explicit);
        }
        self.chains = owner;
    }

    /// Withdraws every name chain at once and leaves an empty chain owner (D-11); the next
    /// status read that covers the write starts them again.
    fn withdraw_chains(&mut self, myself: &Myself<Self>, reason: &str) {
        self.chains_basis = None;
        self.chains.retire_all(reason);
        let mut owner: Owner =
            ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        self.chains = owner;
    }

    /// Records which writes the status read in flight covers: those heard before its dispatch.
    fn note_status_dispatch(&mut self) {
        let in_flight = self
            .status
            .snapshot(&ConnectorsSlot::Status)
            .and_then(|s| s.in_flight)
            .map(|t| t.generation);
        match in_flight {
            Some(g) if self.writes.in_flight.map(|(f, _)| f) != Some(g) => {
                self.writes.in_flight = Some((g, self.writes.heard));
            }
            Some(_) => {}
            None => self.writes.in_flight = None,
        }
    }

    fn demand_status(&mut self, kind: DemandKind) {
        self.status.demand(&ConnectorsSlot::Status, kind);
        self.note_status_dispatch();
    }

    /// A binding write settled (D-10, D-11): the names go at once; a status read dispatched
    /// after the write is owed — now, or after the one in flight (merged).
    fn binding_written(&mut self, myself: &Myself<Self>) {
        self.writes.heard += 1;
        self.withdraw_chains(myself, "binding_write");
        if self.writes.in_flight.is_none() {
            self.demand_status(DemandKind::Explicit);
        }
    }

    /// A status answer was forwarded: start the chains from it unless a write it does not
    /// cover is outstanding (D-10, D-12), and only when what they depend on changed.
    fn status_forwarded(&mut self, myself: &Myself<Self>, list: &ConnectorStatusList) {
        if self.chains_basis.as_ref() != Some(&ChainsBasis::of(list)) {
            self.restart_chains(myself, list);
        }
    }

    /// Routes a worker's return. Returns `true` when the status read completed (the cadence
    /// re-arms after it).
    fn worker_returned(
        &mut self,
        myself: &Myself<Self>,
        ret: WorkerReturn<ConnectorsSlot, ConnectorsObservation>,
    ) -> bool {
        match ret.ticket.slot.clone() {
            ConnectorsSlot::Status => {
                let list = match &ret.result {
                    Ok(ConnectorsObservation::Status(Ok(a))) => Some(a.value.clone()),
                    _ => None,
                };
                let generation = ret.ticket.generation;
                let outcome = self.status.worker_returned(ret);
                if outcome.completed() {
                    // What this read covered (D-12: only a read dispatched after a write
                    // consumes its demand).
                    let covers = match self.writes.in_flight {
                        Some((g, covers)) if g == generation => Some(covers),
                        _ => None,
                    };
                    self.writes.in_flight = None;
                    let forwarded = matches!(outcome, ReturnOutcome::Forwarded { .. });
                    match (list.filter(|_| forwarded), covers) {
                        (Some(list), Some(covers)) if covers >= self.writes.heard => {
                            self.writes.consumed = self.writes.consumed.max(covers);
                            self.status_forwarded(myself, &list);
                        }
                        (Some(list), None) if !self.writes.outstanding() => {
                            self.status_forwarded(myself, &list);
                        }
                        // D-10: an answer older than the write: forwarded, but its name work
                        // is withdrawn and a new status read starts.
                        (Some(_), _) => self.demand_status(DemandKind::Explicit),
                        // D-14: a failed read keeps the demand without looping.
                        (None, _) => {}
                    }
                    self.note_status_dispatch();
                }
                outcome.completed()
            }
            key @ ConnectorsSlot::Names { .. } => {
                let admitted = match &ret.result {
                    Ok(ConnectorsObservation::Names(read)) => {
                        read.result.as_ref().ok().map(|a| a.value.clone())
                    }
                    _ => None,
                };
                if admitted.is_none() {
                    // D-14: a failed chain is restarted by the next status read.
                    self.chains_basis = None;
                }
                let outcome = self.chains.worker_returned(ret);
                // D-1: the next page only after this one was forwarded, with its cursor.
                if let (ReturnOutcome::Forwarded { .. }, Some(chain)) = (&outcome, admitted)
                    && !chain.complete
                {
                    self.chains.set_reader(&key, page_reader(chain));
                    self.chains.demand(&key, DemandKind::Explicit);
                }
                false
            }
            _ => {
                ret.reject_late();
                false
            }
        }
    }
}

impl SourceState for ConnectorsState {
    type Slot = ConnectorsSlot;
    type Payload = ConnectorsObservation;
    type Command = ConnectorsCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let outlet = ctx.outlet::<ConnectorsSlot, ConnectorsObservation>();
        let mut status = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        status.add_slot(status_slot(&ctx.generations));
        let chains = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        ConnectorsState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            status,
            chains,
            writes: WriteDemand::default(),
            chains_basis: None,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: ConnectorsCommand) {
        match command {
            ConnectorsCommand::BindingWritten => self.binding_written(&ctl.myself),
        }
    }

    /// The status is the demanded read; chains follow each admitted status.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Explicit {
            // The operator's refresh reads the names again too.
            self.chains_basis = None;
        }
        self.demand_status(kind);
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        self.chains_basis = None;
        // D-13: another workspace never inherits a write's demand; withdrawal keeps it.
        if let IdentityState::Confirmed { scope, .. } = &identity {
            if self
                .writes
                .workspace
                .as_ref()
                .is_some_and(|w| w != &scope.workspace)
            {
                self.writes.consumed = self.writes.heard;
            }
            self.writes.workspace = Some(scope.workspace.clone());
        }
        self.status.identity(&identity);
        self.chains.identity(&identity);
        if self.status.authority().is_none() {
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
        self.note_status_dispatch();
    }

    fn returned(
        &mut self,
        ctl: &mut Ctl<Self>,
        ret: WorkerReturn<ConnectorsSlot, ConnectorsObservation>,
    ) -> bool {
        self.worker_returned(&ctl.myself, ret)
    }

    fn stop(&mut self, reason: &str) {
        self.status.retire_all(reason);
        self.chains.retire_all(reason);
    }
}

impl OwnKey for ConnectorsState {
    const KEY: SourceKey = CONNECTORS;
}

/// Spawns the Connectors source under the supervisor.
pub type ConnectorsSpawner = Every<ConnectorsState>;
