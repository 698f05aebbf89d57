//! WorkspaceActor: `/health` cadence, identity judgement and the read epoch (protocol.md §2.1,
//! sources.md G-6, G-9).
//!
//! It owns the epoch counter's advance: the epoch advances on every withdrawal (leaving
//! `Confirmed`) and on every new confirmation, and is never reset (the counter is owned by the
//! supervisor, so a restarted workspace actor continues it). Every change of identity is
//! published first to the view and then to every registered source (`SourceCommand::Identity`).
//! A failed probe, a mismatch, a changed base or root, or `state_ready: false` withdraws the
//! epoch. Only this cadence changes identity: a read rejected by the server is that source's
//! failure, not an identity observation (§2.1).

use crate::actors::contract::{
    EventSink, GenerationCounter, IdentityState, SlotKey, SourceControl, SourceEvent, SourceHandle,
    SourceKey, Ticket,
};
use crate::actors::read::Running;
use crate::protocol::admission::{ReadScope, WorkspaceId};
use crate::protocol::client::{ClientError, HealthAnswer, WorkspaceClient};
use crate::protocol::health::Health;
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The read-epoch counter. Owned by the supervisor; never reset (G-6).
#[derive(Debug, Clone, Default)]
pub struct EpochCounter(Arc<AtomicU64>);

impl EpochCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Advances and returns the new epoch.
    pub fn advance(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst).saturating_add(1)
    }

    pub fn current(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The judgement of one `/health` answer (protocol.md §2.1), shared with the client.
pub(crate) use crate::protocol::health::IdentityVerdict as Verdict;

/// §2.1 judgement. `expected_base: None` accepts whatever base the server serves.
pub(crate) fn judge(expected_base: Option<&str>, health: &Health) -> Verdict {
    crate::protocol::health::judge_identity(expected_base, health)
}

fn verdict_of_probe(expected_base: Option<&str>, probe: &Result<Health, ClientError>) -> Verdict {
    match probe {
        Ok(health) => judge(expected_base, health),
        Err(e) => Verdict::Unread {
            reason: format!("health probe failed: {}", e.class()),
        },
    }
}

/// The identity states to publish, in order, when `verdict` follows `current`. Advances the
/// epoch on withdrawal and on confirmation; a changed identity is a withdrawal followed by a
/// new confirmation.
pub(crate) fn transition(
    current: &IdentityState,
    verdict: Verdict,
    epochs: &EpochCounter,
) -> Vec<IdentityState> {
    let was_confirmed = matches!(current, IdentityState::Confirmed { .. });
    match verdict {
        Verdict::Match {
            base_path,
            masc_root,
            mode,
        } => {
            let mut out = Vec::new();
            if let IdentityState::Confirmed {
                scope,
                base_path: b,
                mode: m,
            } = current
            {
                if scope.workspace.0 == masc_root && *b == base_path && *m == mode {
                    return out;
                }
                epochs.advance();
                out.push(IdentityState::Unconfirmed {
                    reason: "workspace identity changed".to_string(),
                });
            }
            let epoch = epochs.advance();
            out.push(IdentityState::Confirmed {
                scope: ReadScope {
                    workspace: WorkspaceId(masc_root),
                    epoch,
                },
                base_path,
                mode,
            });
            out
        }
        other => {
            let next = match other {
                Verdict::Unread { reason } => IdentityState::Unconfirmed { reason },
                Verdict::Booting => IdentityState::Booting,
                Verdict::Mismatch { expected, served } => {
                    IdentityState::Mismatch { expected, served }
                }
                Verdict::Match { .. } => return Vec::new(),
            };
            if &next == current {
                return Vec::new();
            }
            if was_confirmed {
                epochs.advance();
            }
            vec![next]
        }
    }
}

/// The `/health` probe's slot (traced as source `workspace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HealthProbe;

impl SlotKey for HealthProbe {
    fn trace_name(&self) -> String {
        "workspace".to_string()
    }

    fn source(&self) -> SourceKey {
        SourceKey::WORKSPACE
    }
}

fn kind(state: &IdentityState) -> &'static str {
    match state {
        IdentityState::Unconfirmed { .. } => "unconfirmed",
        IdentityState::Booting => "booting",
        IdentityState::Mismatch { .. } => "mismatch",
        IdentityState::Confirmed { .. } => "confirmed",
    }
}

pub struct WorkspaceActor;

pub struct WorkspaceArgs {
    pub client: WorkspaceClient,
    pub view: Arc<dyn EventSink>,
    /// The operator's expected base path (`MASC_BASE_PATH`); `None` accepts the served one.
    pub expected_base: Option<String>,
    pub interval: Duration,
    pub epochs: EpochCounter,
    /// Generations of `/health` probes (traced as source `workspace`).
    pub probes: GenerationCounter,
    pub fault_drills: bool,
}

