//! The Runtime catalogue source: one shared joined load per workspace (sources.md F-1…F-7,
//! P-1…P-3) — `GET /api/v1/runtime/resolved` (§9.1, catalogue and usage decoded independently,
//! F-3, F-4) and `GET /api/v1/dashboard/runtime-probe` (provider reachability, newer MASC;
//! docs/protocol-extensions.md) read together by one worker under one ticket.
//!
//! Every screen that shows the catalogue (System › Runtime, Overview's quota line, the model
//! and account forms) reads the one `RuntimeSlot::Catalogue` slot this source fills, so
//! they share its read in flight (F-1). Demand policy (F-2, F-7): the cadence shares the read
//! in flight; an explicit demand (`r`, a committed save) **coalesces** into exactly one
//! follow-up read after it, and that follow-up asks the server for a fresh probe (`force=1`).
//! Withdrawal folds the follow-up into one read on reconfirmation (F-6, `ReadOwner`).

use super::{RUNTIME, RuntimeObservation, RuntimeSlot};
use crate::actors::contract::{DemandKind, IdentityState, ReadResult, SourceContext, SourceKey};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, ShellArgs, SourceShell, SourceState};
use crate::actors::read::{
    DemandOutcome, ExplicitPolicy, NoCommands, ReadOwner, Reader, ReturnOutcome, SlotSpec,
    WorkerReturn, reader,
};
use crate::protocol::client::ErrorClass;
use crate::protocol::runtime::{RuntimeProbe, RuntimeResolved};
use std::time::Duration;

pub const RUNTIME_RESOLVED_PATH: &str = "/api/v1/runtime/resolved";
pub const RUNTIME_PROBE_PATH: &str = "/api/v1/dashboard/runtime-probe";

/// One joined load (F-7): the catalogue read and the probe read of one dispatch. Each
/// component keeps its own result (P-1); neither is invented from the other.
#[derive(Debug, Clone)]
pub struct RuntimeLoad {
    pub resolved: ReadResult<RuntimeResolved>,
    pub probe: ReadResult<RuntimeProbe>,
    /// This load asked for a fresh probe (`force=1`): it serves an explicit demand (F-7).
    pub forced: bool,
}

/// The components of a joined load, as the header names them (P-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPart {
    Catalogue,
    Usage,
    Probe,
}

impl LoadPart {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Catalogue => "catalogue",
            Self::Usage => "usage",
            Self::Probe => "probe",
        }
    }
}

/// What one component of a load came to (P-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartOutcome {
    Received,
    /// This server does not serve the part (an older MASC): neither received nor failed.
    NotServed,
    /// Failed, with its class (`decode`, `status_503`, …).
    Failed(String),
}

/// A load's outcome as a whole: every served part received, every one failed, or a mix —
/// `partial`, counted apart from both (P-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    Received,
    Partial,
    Failed(String),
}

impl RuntimeLoad {
    /// Each component's own outcome (P-1). The usage section counts as received when this
    /// MASC does not send it (`NotInRelease` is an answer, not a failure).
    pub fn parts(&self) -> [(LoadPart, PartOutcome); 3] {
        let failed = |class: ErrorClass| match class {
            ErrorClass::NotServed => PartOutcome::NotServed,
            other => PartOutcome::Failed(other.to_string()),
        };
        let (catalogue, usage) = match &self.resolved {
            Ok(a) => (
                match &a.value.catalogue {
                    Ok(_) => PartOutcome::Received,
                    Err(_) => PartOutcome::Failed("decode".into()),
                },
                match &a.value.usage {
                    Ok(_) => PartOutcome::Received,
                    Err(_) => PartOutcome::Failed("decode".into()),
                },
            ),
            Err(e) => (failed(e.class()), failed(e.class())),
        };
        let probe = match &self.probe {
            Ok(_) => PartOutcome::Received,
            Err(e) => failed(e.class()),
        };
        [
            (LoadPart::Catalogue, catalogue),
            (LoadPart::Usage, usage),
            (LoadPart::Probe, probe),
        ]
    }

