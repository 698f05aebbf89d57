//! Painting the composer into a ratatui `Buffer` (C-19 max rows, C-32/C-33 pending labels,
//! C-59 two-column menu, C-62 menu keeps the conversation's minimum height, C-63/C-64 footer,
//! C-71 viewport `~`, C-73 NO_COLOR keeps meaning).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::view::composer::render::{self, DEFAULT_PLACEHOLDER};
use masc_tui::view::composer::{
    Composer, ComposerLayout, ComposerView, KeyContext, PendingInput, PendingState,
};
use masc_tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::time::Instant;
use unicode_width::UnicodeWidthStr;

const MIN_HISTORY: u16 = 3;

fn view<'a>(pending: &'a [PendingInput], theme: Theme, now: Instant) -> ComposerView<'a> {
    ComposerView {
        theme,
        pending,
        placeholder: DEFAULT_PLACEHOLDER,
        turn_in_flight: false,
        now,
    }
}

fn paint(
    c: &Composer,
    v: &ComposerView<'_>,
    area: Rect,
) -> (Buffer, ComposerLayout, Option<(u16, u16)>) {
    let layout = render::plan(area, c, v, MIN_HISTORY);
    let mut buf = Buffer::empty(area);
    let cursor = render::render(c, v, &layout, &mut buf);
    (buf, layout, cursor)
}

/// The row as text, wide graphemes once.
fn row(buf: &Buffer, y: u16) -> String {
    let mut out = String::new();
    let mut skip = 0;
    for x in 0..buf.area.width {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let sym = buf[(x, y)].symbol();
        skip = sym.width().saturating_sub(1);
        out.push_str(sym);
    }
    out.trim_end().to_string()
}

fn type_keys(c: &mut Composer, s: &str, layout: &ComposerLayout) {
    let ctx = layout.key_context(Instant::now());
    for ch in s.chars() {
        let k = if ch == '\n' {
            KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL)
        } else {
            KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE)
        };
        c.handle_key(k, &ctx);
    }
}

fn area() -> Rect {
    Rect::new(0, 0, 60, 20)
}

#[test]
fn empty_composer_shows_prompt_placeholder_and_default_footer() {
    let now = Instant::now();
    let c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (buf, layout, cursor) = paint(&c, &v, area());
    assert_eq!(layout.input.height, 2, "rule + one text row");
    assert_eq!(layout.footer.y, 19);
    assert_eq!(row(&buf, layout.input.y), "─".repeat(60));
    assert_eq!(
        row(&buf, layout.input.y + 1),
        format!("› {DEFAULT_PLACEHOLDER}")
    );
    assert_eq!(cursor, Some((2, layout.input.y + 1)));
    let footer = row(&buf, 19);
    // C-63: send, newline, back, commands, help — nothing else.
    assert_eq!(
        footer,
        "Enter:send  Ctrl-J:newline  Esc:back  /:commands  /help"
    );
    assert_eq!(layout.history.height, 20 - 1 - 2);
}

#[test]
fn c70_cursor_cell_after_korean_and_emoji() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area());
    type_keys(&mut c, "A한🙂e\u{301}", &layout);
    let (buf, layout, cursor) = paint(&c, &v, area());
    let y = layout.input.y + 1;
    assert_eq!(row(&buf, y), "› A한🙂e\u{301}");
    assert_eq!(cursor, Some((2 + 6, y)));
}

#[test]
fn c19_at_most_five_rows_scrolling_with_tilde_markers() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area());
    let lines: Vec<String> = (1..=9).map(|i| format!("줄 {i}")).collect();
    type_keys(&mut c, &lines.join("\n"), &layout);
    let (buf, layout, cursor) = paint(&c, &v, area());
    assert_eq!(layout.input.height, 1 + 5);
    let first = layout.input.y + 1;
    // The cursor is on line 9: the window shows lines 5..=9, with `~` for hidden rows above.
    assert_eq!(row(&buf, first), "~ 줄 5");
    assert_eq!(row(&buf, first + 4), "  줄 9");
    assert_eq!(cursor, Some((2 + 4, first + 4)));
    // Back to the top: the window follows and marks the hidden rows below.
    let ctx = layout.key_context(now);
    for _ in 0..8 {
        c.handle_key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE), &ctx);
    }
    let (buf, layout, cursor) = paint(&c, &v, area());
    let first = layout.input.y + 1;
    assert_eq!(row(&buf, first), "› 줄 1");
    assert_eq!(row(&buf, first + 4), "~ 줄 5");
    assert_eq!(cursor.map(|(_, y)| y), Some(first));
}

