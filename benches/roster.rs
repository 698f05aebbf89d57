//! Keepers roster of 1,000 rows at 200×60: projection + paint of a whole frame, one `j`
//! keypress as the view actor paints it (the frame painter: a kept frame repainted in part
//! when only the selection moved, else a whole frame into a reused buffer; the presenter over
//! a byte counter), and a roster re-read that changed k rows on screen as the view actor
//! takes it (the observation admitted into the model, then the frame painted and presented).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::keepers::KeepersObservation;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::keepers::{KeeperRoster, KeeperRowSlot, KeeperStatus};
use masc_tui::view::frame::FramePainter;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{confirmed, keeper_row, roster, roster_observation, roster_ticket};
use masc_tui::view::screens::{ProjectionCtx, Ui, render};
use masc_tui::view::terminal::presenter::{ByteCounter, Presenter};
use masc_tui::view::theme::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::io::BufWriter;
use std::sync::Arc;
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

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

type Counted = Presenter<CrosstermBackend<BufWriter<ByteCounter>>>;

/// As in `run_tui`: a frame buffer flushed once per frame.
fn presenter(counter: &ByteCounter) -> Counted {
    let writer = BufWriter::with_capacity(1 << 20, counter.clone());
    Presenter::new(CrosstermBackend::new(writer), true)
}

fn bench_roster(c: &mut Criterion) {
    let model = model();
    let ctx = ProjectionCtx::now(Theme::default());

    // Figures printed once: bytes of the first (whole) frame, of one `j`, of one `j` that
    // scrolls, and of an unchanged frame.
    {
        let counter = ByteCounter::default();
        let mut presenter = presenter(&counter);
        let mut painter = FramePainter::default();
        let mut ui = ui();
        painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        let full = counter.bytes();
        let writes = counter.writes();
        handle_key(&mut ui, &model, key(KeyCode::Char('j')));
        let j = painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        let after_j = counter.bytes();
        painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        let idle = counter.bytes() - after_j;
        let page = ui.roster_page_rows();
        for _ in 0..page {
            handle_key(&mut ui, &model, key(KeyCode::Char('j')));
        }
        painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        let before_scroll = counter.bytes();
        handle_key(&mut ui, &model, key(KeyCode::Char('j')));
        let scroll = painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        println!(
            "roster {ROWS} rows @200x60: full frame {full} bytes ({writes} writes); \
             one `j` {} bytes, {} cells, in part: {}; a `j` that scrolls {} bytes, {} cells, \
             in part: {}; unchanged frame {idle} bytes",
            after_j - full,
            j.stats.cells,
            j.damaged,
            counter.bytes() - before_scroll,
            scroll.stats.cells,
            scroll.damaged,
        );
    }

    // A whole frame as the view paints one: reset the reused buffer, project and paint.
    c.bench_function("roster_1000/project_and_paint_200x60", |b| {
        let ui = ui();
        let mut presenter = presenter(&ByteCounter::default());
        b.iter(|| {
            let buf = presenter.frame_buffer(ui.area);
            render(black_box(&model), &ui, &ctx, ui.area, buf);
            black_box(buf.area)
        });
    });

    // The same into a freshly allocated buffer (the view before the kept frame).
    c.bench_function("roster_1000/project_and_paint_fresh_buffer_200x60", |b| {
        let ui = ui();
        b.iter(|| {
            let mut buf = Buffer::empty(ui.area);
            render(black_box(&model), &ui, &ctx, ui.area, &mut buf);
            black_box(buf)
        });
    });

    // A whole frame painted and presented (what a resize, an overlay or a screen switch paints:
    // nothing of the kept frame is kept but the rows' cells), the screen otherwise unchanged.
    c.bench_function("roster_1000/whole_frame_paint_present_200x60", |b| {
        let ui = ui();
        let mut presenter = presenter(&ByteCounter::default());
        let mut painter = FramePainter::default();
        let mut changes = 0u64;
        b.iter(|| {
            changes += 1;
            painter.forget();
            black_box(
                painter
                    .paint(&mut presenter, &model, changes, &ui, &ctx)
                    .unwrap(),
            )
        });
    });

    // The model changed (a message from any source) but the roster value did not: the kept
    // frame keeps every roster line and repaints the rest (header, title, heading, footer).
    c.bench_function(
        "roster_1000/model_changed_same_roster_paint_present_200x60",
        |b| {
            let ui = ui();
            let mut presenter = presenter(&ByteCounter::default());
            let mut painter = FramePainter::default();
            let mut changes = 0u64;
            b.iter(|| {
                changes += 1;
                black_box(
                    painter
                        .paint(&mut presenter, &model, changes, &ui, &ctx)
                        .unwrap(),
                )
            });
        },
    );

    // One `j` walking down the whole roster (wrapping to the top): after the first page
    // every `j` scrolls the rows by one.
    c.bench_function("roster_1000/j_keypress_project_paint_present", |b| {
        let mut presenter = presenter(&ByteCounter::default());
        let mut painter = FramePainter::default();
        let mut ui = ui();
        painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        b.iter(|| {
            if ui
                .screen::<masc_tui::view::screens::keepers::KeepersScreen>()
                .unwrap()
                .roster
                .selected
                + 1
                >= ROWS
            {
                handle_key(&mut ui, &model, key(KeyCode::Home));
            }
            handle_key(&mut ui, &model, key(KeyCode::Char('j')));
            black_box(painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap())
        });
    });

    // The same walk as the view actor painted it before the kept frame (main `3363b3d`): a
    // fresh buffer per frame, painted whole, presented without a copy.
    c.bench_function("roster_1000/j_keypress_fresh_frame_present_owned", |b| {
        let mut presenter = presenter(&ByteCounter::default());
        let mut ui = ui();
        let mut frame = Buffer::empty(ui.area);
        render(&model, &ui, &ctx, ui.area, &mut frame);
        presenter.present_owned(frame, None).unwrap();
        b.iter(|| {
            if ui
                .screen::<masc_tui::view::screens::keepers::KeepersScreen>()
                .unwrap()
                .roster
                .selected
                + 1
                >= ROWS
            {
                handle_key(&mut ui, &model, key(KeyCode::Home));
            }
            handle_key(&mut ui, &model, key(KeyCode::Char('j')));
            let mut frame = Buffer::empty(ui.area);
            render(&model, &ui, &ctx, ui.area, &mut frame);
            black_box(presenter.present_owned(frame, None).unwrap())
        });
    });

    // `j` and `k` in turn inside the page: the selection moves, the rows do not scroll.
    c.bench_function("roster_1000/j_k_in_page_project_paint_present", |b| {
        let mut presenter = presenter(&ByteCounter::default());
        let mut painter = FramePainter::default();
        let mut ui = ui();
        handle_key(&mut ui, &model, key(KeyCode::Char('j')));
        painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
        let mut down = true;
        b.iter(|| {
            let code = if down {
                KeyCode::Char('j')
            } else {
                KeyCode::Char('k')
            };
            down = !down;
            handle_key(&mut ui, &model, key(code));
            black_box(painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap())
        });
    });
}

