//! Chat transcript projection: marks, rails, gutters, widths, gate, sanitising (chat-screen.md
//! §2.1–§2.4, §2.12, T.5, T.7). Rule ids are in the test names.

use masc_tui::protocol::chat::{ChatHistoryPage, ChatHistoryRow, ChatRole};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    Entry, EntryKind, InboundSender, OriginMode, ScrollPosition, Speaker, Transcript,
    TranscriptView, ViewModes,
};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::path::Path;
use unicode_width::UnicodeWidthStr;

const T0: f64 = 1_787_000_000.0 - 1_787_000_000.0 % 86_400.0 + 19.0 * 3600.0 + 30.0 * 60.0;

fn keeper() -> Speaker {
    Speaker::Keeper {
        name: "alpha".into(),
        owner: true,
    }
}

fn say(id: &str, who: Speaker, text: &str, ts: f64, turn: Option<&str>) -> Entry {
    let mut e = Entry::new(id, who, EntryKind::Utterance, text).with_ts(ts);
    e.turn_ref = turn.map(Into::into);
    e
}

fn view(entries: Vec<Entry>, modes: ViewModes, color: bool) -> TranscriptView {
    let mut t = Transcript::new();
    for e in entries {
        t.push(e);
    }
    let mut v = TranscriptView::new(t, Theme::colored(color));
    v.set_modes(modes);
    v
}

fn inline() -> ViewModes {
    ViewModes {
        origin: OriginMode::Inline,
        ..ViewModes::default()
    }
}

fn paint(v: &mut TranscriptView, w: u16, h: u16, scroll: ScrollPosition) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    v.render_into(&mut buf, area, scroll);
    buf
}

/// Row text with each wide grapheme once (its trailing cell skipped).
fn row(buf: &Buffer, y: u16) -> String {
    let mut out = String::new();
    let mut x = 0;
    while x < buf.area.width {
        let sym = buf[(x, y)].symbol();
        out.push_str(sym);
        x += (sym.width() as u16).max(1);
    }
    out.trim_end().to_string()
}

fn rows(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height).map(|y| row(buf, y)).collect()
}

/// The display column where `needle` starts in row `y`.
fn col_of(buf: &Buffer, y: u16, needle: &str) -> Option<usize> {
    let r = row(buf, y);
    r.find(needle).map(|i| r[..i].width())
}

#[test]
fn c23_bare_default_marks_in_a_three_cell_margin_body_at_column_3() {
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "status?", T0, Some("t1")),
            say("k1", keeper(), "all green", T0 + 5.0, Some("t1")),
        ],
        ViewModes::default(),
        true,
    );
    let buf = paint(&mut v, 80, 10, ScrollPosition::FromTop(0));
    let r = rows(&buf);
    assert_eq!(r[0], "›  status?");
    assert_eq!(r[1], "", "C-28: one Spacing row between messages");
    assert_eq!(r[2], "●  all green");
    assert!(
        r[3..].iter().all(String::is_empty),
        "C-28: no spacing after the last message"
    );
    // C-23/C-27: no clock, no role column, no rail by default; C-26: no default badges.
    assert!(
        !r.iter()
            .any(|l| l.contains("19:30") || l.contains("YOU") || l.contains('╭'))
    );
    assert!(ViewModes::default().opened_badges().is_empty());
}

#[test]
fn c23_bare_inbound_sender_gets_a_header_never_merged_with_the_operator() {
    let inbound = Speaker::Inbound(Box::new(InboundSender {
        sender: "beta-keeper".into(),
        source: Some("board".into()),
    }));
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "hi", T0, None),
            say("i1", inbound, "hello from outside", T0 + 1.0, None),
        ],
        ViewModes::default(),
        true,
    );
    let r = rows(&paint(&mut v, 80, 6, ScrollPosition::FromTop(0)));
    assert_eq!(r[2], "◀  beta-keeper · board");
    assert_eq!(r[3], "   hello from outside");
}

