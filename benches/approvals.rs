//! The second `y` (or `n`) of an approval decision until its receipt is in the model and on a
//! painted frame (docs/performance.md), against the embedded server in this process.
//!
//! Set-up (untimed, per decision): a fresh pending approval is inserted into the server's
//! store, the Decisions source re-reads the list, the view model admits it, the approval is
//! selected and the first `n` arms it. Timed: the second `n` through the real key handler
//! (`view::keys::handle_key` → `UiCommand::Decide`), the submission as the view actor makes it
//! (`view::save_path::submit`: registered in the model's `SaveBook`, cast to the save hub), the save operation (outbox row
//! `written`, fresh `/health`, outbox `sending`, the POST over loopback, the §11 classifier,
//! outbox settled), the receipt posted to the Decisions inbox and drained into the model the
//! way the view actor drains it (`Model::on_delivered`), then one render of the Approvals view
//! into a `TestBackend` that must show the receipt. Not included: the view actor's frame
//! schedule (a background frame waits for at most the 16 ms deadline, docs/architecture.md
//! "View") and the terminal write.
//!
//! A deny is used so no scripted action runs; each decision removes its approval, so the list
//! stays the seeded size.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

#[path = "support/embedded.rs"]
mod embedded;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use embedded::{Embedded, entry_of, start_embedded};
use masc_tui::actors::contract::{DemandKind, SourceControl, SourceEvent, SourceHandle};
use masc_tui::actors::decisions::approval::ApprovalDecision;
use masc_tui::actors::decisions::{DECISIONS, DecisionsSpawner};
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveId};
use masc_tui::actors::supervisor::RuntimeHandle;
use masc_tui::server::RunningServer;
use masc_tui::view::command::UiCommand;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::buffer_text;
use masc_tui::view::save_path::{SaveRequest, submit};
use masc_tui::view::screens::approvals::{self, ApprovalsUi};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ractor::DerivedActorRef;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

/// The view side, driven the way the view actor drives it.
struct Rig {
    server: RunningServer,
    _runtime: RuntimeHandle,
    events: mpsc::UnboundedReceiver<SourceEvent>,
    model: Model,
    ui: Ui,
    hub: Option<DerivedActorRef<SaveCommand>>,
    decisions: Option<SourceHandle>,
    /// Distinct approvals inserted so far.
    made: u64,
    _state: tempfile::TempDir,
}

impl Rig {
    async fn start() -> Self {
        // Reads once per epoch and on demand only: no cadence read lands mid-measurement.
        let Embedded {
            server,
            runtime,
            events,
            inboxes,
            state,
        } = start_embedded(vec![entry_of(DecisionsSpawner {
            cadence: Duration::from_secs(3600),
        })])
        .await;
        let mut rig = Self {
            server,
            _runtime: runtime,
            events,
            model: Model::new(inboxes),
            ui: Ui {
                // Wide enough for a receipt on an approval's row.
                area: Rect::new(0, 0, 200, 40),
                tab: Tab::Work,
                ..Ui::default()
            }
            .with_layer(ApprovalsUi::new(Tab::Work)),
            hub: None,
            decisions: None,
            made: 0,
            _state: state,
        };
        while rig.model.gate().current().is_none() || rig.hub.is_none() || rig.decisions.is_none() {
            rig.pump_one().await;
        }
        rig
    }

    /// Handles the next runtime event as the view actor does.
    async fn pump_one(&mut self) {
        let event = self.events.recv().await.expect("runtime alive");
        match event {
            SourceEvent::SourceUp { source, handle } if source == SAVES => {
                self.hub = handle.commands::<SaveCommand>();
            }
            SourceEvent::SourceUp { source, handle } if source == DECISIONS => {
                self.decisions = Some(handle);
            }
            SourceEvent::Identity(state) => {
                self.model.on_identity(state);
            }
            SourceEvent::Delivered { inbox, upto } => {
                let drained = self.model.on_delivered(inbox, upto, Instant::now());
                for source in drained.demands {
                    self.demand_reread(source);
                }
            }
            _ => {}
        }
    }