/// `roster(ROWS)` with the status of `k` of the rows on the first page changed (spread over
/// the page).
fn with_changed_rows(base: &KeeperRoster, k: usize) -> KeeperRoster {
    let mut roster = base.clone();
    for n in 0..k {
        if let KeeperRowSlot::Row(row) = &mut roster.rows[1 + n * 5] {
            row.status = if row.status == KeeperStatus::Error {
                KeeperStatus::Idle
            } else {
                KeeperStatus::Error
            };
        }
    }
    roster
}

/// A roster re-read every few seconds (`Keepers` source): each iteration admits the next of
/// two values into the model — they differ in `k` rows on screen (k = 0: the same rows, a new
/// value) — and paints and presents the frame as the view actor does after a source message
/// (a new change count, the clock read, `FramePainter::paint`). Decoding is not included (it
/// runs off the view actor).
fn bench_refresh(c: &mut Criterion) {
    let base = roster(ROWS);
    let mut inserted = base.clone();
    inserted
        .rows
        .insert(0, KeeperRowSlot::Row(Box::new(keeper_row(ROWS + 1))));
    let cases = [
        ("0_rows_changed", with_changed_rows(&base, 0)),
        ("1_rows_changed", with_changed_rows(&base, 1)),
        ("10_rows_changed", with_changed_rows(&base, 10)),
        // Every line on screen moves down one, then back up (the terminal's lines move).
        ("a_row_added_above", inserted),
    ];
    for (k, changed) in cases {
        let values = [Arc::new(base.clone()), Arc::new(changed)];
        {
            // Printed once: what one such refresh writes and whether it was painted in part.
            let mut model = model();
            let ui = ui();
            let counter = ByteCounter::default();
            let mut presenter = presenter(&counter);
            let mut painter = FramePainter::default();
            let ctx = ProjectionCtx::now(Theme::default());
            painter.paint(&mut presenter, &model, 0, &ui, &ctx).unwrap();
            let before = counter.bytes();
            model.deliver(
                SlotEvent::<_, KeepersObservation>::Dispatched(roster_ticket(2, 1)),
                Instant::now(),
            );
            model.deliver(
                SlotEvent::Observed(
                    roster_ticket(2, 1),
                    KeepersObservation::Roster(Ok(Admitted {
                        value: values[1].clone(),
                        mode: AdmissionMode::Receipt,
                        from_cache: false,
                    })),
                ),
                Instant::now(),
            );
            let painted = painter.paint(&mut presenter, &model, 1, &ui, &ctx).unwrap();
            println!(
                "roster {ROWS} rows @200x60, a refresh ({k}): {} bytes, {} cells, in part: {}",
                counter.bytes() - before,
                painted.stats.cells,
                painted.damaged
            );
        }
        c.bench_function(
            &format!("roster_1000/refresh_{k}_deliver_paint_present_200x60"),
            |b| {
                let mut model = model();
                let ui = ui();
                let counter = ByteCounter::default();
                let mut presenter = presenter(&counter);
                let mut painter = FramePainter::default();
                let mut changes = 0u64;
                let mut generation = 1u64;
                let ctx = ProjectionCtx::now(Theme::default());
                painter
                    .paint(&mut presenter, &model, changes, &ui, &ctx)
                    .unwrap();
                b.iter(|| {
                    generation += 1;
                    let ticket = roster_ticket(generation, 1);
                    model.deliver(
                        SlotEvent::<_, KeepersObservation>::Dispatched(ticket.clone()),
                        Instant::now(),
                    );
                    let value = values[(generation % 2) as usize].clone();
                    let drained = model.deliver(
                        SlotEvent::Observed(
                            ticket,
                            KeepersObservation::Roster(Ok(Admitted {
                                value,
                                mode: AdmissionMode::Receipt,
                                from_cache: false,
                            })),
                        ),
                        Instant::now(),
                    );
                    debug_assert!(drained.rejected.is_empty());
                    changes += 1;
                    let ctx = ProjectionCtx::now(Theme::default());
                    black_box(
                        painter
                            .paint(&mut presenter, &model, changes, &ui, &ctx)
                            .unwrap(),
                    )
                });
            },
        );
    }
}

criterion_group!(benches, bench_roster, bench_refresh);
criterion_main!(benches);