#[test]
fn c20_inline_reference_row_at_60_columns() {
    let tool = Entry::new(
        "c1",
        Speaker::Tool,
        EntryKind::ToolCall(Box::new(masc_tui::view::transcript::ToolCall {
            call_id: None,
            name: "read_file".into(),
            state: masc_tui::view::transcript::CallState::Succeeded,
            args: None,
            duration_ms: Some(16),
            turn_stopped: None,
        })),
        "",
    )
    .with_ts(T0 + 10.0);
    let mut v = view(
        vec![say("u1", Speaker::Operator, "hello", T0, None), tool],
        inline(),
        true,
    );
    let buf = paint(&mut v, 60, 5, ScrollPosition::FromTop(0));
    // C-24: the day's separator first (inline mode), then the reference row.
    assert!(row(&buf, 0).contains(" 2026-08-17 "), "{:?}", row(&buf, 0));
    let r0 = row(&buf, 1);
    assert_eq!(r0, format!("{}19:30 ▶ YOU       hello", " ".repeat(5)));
    assert_eq!(
        col_of(&buf, 1, "hello"),
        Some(23),
        "C-20: body starts at column 23"
    );
    let r1 = row(&buf, 2);
    assert!(
        r1.starts_with(&format!("{}■ TOOLS   │ ", " ".repeat(11))),
        "C-21 same minute: {r1:?}"
    );
}

#[test]
fn c18_c69_gutter_widths_at_41_60_100_200_columns() {
    // Distinct words: identical wrapped rows would fold (C-67).
    let long: String = (0..60).map(|i| format!("word{i} ")).collect();
    for (cols, body_col) in [(41u16, 18usize), (60, 23), (100, 23), (200, 23)] {
        let mut v = view(
            vec![say("u1", Speaker::Operator, &long, T0, None)],
            inline(),
            true,
        );
        let buf = paint(&mut v, cols, 30, ScrollPosition::FromTop(0));
        assert!(
            row(&buf, 0).contains("2026-08-17"),
            "C-24 date row at {cols}"
        );
        assert_eq!(col_of(&buf, 1, "word"), Some(body_col), "at {cols} columns");
        for y in 0..30 {
            let r = row(&buf, y);
            assert!(
                r.width() <= 100,
                "C-69: row wider than the reading width at {cols}: {r:?}"
            );
            if y > 1 && !r.is_empty() {
                assert_eq!(
                    col_of(&buf, y, "word"),
                    Some(body_col),
                    "wrapped rows align at {cols}"
                );
            }
        }
    }
}

#[test]
fn c13_c16_bracket_with_journal_siding_and_wrapped_rail() {
    let modes = ViewModes {
        origin: OriginMode::Inline,
        journal: masc_tui::view::transcript::JournalMode::Summary,
        ..ViewModes::default()
    };
    let journal =
        Entry::new("j1", Speaker::System, EntryKind::Journal, "memory note").with_ts(T0 + 2.0);
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "question", T0, Some("turn-A")),
            journal,
            say(
                "k1",
                keeper(),
                // Distinct words: identical wrapped rows would fold (C-67).
                &(0..20).map(|i| format!("answer{i} ")).collect::<String>(),
                T0 + 3.0,
                Some("turn-A"),
            ),
        ],
        modes,
        true,
    );
    let r = rows(&paint(&mut v, 60, 9, ScrollPosition::FromTop(0)));
    assert!(r[0].contains("2026-08-17"), "C-24: {r:?}");
    assert!(r[1].starts_with("   ╭ "), "{r:?}");
    assert!(r[2].starts_with("╌╌╌┤ "), "C-12 journal siding: {r:?}");
    assert!(
        r[3].starts_with("   │ "),
        "C-16 first row of closing speech: {r:?}"
    );
    let last = r.iter().rposition(|l| !l.is_empty()).unwrap_or(0);
    assert!(last > 3, "the answer wraps");
    assert!(
        r[last].starts_with("   ╰ "),
        "C-16 ╰ only on the last row: {r:?}"
    );
    assert_eq!(r.iter().filter(|l| l.starts_with("   ╰")).count(), 1);
}