pub enum WorkspaceMsg {
    /// Cadence tick: probe `/health` unless a probe is in flight.
    Probe,
    ProbeReturned {
        ticket: Ticket<HealthProbe>,
        result: Result<HealthAnswer, ClientError>,
        /// How long the probe took (a held probe spaces the cadence by itself).
        took: Duration,
    },
    /// A source (re)started: it gets the current identity now and every change after.
    Register {
        source: SourceKey,
        handle: SourceHandle,
    },
    /// Supervision drill (see `SourceControl::InjectPanic`).
    InjectPanic,
}

pub struct WorkspaceState {
    args: WorkspaceArgs,
    identity: IdentityState,
    sources: BTreeMap<SourceKey, SourceHandle>,
    /// The probe in flight (aborted when dropped).
    probe: Option<Running<HealthProbe>>,
    timer: Option<tokio::task::JoinHandle<Result<(), ractor::MessagingErr<WorkspaceMsg>>>>,
}

impl WorkspaceState {
    fn publish(&mut self, next: IdentityState) {
        let epoch = match &next {
            IdentityState::Confirmed { scope, .. } => scope.epoch,
            _ => self.args.epochs.current(),
        };
        tracing::info!(
            target: "masc_tui::workspace",
            identity = kind(&next),
            epoch = epoch,
            "identity changed"
        );
        self.identity = next;
        self.args
            .view
            .send(SourceEvent::Identity(self.identity.clone()));
        for handle in self.sources.values() {
            // A dead source is replaced and re-registered by the supervisor.
            handle.send_control(SourceControl::Identity(self.identity.clone()));
        }
    }

    fn probe_ticket(&self) -> Ticket<HealthProbe> {
        let workspace = match &self.identity {
            IdentityState::Confirmed { scope, .. } => scope.workspace.clone(),
            _ => WorkspaceId(String::new()),
        };
        Ticket {
            slot: HealthProbe,
            generation: self.args.probes.next(),
            scope: ReadScope {
                workspace,
                epoch: self.args.epochs.current(),
            },
        }
    }

    fn arm(&mut self, myself: &ActorRef<WorkspaceMsg>) {
        if let Some(t) = self.timer.take() {
            t.abort();
        }
        self.timer = Some(myself.send_after(self.args.interval, || WorkspaceMsg::Probe));
    }
}

impl Drop for WorkspaceState {
    fn drop(&mut self) {
        if let Some(t) = self.timer.take() {
            t.abort();
        }
        // The probe in flight is aborted as it is dropped, after the timer.
    }
}

