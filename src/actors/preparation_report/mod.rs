//! The preparation detail source (protocol.md §14.12; sources.md M-1…M-9; chat-screen.md
//! C-45): the stored runtime-trace report of one finished turn, read on demand only — when the
//! open chat's details are expanded (`Ctrl-S`) for a turn with an exact link (M-9: only the
//! Keeper whose chat detail is expanded requests it; nothing fleet-wide).
//! Ownership contract and tested faults: docs/audits/preparation_report.md.
//!
//! M-2's re-check: a failure that comes before the report is saved (a failed read, or a trace
//! with no rows yet) is re-read — the aimed target only — on the turns cadence (the Keeper
//! detail's 15 s) until a report with rows is admitted or the aim changes (a new `Read`, or
//! `Stop` when the details fold or point elsewhere). A permission refusal, a route this MASC
//! does not serve, a missing token or another workspace is not re-read: waiting mends none.
//!
//! One slot, [`PreparationReportSlot::Report`], re-aimed by [`PreparationReportCommand::Read`]: the reader
//! is replaced and an explicit demand supersedes the read in flight (M-5: a new selection
//! detaches the old response). The payload carries the target fixed at dispatch, so the view
//! takes an answer only for the target it still shows (`other_target` otherwise).

use crate::actors::contract::{
    DemandKind, IdentityState, Payload, ReadResult, SlotKey, SourceContext, SourceKey, read_outcome,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, ShellMsg, SourceState, StartArgs};
use crate::actors::read::{
    CadenceTimer, ExplicitPolicy, ReadOwner, ReturnOutcome, SlotSpec, WorkerReturn, reader,
};
use crate::protocol::client::ErrorClass;
use crate::protocol::runtime_trace::{RuntimeTrace, TraceHealth, TurnLink, runtime_trace_path};
use std::time::Duration;

/// The preparation source (supervision key).
pub const PREPARATION_REPORT: SourceKey = SourceKey("preparation");

/// What one read is for: a Keeper's turn, by its exact link (M-1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PreparationReportTarget {
    pub keeper: String,
    pub link: TurnLink,
}

/// The one slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PreparationReportSlot {
    /// `GET /api/v1/keepers/{name}/runtime-trace?trace_id=&turn_id=` (§14.12).
    Report,
}

impl SlotKey for PreparationReportSlot {
    fn trace_name(&self) -> String {
        // The Keeper and turn stay out of the trace name (G-10): the payload names them.
        "preparation_report".to_string()
    }

    fn source(&self) -> SourceKey {
        PREPARATION_REPORT
    }
}

/// One answer, with the target it was read for.
#[derive(Debug, Clone)]
pub struct PreparationReportObservation {
    pub target: PreparationReportTarget,
    pub result: ReadResult<RuntimeTrace>,
}

impl Payload for PreparationReportObservation {
    fn outcome(&self) -> String {
        read_outcome(&self.result)
    }
}

/// What the view asks of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreparationReportCommand {
    /// Read `target`'s report now (supersedes the read in flight, M-5/M-6).
    Read(PreparationReportTarget),
    /// The details point at no target to read any more (folded, or at a report already read):
    /// the M-2 re-check ends.
    Stop,
}

/// M-2: whether an answer is a failure that may come before the save, so the target is read
/// again on the turns cadence (`false`: a report with rows, or a failure waiting cannot mend).
pub fn recheck_after(result: &ReadResult<RuntimeTrace>) -> bool {
    match result {
        Ok(admitted) => admitted.value.health == TraceHealth::Empty,
        Err(e) => !matches!(
            e.class(),
            ErrorClass::Unauthorized(_)
                | ErrorClass::NotServed
                | ErrorClass::NoToken
                | ErrorClass::WorkspaceMismatch
        ),
    }
}

crate::source_commands!(
    PreparationReportSlot,
    PreparationReportObservation,
    PreparationReportCommand
);

type Msg = ShellMsg<PreparationReportState>;

fn report_reader(
    target: PreparationReportTarget,
) -> crate::actors::read::Reader<PreparationReportObservation> {
    reader(move |auth, client| {
        let target = target.clone();
        async move {
            let path = runtime_trace_path(&target.keeper, &target.link);
            let (keeper, link) = (target.keeper.clone(), target.link.clone());
            let result = client
                .get_with(&auth, &path, move |body: &[u8]| {
                    RuntimeTrace::decode_for(body, &keeper, &link)
                })
                .await;
            PreparationReportObservation { target, result }
        }
    })
}

