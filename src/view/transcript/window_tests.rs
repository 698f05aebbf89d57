//! The lazy cut of a huge newest message (C-28, C-67): what the first frame wraps, the
//! off-actor measurement, and its generation check.

use super::*;
use crate::view::theme::Theme;
use crate::view::transcript::{Entry, EntryKind, Speaker, Transcript};

fn text_of(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// 40 short entries, then a ~1 MB Keeper message (prose paragraphs) as the newest entry.
fn huge_transcript() -> Transcript {
    let mut t = Transcript::new();
    for i in 0..40 {
        t.push(
            Entry::new(
                format!("k{i}"),
                Speaker::Operator,
                EntryKind::Utterance,
                format!("질문 {i}: 배포 상태 🙂"),
            )
            .with_ts(1_787_000_000.0 + f64::from(i)),
        );
    }
    let para = "이 문단은 아주 긴 메시지의 일부야. It mixes English, 한국어, and emoji 👍🏽.\n";
    let mut big = String::new();
    let mut k = 0;
    while big.len() < (1 << 20) {
        big.push_str(&format!("{k:06} {para}"));
        k += 1;
        if k % 8 == 0 {
            big.push('\n');
        }
    }
    t.push(
        Entry::new(
            "huge",
            Speaker::Keeper {
                name: "alpha".into(),
                owner: true,
            },
            EntryKind::Utterance,
            big,
        )
        .with_ts(1_787_000_100.0),
    );
    t
}

fn frame(v: &mut TranscriptView, w: u16, h: u16) -> Vec<String> {
    v.render(w, h, ScrollPosition::Newest)
        .iter()
        .map(text_of)
        .collect()
}

/// The frame of a fresh view whose body was measured on the actor first.
fn exact_frame(w: u16, h: u16) -> (Vec<String>, FrameInfo) {
    let mut exact = TranscriptView::new(huge_transcript(), Theme::plain());
    exact.total_rows(w);
    (frame(&mut exact, w, h), exact.last_frame())
}

fn known_chunks(v: &TranscriptView) -> usize {
    v.caches
        .heights
        .values()
        .map(|h| h.iter().filter(|x| **x != UNKNOWN).count())
        .sum()
}

#[test]
fn c28_first_frame_of_a_huge_newest_message_wraps_only_the_chunks_it_paints() {
    let mut v = TranscriptView::new(huge_transcript(), Theme::plain());
    let rows = frame(&mut v, 200, 60);
    assert_eq!(rows.len(), 60);
    assert!(
        rows[0].contains("000000"),
        "first row of the message: {:?}",
        rows[0]
    );
    assert!(
        rows[1].contains("⋯ chat rows hidden · PgUp to reveal"),
        "{:?}",
        rows[1]
    );
    assert!(v.last_frame().hidden_unmeasured);
    let chunks = v.plan.last().map_or(0, PlannedBlock::chunk_count);
    assert!(chunks > 16, "the body is chunked: {chunks}");
    assert!(
        known_chunks(&v) <= 4,
        "wrapped {} of {chunks} chunks",
        known_chunks(&v)
    );
    let job = v
        .take_measure_job()
        .expect("the middle is left to the blocking pool");
    assert!(job.chunk_count() >= chunks - 4);
    assert!(v.take_measure_job().is_none(), "handed out once");
    // While it is in flight, later frames do not ask again.
    v.render(200, 60, ScrollPosition::Newest);
    assert!(v.take_measure_job().is_none());
}

#[test]
fn c67_the_measured_count_arrives_and_the_frame_equals_the_exact_cut() {
    let mut lazy = TranscriptView::new(huge_transcript(), Theme::plain());
    let first = frame(&mut lazy, 200, 60);
    let job = lazy.take_measure_job().expect("job");
    assert!(lazy.apply_measured(job.run()));
    let after = frame(&mut lazy, 200, 60);
    assert!(!lazy.last_frame().hidden_unmeasured);

    let (want, exact) = exact_frame(200, 60);
    assert_eq!(after, want, "measured off the actor = measured on it");
    assert!(
        want[1].contains("chat rows hidden · PgUp to reveal"),
        "{:?}",
        want[1]
    );
    assert_eq!(exact.hidden_middle, lazy.last_frame().hidden_middle);
    // C-74: the unmeasured frame painted the same rows, only the marker lacked the count.
    for (i, (a, b)) in first.iter().zip(&want).enumerate() {
        if i != 1 {
            assert_eq!(a, b, "row {i}");
        }
    }
}

#[test]
fn t5_a_measurement_of_an_older_layout_is_ignored() {
    let mut v = TranscriptView::new(huge_transcript(), Theme::plain());
    v.render(200, 60, ScrollPosition::Newest);
    let job = v.take_measure_job().expect("job");
    // A resize re-wraps: the old generation's heights would be wrong at the new width.
    v.render(80, 30, ScrollPosition::Newest);
    assert!(!v.apply_measured(job.run()));
    let next = v.take_measure_job().expect("the new layout asks again");
    assert!(v.apply_measured(next.run()));
    let rows = frame(&mut v, 80, 30);
    let (want, _) = exact_frame(80, 30);
    assert_eq!(rows, want);
}

/// Measuring the whole transcript keeps heights, not rows — the row cache holds only
/// what a frame painted — and the heights equal those of a measurement that keeps its rows.
#[test]
fn measuring_every_row_keeps_heights_not_rows() {
    let transcript = || {
        let mut t = Transcript::new();
        for i in 0..300 {
            let text = format!("답변 {i}: 배포는 끝났어 🙂 {}", "가나다라 ".repeat(i % 13));
            t.push(
                Entry::new(
                    format!("k{i}"),
                    Speaker::Operator,
                    EntryKind::Utterance,
                    text,
                )
                .with_ts(1_787_000_000.0 + i as f64 * 61.0),
            );
        }
        t
    };
    let mut measured = TranscriptView::new(transcript(), Theme::default());
    let total = measured.total_rows(80);
    assert!(
        measured.caches.rows.is_empty(),
        "no rows kept by the measurement"
    );
    let mut kept = TranscriptView::new(transcript(), Theme::default());
    let layout = kept.sync(80);
    let by_painting: usize = (0..kept.plan.len())
        .map(|bi| kept.block_height(&layout, bi))
        .sum();
    assert_eq!(total, by_painting);
    assert!(!kept.caches.rows.is_empty());
    // Painting the middle after the measurement caches the painted chunks only.
    let frame = measured.render(80, 20, ScrollPosition::Back(total / 2));
    assert_eq!(frame.len(), 20);
    assert!(
        measured.caches.rows.len() <= 20,
        "{}",
        measured.caches.rows.len()
    );
    let mut reference = TranscriptView::new(transcript(), Theme::default());
    let expected = reference.render(80, 20, ScrollPosition::Back(total / 2));
    assert_eq!(
        frame.iter().map(text_of).collect::<Vec<_>>(),
        expected.iter().map(text_of).collect::<Vec<_>>()
    );
}

#[test]
fn a_reply_streamed_for_minutes_keeps_the_row_cache_bounded() {
    // A streamed reply is a new content key at every event: each frame wraps and caches the
    // whole reply again. The stale versions must not pile up (RSS flat while streaming).
    let mut t = Transcript::new();
    t.push(
        Entry::new(
            "reply",
            Speaker::Keeper {
                name: "rondo".into(),
                owner: true,
            },
            EntryKind::Utterance,
            String::new(),
        )
        .with_ts(1_787_000_000.0),
    );
    let mut v = TranscriptView::new(t, Theme::default());
    let mut most = 0;
    for n in 0..1_200 {
        let delta = if n % 97 == 96 {
            "끝.\n\n"
        } else {
            "작업을 확인하고 있어요 "
        };
        v.transcript_mut()
            .update("reply", |e| e.text.push_str(delta));
        let rows = v.render(120, 40, ScrollPosition::Newest);
        assert!(rows.len() <= 40);
        let held: usize = v.caches.rows.values().map(|(r, _)| r.len()).sum();
        most = most.max(held);
    }
    // The reply ends about 300 rows long; 1,200 versions of it would be ~180,000 rows.
    assert!(
        most <= chunk_rows::ROW_CACHE_ROWS_FOR_TESTS,
        "{most} rows cached"
    );
}
