//! Board: one 200×60 frame of the post list (100 posts, the page size) and of the read view of
//! a long post (≈ 50 KB of Markdown and 200 comments), both projected and painted into a buffer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{Criterion, criterion_group, criterion_main};
use masc_tui::actors::board::{
    BoardCommand, BoardObservation, BoardPostsRead, BoardQuery, BoardSlot,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::board::{
    BoardComment, BoardPost, BoardPostDetail, BoardPostsPage, CreatedAt, DetailShape,
};
use masc_tui::protocol::client::Admitted;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{confirmed, scope};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn post(i: usize, body: &str) -> BoardPost {
    BoardPost {
        id: format!("post-{i}"),
        author: if i.is_multiple_of(3) {
            "하늘".into()
        } else {
            "rondo".into()
        },
        title: format!("Nightly verification 결과 #{i} 🎉"),
        votes: (i % 40) as i64,
        comment_count: (i % 9) as u64,
        created: CreatedAt {
            iso: Some("2026-11-19T23:00:00Z".into()),
            unix: None,
        },
        body: Some(body.to_string()),
        updated_at: Some(1_795_000_000.0),
        hearth: Some("verification".into()),
        post_kind: None,
        pinned: None,
        score: None,
    }
}

fn deliver(m: &mut Model, slot: BoardSlot, generation: u64, payload: BoardObservation) {
    let ticket = Ticket {
        slot,
        generation,
        scope: scope(1),
    };
    let now = Instant::now();
    m.deliver(
        SlotEvent::<_, BoardObservation>::Dispatched(ticket.clone()),
        now,
    );
    let drained = m.deliver(SlotEvent::Observed(ticket, payload), now);
    assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
}

fn admitted<T>(value: T) -> Admitted<T> {
    Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }
}

fn bench_board(c: &mut Criterion) {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    let posts: Vec<BoardPost> = (0..100).map(|i| post(i, "short")).collect();
    deliver(
        &mut m,
        BoardSlot::Posts,
        1,
        BoardObservation::Posts(Box::new(BoardPostsRead {
            query: BoardQuery::default(),
            result: Ok(admitted(BoardPostsPage {
                count: Some(100),
                limit: Some(100),
                offset: Some(0),
                sort_by: Some("hot".into()),
                posts,
            })),
        })),
    );
    let mut ui = Ui {
        area: Rect::new(0, 0, 200, 60),
        tab: Tab::Board,
        ..Ui::default()
    };
    let ctx = ProjectionCtx::now(Theme::default());
    c.bench_function("board_list_frame_100_posts_200x60", |b| {
        b.iter(|| {
            let mut buf = Buffer::empty(ui.area);
            render(black_box(&m), &ui, &ctx, ui.area, &mut buf);
            buf
        })
    });

    let paragraph = "## 결과\n- fixtures re-recorded, **two** rejects added 👀\n\n```\ncargo test --test final_check\n```\n\n";
    let body = paragraph.repeat(50_000 / paragraph.len());
    let comments: Vec<BoardComment> = (0..200)
        .map(|i: usize| BoardComment {
            id: format!("c-{i}"),
            post_id: Some("post-7".into()),
            parent_id: Some((!i.is_multiple_of(4)).then(|| format!("c-{}", i - 1))),
            author: "sangsu".into(),
            content: "좋네요, 머지합시다. Looks good — *ship it*.".into(),
            created: CreatedAt {
                iso: None,
                unix: Some(1_795_000_000.0 + i as f64),
            },
        })
        .collect();
    m.board.on_command(&BoardCommand::OpenPost {
        post_id: "post-7".into(),
    });
    deliver(
        &mut m,
        BoardSlot::Post("post-7".into()),
        2,
        BoardObservation::Post(Ok(admitted(BoardPostDetail {
            post: post(7, &body),
            comments,
            shape: DetailShape::Flat,
            own_vote: None,
        }))),
    );
    ui.screen_mut::<masc_tui::view::screens::board::BoardUi>()
        .unwrap()
        .open = Some("post-7".into());
    c.bench_function("board_post_frame_50kb_200_comments_200x60", |b| {
        b.iter(|| {
            let mut buf = Buffer::empty(ui.area);
            render(black_box(&m), &ui, &ctx, ui.area, &mut buf);
            buf
        })
    });
}

criterion_group!(benches, bench_board);
criterion_main!(benches);
