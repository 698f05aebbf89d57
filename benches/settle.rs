//! A save's confirming key → its receipt confirmed on screen (docs/performance.md "Every receipt
//! settles"), against the embedded server in this process, per kind family: p50 and p99 over
//! `SETTLE_SAVES` saves (default 100).
//!
//! Timed per save: the submit the confirming key makes (`view::save_path::submit`: the book,
//! the cast to the save hub), the save operation (outbox `written`, fresh `/health`, `sending`,
//! the POST over loopback, the §11 classifier, outbox settled), the receipt drained into the
//! model the way the view actor drains it, the settle stage's passes (`save_path::settle::
//! advance`) with their re-read demands cast to the sources as the view actor casts them, the
//! re-read drained, and one render of the Keepers screen whose operation line must say
//! "confirmed". Not included: the view actor's frame schedule (at most its 16 ms deadline) and
//! the terminal write.
//!
//! Families: lifecycle (pause and resume of one Keeper in turn, confirmed by the roster re-read,
//! N-3), Keeper settings (the sandbox between docker and microvm, confirmed by the §9.5
//! settings snapshot), runtime form (a context override, confirmed by the raw config re-read's
//! revision, I-1), connector bind ↔ unbind (the connectors status, §7.3/§7.4), Board vote
//! up ↔ down (the open post's `own_vote`, §15.6) and Goal transition drop ↔ reopen (the Planning
//! re-read's phase, §15.4).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

#[path = "support/embedded.rs"]
mod embedded;

use embedded::{Embedded, entry_of, start_embedded};
use masc_tui::actors::board::vote::{BoardVote, VoteIntent};
use masc_tui::actors::board::{BOARD, BoardCommand, BoardSpawner};
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use masc_tui::actors::connectors::{CONNECTORS, ConnectorsSpawner};
use masc_tui::actors::contract::{DemandKind, SourceControl, SourceEvent, SourceHandle, SourceKey};
use masc_tui::actors::keeper_detail::{KEEPER_DETAIL, KeeperDetailCommand, KeeperDetailSpawner};
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use masc_tui::actors::keepers::{KeepersRosterSpawner, ROSTER};
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::runtime::{RUNTIME_CONFIG, RuntimeConfigSpawner};
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveId};
use masc_tui::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use masc_tui::actors::work::{PLANNING, PlanningSpawner};
use masc_tui::protocol::board_vote::VoteDirection;
use masc_tui::protocol::goal_transition::GoalAction;
use masc_tui::protocol::keeper_config::SandboxProfile;
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::SaveCompanion;
use masc_tui::view::save_path::kinds;
use masc_tui::view::save_path::settle::Reread;
use masc_tui::view::save_path::{SaveRequest, submit};
use masc_tui::view::saves::Settle;
use masc_tui::view::screens::keepers::operations::op_line;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The longest any wait of the harness may take (the whole run takes well under a second).
const PATIENCE: Duration = Duration::from_secs(60);
const KEEPER: &str = "sangsu";
const POST: &str = "post-1001";
const GOAL: &str = "goal-1";

struct Rig {
    events: mpsc::UnboundedReceiver<SourceEvent>,
    model: Model,
    handles: HashMap<SourceKey, SourceHandle>,
}

impl Rig {
    async fn pump_one(&mut self) {
        match self.events.recv().await.expect("runtime alive") {
            SourceEvent::SourceUp { source, handle } => {
                self.handles.insert(source, handle);
            }
            SourceEvent::Identity(state) => {
                self.model.on_identity(state);
            }
            SourceEvent::Delivered { inbox, upto } => {
                let drained = self.model.on_delivered(inbox, upto, Instant::now());
                for source in drained.demands {
                    self.demand(source);
                }
            }
            _ => {}
        }
    }

    fn demand(&self, source: SourceKey) {
        if let Some(h) = self.handles.get(&source) {
            h.send_control(SourceControl::Demand(DemandKind::Explicit));
        }
    }

