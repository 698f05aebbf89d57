#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Board rules E-2, E-5, E-10 and E-15 (sources.md), on the Board's
//! model and its projection without a terminal. Assertions are on typed state first, then on
//! what the screen says.

use crate::rig::{admitted, deliver, dispatch, observe, retire};
use masc_tui::actors::board::{BoardObservation, BoardPostsRead, BoardQuery, BoardSlot};
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::board::{BoardPostsPage, Hearth, HearthCensus};
use masc_tui::protocol::client::ClientError;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::{FailureClass, Fetched};
use masc_tui::view::model::{ConnectionState, Model};
use masc_tui::view::sample;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;
use std::time::Duration;

fn ticket(slot: BoardSlot, generation: u64) -> Ticket<BoardSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn posts_ok() -> BoardObservation {
    BoardObservation::Posts(Box::new(BoardPostsRead {
        query: BoardQuery::default(),
        result: admitted(BoardPostsPage {
            count: Some(0),
            limit: Some(100),
            offset: Some(0),
            sort_by: None,
            posts: Vec::new(),
        }),
    }))
}

fn posts_failed() -> BoardObservation {
    BoardObservation::Posts(Box::new(BoardPostsRead {
        query: BoardQuery::default(),
        result: Err(ClientError::Timeout),
    }))
}

fn census_ok() -> BoardObservation {
    BoardObservation::Census(admitted(HearthCensus {
        hearths: vec![Hearth {
            name: "ops".into(),
            count: 2,
        }],
    }))
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::Board,
        ..Ui::default()
    }
}

fn screen(m: &Model) -> String {
    crate::rig::screen_text(m, &ui())
}

/// E-2: the Board stays pending while any dataset slot remains: the posts arriving first do
/// not end it; the screen names the slot still pending; the census's answer ends it.
#[test]
fn e2_the_board_stays_pending_while_any_slot_remains() {
    let mut m = connected();
    assert!(!m.board.pending());
    dispatch(&mut m, ticket(BoardSlot::Posts, 1));
    dispatch(&mut m, ticket(BoardSlot::Census, 1));
    assert!(m.board.pending());
    assert!(screen(&m).contains("pending: posts, hearths"));
    observe(
        &mut m,
        SlotEvent::Observed(ticket(BoardSlot::Posts, 1), posts_ok()),
    )
    .unwrap();
    assert!(m.board.pending(), "the census still remains");
    let shown = screen(&m);
    assert!(shown.contains("pending: hearths"), "{shown}");
    assert!(!shown.contains("pending: posts"), "{shown}");
    observe(
        &mut m,
        SlotEvent::Observed(ticket(BoardSlot::Census, 1), census_ok()),
    )
    .unwrap();
    assert!(!m.board.pending());
    assert!(!screen(&m).contains("pending"));
}

/// E-5: a census read that owned the slot and ended without a result leaves the census
/// `unavailable` (typed `ended_without_result`, never empty or 0); a read that no longer owns
/// the slot cannot mark the newer one failed; withdrawal clears the census while the posts
/// keep their last value (G-6).
#[test]
fn e5_a_retired_census_read_is_unavailable_and_withdrawal_clears_the_census() {
    let mut m = connected();
    dispatch(&mut m, ticket(BoardSlot::Census, 1));
    retire(&mut m, ticket(BoardSlot::Census, 1));
    assert!(matches!(
        &m.board.census.fetched,
        Fetched::Failed { last: None, error, .. } if error.class == FailureClass::EndedWithoutResult
    ));
    let shown = screen(&m);
    assert!(
        shown.contains("hearths unavailable: read failed (ended_without_result)"),
        "{shown}"
    );
    assert!(!shown.contains("hearths: none"));

    deliver(&mut m, ticket(BoardSlot::Census, 2), census_ok());
    // Generation 3 is superseded by 4; the late retire of 3 does not own the slot.
    dispatch(&mut m, ticket(BoardSlot::Census, 3));
    dispatch(&mut m, ticket(BoardSlot::Census, 4));
    retire(&mut m, ticket(BoardSlot::Census, 3));
    assert!(
        matches!(m.board.census.fetched, Fetched::Refreshing { .. }),
        "{:?}",
        m.board.census.fetched
    );
    assert!(m.board.census.in_flight());
    deliver(&mut m, ticket(BoardSlot::Posts, 1), posts_ok());

    m.on_identity(IdentityState::Unconfirmed {
        reason: "health unreadable".into(),
    });
    assert!(matches!(m.board.census.fetched, Fetched::NotRequested));
    assert!(!m.board.census.in_flight());
    assert!(matches!(m.board.posts.fetched, Fetched::Ready(_)));
    // The withdrawn read's late answer is never applied to the cleared census.
    let late = observe(
        &mut m,
        SlotEvent::Observed(ticket(BoardSlot::Census, 4), census_ok()),
    );
    assert_eq!(late, Err(RejectReason::Withdrawn));
    assert!(matches!(m.board.census.fetched, Fetched::NotRequested));
    assert!(screen(&m).contains("hearths: not read yet"));
}

/// E-10: the same error is not re-published: a second identical failure leaves the very same
/// slot state (nothing new to tell), the screen draws it once, and no notice is raised.
#[test]
fn e10_the_same_error_is_not_republished() {
    let mut m = connected();
    dispatch(&mut m, ticket(BoardSlot::Posts, 1));
    observe(
        &mut m,
        SlotEvent::Observed(ticket(BoardSlot::Posts, 1), posts_failed()),
    )
    .unwrap();
    let first = m.board.posts.fetched.clone();
    let once = screen(&m);
    dispatch(&mut m, ticket(BoardSlot::Posts, 2));
    observe(
        &mut m,
        SlotEvent::Observed(ticket(BoardSlot::Posts, 2), posts_failed()),
    )
    .unwrap();
    assert_eq!(
        m.board.posts.fetched, first,
        "the same failure, the same state"
    );
    let twice = screen(&m);
    assert_eq!(twice, once);
    assert_eq!(
        twice.matches("posts: read failed (timeout)").count(),
        1,
        "{twice}"
    );
}

/// E-15: a read with only its start record stays unfinished: an hour later it is still
/// reading and pending — no timer turns it into a failure, the header is not degraded.
#[test]
fn e15_a_read_with_only_a_start_record_stays_unfinished() {
    let mut m = connected();
    dispatch(&mut m, ticket(BoardSlot::Posts, 1));
    let mut ctx =
        masc_tui::view::screens::ProjectionCtx::now(masc_tui::view::theme::Theme::plain());
    ctx.now += Duration::from_secs(3_600);
    ctx.now_unix += 3_600.0;
    let ui = ui();
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 30)).unwrap();
    t.draw(|f| masc_tui::view::screens::render(&m, &ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    let later = masc_tui::view::sample::buffer_text(t.backend().buffer());
    assert!(matches!(m.board.posts.fetched, Fetched::Loading));
    assert!(m.board.pending());
    assert!(later.contains("posts: reading…"), "{later}");
    assert!(later.contains("pending: posts"), "{later}");
    assert!(!later.contains("failed"), "{later}");
    assert_eq!(m.connection(), ConnectionState::Connected, "not degraded");
}
