//! A frame repainted in part shows what a whole frame shows. Each step of a
//! sequence of keys, clock ticks and data changes is painted twice: by a [`FramePainter`]
//! into its kept frame (whole or in part), and from scratch into a fresh buffer presented
//! by a second presenter with no kept frame. After every step the kept frame equals
//! the fresh one cell for cell, and the two terminals (each a `vt100` screen fed the bytes
//! its presenter wrote) show the same.

use super::*;
use crate::actors::contract::SlotEvent;
use crate::actors::keepers::KeepersObservation;
use crate::protocol::admission::AdmissionMode;
use crate::protocol::keepers::{KeeperRoster, KeeperRowSlot};
use crate::protocol::keepers::{KeeperRow, KeeperStatus};
use crate::view::keys::handle_key;
use crate::view::sample::{
    confirmed, keeper_row, roster_failure, roster_observation, roster_of, roster_ticket,
};
use crate::view::screens::render_with_cursor;
use crate::view::terminal::presenter::ByteRecorder;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use std::time::Instant;

/// `n` rows; every seventh has a wide name and task (Korean, emoji), one is undecodable.
/// Their turns started at times apart by fractions of a second, so a clock tick turns over
/// some rows' ages, not all.
fn roster(n: usize, variant: usize) -> KeeperRoster {
    let mut rows: Vec<KeeperRowSlot> = (0..n)
        .map(|i| {
            let mut row = keeper_row(i);
            row.turn_started_at = Some(1_700_000_000.0 - i as f64 * 0.37);
            if i % 7 == 3 {
                row.name = format!("키퍼-{i}-한글🙂");
                row.current_task = Some(format!("작업 {variant} 검토 🙂 board digest 가나다"));
            }
            if variant > 0 && i % 5 == variant % 5 {
                row.phase = Some(format!("phase-{variant}"));
            }
            KeeperRowSlot::Row(Box::new(row))
        })
        .collect();
    rows[n / 2] = KeeperRowSlot::Undecodable {
        name: Some("broken-행".into()),
        error: crate::protocol::decode::DecodeError::new(
            crate::protocol::decode::DecodeErrorKind::InvalidValue,
            ".status",
            "bad",
        ),
    };
    roster_of(rows)
}

/// The first cells where `a` and `b` differ, for a readable failure.
fn differences(a: &Buffer, b: &Buffer) -> String {
    if a.area != b.area {
        return format!("areas {:?} and {:?}", a.area, b.area);
    }
    let mut out = Vec::new();
    for (i, (x, y)) in a.content.iter().zip(&b.content).enumerate() {
        if x != y && out.len() < 8 {
            let (col, row) = (i as u16 % a.area.width, i as u16 / a.area.width);
            out.push(format!(
                "({col},{row}) kept {:?} {:?} whole {:?} {:?}",
                x.symbol(),
                x.style(),
                y.symbol(),
                y.style()
            ));
        }
    }
    out.join("; ")
}

/// What a terminal shows on row `y`: per cell its text and the attributes that show (a
/// blank cell shows only its background, inverse and underline), the hidden half of a
/// wide character left out. Whether a blank was written or never was does not show.
fn visible_row(term: &vt100::Parser, y: u16, width: u16) -> Vec<String> {
    (0..width)
        .filter_map(|x| term.screen().cell(y, x))
        .filter(|c| !c.is_wide_continuation())
        .map(|c| {
            let text = match c.contents() {
                "" => " ",
                t => t,
            };
            if text == " " {
                format!(" {:?}{}{}", c.bgcolor(), c.inverse(), c.underline())
            } else {
                format!(
                    "{text}{:?}{:?}{}{}{}{}{}",
                    c.fgcolor(),
                    c.bgcolor(),
                    c.bold(),
                    c.dim(),
                    c.italic(),
                    c.inverse(),
                    c.underline()
                )
            }
        })
        .collect()
}

