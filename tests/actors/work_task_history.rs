#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Task history ownership against the embedded server with fault plans (protocol.md §5.3;
//! sources.md A-1…A-5, A-8, A-9, A-11). Each test asserts the typed payload, the view model's
//! state and the traced stages.

use crate::work_rig::*;
use masc_tui::actors::contract::DemandKind;
use masc_tui::actors::work::{ChainNext, OlderPages, WorkCommand};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::fetched::Fetched;
use masc_tui::view::work::detail::OlderProgress;

fn decode_kind(e: &ClientError) -> DecodeErrorKind {
    match e {
        ClientError::Decode(d) => d.kind,
        other => panic!("not a decode failure: {other:?}"),
    }
}

#[tokio::test]
async fn a1_a2_a8_pages_append_to_the_prefix_with_the_known_cursor() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 50).await;
    let first = rig.observed_ticket(&h1).await;
    let read = history_read(&first);
    // A-8: the page demand is the one the view derived from its height.
    assert_eq!(read.request.limit, 50);
    assert_eq!(read.request.cursor, None);
    let chain = history_chain(&first);
    assert_eq!(chain.len(), 50);
    let ChainNext::Older { cursor } = chain.next.clone() else {
        panic!("task-1013 has 400 events: more pages");
    };
    rig.command(WorkCommand::OlderHistory { page_rows: 50 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    assert!(h2.generation > h1.generation);
    let second = rig.observed_ticket(&h2).await;
    // A-2: `H` used exactly the cursor the previous page returned.
    assert_eq!(
        history_read(&second).request.cursor.as_deref(),
        Some(cursor.as_str())
    );
    // A-1: appended to the captured prefix, which itself is unchanged.
    assert_eq!(history_read(&second).base.len(), 50);
    let chain2 = history_chain(&second);
    assert_eq!(chain2.len(), 100);
    assert_eq!(chain2.prefix_id, chain.prefix_id);
    assert!(chain2.rows().all(|r| r.task_id == LONG));
    // The view shows the longer prefix.
    assert_eq!(shown_chain(rig.task()).unwrap().len(), 100);
    assert_eq!(
        rig.stage_names(&h2),
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "unregistered",
            "admit"
        ]
    );
    assert_eq!(
        rig.requests(LEGACY),
        0,
        "A-3: the legacy array is never read"
    );
    rig.finish().await;
}

#[tokio::test]
async fn a3_page_2_fails_then_h_retries_with_the_same_cursor() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"status":500,"body":{"error":"store"}}}"#),
        Sources::Detail,
    )
    .await;
    let (_, h1) = rig.open_task(LONG, 40).await;
    let first = rig.observed_ticket(&h1).await;
    let ChainNext::Older { cursor } = history_chain(&first).next.clone() else {
        panic!("more pages");
    };
    rig.command(WorkCommand::OlderHistory { page_rows: 40 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let failed = rig.observed_ticket(&h2).await;
    assert!(matches!(
        history_error(&failed),
        ClientError::Status { status: 500, .. }
    ));
    assert_eq!(
        history_read(&failed).request.cursor.as_deref(),
        Some(cursor.as_str())
    );
    // A-3: the earlier rows stay beside the failure, with the retry cursor.
    let t = rig.task();
    match &t.history.fetched {
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            assert_eq!(o.value.len(), 40);
            assert_eq!(error.class.to_string(), "status_500");
        }
        other => panic!("{other:?}"),
    }
    let outcome = t.last_page.as_ref().unwrap();
    assert_eq!(outcome.request.cursor.as_deref(), Some(cursor.as_str()));
    assert!(!outcome.fresh);
    assert_eq!(
        rig.stages_of(&h2)
            .iter()
            .find(|r| r.stage == "worker_return")
            .and_then(|r| r.outcome.clone())
            .as_deref(),
        Some("status_500")
    );
    // H again: the same cursor, and this time the page is appended.
    rig.command(WorkCommand::OlderHistory { page_rows: 40 })
        .await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let retried = rig.observed_ticket(&h3).await;
    assert_eq!(
        history_read(&retried).request.cursor.as_deref(),
        Some(cursor.as_str())
    );
    assert_eq!(history_chain(&retried).len(), 80);
    assert!(matches!(rig.task().history.fetched, Fetched::Ready(ref o) if o.value.len() == 80));
    assert_eq!(
        rig.requests(LEGACY),
        0,
        "A-3: never a silent legacy fallback"
    );
    rig.finish().await;
}

