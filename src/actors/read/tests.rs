//! Read machinery with fake workers: every worker blocks on a oneshot the test releases, so
//! ordering is decided by the test, never by timing.

use super::*;
use crate::actors::contract::{DemandKind, GenerationCounter, IdentityState, SlotEvent};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use crate::protocol::client::{ClientConfig, ClientError, WorkspaceClient};
use crate::timeline::capture::StageRecorder;
use crate::timeline::record::StageRecord;
use tokio::sync::{mpsc, oneshot};

type Return = WorkerReturn<KeepersSlot, KeepersObservation>;
type Event = SlotEvent<KeepersSlot, KeepersObservation>;
type Owner = ReadOwner<KeepersSlot, KeepersObservation, mpsc::UnboundedSender<Return>>;

/// A parked fake worker: the epoch it was dispatched under and its release switch.
struct Parked {
    epoch: u64,
    release: oneshot::Sender<KeepersObservation>,
}

struct Harness {
    owner: Owner,
    view: mpsc::UnboundedReceiver<Event>,
    returns: mpsc::UnboundedReceiver<Return>,
    parked: mpsc::UnboundedReceiver<Parked>,
    generations: GenerationCounter,
    recorder: StageRecorder,
    _trace: tracing::subscriber::DefaultGuard,
}

/// A payload the test can recognise: `status` marks which release produced it.
fn marked(status: u16) -> KeepersObservation {
    KeepersObservation::Roster(Err(ClientError::Status {
        status,
        body: String::new(),
    }))
}

fn status_of(payload: &KeepersObservation) -> Option<u16> {
    match payload {
        KeepersObservation::Roster(Err(ClientError::Status { status, .. })) => Some(*status),
        _ => None,
    }
}

fn gated_reader(tx: mpsc::UnboundedSender<Parked>) -> Reader<KeepersObservation> {
    reader(move |auth, _client| {
        let tx = tx.clone();
        async move {
            let (release, wait) = oneshot::channel();
            let _ = tx.send(Parked {
                epoch: auth.scope.epoch,
                release,
            });
            wait.await.unwrap_or_else(|_| marked(599))
        }
    })
}

fn harness(policy: ExplicitPolicy, standing: bool, generations: GenerationCounter) -> Harness {
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let (view_tx, view) = mpsc::unbounded_channel();
    let (ret_tx, returns) = mpsc::unbounded_channel();
    let (park_tx, parked) = mpsc::unbounded_channel();
    let client = WorkspaceClient::new(ClientConfig::new("http://127.0.0.1:9")).unwrap();
    let mut owner = ReadOwner::new(view_tx, ret_tx, client);
    owner.add_slot(SlotSpec {
        key: KeepersSlot::Roster,
        explicit: policy,
        standing,
        generations: generations.clone(),
        reader: gated_reader(park_tx),
    });
    Harness {
        owner,
        view,
        returns,
        parked,
        generations,
        recorder,
        _trace: trace,
    }
}

fn confirmed(root: &str, epoch: u64) -> IdentityState {
    IdentityState::Confirmed {
        scope: ReadScope {
            workspace: WorkspaceId(root.to_string()),
            epoch,
        },
        base_path: "/base".to_string(),
        mode: AdmissionMode::Receipt,
    }
}

fn withdrawn() -> IdentityState {
    IdentityState::Unconfirmed {
        reason: "probe failed".to_string(),
    }
}

const KEY: KeepersSlot = KeepersSlot::Roster;

impl Harness {
    async fn next_parked(&mut self) -> Parked {
        self.parked.recv().await.unwrap()
    }

    async fn next_return(&mut self) -> Return {
        self.returns.recv().await.unwrap()
    }

    fn drain_view(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Ok(m) = self.view.try_recv() {
            out.push(m);
        }
        out
    }

    fn stages(&self, stage: &str) -> Vec<StageRecord> {
        self.recorder.records_where(|r| r.stage == stage)
    }
}

fn describe(msgs: &[Event]) -> Vec<String> {
    msgs.iter()
        .map(|m| match m {
            SlotEvent::Dispatched(t) => format!("dispatched g{} e{}", t.generation, t.scope.epoch),
            SlotEvent::Retired(t) => format!("retired g{} e{}", t.generation, t.scope.epoch),
            SlotEvent::Observed(t, p) => format!(
                "observed g{} e{} {:?}",
                t.generation,
                t.scope.epoch,
                status_of(p)
            ),
        })
        .collect()
}