pub struct PreparationReportState {
    owner: ReadOwner<
        PreparationReportSlot,
        PreparationReportObservation,
        Myself<PreparationReportState>,
    >,
    /// M-2: the re-check's timer (the turns cadence), armed after a failure before the save.
    recheck: CadenceTimer<Msg>,
    /// The target of the last `Read` (`None` after `Stop`).
    aimed: Option<PreparationReportTarget>,
    /// A re-check of `aimed` is due on the next tick.
    rechecking: bool,
}

impl PreparationReportState {
    fn end_recheck(&mut self) {
        self.recheck.cancel();
        self.rechecking = false;
    }
}

/// The re-check's period (M-2: the turns cadence). Not a poll: the timer is the source's own,
/// so visibility changes no period (it only runs while the details are expanded).
pub struct Recheck(pub Duration);

impl From<Duration> for Recheck {
    fn from(period: Duration) -> Self {
        Self(period)
    }
}

impl StartArgs for Recheck {
    fn period(&self) -> Option<Duration> {
        None
    }
}

impl SourceState for PreparationReportState {
    type Slot = PreparationReportSlot;
    type Payload = PreparationReportObservation;
    type Command = PreparationReportCommand;
    type Args = Recheck;

    fn start(ctx: SourceContext, myself: &Myself<Self>, Recheck(recheck): Recheck) -> Self {
        let mut owner = ReadOwner::new(ctx.outlet(), myself.clone(), ctx.client.clone());
        owner.add_slot(SlotSpec {
            generations: ctx.generations.counter(&PreparationReportSlot::Report),
            key: PreparationReportSlot::Report,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
            // Nothing is read before the first `Read` names a target.
            reader: reader(|_, _| async { unreachable_target() }),
        });
        PreparationReportState {
            owner,
            recheck: CadenceTimer::new(recheck),
            aimed: None,
            rechecking: false,
        }
    }

    fn command(&mut self, _ctl: &mut Ctl<Self>, command: PreparationReportCommand) {
        match command {
            PreparationReportCommand::Read(target) => {
                // A new aim ends the re-check of the old one (M-2, M-5).
                self.end_recheck();
                self.aimed = Some(target.clone());
                self.owner
                    .set_reader(&PreparationReportSlot::Report, report_reader(target));
                self.owner
                    .demand(&PreparationReportSlot::Report, DemandKind::Explicit);
            }
            PreparationReportCommand::Stop => {
                self.end_recheck();
                self.aimed = None;
            }
        }
    }

    /// M-2: the re-check's tick reads the aimed target again (shares a read in flight). No
    /// standing read: any other demand has no target to read.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Cadence && self.rechecking && self.aimed.is_some() {
            self.rechecking = false;
            self.owner
                .demand(&PreparationReportSlot::Report, DemandKind::Cadence);
        }
    }

    fn identity(&mut self, _ctl: &mut Ctl<Self>, identity: IdentityState) {
        self.owner.identity(&identity);
    }

    /// Only an answer for the target aimed now decides the re-check; the source's own timer
    /// is armed here, never by the shell.
    fn returned(
        &mut self,
        ctl: &mut Ctl<Self>,
        ret: WorkerReturn<PreparationReportSlot, PreparationReportObservation>,
    ) -> bool {
        let recheck = match &ret.result {
            Ok(obs) if self.aimed.as_ref() == Some(&obs.target) => Some(recheck_after(&obs.result)),
            _ => None,
        };
        let outcome = self.owner.worker_returned(ret);
        if !matches!(outcome, ReturnOutcome::Stale(_)) {
            match recheck {
                Some(true) => {
                    self.rechecking = true;
                    self.recheck.reschedule(&ctl.myself);
                }
                Some(false) => self.end_recheck(),
                None => {}
            }
        }
        false
    }

    fn stop(&mut self, reason: &str) {
        self.owner.retire_all(reason);
    }
}

/// The placeholder reader's answer (never dispatched: the slot is not standing and is only
/// demanded after `Read` replaced the reader).
fn unreachable_target() -> PreparationReportObservation {
    PreparationReportObservation {
        target: PreparationReportTarget {
            keeper: String::new(),
            link: TurnLink {
                trace_id: String::new(),
                turn_id: 0,
            },
        },
        result: Err(crate::protocol::client::ClientError::Decode(
            crate::protocol::decode::DecodeError::new(
                crate::protocol::decode::DecodeErrorKind::InvalidValue,
                "",
                "no target",
            ),
        )),
    }
}

impl OwnKey for PreparationReportState {
    const KEY: SourceKey = PREPARATION_REPORT;
}

/// Spawns the preparation source (its period: the turns cadence of M-2's re-check) under the supervisor.
pub type PreparationReportSpawner = Every<PreparationReportState>;