fn term(width: u16, height: u16) -> vt100::Parser {
    let size = |n: u16| std::num::NonZeroU16::new(n.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
    vt100::Parser::new(size(height), size(width), 0)
}

struct Rig {
    model: Tracked<Model>,
    ui: Ui,
    ctx: ProjectionCtx,
    painter: FramePainter,
    kept: Presenter<CrosstermBackend<ByteRecorder>>,
    kept_bytes: ByteRecorder,
    kept_term: vt100::Parser,
    whole: Presenter<CrosstermBackend<ByteRecorder>>,
    whole_bytes: ByteRecorder,
    whole_term: vt100::Parser,
    generation: u64,
    damaged: usize,
    steps: usize,
}

impl Rig {
    fn new(width: u16, height: u16) -> Self {
        let kept_bytes = ByteRecorder::default();
        let whole_bytes = ByteRecorder::default();
        let mut model = Tracked::new(Model::default());
        model.on_identity(confirmed(1, AdmissionMode::Receipt));
        let mut ctx = ProjectionCtx::now(Theme::default());
        ctx.now_unix = 1_700_000_059.5;
        let mut rig = Self {
            model,
            ui: Ui {
                area: Rect::new(0, 0, width, height),
                ..Ui::default()
            },
            ctx,
            painter: FramePainter::default(),
            kept: Presenter::new(CrosstermBackend::new(kept_bytes.clone()), true),
            kept_bytes,
            kept_term: term(width, height),
            whole: Presenter::new(CrosstermBackend::new(whole_bytes.clone()), true),
            whole_bytes,
            whole_term: term(width, height),
            generation: 0,
            damaged: 0,
            steps: 0,
        };
        rig.deliver(roster(300, 0));
        rig
    }

    fn deliver(&mut self, roster: KeeperRoster) {
        self.generation += 1;
        let ticket = roster_ticket(self.generation, 1);
        self.model.deliver(
            SlotEvent::<_, KeepersObservation>::Dispatched(ticket.clone()),
            Instant::now(),
        );
        let drained = self.model.deliver(
            roster_observation(ticket, roster, AdmissionMode::Receipt),
            Instant::now(),
        );
        assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
    }

    /// The next roster read fails: the last value stays, the title says so.
    fn deliver_failure(&mut self) {
        self.generation += 1;
        let ticket = roster_ticket(self.generation, 1);
        self.model.deliver(
            SlotEvent::<_, KeepersObservation>::Dispatched(ticket.clone()),
            Instant::now(),
        );
        let drained = self.model.deliver(
            roster_failure(ticket, crate::protocol::client::ClientError::Timeout),
            Instant::now(),
        );
        assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
    }

    fn key(&mut self, code: KeyCode) {
        let _ = handle_key(
            &mut self.ui,
            &self.model,
            KeyEvent::new(code, KeyModifiers::NONE),
        );
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.ui.area = Rect::new(0, 0, width, height);
        // A resize paints a whole frame after `CSI 2J`: a fresh screen takes it.
        self.kept_term = term(width, height);
        self.whole_term = term(width, height);
    }

    /// Paints the step both ways and compares them.
    fn paint(&mut self, what: &str) {
        self.paint_with(what, self.model.changes());
    }

    fn paint_with(&mut self, what: &str, changes: u64) {
        let painted = self
            .painter
            .paint(&mut self.kept, &self.model, changes, &self.ui, &self.ctx)
            .expect("kept frame");
        self.damaged += usize::from(painted.damaged);
        self.steps += 1;
        let mut fresh = Buffer::empty(self.ui.area);
        let cursor = render_with_cursor(&self.model, &self.ui, &self.ctx, self.ui.area, &mut fresh);
        self.whole
            .present_owned(fresh.clone(), cursor)
            .expect("whole frame");
        self.kept_term.process(&self.kept_bytes.take());
        self.whole_term.process(&self.whole_bytes.take());
        let differs = differences(self.kept.last_frame(), &fresh);
        assert!(
            differs.is_empty(),
            "{what} at {:?}: the kept frame differs from a whole one (damaged {}): {differs}",
            self.ui.area,
            painted.damaged
        );
        let (width, height) = (self.ui.area.width, self.ui.area.height);
        let differs: Vec<String> = (0..height)
            .filter_map(|y| {
                let kept = visible_row(&self.kept_term, y, width);
                let whole = visible_row(&self.whole_term, y, width);
                (kept != whole).then(|| format!("row {y}: kept {kept:?}\n        whole {whole:?}"))
            })
            .take(3)
            .collect();
        assert!(
            differs.is_empty(),
            "{what} at {:?}: the terminal differs (damaged {}):\n{}",
            self.ui.area,
            painted.damaged,
            differs.join("\n")
        );
    }
}

fn sequence(rig: &mut Rig) {
    use KeyCode::*;
    rig.paint("first frame");
    // Down past the page's last row (the rows scroll up one line a key), then up past
    // the page's first (down one line a key).
    let page = rig.ui.roster_page_rows();
    for i in 0..page + 4 {
        rig.key(Char('j'));
        // The clock moves: TURN ages turn over on rows the selection does not touch.
        rig.ctx.now_unix += 0.35;
        rig.paint(&format!("j {i}"));
    }
    for i in 0..page + 8 {
        rig.key(Char('k'));
        rig.ctx.now_unix += 0.15;
        rig.paint(&format!("k {i}"));
    }
    for code in [
        Char('k'),
        PageDown,
        Char('j'),
        Char('k'),
        End,
        Char('k'),
        Home,
        Char('j'),
    ] {
        rig.key(code);
        rig.ctx.now_unix += 0.5;
        rig.paint(&format!("{code:?}"));
    }
    // A new roster value (the same size, other phases): a whole frame.
    rig.deliver(roster(300, 1));
    rig.paint("new roster");
    rig.key(Char('j'));
    rig.paint("j after the new roster");
    // Detail pane: open, scroll, tabs, logs, back, close.
    for code in [
        Enter,
        Char('j'),
        Char('j'),
        Char(']'),
        Char('j'),
        Char('['),
        Char('o'),
        Char('j'),
        Char('k'),
        Esc,
        Char('k'),
        Esc,
    ] {
        rig.key(code);
        rig.ctx.now_unix += 0.7;
        rig.paint(&format!("detail {code:?}"));
    }
    // Search, jumps, help, quit armed.
    for code in [
        Char('/'),
        Char('한'),
        Backspace,
        Char('4'),
        Enter,
        Char('n'),
        Char('n'),
        Char('N'),
        Esc,
        Char('?'),
        Char('j'),
        Esc,
        Char('q'),
        Char('j'),
        Char('j'),
    ] {
        rig.key(code);
        rig.paint(&format!("{code:?}"));
    }
    // A smaller roster: the selection is past its end.
    rig.key(End);
    rig.paint("End");
    rig.deliver(roster(40, 2));
    rig.paint("smaller roster");
    for _ in 0..3 {
        rig.key(Char('k'));
        rig.ctx.now_unix += 1.0;
        rig.paint("k in the smaller roster");
    }
}

#[test]
fn issue15_a_frame_repainted_in_part_equals_a_whole_frame() {
    for (width, height) in [(200, 60), (120, 30), (100, 24), (60, 12), (47, 15)] {
        let mut rig = Rig::new(width, height);
        sequence(&mut rig);
        // Resizes and a theme change between steps, then keys again.
        rig.resize(width.saturating_add(13), height.saturating_add(3));
        rig.paint("resized");
        rig.key(KeyCode::Char('j'));
        rig.paint("j after the resize");
        rig.ctx.theme = Theme::colored(!rig.ctx.theme.color);
        rig.paint("theme");
        rig.key(KeyCode::Char('k'));
        rig.paint("k after the theme");
        if width >= 60 {
            assert!(
                rig.damaged * 3 > rig.steps,
                "{width}x{height}: only {} of {} frames were repainted in part",
                rig.damaged,
                rig.steps
            );
        }
    }
}

/// `roster(n, 0)` with `change` made to its rows.
fn changed(n: usize, change: impl FnOnce(&mut Vec<KeeperRowSlot>)) -> KeeperRoster {
    let mut roster = roster(n, 0);
    change(&mut roster.rows);
    roster.count = roster.rows.len() as u64;
    roster.total = roster.count;
    roster
}

fn row(rows: &mut [KeeperRowSlot], i: usize) -> &mut KeeperRow {
    match &mut rows[i] {
        KeeperRowSlot::Row(row) => row,
        KeeperRowSlot::Undecodable { .. } => panic!("row {i} is undecodable"),
    }
}

/// A row added at 10 and four removed, three of them above the scrolled window's rows.
fn rows_removed_above(rows: &mut Vec<KeeperRowSlot>) {
    rows.insert(10, KeeperRowSlot::Row(Box::new(keeper_row(901))));
    for at in [250, 200, 150, 20] {
        rows.remove(at);
    }
}

/// Data changes between frames (the model changed: rows' content, order and number, a
/// failed read, changes elsewhere in the model), with keys and clock ticks between them.
/// Returns the data frames that could keep lines (some row on screen is the same) but
/// were painted whole.
fn data_sequence(rig: &mut Rig) -> Vec<String> {
    use KeyCode::*;
    let mut whole = Vec::new();
    // `keeps`: some lines on screen show the same row before and after.
    let mut data = |rig: &mut Rig, what: &str, roster: Option<KeeperRoster>, keeps: bool| {
        match roster {
            Some(roster) => rig.deliver(roster),
            None => rig.model.touch(),
        }
        rig.ctx.now_unix += 0.15;
        let before = rig.damaged;
        rig.paint(what);
        if keeps && rig.damaged == before {
            whole.push(what.to_string());
        }
    };
    rig.paint("first frame");
    data(rig, "the same rows again", Some(roster(300, 0)), true);
    data(rig, "nothing of the roster changed", None, true);
    data(
        rig,
        "one row's status",
        Some(changed(300, |r| row(r, 2).status = KeeperStatus::Error)),
        true,
    );
    data(
        rig,
        "ten rows' TURN started",
        Some(changed(300, |r| {
            for slot in &mut r[4..14] {
                if let KeeperRowSlot::Row(row) = slot {
                    row.turn_started_at = row.turn_started_at.map(|t| t - 7_000.0);
                }
            }
        })),
        true,
    );
    data(
        rig,
        "renamed (Korean, emoji with a skin tone, ZWJ)",
        Some(changed(300, |r| {
            row(r, 1).name = "키퍼-이름-바뀜".into();
            row(r, 5).name = "👍🏽 keeper 👨‍👩‍👧".into();
            row(r, 6).current_task = Some("가족 👨‍👩‍👧 검토 👩🏽‍💻 한글 작업 설명 ✓".repeat(4));
        })),
        true,
    );
    // Rows added or removed above the lines kept: the lines move with the terminal's.
    data(
        rig,
        "a row added at the top",
        Some(changed(300, |r| {
            r.insert(0, KeeperRowSlot::Row(Box::new(keeper_row(900))))
        })),
        true,
    );
    data(
        rig,
        "a row removed",
        Some(changed(300, |r| {
            r.insert(0, KeeperRowSlot::Row(Box::new(keeper_row(900))));
            r.remove(5);
        })),
        true,
    );
    data(
        rig,
        "two rows swapped",
        Some(changed(300, |r| r.swap(3, 4))),
        true,
    );
    data(
        rig,
        "a row undecodable",
        Some(changed(300, |r| {
            r[8] = KeeperRowSlot::Undecodable {
                name: Some("깨진-행 👍🏽".into()),
                error: crate::protocol::decode::DecodeError::new(
                    crate::protocol::decode::DecodeErrorKind::InvalidValue,
                    ".phase",
                    "bad",
                ),
            }
        })),
        true,
    );
    rig.deliver_failure();
    rig.paint("a failed read keeps the last value");
    // The failed read marked every row stale (`≈` in HEALTH, `○` in TURN): no line on screen
    // shows its row as the read back paints it, so the frame is whole.
    data(rig, "the read back", Some(roster(300, 0)), false);
    // The selection moves over the rows a data change touches.
    for _ in 0..3 {
        rig.key(Char('j'));
        rig.paint("j");
    }
    data(
        rig,
        "the selected row's status",
        Some(changed(300, |r| row(r, 3).status = KeeperStatus::Offline)),
        true,
    );
    // Scrolled: the window is not the top of the roster.
    rig.key(End);
    rig.paint("End");
    for _ in 0..5 {
        rig.key(Char('k'));
        rig.paint("k");
    }
    data(
        rig,
        "rows changed below the page's top, scrolled",
        Some(changed(300, |r| {
            for i in [260, 280, 292, 299] {
                row(r, i).name = format!("바뀐-{i}-👍🏽");
            }
        })),
        true,
    );
    data(
        rig,
        "a row added above the window",
        Some(changed(300, |r| {
            r.insert(10, KeeperRowSlot::Row(Box::new(keeper_row(901))))
        })),
        true,
    );
    data(
        rig,
        "three rows removed above the window",
        Some(changed(300, rows_removed_above)),
        true,
    );
    data(
        rig,
        "the same rows again",
        Some(changed(300, rows_removed_above)),
        true,
    );
    data(
        rig,
        "the rows removed back",
        Some(changed(300, |r| {
            r.insert(10, KeeperRowSlot::Row(Box::new(keeper_row(901))))
        })),
        true,
    );
    // The detail pane open over the rows: its row changes.
    rig.key(Enter);
    rig.paint("detail");
    // From 110 columns the pane takes the right half: lines are kept beside it.
    let wide = rig.ui.area.width >= 110;
    data(
        rig,
        "the detail's row changed",
        Some(changed(300, |r| {
            r.insert(10, KeeperRowSlot::Row(Box::new(keeper_row(901))));
            let at = r.len() - 6;
            row(r, at).phase = Some("paused 단계 👍🏽".into());
            row(r, at - 20).current_task = Some("가나다라마바사아자차카타파하 🙂".repeat(3));
        })),
        wide,
    );
    rig.key(Char('j'));
    rig.paint("detail j");
    rig.key(Esc);
    rig.paint("detail closed");
    // A search typed: the footer changes with the data.
    rig.key(Char('/'));
    rig.key(Char('9'));
    rig.paint("search");
    data(
        rig,
        "data while searching",
        Some(changed(300, |r| {
            r.insert(10, KeeperRowSlot::Row(Box::new(keeper_row(901))));
            let at = r.len() - 3;
            row(r, at).status = KeeperStatus::Busy;
        })),
        true,
    );
    rig.key(Esc);
    rig.paint("search closed");
    // Fewer rows than the page, then more again; the clock turns ages over.
    data(rig, "fewer rows than the page", Some(roster(9, 0)), false);
    rig.key(Char('k'));
    rig.paint("k in a short roster");
    // A page shorter than the roster scrolls when it loses a row: every line moves.
    let tall = rig.ui.roster_page_rows() > 9;
    data(rig, "one row fewer", Some(roster(8, 0)), tall);
    rig.ctx.now_unix += 61.0;
    data(
        rig,
        "a minute later, more rows",
        Some(roster(300, 0)),
        false,
    );
    data(rig, "no rows", Some(roster_of(Vec::new())), false);
    data(rig, "rows again", Some(roster(300, 2)), false);
    whole
}

#[test]
fn issue15_data_changes_repainted_in_part_equal_a_whole_frame() {
    for (width, height) in [(200, 60), (120, 30), (100, 24), (60, 12), (47, 15)] {
        let mut rig = Rig::new(width, height);
        let whole = data_sequence(&mut rig);
        // 47x15 is under the minimum: the resize gate, always whole.
        if width >= 60 {
            assert!(
                whole.is_empty(),
                "{width}x{height}: data frames painted whole that could keep lines: {whole:?}"
            );
        }
        // Then the keys and clock ticks of the UI-only sequence still agree.
        rig.deliver(roster(300, 0));
        sequence(&mut rig);
    }
}

/// The comparison above catches a stale line: a painter that guesses every row unchanged
/// (instead of comparing the slots) leaves a renamed row as it was.
#[test]
fn issue15_a_row_change_the_painter_guesses_away_leaves_a_stale_frame() {
    let mut rig = Rig::new(120, 30);
    rig.paint("first frame");
    rig.deliver(changed(300, |r| row(r, 2).status = KeeperStatus::Busy));
    rig.paint("compared");
    rig.painter.same_row = |_, _| true;
    rig.deliver(changed(300, |r| row(r, 4).name = "renamed".into()));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rig.paint("guessed")));
    assert!(result.is_err(), "a stale kept line went unnoticed");
}

/// The comparison above catches a stale frame: a roster changed behind a change count the
/// painter was not told about is repainted in part and differs from a whole frame.
#[test]
fn issue15_a_change_the_painter_is_not_told_of_leaves_a_stale_frame() {
    let mut rig = Rig::new(120, 30);
    rig.paint("first frame");
    let stale = rig.model.changes();
    rig.deliver(roster(300, 3));
    rig.key(KeyCode::Char('j'));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rig.paint_with("untold change", stale)
    }));
    assert!(result.is_err(), "a stale kept frame went unnoticed");
}

#[test]
fn issue15_every_mutable_access_of_the_model_counts() {
    let mut model = Tracked::new(Model::default());
    let before = model.changes();
    let _ = model.connection();
    assert_eq!(model.changes(), before);
    model.on_identity(confirmed(1, AdmissionMode::Receipt));
    assert!(model.changes() > before);
}