    fn demand_reread(&mut self, source: masc_tui::actors::contract::SourceKey) {
        if source == DECISIONS
            && let Some(handle) = &self.decisions
        {
            handle.send_control(SourceControl::Demand(DemandKind::Explicit));
            self.model.mark_asked(source);
        }
    }

    async fn pump_until(&mut self, pred: impl Fn(&Model) -> bool) {
        while !pred(&self.model) {
            self.pump_one().await;
        }
    }

    /// A fresh pending approval of this actor, listed in the model, selected and armed.
    async fn armed_approval(&mut self) -> String {
        self.made += 1;
        let n = self.made;
        let token = format!("opc_bench{n:08}");
        let target = format!("bench-{n:08}");
        let (t, tg) = (token.clone(), target.clone());
        let now = masc_tui::server::store::now_unix() as i64;
        self.server
            .state()
            .store()
            .write(move |tx| {
                tx.execute(
                    "INSERT INTO operator_approvals VALUES (?1, ?2, 'masc-tui', 'keeper_probe',
                     'keeper', ?3, '{}', 'masc_keeper_status', ?4, NULL)",
                    rusqlite::params![t, format!("ops_{t}"), tg, now],
                )?;
                Ok(())
            })
            .await
            .unwrap();
        self.demand_reread(DECISIONS);
        let listed = |m: &Model| {
            approvals::listed(m)
                .iter()
                .position(|a| a.confirm_token == token)
        };
        self.pump_until(|m| listed(m).is_some()).await;
        let index = listed(&self.model).unwrap();
        let view = self.ui.layer_mut::<ApprovalsUi>().unwrap();
        view.selected = index;
        view.anchor = Some(token.clone());
        assert_eq!(self.key('n'), UiCommand::Repaint, "the first n arms");
        token
    }

    fn key(&mut self, c: char) -> UiCommand {
        handle_key(
            &mut self.ui,
            &self.model,
            KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
        )
    }

    /// What the view actor does with `UiCommand::Decide`: registered in the model, then cast
    /// to the save hub.
    fn submit(&mut self, command: UiCommand) -> SaveId {
        let Some(intent) = command.as_save::<ApprovalDecision>().cloned() else {
            panic!("the second n did not decide: {command:?}");
        };
        let request = SaveRequest::new::<ApprovalDecision>(intent);
        submit(&mut self.model, self.hub.as_ref(), request)
            .unwrap()
            .save_id
    }

    fn paint(&self, terminal: &mut Terminal<TestBackend>) -> String {
        let ctx = ProjectionCtx::now(Theme::plain());
        terminal
            .draw(|f| render(&self.model, &self.ui, &ctx, f.area(), f.buffer_mut()))
            .unwrap();
        buffer_text(terminal.backend().buffer())
    }

    /// The timed part: the second `n` until the receipt is in the model and painted.
    async fn second_press_to_receipt(&mut self, terminal: &mut Terminal<TestBackend>) {
        let command = self.key('n');
        let id = self.submit(command);
        self.pump_until(|m| {
            m.decisions
                .decisions
                .get(&id)
                .is_some_and(|e| e.phase.receipt().is_some())
        })
        .await;
        let text = self.paint(terminal);
        assert!(text.contains("denied · nothing ran"), "{text}");
    }
}

fn bench(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let mut rig = rt.block_on(Rig::start());
    let mut terminal = Terminal::new(TestBackend::new(200, 40)).unwrap();
    let mut group = c.benchmark_group("approvals");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("second_n_to_receipt_painted", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                rt.block_on(async {
                    rig.armed_approval().await;
                    let started = Instant::now();
                    rig.second_press_to_receipt(&mut terminal).await;
                    total += started.elapsed();
                });
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