impl Actor for WorkspaceActor {
    type Msg = WorkspaceMsg;
    type State = WorkspaceState;
    type Arguments = WorkspaceArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<WorkspaceMsg>,
        args: WorkspaceArgs,
    ) -> Result<WorkspaceState, ActorProcessingErr> {
        // A new incarnation cannot vouch for what an earlier one confirmed: withdraw.
        args.epochs.advance();
        let mut state = WorkspaceState {
            args,
            identity: IdentityState::Unconfirmed {
                reason: "not probed yet".to_string(),
            },
            sources: BTreeMap::new(),
            probe: None,
            timer: None,
        };
        let initial = state.identity.clone();
        state.publish(initial);
        let _ = myself.cast(WorkspaceMsg::Probe);
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<WorkspaceMsg>,
        msg: WorkspaceMsg,
        state: &mut WorkspaceState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WorkspaceMsg::Probe => {
                if state.probe.is_some() {
                    return Ok(());
                }
                let ticket = state.probe_ticket();
                stage::dispatch(&ticket);
                let client = state.args.client.clone();
                let me = myself.clone();
                let worker_ticket = ticket.clone();
                // Conditional always; held by a server that can hold it only while
                // the identity is confirmed: an unchanged identity then costs a 304 per hold
                // instead of a body per cadence. Unconfirmed, mismatched or failing, the probe
                // keeps the plain cadence.
                let hold = matches!(state.identity, IdentityState::Confirmed { .. })
                    .then_some(client.config().health_hold)
                    .flatten();
                let probe = Running::spawn(ticket, async move {
                    stage::worker_enter(&worker_ticket);
                    let started = std::time::Instant::now();
                    let result = client.health_watch(hold).await;
                    let took = started.elapsed();
                    let outcome = match &result {
                        Ok(_) => "ok".to_string(),
                        Err(e) => e.class().to_string(),
                    };
                    stage::worker_return(&worker_ticket, &outcome);
                    let _ = me.cast(WorkspaceMsg::ProbeReturned {
                        ticket: worker_ticket,
                        result,
                        took,
                    });
                });
                state.probe = Some(probe);
            }
            WorkspaceMsg::ProbeReturned {
                ticket,
                result,
                took,
            } => {
                let outcome = match &result {
                    Ok(_) => "ok".to_string(),
                    Err(e) => e.class().to_string(),
                };
                stage::observe(&ticket, &outcome);
                if state.probe.as_ref().map(|p| &p.ticket) != Some(&ticket) {
                    stage::reject(&ticket, "late_after_retire");
                    return Ok(());
                }
                state.probe = None;
                stage::unregistered(&ticket, "returned");
                // A held probe that took at least the cadence already spaced the next one.
                let held = result.as_ref().is_ok_and(|a| a.held) && took >= state.args.interval;
                let health = result.map(|a| Health::clone(&a.health));
                let verdict = verdict_of_probe(state.args.expected_base.as_deref(), &health);
                for next in transition(&state.identity, verdict, &state.args.epochs) {
                    state.publish(next);
                }
                // The workspace actor is the consumer of its own probe.
                stage::admit(&ticket);
                if held {
                    // The server held the probe until something changed or its wait ran out:
                    // that was the spacing; ask again at once.
                    let _ = myself.cast(WorkspaceMsg::Probe);
                } else {
                    state.arm(&myself);
                }
            }
            WorkspaceMsg::Register { source, handle } => {
                handle.send_control(SourceControl::Identity(state.identity.clone()));
                state.sources.insert(source, handle);
            }
            WorkspaceMsg::InjectPanic => {
                crate::actors::read::drill::inject_panic(
                    state.args.fault_drills,
                    SourceKey::WORKSPACE,
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::admission::AdmissionMode;

    fn health(base: &str, root: &str, ready: Option<bool>, receipts: bool) -> Health {
        let mut v = serde_json::json!({
            "status": "ok",
            "server": "masc",
            "version": "0.22.0",
            "paths": {"effective_base_path": base, "effective_masc_root": root},
            "admission": {"receipts": receipts},
        });
        if let Some(r) = ready {
            v["startup"] = serde_json::json!({"phase": "ready", "state_ready": r});
        }
        serde_json::from_value(v).unwrap()
    }

    const BASE: &str = "/nonexistent/masc-tui-test/base";

    #[test]
    fn judgement_follows_protocol_2_1() {
        assert!(matches!(
            judge(Some(BASE), &health(BASE, "/r", Some(true), true)),
            Verdict::Match {
                mode: AdmissionMode::Receipt,
                ..
            }
        ));
        assert!(matches!(
            judge(Some(BASE), &health(BASE, "/r", None, false)),
            Verdict::Match {
                mode: AdmissionMode::Health,
                ..
            }
        ));
        assert_eq!(
            judge(Some(BASE), &health(BASE, "/r", Some(false), true)),
            Verdict::Booting
        );
        assert!(matches!(
            judge(Some(BASE), &health("/other", "/r", Some(true), true)),
            Verdict::Mismatch { .. }
        ));
        assert!(matches!(
            judge(Some(BASE), &health(BASE, "", Some(true), true)),
            Verdict::Unread { .. }
        ));
        assert!(matches!(
            judge(Some(""), &health(BASE, "/r", Some(true), true)),
            Verdict::Unread { .. }
        ));
    }

    fn matched(root: &str) -> Verdict {
        Verdict::Match {
            base_path: BASE.into(),
            masc_root: root.into(),
            mode: AdmissionMode::Receipt,
        }
    }

    #[test]
    fn g6_epoch_advances_on_withdrawal_and_confirmation_and_never_resets() {
        let epochs = EpochCounter::new();
        let start = IdentityState::Unconfirmed {
            reason: "not probed yet".into(),
        };
        let out = transition(&start, matched("/r"), &epochs);
        let [IdentityState::Confirmed { scope, .. }] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert_eq!(scope.epoch, 1);
        let confirmed = out[0].clone();
        // Same identity again: nothing to publish, no advance.
        assert!(transition(&confirmed, matched("/r"), &epochs).is_empty());
        assert_eq!(epochs.current(), 1);
        // Booting withdraws.
        let out = transition(&confirmed, Verdict::Booting, &epochs);
        assert_eq!(out, [IdentityState::Booting]);
        assert_eq!(epochs.current(), 2);
        // Reconfirm: a new epoch.
        let out = transition(&IdentityState::Booting, matched("/r"), &epochs);
        let IdentityState::Confirmed { scope, .. } = &out[0] else {
            panic!("{out:?}");
        };
        assert_eq!(scope.epoch, 3);
        // A changed root is a withdrawal then a new confirmation.
        let out = transition(&out[0].clone(), matched("/r2"), &epochs);
        assert_eq!(out.len(), 2);
        assert!(matches!(out[0], IdentityState::Unconfirmed { .. }));
        let IdentityState::Confirmed { scope, .. } = &out[1] else {
            panic!("{out:?}");
        };
        assert_eq!((scope.epoch, scope.workspace.0.as_str()), (5, "/r2"));
        // A failed probe withdraws.
        let failed = verdict_of_probe(Some(BASE), &Err(ClientError::Timeout));
        let out = transition(&out[1].clone(), failed, &epochs);
        assert!(
            matches!(&out[..], [IdentityState::Unconfirmed { reason }] if reason.contains("timeout"))
        );
        assert_eq!(epochs.current(), 6);
    }
}
