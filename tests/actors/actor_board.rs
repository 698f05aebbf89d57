#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Board source against the embedded server with fault plans (protocol.md §8; sources.md
//! E-1, E-8, E-11, E-14, G-3, G-7). Assertions are on typed payloads, tickets and the stage
//! trace. Synchronisation is by view messages and stage records only.

use crate::actor_support::{Rig, plan, rig_with};
use masc_tui::actors::board::{
    BOARD, BoardCommand, BoardObservation, BoardQuery, BoardSlot, BoardSort,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::protocol::client::ClientError;
use ractor::DerivedActorRef;

type Event = SlotEvent<BoardSlot, BoardObservation>;

/// The Board source's typed command handle.
async fn board(rig: &mut Rig) -> DerivedActorRef<BoardCommand> {
    rig.source_handle(BOARD)
        .await
        .commands::<BoardCommand>()
        .expect("the Board source takes Board commands")
}

async fn dispatched(rig: &mut Rig, key: &BoardSlot) -> Ticket<BoardSlot> {
    rig.dispatched_of::<BoardSlot, BoardObservation>(key).await
}

/// E-1, P-1: posts and census are separate slots of one source: a failed census is a typed
/// failure of its own slot, and the posts are admitted beside it with their own ticket.
#[tokio::test]
async fn e1_a_failed_census_fails_only_its_own_slot() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/board/hearths"},"when":{"every":true},"fault":{"status":500}}"#,
    ))
    .await;
    let census = rig
        .observed_of::<_, BoardObservation>(&BoardSlot::Census)
        .await;
    let posts = rig
        .observed_of::<_, BoardObservation>(&BoardSlot::Posts)
        .await;
    assert!(
        matches!(
            census.payload,
            BoardObservation::Census(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        census.payload
    );
    let BoardObservation::Posts(read) = &posts.payload else {
        panic!("{:?}", posts.payload);
    };
    let page = read.result.as_ref().expect("posts admitted");
    assert!(!page.value.posts.is_empty());
    assert_eq!(
        read.query,
        BoardQuery::default(),
        "the query fixed at dispatch"
    );
    assert_ne!(census.ticket.slot, posts.ticket.slot);
    let outcome = |source: &str| {
        rig.recorder
            .records_where(|r| r.source == source && r.stage == "worker_return")
            .first()
            .and_then(|r| r.outcome.clone())
    };
    assert_eq!(outcome("hearth_census").as_deref(), Some("status_500"));
    assert_eq!(outcome("board_posts").as_deref(), Some("ok"));
    rig.finish().await;
}

/// E-11, E-14, G-3: a query change while a posts read is in flight supersedes it (cancelled,
/// retired, never observed); the new read carries the new query in its payload and asked the
/// server for it. The census is not re-read by a query change.
#[tokio::test]
async fn e11_a_query_change_supersedes_the_read_in_flight_and_carries_its_query() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/board","query":"sort_by=hot"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let source = board(&mut rig).await;
    let slow = dispatched(&mut rig, &BoardSlot::Posts).await;
    // The census of this epoch has been read (it does not wait for the posts).
    rig.observed_of::<_, BoardObservation>(&BoardSlot::Census)
        .await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.source == "board_posts")
        .await
        .unwrap();
    let census_reads = rig.server.request_count("GET", "/api/v1/board/hearths");
    let recent = BoardQuery {
        sort: BoardSort::Recent,
        hearth: Some("ops".into()),
    };
    source
        .send_message(BoardCommand::SetQuery(recent.clone()))
        .unwrap();
    let fresh = dispatched(&mut rig, &BoardSlot::Posts).await;
    assert!(fresh.generation > slow.generation);
    let obs = rig
        .observed_of::<_, BoardObservation>(&BoardSlot::Posts)
        .await;
    assert_eq!(obs.ticket, fresh, "only the superseding read is observed");
    let BoardObservation::Posts(read) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    assert_eq!(read.query, recent);
    let page = read.result.as_ref().expect("admitted");
    assert_eq!(page.value.sort_by.as_deref(), Some("recent"));
    assert!(!page.value.posts.is_empty(), "the seed has ops posts");
    assert!(
        page.value
            .posts
            .iter()
            .all(|p| p.hearth.as_deref() == Some("ops")),
        "the server answered the planned hearth"
    );
    assert!(
        rig.view
            .slot_events::<BoardSlot, BoardObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Retired(t) if t == &slow))
    );
    let old: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "board_posts" && r.generation == Some(slow.generation))
        .into_iter()
        .map(|r| r.stage)
        .collect();
    assert!(old.contains(&"cancel_requested".to_string()), "{old:?}");
    assert!(!old.contains(&"observe".to_string()), "{old:?}");
    assert_eq!(
        rig.server.request_count("GET", "/api/v1/board/hearths"),
        census_reads,
        "the census does not depend on the query"
    );
    rig.finish().await;
}

/// E-8, §8.2: a post's detail is its own read, decoded with the id echo checked; a failed
/// detail is a typed failure of that read only (the list is not read again for it).
#[tokio::test]
async fn e8_the_post_detail_is_its_own_read() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/board/post-1002"},"when":{"every":true},"fault":{"status":500,"body":{"error":"store locked"}}}"#,
    ))
    .await;
    let source = board(&mut rig).await;
    rig.observed_of::<_, BoardObservation>(&BoardSlot::Posts)
        .await;
    let list_reads = rig.server.request_count("GET", "/api/v1/board");
    source
        .send_message(BoardCommand::OpenPost {
            post_id: "post-1001".into(),
        })
        .unwrap();
    let key = BoardSlot::Post("post-1001".into());
    let ok = rig.observed_of::<_, BoardObservation>(&key).await;
    let BoardObservation::Post(Ok(detail)) = &ok.payload else {
        panic!("{:?}", ok.payload);
    };
    assert_eq!(detail.value.post.id, "post-1001");
    source
        .send_message(BoardCommand::OpenPost {
            post_id: "post-1002".into(),
        })
        .unwrap();
    let key2 = BoardSlot::Post("post-1002".into());
    let failed = rig.observed_of::<_, BoardObservation>(&key2).await;
    assert!(
        matches!(
            failed.payload,
            BoardObservation::Post(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        failed.payload
    );
    assert_eq!(
        rig.server.request_count("GET", "/api/v1/board"),
        list_reads,
        "opening posts does not re-read the list"
    );
    rig.finish().await;
}

/// G-7: a post closed while its detail is in flight: the read is cancelled and retired, and
/// its result never reaches the view.
#[tokio::test]
async fn g7_closing_a_post_retires_its_read() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/board/post-1003"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let source = board(&mut rig).await;
    let key = BoardSlot::Post("post-1003".into());
    source
        .send_message(BoardCommand::OpenPost {
            post_id: "post-1003".into(),
        })
        .unwrap();
    let ticket = dispatched(&mut rig, &key).await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.source == "board_post")
        .await
        .unwrap();
    source.send_message(BoardCommand::ClosePost).unwrap();
    let retired = rig
        .view
        .wait_slot(|e: &Event| matches!(e, SlotEvent::Retired(t) if *t == ticket))
        .await;
    assert!(retired.is_some());
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "board_post" && r.generation == Some(ticket.generation))
        .into_iter()
        .map(|r| r.stage)
        .collect();
    assert!(stages.contains(&"retire".to_string()), "{stages:?}");
    assert!(!stages.contains(&"observe".to_string()), "{stages:?}");
    assert!(
        !rig.view
            .slot_events::<BoardSlot, BoardObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Observed(t, _) if t == &ticket))
    );
    rig.finish().await;
}