#[tokio::test]
async fn g3_cadence_shares_the_in_flight_read() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 1));
    let DemandOutcome::Dispatched(t1) = h.owner.demand(&KEY, DemandKind::Cadence) else {
        panic!("first demand must dispatch");
    };
    let worker = h.next_parked().await;
    assert_eq!(
        h.owner.demand(&KEY, DemandKind::Cadence),
        DemandOutcome::Shared(t1.clone())
    );
    assert_eq!(h.generations.current(), 1, "no second worker");
    worker.release.send(marked(501)).unwrap();
    let ret = h.next_return().await;
    let out = h.owner.worker_returned(ret);
    assert!(out.completed());
    assert_eq!(
        describe(&h.drain_view()),
        ["dispatched g1 e1", "observed g1 e1 Some(501)"]
    );
    assert_eq!(h.stages("dispatch").len(), 1);
    assert_eq!(h.owner.snapshot(&KEY).unwrap().in_flight, None);
}

#[tokio::test]
async fn g3_explicit_supersedes_and_the_old_result_is_never_forwarded() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 1));
    h.owner.demand(&KEY, DemandKind::Cadence);
    let mut old = h.next_parked().await;
    let DemandOutcome::Superseded {
        retired,
        dispatched,
    } = h.owner.demand(&KEY, DemandKind::Explicit)
    else {
        panic!("explicit demand must supersede");
    };
    assert_eq!((retired.generation, dispatched.generation), (1, 2));
    // The old worker was aborted: its receiver is gone.
    old.release.closed().await;
    let new = h.next_parked().await;
    // A result of the old ticket that raced the abort is dropped by the owner (G-7).
    let late = h.owner.worker_returned(WorkerReturn {
        ticket: retired.clone(),
        result: Ok(marked(502)),
    });
    assert_eq!(late, ReturnOutcome::Stale(retired.clone()));
    assert_eq!(
        h.owner.snapshot(&KEY).unwrap().in_flight,
        Some(dispatched.clone())
    );
    new.release.send(marked(503)).unwrap();
    let ret = h.next_return().await;
    h.owner.worker_returned(ret);
    assert_eq!(
        describe(&h.drain_view()),
        [
            "dispatched g1 e1",
            "retired g1 e1",
            "dispatched g2 e1",
            "observed g2 e1 Some(503)"
        ]
    );
    let cancel = h.stages("cancel_requested");
    assert_eq!(cancel.len(), 1);
    assert_eq!(cancel[0].generation, Some(1));
    assert_eq!(cancel[0].reason.as_deref(), Some("superseded"));
    let rejected = h.stages("reject");
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].generation, Some(1));
}

#[tokio::test]
async fn g3_coalesce_runs_exactly_one_follow_up() {
    let mut h = harness(ExplicitPolicy::Coalesce, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 1));
    let DemandOutcome::Dispatched(t1) = h.owner.demand(&KEY, DemandKind::Cadence) else {
        panic!("first demand must dispatch");
    };
    let first = h.next_parked().await;
    for _ in 0..3 {
        assert_eq!(
            h.owner.demand(&KEY, DemandKind::Explicit),
            DemandOutcome::Coalesced {
                in_flight: t1.clone()
            }
        );
    }
    assert_eq!(
        h.generations.current(),
        1,
        "the in-flight read is not cancelled"
    );
    first.release.send(marked(504)).unwrap();
    let ret = h.next_return().await;
    let ReturnOutcome::Forwarded {
        follow_up: Some(t2),
        ..
    } = h.owner.worker_returned(ret)
    else {
        panic!("one follow-up read expected");
    };
    assert_eq!(t2.generation, 2);
    let second = h.next_parked().await;
    second.release.send(marked(505)).unwrap();
    let ret = h.next_return().await;
    assert!(matches!(
        h.owner.worker_returned(ret),
        ReturnOutcome::Forwarded {
            follow_up: None,
            ..
        }
    ));
    assert_eq!(h.generations.current(), 2, "exactly one follow-up");
    assert_eq!(
        describe(&h.drain_view()),
        [
            "dispatched g1 e1",
            "observed g1 e1 Some(504)",
            "dispatched g2 e1",
            "observed g2 e1 Some(505)"
        ]
    );
    assert!(h.stages("cancel_requested").is_empty());
}