#[test]
fn c14_interleaved_turn_splits_into_lone_rows() {
    let other = Speaker::Keeper {
        name: "beta".into(),
        owner: false,
    };
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "one", T0, Some("turn-A")),
            say("b1", other, "other turn", T0 + 1.0, Some("turn-B")),
            say("k1", keeper(), "two", T0 + 2.0, Some("turn-A")),
        ],
        inline(),
        true,
    );
    let r = rows(&paint(&mut v, 80, 5, ScrollPosition::FromTop(0)));
    assert!(
        !r.iter().any(|l| l.contains('╭') || l.contains('╰')),
        "no bracket over the interleaving row: {r:?}"
    );
    // The same rows without the interleaving turn do get a bracket.
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "one", T0, Some("turn-A")),
            say("k1", keeper(), "two", T0 + 2.0, Some("turn-A")),
        ],
        inline(),
        true,
    );
    let r = rows(&paint(&mut v, 80, 5, ScrollPosition::FromTop(0)));
    assert!(
        r[1].starts_with("   ╭") && r[2].starts_with("   ╰"),
        "{r:?}"
    );
}

#[test]
fn c17_grouping_uses_the_full_turn_id_not_a_shortened_one() {
    let mut v = view(
        vec![
            say(
                "u1",
                Speaker::Operator,
                "one",
                T0,
                Some("turn-0123456789-a"),
            ),
            say("k1", keeper(), "two", T0 + 1.0, Some("turn-0123456789-b")),
        ],
        inline(),
        true,
    );
    let r = rows(&paint(&mut v, 80, 3, ScrollPosition::FromTop(0)));
    assert!(
        !r.iter().any(|l| l.contains('╭')),
        "ids sharing a prefix are different turns: {r:?}"
    );
}

#[test]
fn c21_c22_clock_on_minute_change_and_continued_speaker_mark() {
    let mut v = view(
        vec![
            say("k1", keeper(), "first", T0, None),
            say("k2", keeper(), "second", T0 + 20.0, None),
            say("k3", keeper(), "third", T0 + 61.0, None),
        ],
        inline(),
        true,
    );
    let r = rows(&paint(&mut v, 80, 5, ScrollPosition::FromTop(0)));
    assert!(r[0].contains("2026-08-17"), "C-24: {r:?}");
    assert!(r[1].starts_with("     19:30 ● alpha"), "{r:?}");
    assert_eq!(
        col_of(
            &paint(&mut v, 80, 5, ScrollPosition::FromTop(0)),
            2,
            "second"
        ),
        Some(23)
    );
    assert!(
        r[2].starts_with(&format!("{}│{}", " ".repeat(11), " ".repeat(11))),
        "C-22 name erased, mark │: {r:?}"
    );
    assert!(r[3].contains("19:31"), "minute changed: {r:?}");
}

#[test]
fn c25_origin_row_headings_and_no_placeholder_without_a_clock() {
    let modes = ViewModes {
        origin: OriginMode::Row,
        ..ViewModes::default()
    };
    let mut no_ts = Entry::new("k2", keeper(), EntryKind::Utterance, "no time");
    no_ts.ts = None;
    let mut v = view(
        vec![
            say("u1", Speaker::Operator, "hi", T0, None),
            say("k1", keeper(), "hello", T0 + 1.0, None),
            no_ts,
        ],
        modes,
        true,
    );
    let r = rows(&paint(&mut v, 60, 12, ScrollPosition::FromTop(0)));
    assert!(r[0].contains("2026-08-17"), "C-24: {r:?}");
    assert!(
        r[1].starts_with("▶ YOU ─") && r[1].ends_with(" 19:30"),
        "{r:?}"
    );
    assert_eq!(r[2], "   hi");
    assert!(
        r[4].starts_with("● ─") && !r[4].contains("alpha"),
        "owner name omitted: {r:?}"
    );
    let last_header = &r[7];
    assert!(
        last_header.starts_with("  ─") && !last_header.contains(':'),
        "continuation: rule only, no clock, no --:--: {r:?}"
    );
    assert!(!r.iter().any(|l| l.contains("--:--")));
}