    /// One settle pass, its demands cast as the view actor casts them; when to look again.
    fn settle(&mut self) -> Option<Instant> {
        let step = kinds::advance(&mut self.model, Instant::now());
        for reread in step.demands {
            match reread {
                Reread::Source(source) => self.demand(source),
                Reread::Keeper(keeper) => {
                    let cmd = KeeperDetailCommand::Confirm { keeper };
                    self.model.keeper_detail.on_command(&cmd);
                    if let Some(h) = self
                        .handles
                        .get(&KEEPER_DETAIL)
                        .and_then(|h| h.commands::<KeeperDetailCommand>())
                    {
                        h.send_message(cmd).unwrap();
                    }
                }
            }
        }
        step.next
    }

    /// Submits as the confirming key does, after the preview (an unconfirmed request of a
    /// previewed kind is only staged and never sent).
    fn submit(&mut self, request: SaveRequest) -> SaveId {
        let hub = self
            .handles
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>());
        submit(&mut self.model, hub.as_ref(), request.confirmed())
            .unwrap()
            .save_id
    }

    /// Pumps until `ready`. Each second without it, the sources it waits on are asked again
    /// (as the operator's `r` asks): a read that failed under load is not left to a cadence of an
    /// hour. Fails after [`PATIENCE`] naming `what` — under `cargo test` a hang is worse than a
    /// failure, since the run would sit until CI's own timeout.
    async fn pump_until(&mut self, what: &str, again: &[SourceKey], ready: impl Fn(&Rig) -> bool) {
        let start = Instant::now();
        let mut asked = Instant::now();
        while !ready(self) {
            assert!(
                start.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what}; sources up: {:?}, workspace: {:?}",
                self.handles.keys().collect::<Vec<_>>(),
                self.model.gate().current(),
            );
            if asked.elapsed() >= Duration::from_secs(1) {
                for source in again {
                    self.demand(*source);
                }
                asked = Instant::now();
            }
            let _ = tokio::time::timeout(Duration::from_millis(200), self.pump_one()).await;
        }
    }

    /// Pumps and settles until `state` (the save's settle state, `None` while it has no entry)
    /// says the settle stage ended; the stage's next look is taken at its time even when no
    /// event comes (the view actor's `SettleDue`). Fails after [`PATIENCE`] with the state seen.
    async fn settle_until(&mut self, state: impl Fn(&Model) -> Option<Settle>) -> Settle {
        let start = Instant::now();
        loop {
            let next = self.settle();
            let now = state(&self.model);
            match now {
                Some(s) if !s.open() => return s,
                _ => assert!(
                    start.elapsed() < PATIENCE,
                    "a save did not settle within {PATIENCE:?}: {now:?}; lifecycle book: {:?}",
                    self.model.keepers.ops.lifecycle
                ),
            }
            let wait = next.map_or(Duration::from_millis(250), |at| {
                at.saturating_duration_since(Instant::now())
            });
            let _ = tokio::time::timeout(wait, self.pump_one()).await;
        }
    }
}

/// Times `n` saves of kind `K` (the intent of save `i` made from the model), each from its
/// confirming submit until its settle stage says confirmed (its words too), and reports them.
async fn measure<K: SaveCompanion>(
    rig: &mut Rig,
    n: usize,
    family: &str,
    mut intent: impl FnMut(&Model, usize) -> K::Intent,
) {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let start = Instant::now();
        let id = rig.submit(SaveRequest::new::<K>(intent(&rig.model, i)));
        let s = rig
            .settle_until(|m| K::kept(m)?.get(&id).map(|e| e.settle.clone()))
            .await;
        let entry = K::kept(&rig.model).and_then(|b| b.get(&id));
        assert!(
            matches!(s, Settle::Confirmed { .. }),
            "{family} {i}: {s:?} {:?}",
            entry.map(|e| &e.phase)
        );
        assert!(entry.is_some_and(|e| e.words().contains("confirmed ")));
        times.push(start.elapsed());
    }
    report(family, times);
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn report(family: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "settle/{family}: n={} p50={:.1} ms p99={:.1} ms max={:.1} ms",
        times.len(),
        percentile(&times, 0.50).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
}