#[tokio::test]
async fn a9_a_page_with_rows_of_another_task_is_rejected_and_earlier_rows_stay() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 30).await;
    let first = rig.observed_ticket(&h1).await;
    let ChainNext::Older { cursor } = history_chain(&first).next.clone() else {
        panic!("more pages");
    };
    // The next page echoes the request correctly but carries a row of another task.
    let body = serde_json::json!({
        "schema": "masc.task_history_page.v1",
        "task_id": LONG,
        "cursor": cursor,
        "next_cursor": null,
        "has_more": false,
        "rows": [
            {"ts": "2026-10-08T10:00:00Z", "task_id": LONG, "action": "note"},
            {"ts": "2026-10-08T09:00:00Z", "task_id": "task-1014", "action": "note"}
        ]
    });
    rig.server.set_faults(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{PAGE}"}},"fault":{{"status":200,"body":{body}}}}}"#
    )));
    rig.command(WorkCommand::OlderHistory { page_rows: 30 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let rejected = rig.observed_ticket(&h2).await;
    let err = history_error(&rejected);
    assert_eq!(decode_kind(&err), DecodeErrorKind::IdentityMismatch);
    match &rig.task().history.fetched {
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            assert_eq!(o.value.len(), 30, "the earlier rows stay");
            assert!(o.value.rows().all(|r| r.task_id == LONG));
            assert_eq!(error.class.to_string(), "decode_identity_mismatch");
        }
        other => panic!("{other:?}"),
    }
    // The prefix did not move: H asks for the same cursor again.
    rig.server.set_faults(FaultPlan::none());
    rig.command(WorkCommand::OlderHistory { page_rows: 30 })
        .await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let again = rig.observed_ticket(&h3).await;
    assert_eq!(
        history_read(&again).request.cursor.as_deref(),
        Some(cursor.as_str())
    );
    assert_eq!(history_chain(&again).len(), 60);
    rig.finish().await;
}

#[tokio::test]
async fn a1_a_repeating_cursor_stops_with_a_typed_error_not_a_loop() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"repeat_cursor":true}}"#),
        Sources::Detail,
    )
    .await;
    let (_, h1) = rig.open_task(LONG, 25).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::OlderHistory { page_rows: 25 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let looped = rig.observed_ticket(&h2).await;
    assert_eq!(
        decode_kind(&history_error(&looped)),
        DecodeErrorKind::RepeatingCursor
    );
    let requests_after = rig.requests(PAGE);
    assert_eq!(requests_after, 2, "no automatic follow-up read");
    // Another demand (the cadence) does not read on either: the chain stopped.
    rig.demand(DemandKind::Cadence).await;
    rig.dispatched(&body_key(LONG)).await;
    rig.observed(&body_key(LONG)).await;
    assert_eq!(rig.requests(PAGE), requests_after);
    match &rig.task().history.fetched {
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            assert_eq!(o.value.len(), 25);
            assert_eq!(error.class.to_string(), "decode_repeating_cursor");
        }
        other => panic!("{other:?}"),
    }
    rig.finish().await;
}

