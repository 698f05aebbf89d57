#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Activity feed (protocol-15-operator.md §15.2, §15.14; issue 28 item 2) against the
//! embedded server: `initialize` gives a session, the observer stream carries the scripted
//! events in id order; a stream cut mid-way is reconnected with `Last-Event-ID` and nothing is
//! shown twice or lost; a refused session starts again at `initialize`; no token is "needs a
//! token" before anything is sent; each step on the timeline under `activity_feed`.

use crate::actor_support::Rig;
use crate::actor_support::{plan, rig_with};
use masc_tui::actors::activity::{
    ACTIVITY, ActivityCommand, ActivityObservation, ActivitySlot, FeedLink,
};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::protocol::client::{ClientConfig, ObserverOpenError, WorkspaceClient};
use masc_tui::protocol::observer::ObserverEvent;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, ServeOptions, start};

type Event = SlotEvent<ActivitySlot, ActivityObservation>;

/// Activity shown: the feed opens (once the epoch is confirmed).
async fn show(rig: &mut Rig) {
    let _ = crate::save_rig::confirmed_scope(rig).await;
    rig.source_handle(ACTIVITY)
        .await
        .commands::<ActivityCommand>()
        .expect("typed handle")
        .send_message(ActivityCommand::Open)
        .unwrap();
}

/// The ids of the events observed so far, in order.
fn ids(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(_, ActivityObservation::Event(ev)) => match ev.as_ref() {
                ObserverEvent::Row(r) => r.id,
                ObserverEvent::Undecodable { id, .. } => *id,
            },
            _ => None,
        })
        .collect()
}

/// §15.2: a session, then events in id order, each a row MASC's TUI would draw.
#[tokio::test(flavor = "current_thread")]
async fn s15_2_the_feed_opens_a_session_and_streams_events_in_order() {
    let mut rig = rig_with(FaultPlan::default()).await;
    show(&mut rig).await;
    let open = rig
        .view
        .wait_slot(|e: &Event| {
            matches!(
                e,
                SlotEvent::Observed(_, ActivityObservation::Link(FeedLink::Open { .. }))
            )
        })
        .await
        .cloned();
    match open {
        Some(SlotEvent::Observed(
            _,
            ActivityObservation::Link(FeedLink::Open {
                session,
                resumed_after,
            }),
        )) => {
            assert!(session.starts_with("mcp-sess-"), "{session}");
            assert_eq!(resumed_after, None);
        }
        other => panic!("{other:?}"),
    }
    rig.view
        .wait_slot(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, ActivityObservation::Event(ev))
                if matches!(ev.as_ref(), ObserverEvent::Row(r) if r.id == Some(3)))
        })
        .await
        .expect("three events");
    let seen = ids(rig.view.slot_events::<ActivitySlot, ActivityObservation>());
    assert_eq!(&seen[..3], &[1, 2, 3]);
    let traced = rig
        .recorder
        .records_where(|r| r.source == "activity_feed" && r.stage == "observe");
    assert!(
        traced.len() >= 4,
        "open and three events observed: {}",
        traced.len()
    );
    rig.finish().await;
}

/// §15.14 "a stream cut inside a frame" / "duplicate ids after a reconnect": the first stream
/// is cut after two events; the feed says it dropped, reconnects asking `Last-Event-ID: 2`, and
/// the ids continue without a repeat or a hole.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_cut_stream_reconnects_after_the_last_id_without_repeats() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/mcp"},"when":{"nth":1},"fault":{"sse_cut_after":3}}"#,
    ))
    .await;
    show(&mut rig).await;
    rig.view
        .wait_slot(|e: &Event| {
            matches!(
                e,
                SlotEvent::Observed(_, ActivityObservation::Link(FeedLink::Lost { .. }))
            )
        })
        .await
        .expect("the drop is said");
    let resumed = rig
        .view
        .wait_slot(|e: &Event| {
            matches!(
                e,
                SlotEvent::Observed(
                    _,
                    ActivityObservation::Link(FeedLink::Open {
                        resumed_after: Some(_),
                        ..
                    })
                )
            )
        })
        .await
        .cloned();
    let Some(SlotEvent::Observed(
        _,
        ActivityObservation::Link(FeedLink::Open { resumed_after, .. }),
    )) = resumed
    else {
        panic!("no reconnect: {resumed:?}")
    };
    assert_eq!(resumed_after, Some(2), "asked after the last id seen");
    rig.view
        .wait_slot(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, ActivityObservation::Event(ev))
                if matches!(ev.as_ref(), ObserverEvent::Row(r) if r.id >= Some(5)))
        })
        .await
        .expect("events after the reconnect");
    let seen = ids(rig.view.slot_events::<ActivitySlot, ActivityObservation>());
    let expected: Vec<u64> = (1..=seen.len() as u64).collect();
    assert_eq!(seen, expected, "no repeat, no hole");
    assert_eq!(rig.server.request_count("GET", "/mcp"), 2);
    rig.finish().await;
}

/// §15.2: no token is refused before anything is sent; a session the server does not know is
/// refused with a 404 (a fresh `initialize` follows in the feed).
#[tokio::test(flavor = "current_thread")]
async fn s15_2_no_token_and_an_unknown_session_are_typed() {
    let server = start(ServeOptions {
        test_mode: true,
        auth: AuthMode::Token("t".into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let bare = WorkspaceClient::new(ClientConfig::new(server.base_url())).unwrap();
    assert_eq!(bare.mcp_initialize().await, Err(ObserverOpenError::NoToken));
    assert_eq!(server.request_count("POST", "/mcp"), 0, "nothing sent");
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = masc_tui::protocol::client::TokenSource::Fixed("t".into());
    let client = WorkspaceClient::new(cc).unwrap();
    let session = client.mcp_initialize().await.expect("a session");
    assert!(client.observer_stream(&session, None).await.is_ok());
    match client.observer_stream("mcp-sess-unknown", None).await {
        Err(ObserverOpenError::SessionRefused(m)) => assert!(m.contains("unknown session"), "{m}"),
        other => panic!("{other:?}"),
    }
    server.shutdown().await;
}