/// The Keepers screen's line of the Keeper's newest operation says "confirmed".
fn confirmed_on_screen(m: &Model) -> bool {
    let Some(ws) = m.gate().current().map(|s| s.workspace.0.clone()) else {
        return false;
    };
    m.keepers
        .ops
        .latest(KEEPER, &ws)
        .is_some_and(|op| op_line(op).0.contains("confirmed "))
}

fn main() {
    // `cargo test` runs a bench once to check it works (as criterion's test mode does): 3 saves.
    let benching = std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("SETTLE_SAVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if benching { 100 } else { 3 });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run(n));
    // The runtime's blocking pool may hold a store thread that outlives the server: do not wait.
    rt.shutdown_timeout(Duration::from_secs(1));
}

async fn run(n: usize) {
    {
        // Read once per epoch and on demand only: no cadence read lands mid-measurement.
        let entries = vec![
            entry_of(KeepersRosterSpawner {
                cadence: Duration::from_secs(3600),
            }),
            entry_of(KeeperDetailSpawner::new(Duration::from_secs(3600))),
            entry_of(RuntimeConfigSpawner),
            entry_of(ConnectorsSpawner::new(Duration::from_secs(3600))),
            entry_of(BoardSpawner::new(Duration::from_secs(3600))),
            entry_of(PlanningSpawner {
                cadence: Duration::from_secs(3600),
            }),
        ];
        // The save hub besides the entries.
        let sources = entries.len() + 1;
        let Embedded {
            server,
            runtime: _runtime,
            events,
            inboxes,
            state: _state,
        } = start_embedded(entries).await;
        let mut rig = Rig {
            events,
            model: Model::new(inboxes),
            handles: HashMap::new(),
        };
        rig.pump_until(
            "the workspace, every source and the roster",
            &[ROSTER],
            |r| {
                r.model.gate().current().is_some()
                    && r.handles.len() >= sources
                    && r.model.keepers.roster.fetched.last().is_some()
            },
        )
        .await;
        // Untimed: until the save hub holds the epoch too (its identity may trail the view's),
        // a no-op tool-gate-free save: a resume of the running Keeper.
        loop {
            let id = rig.submit(SaveRequest::new::<LifecycleSave>(LifecycleIntent::new(
                KEEPER,
                LifecycleAction::Resume,
            )));
            let s = rig
                .settle_until(|m| m.keepers.ops.lifecycle.get(&id).map(|e| e.settle.clone()))
                .await;
            if !matches!(s, Settle::Final) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        let mut lifecycle = Vec::with_capacity(n);
        for i in 0..n {
            let action = if i % 2 == 0 {
                LifecycleAction::Pause
            } else {
                LifecycleAction::Resume
            };
            let start = Instant::now();
            let id = rig.submit(SaveRequest::new::<LifecycleSave>(LifecycleIntent::new(
                KEEPER, action,
            )));
            let s = rig
                .settle_until(|m| m.keepers.ops.lifecycle.get(&id).map(|e| e.settle.clone()))
                .await;
            assert!(
                matches!(s, Settle::Confirmed { .. }),
                "{i}: {s:?} {:?}",
                rig.model.keepers.ops.lifecycle.get(&id).map(|e| &e.phase)
            );
            assert!(confirmed_on_screen(&rig.model));
            lifecycle.push(start.elapsed());
        }
        report("lifecycle_pause_resume", lifecycle);

        let mut sandbox = Vec::with_capacity(n);
        for i in 0..n {
            let profile = if i % 2 == 0 {
                SandboxProfile::Microvm
            } else {
                SandboxProfile::Docker
            };
            let start = Instant::now();
            let id = rig.submit(SaveRequest::new::<SandboxSave>(SandboxIntent {
                keeper: KEEPER.into(),
                profile,
            }));
            let s = rig
                .settle_until(|m| m.keepers.ops.sandbox.get(&id).map(|e| e.settle.clone()))
                .await;
            assert!(
                matches!(s, Settle::Confirmed { .. }),
                "{s:?} {:?}",
                rig.model.keepers.ops.sandbox.get(&id).map(|e| &e.phase)
            );
            assert!(confirmed_on_screen(&rig.model));
            sandbox.push(start.elapsed());
        }
        report("keeper_settings_sandbox", sandbox);

        // The runtime config read once (on demand only, as a form opens it), the post opened,
        // the connectors status and Planning read at start: untimed.
        rig.demand(RUNTIME_CONFIG);
        let open = BoardCommand::OpenPost {
            post_id: POST.into(),
        };
        rig.model.board.on_command(&open);
        if let Some(h) = rig
            .handles
            .get(&BOARD)
            .and_then(|h| h.commands::<BoardCommand>())
        {
            h.send_message(open).unwrap();
        }
        rig.pump_until(
            "the runtime config, connectors, Planning and the open post",
            &[RUNTIME_CONFIG, CONNECTORS, PLANNING, BOARD],
            |r| {
                let m = &r.model;
                m.runtime.config.fetched.last().is_some()
                    && m.connectors.status.fetched.last().is_some()
                    && m.work.planning.fetched.last().is_some()
                    && m.board
                        .post
                        .as_ref()
                        .is_some_and(|p| p.detail.fetched.last().is_some())
            },
        )
        .await;

        measure::<RuntimeForm>(&mut rig, n, "runtime_form_context", |m, i| {
            let raw = &m.runtime.config.fetched.last().expect("read").value;
            FormIntent {
                path: raw.path.clone(),
                opening_revision: raw.source_revision.clone(),
                source_text: raw.source_text.clone(),
                edit: FormEdit::SetContextOverride {
                    runtime_id: "openai.gpt-5".into(),
                    value: 300_000 + (i as u64 % 2) * 10_000,
                },
            }
        })
        .await;

        let binding = BindingIntent {
            connector_id: "discord".into(),
            channel_id: "990001".into(),
            keeper_name: "rondo".into(),
        };
        let mut bind_unbind = Vec::with_capacity(n);
        for i in 0..n {
            let start = Instant::now();
            let ended_now = if i % 2 == 0 {
                let id = rig.submit(SaveRequest::new::<ConnectorBind>(binding.clone()));
                rig.settle_until(|m| ConnectorBind::kept(m)?.get(&id).map(|e| e.settle.clone()))
                    .await
            } else {
                let id = rig.submit(SaveRequest::new::<ConnectorUnbind>(binding.clone()));
                rig.settle_until(|m| ConnectorUnbind::kept(m)?.get(&id).map(|e| e.settle.clone()))
                    .await
            };
            assert!(
                matches!(ended_now, Settle::Confirmed { .. }),
                "bind {i}: {ended_now:?}"
            );
            bind_unbind.push(start.elapsed());
        }
        report("connector_bind_unbind", bind_unbind);

        measure::<BoardVote>(&mut rig, n, "board_vote_up_down", |_, i| VoteIntent {
            post_id: POST.into(),
            direction: if i % 2 == 0 {
                VoteDirection::Up
            } else {
                VoteDirection::Down
            },
        })
        .await;

        measure::<GoalTransition>(&mut rig, n, "goal_drop_reopen", |_, i| TransitionIntent {
            goal_id: GOAL.into(),
            action: if i % 2 == 0 {
                GoalAction::Drop
            } else {
                GoalAction::Reopen
            },
            note: None,
        })
        .await;
        drop(server);
    }
}