#[test]
fn c70_c71_korean_and_emoji_rows_wrap_aligned_in_cells() {
    let text = "한국어 문장과 🙂 이모지 👍🏽 그리고 국기 🇰🇷 가 섞인 아주 긴 본문입니다 ".repeat(4);
    for modes in [ViewModes::default(), inline()] {
        let mut v = view(vec![say("k1", keeper(), &text, T0, None)], modes, true);
        let buf = paint(&mut v, 60, 20, ScrollPosition::FromTop(0));
        let body_x: u16 = if modes.origin == OriginMode::Inline {
            23
        } else {
            3
        };
        let mut seen = String::new();
        for y in 0..20 {
            let r = row(&buf, y);
            // Skip blank rows and the inline mode's date separator (C-24).
            if r.is_empty() || r.contains("2026-08-17") {
                continue;
            }
            // Each body row starts exactly at the body column (no half cell drift).
            let first = buf[(body_x, y)].symbol();
            assert_ne!(first, " ", "row {y} starts at column {body_x}: {r:?}");
            assert!(r.width() <= 60);
            let mut x = body_x;
            while x < 60 {
                let s = buf[(x, y)].symbol();
                seen.push_str(s);
                x += (s.width() as u16).max(1);
            }
            seen.push(' ');
        }
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(squash(&seen), squash(&text), "no grapheme lost or split");
    }
}

#[test]
fn c70_nfc_makes_conjoining_hangul_one_cell_pair() {
    // 한 as conjoining jamo (L V T) normalises to one syllable of 2 cells.
    let decomposed = "\u{1112}\u{1161}\u{11AB}글";
    let mut v = view(
        vec![say("k1", keeper(), decomposed, T0, None)],
        ViewModes::default(),
        true,
    );
    let buf = paint(&mut v, 60, 3, ScrollPosition::FromTop(0));
    assert_eq!(row(&buf, 0), "●  한글");
    assert_eq!(buf[(3, 0)].symbol(), "한");
    assert_eq!(buf[(5, 0)].symbol(), "글");
}

#[test]
fn c19_t5_resize_gate_at_40_columns_and_2_rows() {
    let mut v = view(
        vec![say("u1", Speaker::Operator, "hi", T0, None)],
        ViewModes::default(),
        true,
    );
    let gated = v.render(40, 20, ScrollPosition::Newest);
    assert_eq!(gated.len(), 1);
    let text: String = gated[0].spans.iter().map(|s| s.content.as_ref()).collect();
    assert!(text.contains("41") && !text.contains("hi"), "{text}");
    assert_eq!(v.render(80, 2, ScrollPosition::Newest).len(), 1);
    let open: String = v.render(41, 3, ScrollPosition::Newest)[0]
        .spans
        .iter()
        .map(|s| s.content.as_ref())
        .collect();
    assert_eq!(open, "›  hi");
    assert_eq!(
        masc_tui::view::transcript::chat_gate(41, 3),
        masc_tui::view::transcript::ChatGate::Open
    );
}

#[test]
fn t7_c72_control_characters_never_reach_a_cell() {
    let nasty = "line\x1b[31mred\x07bell\u{9b}31m\ttab\r\nnext\x7f \u{202e}rtl\u{2066}";
    for modes in [ViewModes::default(), inline()] {
        let mut v = view(
            vec![
                say("k1", keeper(), nasty, T0, None),
                Entry::new(
                    "f1",
                    Speaker::System,
                    EntryKind::Failure(masc_tui::view::transcript::FailureOrigin::Transport),
                    nasty,
                ),
            ],
            modes,
            true,
        );
        let buf = paint(&mut v, 80, 12, ScrollPosition::FromTop(0));
        for cell in buf.content() {
            for c in cell.symbol().chars() {
                let u = c as u32;
                assert!(
                    u >= 0x20 && u != 0x7f && !(0x80..=0x9f).contains(&u),
                    "control {u:#x} in a cell"
                );
                assert!(
                    !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'),
                    "bidi control in a cell"
                );
            }
        }
        let all = rows(&buf).join("\n");
        assert!(all.contains("\\x1B[31mred\\x07bell"), "{all}");
        assert!(
            all.contains("next"),
            "C-72 the authored line break survives: {all}"
        );
    }
}