#[test]
fn c71_wrapped_wide_row_keeps_cursor_inside() {
    let now = Instant::now();
    let area = Rect::new(0, 0, 12, 12); // 10 text cells
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area);
    type_keys(&mut c, "가나다라마바", &layout);
    let (buf, layout, cursor) = paint(&c, &v, area);
    let first = layout.input.y + 1;
    assert_eq!(row(&buf, first), "› 가나다라마");
    assert_eq!(row(&buf, first + 1), "  바");
    assert_eq!(cursor, Some((2 + 2, first + 1)));
}

fn pending(n: usize) -> Vec<PendingInput> {
    let states = [
        PendingState::WaitingToSend,
        PendingState::Sending,
        PendingState::WaitingToProcess,
        PendingState::ConfirmingDelivery,
    ];
    (0..n)
        .map(|i| PendingInput {
            request_id: format!("0190-{i}"),
            text: format!("입력 {i}\n둘째 줄"),
            state: states[i % 4],
        })
        .collect()
}

#[test]
fn c32_c33_pending_block_one_label_each_and_a_count_past_three() {
    let now = Instant::now();
    let c = Composer::new();
    let p = pending(5);
    let v = view(&p, Theme::default(), now);
    let (buf, layout, _) = paint(&c, &v, area());
    let Some(block) = layout.pending else {
        panic!("pending block expected")
    };
    assert_eq!(block.height, 5);
    assert_eq!(row(&buf, block.y), "›  대기 입력 5건");
    assert_eq!(row(&buf, block.y + 1), "   전송 대기 · 입력 0");
    assert_eq!(row(&buf, block.y + 2), "   전송 중 · 입력 1");
    assert_eq!(row(&buf, block.y + 3), "   처리 대기 · 입력 2");
    assert_eq!(row(&buf, block.y + 4), "   외 2건");
    // C-29: no request id in the rows.
    for y in block.y..block.y + block.height {
        assert!(!row(&buf, y).contains("0190"));
    }
}

#[test]
fn c59_menu_two_columns_selected_row_reversed_and_footer_replaced() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area());
    type_keys(&mut c, "/t", &layout);
    let (buf, layout, _) = paint(&c, &v, area());
    let Some(menu) = layout.menu else {
        panic!("menu expected")
    };
    assert_eq!(menu.height, 2);
    assert_eq!(
        menu.y + menu.height,
        layout.input.y,
        "right above the input"
    );
    let first = row(&buf, menu.y);
    assert!(
        first.starts_with(" /thinking [hidden|folded|full]"),
        "{first}"
    );
    let tools = row(&buf, menu.y + 1);
    assert!(tools.contains("/tools [compact|results|full]"), "{tools}");
    assert!(buf[(0, menu.y)].modifier.contains(Modifier::REVERSED));
    assert!(!buf[(0, menu.y + 1)].modifier.contains(Modifier::REVERSED));
    assert!(row(&buf, layout.footer.y).starts_with("↑/↓:select"));
}

#[test]
fn c59_menu_pages_around_the_selection_without_dropping_candidates() {
    let now = Instant::now();
    let area = Rect::new(0, 0, 60, 12);
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area);
    type_keys(&mut c, "/", &layout);
    let (_, layout, _) = paint(&c, &v, area);
    let rows = layout.menu.map_or(0, |m| m.height);
    assert!(rows >= 1);
    let ctx = layout.key_context(now);
    let total = c.menu_candidates().map_or(0, |v| v.len());
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..total {
        let (buf, layout, _) = paint(&c, &v, area);
        let menu = layout.menu.unwrap_or_default();
        let sel = (menu.y..menu.y + menu.height)
            .find(|&y| buf[(0, y)].modifier.contains(Modifier::REVERSED))
            .map(|y| row(&buf, y));
        seen.insert(
            sel.unwrap_or_default()
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string(),
        );
        c.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE), &ctx);
    }
    assert_eq!(
        seen.len(),
        total,
        "every candidate reachable and shown selected"
    );
}