#[tokio::test]
async fn g6_withdrawal_retires_owned_reads_and_refuses_new_ones() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 1));
    h.owner.demand(&KEY, DemandKind::Cadence);
    let mut worker = h.next_parked().await;
    let out = h.owner.identity(&withdrawn());
    assert_eq!(out.retired.len(), 1);
    worker.release.closed().await;
    assert_eq!(
        h.owner.demand(&KEY, DemandKind::Explicit),
        DemandOutcome::Refused(Refusal::NoEpoch)
    );
    let refused = h.stages("refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].reason.as_deref(), Some("no_epoch"));
    assert!(
        h.owner.snapshot(&KEY).unwrap().wanted,
        "demand survives withdrawal"
    );
    // Reconfirming the same workspace serves the kept demand once, under the new epoch.
    let out = h.owner.identity(&confirmed("/r", 3));
    assert_eq!(out.dispatched.len(), 1);
    assert_eq!(out.dispatched[0].scope.epoch, 3);
    assert_eq!(
        describe(&h.drain_view()),
        ["dispatched g1 e1", "retired g1 e1", "dispatched g2 e3"]
    );
    let retire = h.stages("retire");
    assert_eq!(retire[0].reason.as_deref(), Some("withdrawn"));
}

#[tokio::test]
async fn g6_g7_late_worker_after_withdrawal_never_reaches_the_new_epoch() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 1));
    h.owner.demand(&KEY, DemandKind::Cadence);
    let worker = h.next_parked().await;
    assert_eq!(worker.epoch, 1);
    // The worker finishes, but its result is still queued when identity changes.
    worker.release.send(marked(506)).unwrap();
    let late = h.next_return().await;
    h.owner.identity(&withdrawn());
    h.owner.identity(&confirmed("/r", 3));
    let fresh = h.next_parked().await;
    assert_eq!(fresh.epoch, 3);
    assert!(matches!(
        h.owner.worker_returned(late),
        ReturnOutcome::Stale(_)
    ));
    // The newer request's state is untouched by the late result (G-7).
    let snap = h.owner.snapshot(&KEY).unwrap();
    assert_eq!(
        snap.in_flight.map(|t| (t.generation, t.scope.epoch)),
        Some((2, 3))
    );
    fresh.release.send(marked(507)).unwrap();
    let ret = h.next_return().await;
    h.owner.worker_returned(ret);
    let observed: Vec<_> = h
        .drain_view()
        .into_iter()
        .filter_map(|m| match m {
            SlotEvent::Observed(t, p) => Some((t.generation, t.scope.epoch, status_of(&p))),
            _ => None,
        })
        .collect();
    assert_eq!(observed, [(2, 3, Some(507))]);
    let reject = h.stages("reject");
    assert_eq!(reject.len(), 1);
    assert_eq!((reject[0].generation, reject[0].epoch), (Some(1), Some(1)));
}

#[tokio::test]
async fn g6_generations_never_reset_across_epochs_workspaces_and_owners() {
    let generations = GenerationCounter::new();
    let mut h = harness(ExplicitPolicy::Supersede, true, generations.clone());
    let mut seen = Vec::new();
    for (root, epoch) in [("/a", 1), ("/a", 3), ("/b", 5), ("/a", 7)] {
        let out = h.owner.identity(&confirmed(root, epoch));
        assert_eq!(
            out.dispatched.len(),
            1,
            "standing slot reads on every epoch"
        );
        seen.push(out.dispatched[0].generation);
        h.owner.identity(&withdrawn());
    }
    // A new owner (a restarted actor) with the same counter continues the sequence.
    drop(h);
    let mut h2 = harness(ExplicitPolicy::Supersede, true, generations);
    let out = h2.owner.identity(&confirmed("/a", 9));
    seen.push(out.dispatched[0].generation);
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
}

