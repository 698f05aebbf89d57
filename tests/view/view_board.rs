#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Board's model and projection without a terminal (`TestBackend`): census states (E-3,
//! E-4), posts kept with their query (E-11, E-12), selection by identity (E-9), a detail result
//! touching only its post (E-8), and failures that never read as empty or 0 (G-4, G-5).
//! Assertions are on typed state first, on the absence of invented values second.

use crate::rig::ScreensOf;
use crate::rig::{deliver, dispatch, observe};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::board::{
    BoardCommand, BoardObservation, BoardPostsRead, BoardQuery, BoardSlot, BoardSort,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::board::{
    BoardPost, BoardPostDetail, BoardPostsPage, CreatedAt, DetailShape, Hearth, HearthCensus,
};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::view::fetched::Fetched;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

pub fn ticket(slot: BoardSlot, generation: u64) -> Ticket<BoardSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

pub fn admitted<T>(value: T) -> Admitted<T> {
    Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }
}

pub fn post(id: &str, title: &str) -> BoardPost {
    BoardPost {
        id: id.into(),
        author: "rondo".into(),
        title: title.into(),
        votes: 3,
        comment_count: 1,
        created: CreatedAt {
            iso: Some("2026-11-19T23:00:00Z".into()),
            unix: None,
        },
        body: Some("All green.".into()),
        updated_at: Some(1_795_000_000.0),
        hearth: Some("ops".into()),
        post_kind: None,
        pinned: None,
        score: None,
    }
}

fn page(posts: Vec<BoardPost>, sort: BoardSort) -> BoardPostsPage {
    BoardPostsPage {
        count: Some(posts.len() as u64),
        limit: Some(100),
        offset: Some(0),
        sort_by: Some(sort.as_str().into()),
        posts,
    }
}

pub fn census(items: &[(&str, u64)]) -> HearthCensus {
    HearthCensus {
        hearths: items
            .iter()
            .map(|(n, c)| Hearth {
                name: (*n).into(),
                count: *c,
            })
            .collect(),
    }
}

pub fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

pub fn posts_read(query: BoardQuery, posts: Vec<BoardPost>) -> BoardObservation {
    let sort = query.sort;
    BoardObservation::Posts(Box::new(BoardPostsRead {
        query,
        result: Ok(admitted(page(posts, sort))),
    }))
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::Board,
        ..Ui::default()
    }
}

fn paint(model: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn census_row(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("hearths"))
        .unwrap_or_default()
        .to_string()
}

/// E-3, E-4, G-5: the five census states read differently; totals only when received with
/// nothing pending; a failed census never reads as 0 or as "none".
#[test]
fn e3_e4_census_states_and_totals_only_when_settled() {
    let ui = ui();
    let mut m = connected();
    let unread = census_row(&paint(&m, &ui));
    dispatch(&mut m, ticket(BoardSlot::Census, 1));
    let loading = census_row(&paint(&m, &ui));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(BoardSlot::Census, 1),
            BoardObservation::Census(Ok(admitted(census(&[("verification", 10), ("ops", 5)])))),
        ),
    )
    .unwrap();
    assert!(m.board.census_settled());
    let received = census_row(&paint(&m, &ui));
    assert!(received.contains("2, 15 posts"), "{received}");
    dispatch(&mut m, ticket(BoardSlot::Census, 2));
    assert!(!m.board.census_settled());
    let pending = census_row(&paint(&m, &ui));
    assert!(pending.contains("last observation") && !pending.contains("15 posts"));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(BoardSlot::Census, 2),
            BoardObservation::Census(Err(ClientError::Timeout)),
        ),
    )
    .unwrap();
    let failed_with_last = census_row(&paint(&m, &ui));
    assert!(failed_with_last.contains("read failed: timeout"));
    assert!(
        failed_with_last.contains("verification 10"),
        "last value kept"
    );
    let mut none = connected();
    deliver(
        &mut none,
        ticket(BoardSlot::Census, 1),
        BoardObservation::Census(Err(ClientError::Status {
            status: 500,
            body: String::new(),
        })),
    );
    let failed_none = census_row(&paint(&none, &ui));
    assert!(failed_none.contains("unavailable") && failed_none.contains("status_500"));
    let mut empty = connected();
    deliver(
        &mut empty,
        ticket(BoardSlot::Census, 1),
        BoardObservation::Census(Ok(admitted(census(&[])))),
    );
    let normal_empty = census_row(&paint(&empty, &ui));
    let all = [
        &unread,
        &loading,
        &received,
        &pending,
        &failed_with_last,
        &failed_none,
        &normal_empty,
    ];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(!failed_none.contains(" 0") && !failed_none.contains("none"));
}

