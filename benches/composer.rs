//! The composer: bytes one keystroke writes to the terminal (ratatui `Terminal::draw` over a
//! `CrosstermBackend` on a byte counter, chat-sized 200×60 area) and the time of one
//! keystroke (key handling, layout and paint) on a 2,000-character draft.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::view::composer::render::{self, DEFAULT_PLACEHOLDER};
use masc_tui::view::composer::{Composer, ComposerView, PendingInput, PendingState};
use masc_tui::view::terminal::presenter::ByteCounter;
use masc_tui::view::theme::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::widgets::Paragraph;
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::hint::black_box;
use std::time::Instant;

const AREA: Rect = Rect {
    x: 0,
    y: 0,
    width: 200,
    height: 60,
};

fn view(pending: &[PendingInput], now: Instant) -> ComposerView<'_> {
    ComposerView {
        theme: Theme::default(),
        pending,
        placeholder: DEFAULT_PLACEHOLDER,
        turn_in_flight: false,
        now,
    }
}

/// A 2,000-character draft of Korean, ASCII and emoji with some line breaks.
fn long_draft() -> Composer {
    let mut c = Composer::new();
    let unit = "키퍼에게 보내는 긴 초안 text 🙂 ";
    let mut text = String::new();
    while text.chars().count() < 2_000 {
        text.push_str(unit);
        if text.chars().count() % 300 < unit.chars().count() {
            text.push('\n');
        }
    }
    let text: String = text.chars().take(2_000).collect();
    c.set_text(&text);
    c
}

fn key(ch: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE)
}

/// The chat pane: a static transcript stand-in above, the composer below.
fn draw(
    terminal: &mut Terminal<CrosstermBackend<ByteCounter>>,
    composer: &Composer,
    pending: &[PendingInput],
    now: Instant,
) {
    let v = view(pending, now);
    terminal
        .draw(|frame| {
            let layout = render::plan(frame.area(), composer, &v, 3);
            frame.render_widget(
                Paragraph::new("● transcript rows stand here (unchanged by typing)"),
                layout.history,
            );
            if let Some((x, y)) = render::render(composer, &v, &layout, frame.buffer_mut()) {
                frame.set_cursor_position(Position::new(x, y));
            }
        })
        .unwrap();
}

fn keystroke_bytes(label: &str, mut composer: Composer, pending: &[PendingInput]) {
    let now = Instant::now();
    let counter = ByteCounter::default();
    let backend = CrosstermBackend::new(counter.clone());
    let mut terminal = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(AREA),
        },
    )
    .unwrap();
    draw(&mut terminal, &composer, pending, now);
    let first = counter.bytes();
    let layout = render::plan(AREA, &composer, &view(pending, now), 3);
    composer.handle_key(key('가'), &layout.key_context(now));
    draw(&mut terminal, &composer, pending, now);
    let one = counter.bytes() - first;
    draw(&mut terminal, &composer, pending, now);
    let idle = counter.bytes() - first - one;
    println!(
        "composer {label} @200x60: first frame {first} bytes; one keystroke {one} bytes; \
         unchanged frame {idle} bytes"
    );
}

fn bench_composer(c: &mut Criterion) {
    let pending = vec![PendingInput {
        request_id: "0190c0de-0000-7000-8000-000000000001".into(),
        text: "처리를 기다리는 입력".into(),
        state: PendingState::WaitingToProcess,
    }];
    keystroke_bytes("short draft", Composer::new(), &pending);
    keystroke_bytes("2,000-char draft", long_draft(), &pending);

    let now = Instant::now();
    let v = view(&pending, now);
    let base = long_draft();
    let ctx = render::plan(AREA, &base, &v, 3).key_context(now);
    c.bench_function("composer/keystroke_2000_chars/handle_key", |b| {
        b.iter_batched(
            || base.clone(),
            |mut composer| {
                black_box(composer.handle_key(key('가'), &ctx));
                composer
            },
            BatchSize::SmallInput,
        )
    });
    c.bench_function("composer/keystroke_2000_chars/key_plan_paint", |b| {
        let mut buf = Buffer::empty(AREA);
        b.iter_batched(
            || base.clone(),
            |mut composer| {
                composer.handle_key(key('가'), &ctx);
                let layout = render::plan(AREA, &composer, &v, 3);
                black_box(render::render(&composer, &v, &layout, &mut buf));
                composer
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, bench_composer);
criterion_main!(benches);