#[tokio::test]
async fn a2_r_during_an_in_flight_page_supersedes_it_and_its_late_page_is_rejected() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"delay_ms":2000}}"#),
        Sources::Detail,
    )
    .await;
    let (_, h1) = rig.open_task(LONG, 20).await;
    let first = rig.observed_ticket(&h1).await;
    let old_prefix = history_chain(&first).prefix_id;
    rig.command(WorkCommand::OlderHistory { page_rows: 20 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    rig.recorder
        .wait_for(|r| {
            r.stage == "worker_enter"
                && r.source == "task_history"
                && r.generation == Some(h2.generation)
        })
        .await
        .unwrap();
    rig.command(WorkCommand::RefreshTask { page_rows: 20 })
        .await;
    rig.retired(&h2).await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let fresh = rig.observed_ticket(&h3).await;
    let read = history_read(&fresh);
    assert_eq!(read.request.cursor, None, "r reads a fresh prefix");
    let chain = history_chain(&fresh);
    assert_ne!(chain.prefix_id, old_prefix);
    assert_eq!(chain.len(), 20);
    // The superseded page never reaches the view; its stages say why.
    assert!(!rig.any_observed(|t| *t == h2));
    let names = rig.stage_names(&h2);
    assert!(names.contains(&"cancel_requested".to_string()), "{names:?}");
    let retire = rig
        .stages_of(&h2)
        .into_iter()
        .find(|r| r.stage == "retire")
        .unwrap();
    assert_eq!(retire.reason.as_deref(), Some("superseded"));
    // The view shows the fresh prefix, and H continues it (not the old one).
    assert_eq!(shown_chain(rig.task()).unwrap().prefix_id, chain.prefix_id);
    rig.finish().await;
}

#[tokio::test]
async fn a2_the_periodic_poll_never_resets_the_prefix_being_read() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (b1, h1) = rig.open_task(LONG, 30).await;
    rig.observed_ticket(&b1).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::OlderHistory { page_rows: 30 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let two = rig.observed_ticket(&h2).await;
    let ChainNext::Older { cursor } = history_chain(&two).next.clone() else {
        panic!("more pages");
    };
    let pages_before = rig.requests(PAGE);
    rig.demand(DemandKind::Cadence).await;
    let b2 = rig.dispatched(&body_key(LONG)).await;
    assert!(b2.generation > b1.generation);
    rig.observed_ticket(&b2).await;
    assert_eq!(
        rig.requests(PAGE),
        pages_before,
        "the poll reads no history page"
    );
    assert_eq!(shown_chain(rig.task()).unwrap().len(), 60);
    // H continues where the prefix was.
    rig.command(WorkCommand::OlderHistory { page_rows: 30 })
        .await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let three = rig.observed_ticket(&h3).await;
    assert_eq!(
        history_read(&three).request.cursor.as_deref(),
        Some(cursor.as_str())
    );
    assert_eq!(history_chain(&three).len(), 90);
    rig.finish().await;
}

#[tokio::test]
async fn a4_cursor_exhaustion_is_the_end_of_stored_history_and_h_reads_nothing_more() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 200).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::OlderHistory { page_rows: 200 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let last = rig.observed_ticket(&h2).await;
    let chain = history_chain(&last);
    assert_eq!(chain.len(), 400);
    assert_eq!(chain.next, ChainNext::EndOfStoredHistory);
    let pages = rig.requests(PAGE);
    rig.command(WorkCommand::OlderHistory { page_rows: 200 })
        .await;
    // A deterministic barrier: a cadence body read after the H command.
    rig.demand(DemandKind::Cadence).await;
    let b = rig.dispatched(&body_key(LONG)).await;
    rig.observed_ticket(&b).await;
    assert_eq!(rig.requests(PAGE), pages, "nothing older to read");
    rig.finish().await;
}

#[tokio::test]
async fn a4_a_task_without_history_is_a_normal_empty_end() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(EMPTY, 30).await;
    let obs = rig.observed_ticket(&h1).await;
    let chain = history_chain(&obs);
    assert!(chain.is_empty());
    assert_eq!(chain.next, ChainNext::EndOfStoredHistory);
    assert!(matches!(rig.task().history.fetched, Fetched::Ready(ref o) if o.value.is_empty()));
    rig.finish().await;
}