/// E-11, E-12, E-13: posts keep the query they were read with; when the controls moved on,
/// the list says "last observation" and names both queries; it is never relabelled.
#[test]
fn e12_kept_posts_are_never_relabelled_with_the_current_controls() {
    let mut ui = ui();
    let mut m = connected();
    deliver(
        &mut m,
        ticket(BoardSlot::Posts, 1),
        posts_read(BoardQuery::default(), vec![post("post-1", "Nightly")]),
    );
    let settled = paint(&m, &ui);
    assert!(settled.contains("order hot") && !settled.contains("last observation"));
    // `s`: the controls change at once; the kept list still says what it was read with.
    let cmd = handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE),
    );
    assert_eq!(
        cmd,
        UiCommand::send(BoardCommand::SetQuery(BoardQuery {
            sort: BoardSort::Trending,
            hearth: None,
        }))
    );
    let asked = paint(&m, &ui);
    assert!(
        asked.contains("order hot · hearth all · 1 posts"),
        "{asked}"
    );
    assert!(asked.contains("last observation; asked: order trending"));
    let stored = &m.board.posts.fetched.last().unwrap().value.query;
    assert_eq!(stored.sort, BoardSort::Hot);
}

/// E-9: a new list keeps the selection by identity, wherever the post moved.
#[test]
fn e9_selection_follows_the_post_not_the_row() {
    let mut ui = ui();
    let mut m = connected();
    deliver(
        &mut m,
        ticket(BoardSlot::Posts, 1),
        posts_read(
            BoardQuery::default(),
            vec![
                post("post-1", "a"),
                post("post-2", "b"),
                post("post-3", "c"),
            ],
        ),
    );
    handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
    );
    assert_eq!(ui.board().selected.as_deref(), Some("post-2"));
    deliver(
        &mut m,
        ticket(BoardSlot::Posts, 2),
        posts_read(
            BoardQuery::default(),
            vec![
                post("post-3", "c"),
                post("post-1", "a"),
                post("post-2", "b"),
            ],
        ),
    );
    let text = paint(&m, &ui);
    let marked = text.lines().find(|l| l.contains('▸')).unwrap();
    assert!(marked.contains("post-2"), "{marked}");
    // Enter opens the selected post by identity.
    let cmd = handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
    );
    assert_eq!(
        cmd,
        UiCommand::send(BoardCommand::OpenPost {
            post_id: "post-2".into()
        })
    );
}

/// E-8: a detail result updates only its post's slot, never the list, its failure or its
/// order; a detail for a post that is not open is rejected.
#[test]
fn e8_a_detail_touches_only_its_post() {
    let mut m = connected();
    deliver(
        &mut m,
        ticket(BoardSlot::Posts, 1),
        posts_read(BoardQuery::default(), vec![post("post-1", "a")]),
    );
    dispatch(&mut m, ticket(BoardSlot::Posts, 2));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(BoardSlot::Posts, 2),
            BoardObservation::Posts(Box::new(BoardPostsRead {
                query: BoardQuery::default(),
                result: Err(ClientError::Timeout),
            })),
        ),
    )
    .unwrap();
    let list_before = format!("{:?}", m.board.posts.fetched);
    m.board.on_command(&BoardCommand::OpenPost {
        post_id: "post-1".into(),
    });
    let mut detailed = post("post-1", "a — edited");
    detailed.votes = 99;
    deliver(
        &mut m,
        ticket(BoardSlot::Post("post-1".into()), 3),
        BoardObservation::Post(Ok(admitted(BoardPostDetail {
            post: detailed,
            comments: Vec::new(),
            shape: DetailShape::Flat,
            own_vote: None,
        }))),
    );
    assert_eq!(format!("{:?}", m.board.posts.fetched), list_before);
    assert!(matches!(m.board.posts.fetched, Fetched::Failed { .. }));
    let open = m.board.post.as_ref().unwrap();
    assert_eq!(open.detail.fetched.last().unwrap().value.post.votes, 99);
    // Another post's detail never fits.
    let other = ticket(BoardSlot::Post("post-9".into()), 4);
    dispatch(&mut m, other.clone());
    assert!(
        observe(
            &mut m,
            SlotEvent::Observed(other, BoardObservation::Post(Err(ClientError::Timeout)))
        )
        .is_err()
    );
    assert_eq!(
        m.board
            .post
            .as_ref()
            .unwrap()
            .detail
            .fetched
            .last()
            .unwrap()
            .value
            .post
            .votes,
        99
    );
}

/// G-4, G-5 for the posts: a failure with no value is a failure (never "no posts"); a failed
/// re-read keeps the last list beside the failure.
#[test]
fn g5_posts_failures_never_read_as_an_empty_board() {
    let ui = ui();
    let mut m = connected();
    deliver(
        &mut m,
        ticket(BoardSlot::Posts, 1),
        BoardObservation::Posts(Box::new(BoardPostsRead {
            query: BoardQuery::default(),
            result: Err(ClientError::Status {
                status: 500,
                body: String::new(),
            }),
        })),
    );
    let text = paint(&m, &ui);
    assert!(text.contains("posts: read failed (status_500)"), "{text}");
    assert!(!text.contains("no posts"));
    let mut empty = connected();
    deliver(
        &mut empty,
        ticket(BoardSlot::Posts, 1),
        posts_read(BoardQuery::default(), Vec::new()),
    );
    assert!(paint(&empty, &ui).contains("no posts for order hot"));
}
