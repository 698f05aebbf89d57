#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The System Logs source (protocol-15-operator.md §15.1, issue 28 item 3) against the embedded
//! server with fault plans: the seeded ring read whole, then by delta (`since_seq`), a page back
//! (`before_seq`), filters re-opening the window (a read asked under the old filters is never
//! observed), and the faults §15.1 and the brief name — 5xx, delay, malformed, not served — each
//! a typed failure of this source's slot, on the timeline under its own name.

use crate::actor_support::{plan, rig_with};
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl};
use masc_tui::actors::system_logs::{
    SYSTEM_LOGS, SystemLogsCommand, SystemLogsObservation, SystemLogsSlot,
};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::protocol::system_logs::{LogQuery, LogRowSlot, MinLevel};
use masc_tui::server::faults::FaultPlan;

const WINDOW: SystemLogsSlot = SystemLogsSlot::Window;

/// §15.1: the first read is whole (no `since_seq`), newest first, with the ring's eviction
/// said; the next cadence read asks only what is newer than the newest seq returned.
#[tokio::test]
async fn s15_1_the_window_is_read_whole_then_by_delta() {
    let mut rig = rig_with(FaultPlan::none()).await;
    let first = rig.observed_of::<_, SystemLogsObservation>(&WINDOW).await;
    let read = first.payload.read();
    assert_eq!(read.query.since_seq, None);
    let page = &read.result.as_ref().expect("read").value;
    assert_eq!(page.latest_seq, Some(260));
    assert_eq!(page.rows.len(), 200);
    assert_eq!(page.rows[0].seq(), Some(260), "newest first");
    assert!(
        page.ring.unwrap().dropped_before,
        "60 evicted from the seeded ring"
    );
    let levels: std::collections::BTreeSet<String> = page
        .rows
        .iter()
        .filter_map(|r| match r {
            LogRowSlot::Row(r) => Some(r.level.clone()),
            LogRowSlot::Undecodable { .. } => None,
        })
        .collect();
    assert_eq!(levels.len(), 4, "every level seeded: {levels:?}");
    let source = rig.source_handle(SYSTEM_LOGS).await;
    assert!(source.send_control(SourceControl::Demand(DemandKind::Cadence)));
    let delta = rig
        .view
        .wait_slot(|e: &SlotEvent<SystemLogsSlot, SystemLogsObservation>| {
            matches!(e, SlotEvent::Observed(t, p)
                if t.slot == WINDOW && p.read().query.since_seq.is_some())
        })
        .await
        .expect("a delta read");
    let SlotEvent::Observed(_, delta) = delta else {
        unreachable!()
    };
    assert_eq!(delta.read().query.since_seq, Some(260));
    let page = &delta.read().result.as_ref().expect("read").value;
    assert!(page.rows.is_empty(), "nothing newer than 260 in the seed");
    assert_eq!(
        page.latest_seq, None,
        "Aug's null on an empty page is accepted"
    );
    rig.finish().await;
}

/// §15.1: new filters re-open the window (a read under the old ones is never observed after
/// them); a page back asks `before_seq` at the same filters.
#[tokio::test]
async fn s15_1_filters_reopen_the_window_and_a_page_back_asks_before_seq() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/logs","query":"level=debug"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let slow = rig.dispatched_of::<_, SystemLogsObservation>(&WINDOW).await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.source == "system_logs")
        .await
        .unwrap();
    let handle = rig.source_handle(SYSTEM_LOGS).await;
    let commands = handle
        .commands::<SystemLogsCommand>()
        .expect("typed handle");
    let errors = LogQuery {
        level: MinLevel::Error,
        ..LogQuery::default()
    };
    commands
        .send_message(SystemLogsCommand::Filters(errors.clone()))
        .unwrap();
    let obs = rig.observed_of::<_, SystemLogsObservation>(&WINDOW).await;
    assert!(obs.ticket.generation > slow.generation);
    assert_eq!(obs.payload.read().query.filters(), errors);
    let page = &obs.payload.read().result.as_ref().expect("read").value;
    assert!(!page.rows.is_empty());
    assert!(
        page.rows
            .iter()
            .all(|r| matches!(r, LogRowSlot::Row(r) if r.level == "ERROR"))
    );
    let old: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "system_logs" && r.generation == Some(slow.generation))
        .into_iter()
        .map(|r| r.stage)
        .collect();
    assert!(!old.contains(&"observe".to_string()), "{old:?}");

    let oldest = page.rows.last().and_then(LogRowSlot::seq).unwrap();
    commands
        .send_message(SystemLogsCommand::Older { before_seq: oldest })
        .unwrap();
    let older = rig
        .observed_of::<_, SystemLogsObservation>(&SystemLogsSlot::Older)
        .await;
    let read = older.payload.read();
    assert_eq!(read.query.before_seq, Some(oldest));
    assert_eq!(read.query.level, MinLevel::Error);
    let page = &read.result.as_ref().expect("read").value;
    assert!(page.rows.iter().all(|r| r.seq() < Some(oldest)));
    rig.finish().await;
}

/// §15.1 faults: a 5xx is a typed status failure; a malformed body a decode failure (never an
/// empty log); a 404 on this route (which defines no object 404) is "not served by this
/// server" — each the source's own, on the timeline under `system_logs`.
#[tokio::test]
async fn s15_1_faults_are_typed_failures_of_the_logs_slot() {
    for (fault, check) in [
        (
            r#"{"status":500,"body":{"error":"ring locked"}}"#,
            (|e: &ClientError| matches!(e, ClientError::Status { status: 500, .. }))
                as fn(&ClientError) -> bool,
        ),
        (r#"{"malformed":true}"#, |e| {
            matches!(e, ClientError::Decode(_))
        }),
        (r#"{"status":404,"body":{"error":"not found"}}"#, |e| {
            matches!(
                e,
                ClientError::NotServed {
                    route: RouteFamily::SystemLogs
                }
            )
        }),
    ] {
        let mut rig = rig_with(plan(&format!(
            r#"{{"match":{{"method":"GET","path":"/api/v1/dashboard/logs"}},"when":{{"every":true}},"fault":{fault}}}"#
        )))
        .await;
        let obs = rig.observed_of::<_, SystemLogsObservation>(&WINDOW).await;
        let err = obs.payload.read().result.as_ref().expect_err(fault);
        assert!(check(err), "{fault}: {err:?}");
        let returned = rig
            .recorder
            .records_where(|r| r.source == "system_logs" && r.stage == "worker_return");
        assert!(!returned.is_empty(), "{fault}: on the timeline");
        rig.finish().await;
    }
}