    /// The whole load's outcome (P-1): parts this server does not serve are left out.
    pub fn outcome(&self) -> LoadOutcome {
        let parts = self.parts();
        let served: Vec<&PartOutcome> = parts
            .iter()
            .map(|(_, o)| o)
            .filter(|o| **o != PartOutcome::NotServed)
            .collect();
        let received = served
            .iter()
            .filter(|o| ***o == PartOutcome::Received)
            .count();
        if received == served.len() {
            LoadOutcome::Received
        } else if received > 0 {
            LoadOutcome::Partial
        } else {
            let class = served
                .iter()
                .find_map(|o| match o {
                    PartOutcome::Failed(c) => Some(c.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "failed".into());
            LoadOutcome::Failed(class)
        }
    }

    /// The trace outcome: `ok`, `partial` or the failure class (G-10: no body text).
    pub fn trace_outcome(&self) -> String {
        match self.outcome() {
            LoadOutcome::Received => "ok".into(),
            LoadOutcome::Partial => "partial".into(),
            LoadOutcome::Failed(class) => class,
        }
    }
}

/// The joined reader; `force` asks the server for a fresh probe (F-7).
pub fn load_reader(force: bool) -> Reader<RuntimeObservation> {
    reader(move |auth, client| async move {
        let probe_target = if force {
            format!("{RUNTIME_PROBE_PATH}?force=1")
        } else {
            RUNTIME_PROBE_PATH.to_string()
        };
        // Both GETs start from the one dispatch; neither waits for the other.
        let (resolved, probe) = tokio::join!(
            client.get::<RuntimeResolved>(&auth, RUNTIME_RESOLVED_PATH),
            client.get::<RuntimeProbe>(&auth, &probe_target),
        );
        RuntimeObservation::Catalogue(Box::new(RuntimeLoad {
            resolved,
            probe,
            forced: force,
        }))
    })
}

/// The one slot of this source, with the production demand policy: standing (read on every
/// confirmation), explicit demand coalesces (F-2).
pub fn runtime_slot(
    generations: &crate::actors::contract::GenerationBook,
) -> SlotSpec<RuntimeSlot, RuntimeObservation> {
    SlotSpec {
        generations: generations.counter(&RuntimeSlot::Catalogue),
        key: RuntimeSlot::Catalogue,
        explicit: ExplicitPolicy::Coalesce,
        standing: true,
        reader: load_reader(false),
    }
}

/// The source: the read owner of the one slot, its cadence, and the `force=1` intent of an
/// explicit demand not yet served by a dispatch (F-7).
pub struct RuntimeSourceState {
    owner: ReadOwner<RuntimeSlot, RuntimeObservation, Myself<Self>>,
    /// An explicit demand waits for its dispatch: the slot's reader is the forced one until
    /// a dispatch serves it (the read in flight keeps the reader it started with).
    force_pending: bool,
}

/// The actor (spawned by [`RuntimeCatalogueSpawner`]; tests spawn it alone).
pub type RuntimeSource = SourceShell<RuntimeSourceState>;

/// What the actor starts with: the key, the supervisor's context and the period.
pub type RuntimeSourceArgs = ShellArgs<Duration>;

impl RuntimeSourceState {
    fn arm_force(&mut self) {
        self.force_pending = true;
        self.owner
            .set_reader(&RuntimeSlot::Catalogue, load_reader(true));
    }

    /// A dispatch happened: it took the forced reader if one was armed.
    fn served(&mut self) {
        if std::mem::take(&mut self.force_pending) {
            // The load an explicit demand (`r`, a post-save re-read) asked for: one per
            // coalesced demand (F-2), told apart from cadence loads in the trace.
            tracing::info!(target: "masc_tui::runtime", "forced catalogue load dispatched");
            self.owner
                .set_reader(&RuntimeSlot::Catalogue, load_reader(false));
        }
    }
}

impl SourceState for RuntimeSourceState {
    type Slot = RuntimeSlot;
    type Payload = RuntimeObservation;
    type Command = NoCommands;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let mut owner = ReadOwner::new(
            ctx.outlet::<RuntimeSlot, RuntimeObservation>(),
            myself.clone(),
            ctx.client,
        );
        owner.add_slot(runtime_slot(&ctx.generations));
        RuntimeSourceState {
            owner,
            force_pending: false,
        }
    }

    fn command(&mut self, _ctl: &mut Ctl<Self>, never: NoCommands) {
        match never {}
    }

    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Explicit {
            self.arm_force();
        }
        match self.owner.demand(&RuntimeSlot::Catalogue, kind) {
            DemandOutcome::Dispatched(_) | DemandOutcome::Superseded { .. } => self.served(),
            // Coalesced: the follow-up takes the forced reader when the read in flight
            // settles. Refused: kept as demand for the next confirmation.
            DemandOutcome::Coalesced { .. }
            | DemandOutcome::Shared(_)
            | DemandOutcome::Refused(_) => {}
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        let out = self.owner.identity(&identity);
        if !out.dispatched.is_empty() {
            self.served();
        }
        if self.owner.authority().is_none() {
            ctl.cancel_cadence();
        }
    }

    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<RuntimeSlot, RuntimeObservation>,
    ) -> bool {
        let out = self.owner.worker_returned(ret);
        if let ReturnOutcome::Forwarded {
            follow_up: Some(_), ..
        }
        | ReturnOutcome::WorkerPanicked {
            follow_up: Some(_), ..
        } = &out
        {
            self.served();
        }
        out.completed()
    }

    fn stop(&mut self, reason: &str) {
        self.owner.retire_all(reason);
    }
}

impl OwnKey for RuntimeSourceState {
    const KEY: SourceKey = RUNTIME;
}

/// Spawns the Runtime catalogue source under the supervisor.
pub type RuntimeCatalogueSpawner = Every<RuntimeSourceState>;