#[tokio::test]
async fn a5_cursor_invalidated_mid_chain_is_a_failure_never_the_end() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 50).await;
    rig.observed_ticket(&h1).await;
    // The event file is replaced: older cursors answer 409 cursor_invalidated.
    let http = reqwest::Client::new();
    let replaced = http
        .post(format!(
            "{}/__admin/tasks/event-log?task_id={LONG}",
            rig.server.base_url()
        ))
        .bearer_auth(TOKEN)
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    assert!(replaced.status().is_success());
    rig.command(WorkCommand::OlderHistory { page_rows: 50 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let failed = rig.observed_ticket(&h2).await;
    assert!(matches!(
        history_error(&failed),
        ClientError::Status { status: 409, .. }
    ));
    let shown = shown_chain(rig.task()).unwrap();
    assert_eq!(shown.len(), 50, "rows kept");
    assert!(matches!(shown.next, ChainNext::Older { .. }), "not the end");
    assert!(matches!(
        rig.task().history.fetched,
        Fetched::Failed { ref error, .. } if error.class.to_string() == "status_409"
    ));
    // r starts a fresh prefix over the replaced file.
    rig.command(WorkCommand::RefreshTask { page_rows: 50 })
        .await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let fresh = rig.observed_ticket(&h3).await;
    assert_eq!(history_chain(&fresh).len(), 50);
    assert_ne!(history_chain(&fresh).prefix_id, shown.prefix_id);
    rig.finish().await;
}

#[tokio::test]
async fn a11_an_initial_failure_retry_stays_failed_with_its_cause_while_in_flight() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":1},"fault":{"status":503,"body":{"error":"not initialized"}}},
                {"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"status":500,"body":{"error":"store"}}}"#),
        Sources::Detail,
    )
    .await;
    let (_, h1) = rig.open_task(LONG, 10).await;
    let first = rig.observed_ticket(&h1).await;
    // The warming body (§1.4) is the warming class; the second reply is a plain failure.
    assert_eq!(history_error(&first), ClientError::Warming);
    assert!(matches!(
        rig.task().history.fetched,
        Fetched::Warming { last: None }
    ));
    rig.command(WorkCommand::OlderHistory { page_rows: 10 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let second = rig.observed_ticket(&h2).await;
    assert_eq!(
        history_read(&second).request.cursor,
        None,
        "retry of the newest page"
    );
    assert!(matches!(
        rig.task().history.fetched,
        Fetched::Failed { last: None, ref error, retrying: false } if error.class.to_string() == "status_500"
    ));
    // The retry: still Failed with the known cause, marked in flight; never empty.
    rig.command(WorkCommand::OlderHistory { page_rows: 10 })
        .await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    assert!(matches!(
        rig.task().history.fetched,
        Fetched::Failed { last: None, ref error, retrying: true } if error.class.to_string() == "status_500"
    ));
    rig.observed_ticket(&h3).await;
    assert!(matches!(rig.task().history.fetched, Fetched::Ready(ref o) if o.value.len() == 10));
    rig.finish().await;
}

/// `12H` in the view: a counted run reads that many older pages one after another, each with
/// the cursor the previous page returned (A-1, A-2), and then stops; the view model's
/// progress says how many are read.
#[tokio::test]
async fn a2_a_counted_run_reads_that_many_older_pages_then_stops() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 50).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::ReadOlder {
        page_rows: 50,
        pages: OlderPages::Count(3),
    })
    .await;
    let mut cursor = None;
    for n in 2..=4 {
        let h = rig.dispatched(&history_key(LONG)).await;
        let page = rig.observed_ticket(&h).await;
        let read = history_read(&page);
        if let Some(previous) = cursor.take() {
            assert_eq!(read.request.cursor, Some(previous), "page {n}");
        }
        assert_eq!(history_chain(&page).len(), 50 * n, "page {n}");
        if let ChainNext::Older { cursor: next } = history_chain(&page).next.clone() {
            cursor = Some(next);
        }
    }
    assert_eq!(rig.task().older_progress(), Some(OlderProgress::Done));
    // A deterministic barrier: a cadence body read after the run.
    let pages = rig.requests(PAGE);
    rig.demand(DemandKind::Cadence).await;
    let b = rig.dispatched(&body_key(LONG)).await;
    rig.observed_ticket(&b).await;
    assert_eq!(rig.requests(PAGE), pages, "three pages, no fourth");
    assert_eq!(shown_chain(rig.task()).unwrap().len(), 200);
    rig.finish().await;
}

/// `End` in the view: the run reads every page to the end of stored history (A-4), with
/// progress on the way; a failed page stops the run and keeps its retry cursor (A-3).
#[tokio::test]
async fn a3_a4_a_run_to_the_oldest_reads_every_page_and_a_failure_stops_it() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (_, h1) = rig.open_task(LONG, 50).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::ReadOlder {
        page_rows: 50,
        pages: OlderPages::ToOldest,
    })
    .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    rig.observed_ticket(&h2).await;
    assert_eq!(
        rig.task().older_progress(),
        Some(OlderProgress::Reading { read: 1, of: None })
    );
    for _ in 3..=8 {
        let h = rig.dispatched(&history_key(LONG)).await;
        rig.observed_ticket(&h).await;
    }
    let chain = shown_chain(rig.task()).unwrap();
    assert_eq!(chain.len(), 400, "every stored event");
    assert_eq!(chain.next, ChainNext::EndOfStoredHistory);
    assert_eq!(rig.task().older_progress(), Some(OlderProgress::Done));
    rig.finish().await;

    let mut rig = rig_fails_at(3).await;
    let (_, h1) = rig.open_task(LONG, 50).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::ReadOlder {
        page_rows: 50,
        pages: OlderPages::ToOldest,
    })
    .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    rig.observed_ticket(&h2).await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    let failed = rig.observed_ticket(&h3).await;
    assert!(matches!(
        history_error(&failed),
        ClientError::Status { status: 500, .. }
    ));
    let pages = rig.requests(PAGE);
    rig.demand(DemandKind::Cadence).await;
    let b = rig.dispatched(&body_key(LONG)).await;
    rig.observed_ticket(&b).await;
    assert_eq!(rig.requests(PAGE), pages, "the run stopped at the failure");
    assert_eq!(
        rig.task().older_progress(),
        Some(OlderProgress::Stopped { read: 1 })
    );
    assert_eq!(
        shown_chain(rig.task()).unwrap().len(),
        100,
        "A-3: rows kept"
    );
    rig.finish().await;
}

async fn rig_fails_at(nth: u32) -> Rig {
    rig(
        plan(&format!(
            r#"{{"match":{{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"}},"when":{{"nth":{nth}}},"fault":{{"status":500,"body":{{"error":"store"}}}}}}"#
        )),
        Sources::Detail,
    )
    .await
}
