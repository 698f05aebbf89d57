//! Keepers roster of 1,000 rows: projection + paint into a 200×60 buffer, and the cost and
//! bytes of one `j` keypress through the presenter (CrosstermBackend over a byte counter).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::keepers::KeepersObservation;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::presenter::{ByteCounter, Presenter};
use masc_tui::view::sample::{confirmed, roster, roster_observation, roster_ticket};
use masc_tui::view::screens::{ProjectionCtx, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::io::BufWriter;
use std::time::Instant;

const ROWS: usize = 1_000;

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    m.deliver(
        SlotEvent::<_, KeepersObservation>::Dispatched(roster_ticket(1, 1)),
        Instant::now(),
    );
    let drained = m.deliver(
        roster_observation(roster_ticket(1, 1), roster(ROWS), AdmissionMode::Receipt),
        Instant::now(),
    );
    assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 200, 60),
        ..Ui::default()
    }
}

fn paint(model: &Model, ui: &Ui, ctx: &ProjectionCtx) -> Buffer {
    let mut buf = Buffer::empty(ui.area);
    render(model, ui, ctx, ui.area, &mut buf);
    buf
}

fn j() -> KeyEvent {
    KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE)
}

fn bench_roster(c: &mut Criterion) {
    let model = model();
    let ctx = ProjectionCtx::now(Theme::default());

    // Figures printed once: bytes of the first (full) frame and of one `j`.
    {
        let counter = ByteCounter::default();
        // As in `run_tui`: a frame buffer flushed once per frame.
        let writer = BufWriter::with_capacity(1 << 20, counter.clone());
        let mut presenter = Presenter::new(CrosstermBackend::new(writer), true);
        let mut ui = ui();
        presenter.present(&paint(&model, &ui, &ctx)).unwrap();
        let full = counter.bytes();
        let writes = counter.writes();
        handle_key(&mut ui, &model, j());
        let stats = presenter.present(&paint(&model, &ui, &ctx)).unwrap();
        let idle_before = counter.bytes();
        presenter.present(&paint(&model, &ui, &ctx)).unwrap();
        println!(
            "roster {ROWS} rows @200x60: full frame {full} bytes ({writes} writes); \
             one `j` {} bytes, {} cells, {} writes; unchanged frame {} bytes",
            idle_before - full,
            stats.cells,
            counter.writes() - writes,
            counter.bytes() - idle_before
        );
    }

    c.bench_function("roster_1000/project_and_paint_200x60", |b| {
        let ui = ui();
        b.iter(|| black_box(paint(black_box(&model), &ui, &ctx)));
    });

    c.bench_function("roster_1000/j_keypress_project_paint_present", |b| {
        let counter = ByteCounter::default();
        let writer = BufWriter::with_capacity(1 << 20, counter);
        let mut presenter = Presenter::new(CrosstermBackend::new(writer), true);
        let mut ui = ui();
        presenter.present(&paint(&model, &ui, &ctx)).unwrap();
        b.iter(|| {
            // j walks down the roster; wrap to the top so every iteration moves.
            if ui.roster.selected + 1 >= ROWS {
                ui.roster.selected = 0;
                ui.roster.offset = 0;
            }
            handle_key(&mut ui, &model, j());
            let buf = paint(&model, &ui, &ctx);
            black_box(presenter.present(&buf).unwrap())
        });
    });
}

criterion_group!(benches, bench_roster);
criterion_main!(benches);
