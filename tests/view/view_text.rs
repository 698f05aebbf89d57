//! Hostile server text never reaches a cell as a control (T.7, bidi), and wide text keeps the
//! roster's columns aligned (§2.12 C-70, C-71).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use crate::rig::ScreensOf;
use crate::rig::{dispatch, observe};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::keepers::{KeeperRowSlot, KeeperStatus};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{
    bare_row, buffer_lines, confirmed, keeper_row, roster_observation, roster_of, roster_ticket,
};
use masc_tui::view::screens::keepers::{HEALTH_W, KEEPER_W};
use masc_tui::view::screens::{ProjectionCtx, Ui, render};
use masc_tui::view::terminal::presenter::{ByteRecorder, Presenter};
use masc_tui::view::text::{display_width, fit_width, sanitize, sanitize_bytes};
use masc_tui::view::theme::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::Instant;

const PAYLOADS: &[&str] = &[
    "\x1b[2J\x1b[31mred",                   // ESC / CSI
    "\x1b]8;;https://evil.example\x07link", // OSC 8 hyperlink, BEL-terminated
    "\x1b]0;title\x1b\\",                   // OSC title, ST-terminated
    "\u{9b}31mC1-CSI",                      // C1 CSI code point
    "\u{90}dcs\u{9c}",                      // C1 DCS … ST
    "user\u{202E}gpj.exe",                  // RLO
    "\u{2066}iso\u{2069}\u{200F}\u{061C}",  // isolates and marks
    "bell\x07del\x7fnul\0",
];

fn is_forbidden(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || u == 0x7F
        || (0x80..=0x9F).contains(&u)
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn model_with(rows: Vec<KeeperRowSlot>) -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster_of(rows), AdmissionMode::Receipt),
    )
    .unwrap();
    m
}

fn paint(model: &Model, ui: &Ui) -> Buffer {
    let ctx = ProjectionCtx {
        now: Instant::now(),
        now_unix: 1_700_000_100.0,
        theme: Theme::default(),
        kept_roster_lines: Default::default(),
    };
    let mut buf = Buffer::empty(ui.area);
    render(model, ui, &ctx, ui.area, &mut buf);
    buf
}

#[test]
fn t7_hostile_payloads_never_reach_a_cell_as_controls() {
    let rows = PAYLOADS
        .iter()
        .map(|p| {
            let mut row = bare_row(p, KeeperStatus::Active);
            row.current_task = Some((*p).into());
            row.runtime_id = Some((*p).into());
            row.phase = Some((*p).into());
            KeeperRowSlot::Row(Box::new(row))
        })
        .collect();
    let model = model_with(rows);
    let mut ui = Ui {
        area: Rect::new(0, 0, 200, 30),
        ..Ui::default()
    };
    let buf = paint(&model, &ui);
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(is_forbidden),
            "control in cell {:?}",
            cell.symbol()
        );
    }
    // The escapes are visible as inert text.
    let text = buffer_lines(&buf).join("\n");
    assert!(text.contains("\\x1B[2J"));
    assert!(text.contains("\\u009B31m"));
    assert!(text.contains("\\u202E"));
    // The detail pane (full values) is sanitised too.
    ui.roster_mut().detail_open = true;
    ui.roster_mut().selected = 1;
    let buf = paint(&model, &ui);
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(is_forbidden),
            "control in detail {:?}",
            cell.symbol()
        );
    }
}

#[test]
fn t7_terminal_bytes_carry_no_server_escape() {
    // Through the real byte path: the only ESC bytes written are the renderer's own.
    let mut row = bare_row("\x1b]0;pwned\x07", KeeperStatus::Idle);
    row.current_task = Some("\x1b[2J".into());
    let model = model_with(vec![KeeperRowSlot::Row(Box::new(row))]);
    let ui = Ui {
        area: Rect::new(0, 0, 100, 20),
        ..Ui::default()
    };
    let rec = ByteRecorder::default();
    let mut presenter = Presenter::new(CrosstermBackend::new(rec.clone()), false);
    presenter.present(&paint(&model, &ui)).unwrap();
    let bytes = rec.take();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("\x1b]0;pwned"));
    assert!(!text.contains("\x07"));
    assert!(text.contains("\\x1B]0;pwned\\x07"));
    // The only `CSI 2J` is the presenter's own full-frame clear.
    assert_eq!(text.matches("\x1b[2J").count(), 1);
}

#[test]
fn sanitiser_handles_bytes_and_text_alike() {
    for p in PAYLOADS {
        let s = sanitize(p);
        assert!(!s.chars().any(is_forbidden), "{s:?}");
        assert_eq!(sanitize_bytes(p.as_bytes()), s);
    }
    assert_eq!(sanitize_bytes(b"\x80\xfe"), "\\x80\\xFE");
}

#[test]
fn c70_korean_and_emoji_names_keep_columns_aligned() {
    let names = [
        "ascii",
        "한글키퍼",
        "🙂emoji🙂",
        "가나다라마바사아자차카",
        "e\u{301}te\u{301}",
    ];
    let rows = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut row = keeper_row(i);
            row.name = (*n).into();
            row.current_task = Some(format!("작업 {n} 🙂 끝"));
            KeeperRowSlot::Row(Box::new(row))
        })
        .collect();
    let model = model_with(rows);
    let ui = Ui {
        area: Rect::new(0, 0, 120, 20),
        ..Ui::default()
    };
    let buf = paint(&model, &ui);
    // Row layout: header 2 + title 1 + heading 1.
    let a_col = (HEALTH_W + 1 + KEEPER_W + 1) as u16;
    for (i, name) in names.iter().enumerate() {
        let y = 4 + i as u16;
        let a = buf[(a_col, y)].symbol();
        assert!(matches!(a, "✓" | "·"), "row {name}: A column holds {a:?}");
        assert_eq!(
            buf[(a_col - 1, y)].symbol(),
            " ",
            "row {name}: gap before A"
        );
        // The rendered row is exactly the pane width.
        let line = &buffer_lines(&buf)[y as usize];
        assert_eq!(display_width(line), 120, "row {name}");
    }
    // The 11-syllable name (22 cells) is cut to 16 cells with an ellipsis, never mid-syllable.
    let line = &buffer_lines(&buf)[4 + 3];
    assert!(line.contains(&*fit_width("가나다라마바사아자차카", KEEPER_W)));
    assert!(line.contains("가나다라마바사 …"));
}
