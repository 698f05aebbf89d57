#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! On screen: date rows in inline and row modes (C-24), mid-stream frames without a
//! lone `●` or raw `*` (C-67 "garbled"), the `↻ previous row repeated N×` fold (C-67; never a
//! failure's rows, C-8), through the transcript view's own projection.

use masc_tui::protocol::chat::ChatStreamEvent;
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    Entry, EntryKind, FailureOrigin, LiveTurn, OriginMode, ScrollPosition, Speaker, Transcript,
    TranscriptView, ViewModes,
};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

/// 2026-08-17 23:58:30 UTC (the day before 00:02:30 of 2026-08-18).
const LATE: f64 = 1_787_011_110.0;

fn keeper() -> Speaker {
    Speaker::Keeper {
        name: "alpha".into(),
        owner: true,
    }
}

fn view(entries: Vec<Entry>, modes: ViewModes) -> TranscriptView {
    let mut t = Transcript::new();
    for e in entries {
        t.push(e);
    }
    let mut v = TranscriptView::new(t, Theme::default());
    v.set_modes(modes);
    v
}

fn paint(v: &mut TranscriptView, w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    v.render_into(&mut buf, area, ScrollPosition::FromTop(0));
    buf
}

fn rows(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

fn origin(origin: OriginMode) -> ViewModes {
    ViewModes {
        origin,
        ..ViewModes::default()
    }
}

#[test]
fn c24_date_rows_in_inline_and_row_modes_and_the_clock_never_runs_back_across_a_day() {
    let entries = || {
        vec![
            Entry::new(
                "u1",
                Speaker::Operator,
                EntryKind::Utterance,
                "late question",
            )
            .with_ts(LATE),
            Entry::new("k1", keeper(), EntryKind::Utterance, "after midnight")
                .with_ts(LATE + 240.0),
        ]
    };
    for mode in [OriginMode::Inline, OriginMode::Row] {
        let r = rows(&paint(&mut view(entries(), origin(mode)), 80, 10));
        let first = r.iter().position(|l| l.contains("2026-08-17"));
        let second = r.iter().position(|l| l.contains("2026-08-18"));
        let (Some(first), Some(second)) = (first, second) else {
            panic!("{mode:?}: a date row per day: {r:?}");
        };
        assert!(first < second, "{r:?}");
        let late = r.iter().position(|l| l.contains("23:58")).unwrap();
        let early = r.iter().position(|l| l.contains("00:02")).unwrap();
        assert!(
            first < late && late < second && second < early,
            "{mode:?}: 00:02 comes under its own day's row, never right after 23:58: {r:?}"
        );
    }
    // C-23: the default conversation view has no time separators.
    let r = rows(&paint(&mut view(entries(), ViewModes::default()), 80, 10));
    assert!(!r.iter().any(|l| l.contains("2026-08")), "{r:?}");
}

#[test]
fn c67_mid_stream_frames_show_no_lone_mark_and_no_raw_markdown() {
    let mut v = view(Vec::new(), ViewModes::default());
    let mut turn = LiveTurn::new("tui-req-1", "alpha");
    let start = ChatStreamEvent::TextStart {
        message_id: "m1".into(),
    };
    turn.apply(v.transcript_mut(), &start, LATE);
    // The reply has started but no text came yet: nothing to draw, no lone `●`.
    let r = rows(&paint(&mut v, 60, 4));
    assert!(!r.iter().any(|l| l.trim() == "●"), "{r:?}");
    for delta in ["Here is **bo", "ld and *ital"] {
        let event = ChatStreamEvent::TextDelta {
            message_id: "m1".into(),
            delta: delta.into(),
        };
        turn.apply(v.transcript_mut(), &event, LATE);
        let buf = paint(&mut v, 60, 4);
        let r = rows(&buf);
        assert!(
            !r.iter().any(|l| l.contains('*')),
            "raw markdown mid-stream: {r:?}"
        );
        let y = r.iter().position(|l| l.contains("Here is")).unwrap();
        let at = r[y].find("bo").unwrap();
        let x = r[y][..at].chars().count() as u16;
        assert!(
            buf[(x, y as u16)].modifier.contains(Modifier::BOLD),
            "the open strong run is drawn bold already: {r:?}"
        );
    }
    let end = ChatStreamEvent::TextEnd {
        message_id: "m1".into(),
    };
    turn.apply(v.transcript_mut(), &end, LATE);
    // Settled, the text is rendered exactly as written: the unclosed `*ital` is literal.
    let r = rows(&paint(&mut v, 60, 4));
    assert!(r.iter().any(|l| l.contains("*ital")), "{r:?}");
}

/// C-67: a reply streamed one character at a time never shows a raw `_`, `__`, `*`, `[` or `]`
/// on any frame, whatever delta it was cut at; settled, it renders as written.
#[test]
fn c67_underscore_emphasis_and_links_split_mid_stream_show_no_raw_openers() {
    let mut v = view(Vec::new(), ViewModes::default());
    let mut turn = LiveTurn::new("tui-req-2", "alpha");
    turn.apply(
        v.transcript_mut(),
        &ChatStreamEvent::TextStart {
            message_id: "m2".into(),
        },
        LATE,
    );
    let text = "See __the [docs](https://x.org/ab)__ and _more_ or ![a chart](c.png) *now*";
    for (i, c) in text.chars().enumerate() {
        let event = ChatStreamEvent::TextDelta {
            message_id: "m2".into(),
            delta: c.to_string(),
        };
        turn.apply(v.transcript_mut(), &event, LATE);
        let r = rows(&paint(&mut v, 100, 4));
        assert!(
            !r.iter().any(|l| l.contains(['_', '*', '[', ']'])),
            "raw markup after {:?}: {r:?}",
            text.chars().take(i + 1).collect::<String>()
        );
    }
    turn.apply(
        v.transcript_mut(),
        &ChatStreamEvent::TextEnd {
            message_id: "m2".into(),
        },
        LATE,
    );
    let r = rows(&paint(&mut v, 100, 4)).join("\n");
    assert!(
        r.contains("See the docs (https://x.org/ab) and more"),
        "{r}"
    );
}

#[test]
fn c67_a_repeated_row_folds_with_its_count_and_failures_never_fold() {
    let text = "starting\nretrying\nretrying\nretrying\nretrying\ndone";
    let reply = Entry::new("k1", keeper(), EntryKind::Utterance, text).with_ts(LATE);
    let r = rows(&paint(&mut view(vec![reply], ViewModes::default()), 60, 8));
    assert_eq!(
        r.iter().filter(|l| l.contains("retrying")).count(),
        1,
        "{r:?}"
    );
    assert!(
        r.iter().any(|l| l.contains("↻ previous row repeated 3×")),
        "{r:?}"
    );
    assert!(r.iter().any(|l| l.contains("done")), "{r:?}");
    // C-8: a failure's rows never fold.
    let failure = Entry::new(
        "e1",
        Speaker::System,
        EntryKind::Failure(FailureOrigin::Other("probe".into())),
        text,
    )
    .with_ts(LATE);
    let r = rows(&paint(
        &mut view(vec![failure], ViewModes::default()),
        60,
        8,
    ));
    assert_eq!(
        r.iter().filter(|l| l.contains("retrying")).count(),
        4,
        "{r:?}"
    );
    assert!(!r.iter().any(|l| l.contains('↻')), "{r:?}");
}