#[test]
fn c62_menu_keeps_the_conversation_minimum_and_yields_without_room() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    // 7 rows: footer 1 + input 2 + history 3 leaves 1 row for the menu.
    let small = Rect::new(0, 0, 60, 7);
    let (_, layout, _) = paint(&c, &v, small);
    type_keys(&mut c, "/", &layout);
    let (_, layout, _) = paint(&c, &v, small);
    assert_eq!(layout.menu.map(|m| m.height), Some(1));
    assert_eq!(layout.history.height, 3);
    // 6 rows: no room; the menu is not shown and takes no keys.
    let tiny = Rect::new(0, 0, 60, 6);
    let (buf, layout, _) = paint(&c, &v, tiny);
    assert_eq!(layout.menu, None);
    assert_eq!(layout.menu_capacity, 0);
    assert!(!c.menu_visible(&layout.key_context(now)));
    assert!(row(&buf, layout.footer.y).starts_with("Enter:send"));
    // Too narrow: not shown either.
    let (_, layout, _) = paint(&c, &v, Rect::new(0, 0, 20, 20));
    assert_eq!(layout.menu, None);
}

#[test]
fn c64_failure_notice_replaces_the_footer_for_twelve_seconds() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area());
    type_keys(&mut c, "/nope", &layout);
    let ctx = KeyContext {
        menu_rows: 0,
        ..layout.key_context(now)
    };
    c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), &ctx);
    let (buf, layout, _) = paint(&c, &v, area());
    assert_eq!(row(&buf, layout.footer.y), "✗ 알 수 없는 명령: /nope");
    let later = view(
        &[],
        Theme::default(),
        now + std::time::Duration::from_secs(12),
    );
    let (buf, layout, _) = paint(&c, &later, area());
    assert!(row(&buf, layout.footer.y).starts_with("Enter:send"));
}

#[test]
fn c73_no_color_keeps_marks_words_and_reverse_selection() {
    let now = Instant::now();
    let plain = Theme::plain();
    let mut c = Composer::new();
    let p = pending(4);
    let v = view(&p, plain, now);
    let (_, layout, _) = paint(&c, &v, area());
    type_keys(&mut c, "/", &layout);
    let (buf, layout, _) = paint(&c, &v, area());
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let cell = &buf[(x, y)];
            assert!(
                matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
                "colour at ({x},{y})"
            );
        }
    }
    let menu = layout.menu.unwrap_or_default();
    assert!(buf[(0, menu.y)].modifier.contains(Modifier::REVERSED));
    let block = layout.pending.unwrap_or_default();
    assert!(row(&buf, block.y).starts_with('›'));
    assert!(row(&buf, block.y + 3).contains("처리 대기"));
    // The `전송 확인 중` row is the 4th input: past the three listed it is counted.
    assert_eq!(row(&buf, block.y + 4), "   외 1건");
    assert!(row(&buf, layout.input.y + 1).starts_with("› /"));
}

#[test]
fn c68_placeholder_is_drawn_as_a_chip() {
    let now = Instant::now();
    let mut c = Composer::new();
    let v = view(&[], Theme::default(), now);
    let (_, layout, _) = paint(&c, &v, area());
    let stamp = masc_tui::view::composer::PasteStamp {
        minute: "20261019-0930".into(),
        nonce: "0badc0de".into(),
    };
    type_keys(&mut c, "x ", &layout);
    c.paste(&"p\n".repeat(70), &stamp, &layout.key_context(now));
    let (buf, layout, _) = paint(&c, &v, area());
    let y = layout.input.y + 1;
    assert!(row(&buf, y).starts_with("› x [pasted 71 line(s), 140 bytes"));
    assert_eq!(buf[(2, y)].fg, Color::Reset, "typed text plain");
    assert_ne!(buf[(4, y)].fg, Color::Reset, "placeholder styled");
}
