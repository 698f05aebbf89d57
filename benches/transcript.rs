//! Frame cost of the Keeper chat transcript projection (chat-screen.md §2; windowed rendering).
//!
//! - 10k / 100k-entry transcripts at 200×60, pinned to the newest row and scrolled to the middle
//! - the end of a 1 MB message; the cold first frame of it (the middle is measured
//!   off the view actor) against measuring it in the frame, and the off-actor measurement
//! - a resize (reading width change → re-wrap) with 100k entries
//! - resident memory with 100k entries (printed once: VmRSS from /proc/self/status)
//! - `/find` on a 100k-entry transcript: the view actor's part before (the whole
//!   search on the actor) and after (only the dispatch; the search runs on the blocking pool,
//!   measured separately), and the admission of its result

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    CallState, Entry, EntryKind, ScrollPosition, Speaker, ToolCall, Transcript, TranscriptView,
};
use std::hint::black_box;
use std::io::Write as _;

const T0: f64 = 1_787_000_000.0;

fn entry(i: usize) -> Entry {
    let ts = T0 + i as f64 * 7.0;
    let turn = format!("turn-{:08}", i / 4);
    let keeper = Speaker::Keeper {
        name: "alpha".into(),
        owner: true,
    };
    match i % 4 {
        0 => Entry::new(format!("u{i}"), Speaker::Operator, EntryKind::Utterance, format!("질문 {i}: 배포 상태 알려줘 🙂")),
        1 => Entry::new(
            format!("c{i}"),
            Speaker::Tool,
            EntryKind::ToolCall(Box::new(ToolCall {
                call_id: Some(format!("tc{i}").into()),
                name: "read_file".into(),
                state: CallState::Succeeded,
                args: Some(r#"{"path":"src/main.rs"}"#.into()),
                duration_ms: Some(16),
                turn_stopped: None,
            })),
            "fn main() {}",
        ),
        _ => Entry::new(
            format!("k{i}"),
            keeper,
            EntryKind::Utterance,
            format!(
                "답변 {i}: **배포**는 끝났고 `main` 에 올렸어. 다음은 검증이야. Korean 한글 and emoji 👍🏽 wrap test {}",
                "가나다라 ".repeat(i % 13)
            ),
        ),
    }
    .with_ts(ts)
    .with_turn(turn)
}

fn transcript(n: usize) -> Transcript {
    let mut t = Transcript::new();
    for i in 0..n {
        t.push(entry(i));
    }
    t
}

/// 1 000 entries, then a 1 MB Keeper message (prose paragraphs) as the newest entry.
fn big_message_transcript() -> Transcript {
    let mut t = transcript(1_000);
    let para = "이 문단은 아주 긴 메시지의 일부야. It mixes English, 한국어, and emoji 🙂 so wrapping is real work.\n";
    let mut big = String::with_capacity(1 << 20);
    let mut k = 0;
    while big.len() < (1 << 20) {
        big.push_str(para);
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
        .with_ts(T0),
    );
    t
}

fn view(n: usize) -> TranscriptView {
    TranscriptView::new(transcript(n), Theme::default())
}

fn vm_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn frames(c: &mut Criterion) {
    for n in [10_000usize, 100_000] {
        let mut v = view(n);
        v.render(200, 60, ScrollPosition::Newest);
        c.bench_function(&format!("frame_{}k_bottom_200x60", n / 1000), |b| {
            b.iter(|| black_box(v.render(200, 60, ScrollPosition::Newest)))
        });
        let total = v.total_rows(200);
        let mid = ScrollPosition::Back(total / 2);
        v.render(200, 60, mid);
        c.bench_function(&format!("frame_{}k_mid_200x60", n / 1000), |b| {
            b.iter(|| black_box(v.render(200, 60, mid)))
        });
    }

    let mut v = TranscriptView::new(big_message_transcript(), Theme::default());
    v.render(200, 60, ScrollPosition::Newest);
    c.bench_function("frame_1mb_message_end_200x60", |b| {
        b.iter(|| black_box(v.render(200, 60, ScrollPosition::Newest)))
    });
    c.bench_function("frame_1mb_message_end_100_back_200x60", |b| {
        b.iter(|| black_box(v.render(200, 60, ScrollPosition::Back(100))))
    });
    // First frame of a fresh view: wraps the first chunk and the newest
    // chunks it paints; the middle is left to an off-actor measurement.
    c.bench_function("cold_first_frame_1mb_message_end_200x60", |b| {
        b.iter_batched(
            || TranscriptView::new(big_message_transcript(), Theme::default()),
            |mut v| black_box(v.render(200, 60, ScrollPosition::Newest)),
            BatchSize::LargeInput,
        )
    });
    // The same frame when the whole body is measured in it (the cost the off-actor measure avoids).
    c.bench_function(
        "cold_first_frame_1mb_message_end_measured_in_frame_200x60",
        |b| {
            b.iter_batched(
                || TranscriptView::new(big_message_transcript(), Theme::default()),
                |mut v| {
                    v.total_rows(200);
                    black_box(v.render(200, 60, ScrollPosition::Newest))
                },
                BatchSize::LargeInput,
            )
        },
    );
    // The off-actor measurement the first frame hands to the blocking pool (not on the view
    // actor; its result fills the height cache and the marker gets its count).
    c.bench_function("off_actor_measure_1mb_message_200x60", |b| {
        b.iter_batched(
            || {
                let mut v = TranscriptView::new(big_message_transcript(), Theme::default());
                v.render(200, 60, ScrollPosition::Newest);
                v.take_measure_job()
            },
            |job| black_box(job.map(|j| j.run())),
            BatchSize::LargeInput,
        )
    });

    // Resize: each frame changes the reading width, so the window re-wraps.
    let mut v = view(100_000);
    v.render(200, 60, ScrollPosition::Newest);
    let mut wide = false;
    c.bench_function("resize_100k_bottom_alternating_90_80_cols", |b| {
        b.iter(|| {
            wide = !wide;
            black_box(v.render(if wide { 90 } else { 80 }, 60, ScrollPosition::Newest))
        })
    });
}

/// `/find` on 100k entries at 200 columns: what the view actor spends.
fn find(c: &mut Criterion) {
    let mut v = view(100_000);
    v.render(200, 60, ScrollPosition::Newest);
    v.total_rows(200);
    // Before: the search ran on the view actor (every chunk of the transcript wrapped).
    c.bench_function("find_100k_on_view_actor_before_200x60", |b| {
        b.iter(|| black_box(v.find_rows(200, "배포")))
    });
    // After: the view actor only stamps the layout and shares snapshots.
    c.bench_function("find_100k_dispatch_on_view_actor_200x60", |b| {
        b.iter(|| black_box(v.find_job(200, "배포")))
    });
    // Its result taken on the view actor (the block heights adopted under the same stamp).
    let found = v.find_job(200, "배포").run();
    c.bench_function("find_100k_admit_on_view_actor_200x60", |b| {
        b.iter(|| black_box(v.adopt_found_heights(&found)))
    });
    // The search itself, on the blocking pool (not the view actor).
    c.bench_function("find_100k_search_off_actor_200x60", |b| {
        b.iter_batched(
            || v.find_job(200, "배포"),
            |job| black_box(job.run()),
            BatchSize::LargeInput,
        )
    });
}

fn memory(_c: &mut Criterion) {
    let before = vm_rss_kib();
    let mut v = view(100_000);
    v.render(200, 60, ScrollPosition::Newest);
    let after_bottom = vm_rss_kib();
    let total = v.total_rows(200);
    v.render(200, 60, ScrollPosition::Back(total / 2));
    let after_measured = vm_rss_kib();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "VmRSS KiB: before={before:?} after_100k_bottom_frame={after_bottom:?} after_full_measure_mid_frame={after_measured:?} total_rows={total}"
    );
    black_box(&v);
}

criterion_group!(benches, memory, frames, find);
criterion_main!(benches);