#[tokio::test]
async fn g6_a_different_workspace_does_not_inherit_demand() {
    let mut h = harness(ExplicitPolicy::Coalesce, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/a", 1));
    h.owner.demand(&KEY, DemandKind::Explicit);
    let _worker = h.next_parked().await;
    h.owner.demand(&KEY, DemandKind::Explicit); // coalesced follow-up
    h.owner.identity(&withdrawn());
    let out = h.owner.identity(&confirmed("/b", 3));
    assert!(
        out.dispatched.is_empty(),
        "demand of /a is not served in /b"
    );
    let snap = h.owner.snapshot(&KEY).unwrap();
    assert!(!snap.wanted && !snap.follow_up);
}

#[tokio::test]
async fn demand_before_the_first_confirmation_is_served_by_it() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    assert_eq!(
        h.owner.demand(&KEY, DemandKind::Explicit),
        DemandOutcome::Refused(Refusal::NoEpoch)
    );
    assert!(h.drain_view().is_empty(), "no ticket without an epoch");
    let out = h.owner.identity(&confirmed("/a", 2));
    assert_eq!(out.dispatched.len(), 1);
}

#[tokio::test]
async fn a_panicking_worker_retires_its_ticket_and_the_owner_survives() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let (view_tx, mut view) = mpsc::unbounded_channel();
    let (ret_tx, mut returns) = mpsc::unbounded_channel();
    let client = WorkspaceClient::new(ClientConfig::new("http://127.0.0.1:9")).unwrap();
    let mut owner: Owner = ReadOwner::new(view_tx, ret_tx, client);
    owner.add_slot(SlotSpec {
        key: KEY,
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations: GenerationCounter::new(),
        reader: reader(|_auth, _client| async move {
            std::panic::panic_any("fake reader failure");
        }),
    });
    owner.identity(&confirmed("/r", 1));
    owner.demand(&KEY, DemandKind::Explicit);
    let ret = returns.recv().await.unwrap();
    assert!(matches!(
        owner.worker_returned(ret),
        ReturnOutcome::WorkerPanicked { .. }
    ));
    let mut kinds = Vec::new();
    while let Ok(m) = view.try_recv() {
        kinds.push(describe(std::slice::from_ref(&m)).remove(0));
    }
    assert_eq!(kinds, ["dispatched g1 e1", "retired g1 e1"]);
    let ret = recorder.records_where(|r| r.stage == "worker_return");
    assert_eq!(ret[0].outcome.as_deref(), Some("worker_panicked"));
}

#[tokio::test]
async fn every_ticket_stage_carries_source_generation_and_epoch() {
    let mut h = harness(ExplicitPolicy::Supersede, false, GenerationCounter::new());
    h.owner.identity(&confirmed("/r", 4));
    h.owner.demand(&KEY, DemandKind::Cadence);
    let w = h.next_parked().await;
    w.release.send(marked(500)).unwrap();
    let ret = h.next_return().await;
    h.owner.worker_returned(ret);
    let stages: Vec<_> = h
        .recorder
        .records()
        .into_iter()
        .map(|r| {
            assert_eq!(r.source, "keepers_roster");
            assert_eq!((r.generation, r.epoch), (Some(1), Some(4)), "{r:?}");
            (r.stage, r.outcome)
        })
        .collect();
    assert_eq!(
        stages,
        [
            ("dispatch".to_string(), None),
            ("worker_enter".to_string(), None),
            ("worker_return".to_string(), Some("status_500".to_string())),
            ("observe".to_string(), Some("status_500".to_string())),
            ("unregistered".to_string(), None),
        ]
    );
}

/// G-6: a source keeping its own slots ends its reads on a new epoch or a withdrawal, never
/// while the confirmed scope stays (a changed admission mode alone keeps them).
#[test]
fn g6_epoch_change_ends_reads_unless_the_scope_stays() {
    let authority = |workspace: &str, epoch: u64, mode| ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(workspace.to_string()),
            epoch,
        },
        expected_root: workspace.to_string(),
        mode,
    };
    let a = authority("/ws/a", 1, AdmissionMode::Receipt);
    let same = authority("/ws/a", 1, AdmissionMode::Health);
    let later = authority("/ws/a", 2, AdmissionMode::Receipt);
    let other = authority("/ws/b", 1, AdmissionMode::Receipt);
    assert_eq!(epoch_change(Some(&a), Some(&same)), None);
    assert_eq!(epoch_change(Some(&a), Some(&later)), Some("new_epoch"));
    assert_eq!(epoch_change(Some(&a), Some(&other)), Some("new_epoch"));
    assert_eq!(epoch_change(None, Some(&a)), Some("new_epoch"));
    assert_eq!(epoch_change(Some(&a), None), Some("withdrawn"));
    assert_eq!(epoch_change(None, None), Some("withdrawn"));
}