#[test]
fn c3_c73_no_color_keeps_marks_and_failure_bold() {
    let failure = Entry::new(
        "f1",
        Speaker::System,
        EntryKind::Failure(masc_tui::view::transcript::FailureOrigin::Transport),
        "socket closed",
    );
    let entries = || {
        vec![
            say("u1", Speaker::Operator, "hi", T0, None),
            say("k1", keeper(), "hello", T0, None),
            failure.clone(),
        ]
    };
    let mut plain = view(entries(), ViewModes::default(), false);
    let buf = paint(&mut plain, 60, 8, ScrollPosition::FromTop(0));
    for cell in buf.content() {
        assert!(
            matches!(cell.fg, Color::Reset),
            "NO_COLOR: no foreground colour"
        );
        assert!(matches!(cell.bg, Color::Reset));
    }
    let r = rows(&buf);
    assert!(
        r[0].starts_with('›') && r[2].starts_with('●') && r[4].starts_with('✗'),
        "{r:?}"
    );
    assert!(
        buf[(0, 4)].modifier.contains(Modifier::BOLD),
        "failure stays bold without colour"
    );
    let mut coloured = view(entries(), ViewModes::default(), true);
    let buf = paint(&mut coloured, 60, 8, ScrollPosition::FromTop(0));
    assert_eq!(buf[(0, 4)].fg, Color::LightRed, "C-8 bright red");
    assert!(
        buf[(3, 4)].modifier.contains(Modifier::BOLD),
        "the failed clause is bold"
    );
}

#[test]
fn c4_c5_brightness_speech_foreground_work_dim_and_dim_reopened_after_bold() {
    let modes = ViewModes {
        reasoning: masc_tui::view::transcript::ReasoningMode::Full,
        ..ViewModes::default()
    };
    let thinking =
        Entry::new("th", keeper(), EntryKind::Thinking, "plain **bold** after").with_ts(T0);
    let mut v = view(
        vec![say("k1", keeper(), "a **b** c", T0, None), thinking],
        modes,
        true,
    );
    let buf = paint(&mut v, 60, 4, ScrollPosition::FromTop(0));
    // Speech: foreground (no DIM), bold span bold.
    assert!(!buf[(3, 0)].modifier.contains(Modifier::DIM));
    assert!(buf[(5, 0)].modifier.contains(Modifier::BOLD));
    // Thinking is plain text (not Markdown) and dim throughout.
    let r = row(&buf, 2);
    assert!(r.contains("plain **bold** after"), "{r:?}");
    let x = col_of(&buf, 2, "after").unwrap_or(0) as u16;
    assert!(buf[(x, 2)].modifier.contains(Modifier::DIM));
}

#[test]
fn fixture_history_tool_rows_only_project_as_one_tool_block() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    let dir = if dir.exists() {
        dir
    } else {
        Path::new("/work/shared/fixtures/masc").to_path_buf()
    };
    let path = dir.join("keeper_chat_history_page__tool_rows_only.json");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("fixtures absent, skipping");
        return;
    };
    let page = match ChatHistoryPage::decode(&bytes) {
        Ok(p) => p,
        Err(e) => panic!("fixture decodes: {e:?}"),
    };
    let mut t = Transcript::new();
    t.extend_history(&page.messages, "alpha");
    assert_eq!(t.len(), 2, "rows sharing an id stay two entries");
    let mut v = TranscriptView::new(t, Theme::default());
    let r = rows(&paint(&mut v, 60, 4, ScrollPosition::FromTop(0)));
    // Two calls: nothing folds (C-48); a history tool row is "result received" (↩), not ✓.
    assert_eq!(r[0], "   ↩ read_file");
    assert_eq!(r[1], "   ↩ edit_file");
    assert_eq!(r[2], "");
}

#[test]
fn history_row_conversion_is_typed_not_read_from_content() {
    let row = ChatHistoryRow {
        id: "m-1".into(),
        role: ChatRole::Assistant,
        content: "error: this looks like an error but is speech".into(),
        ts: Some(T0),
        kind: None,
        turn_ref: Some("turn-1".into()),
        tool_call_id: None,
        tool_call_name: None,
        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
    };
    let e = Entry::from_history_row(&row, "alpha");
    assert_eq!(
        e.kind,
        EntryKind::Utterance,
        "C-9: error-ness comes from the type"
    );
    assert_eq!(e.turn_ref.as_deref(), Some("turn-1"));
    assert_eq!(e.text, row.content, "C-29: the recorded original");
}
