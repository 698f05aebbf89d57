#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! A Work detail source restart end to end (G-4, G-7, A-17): the real view actor on a
//! `TestBackend`, the real runtime and the embedded server. The operator opens a Task with keys;
//! a panic drill kills the Work detail source; the supervisor restarts it and the view re-sends
//! the open for what is on screen: new tickets (later generations) for the body and a fresh
//! history prefix, admitted; the task stays on screen throughout (last values kept until
//! replaced). Synchronisation is by stage records and view events only.

use crate::work_rig::{task_list_entry, work_detail_entry};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::Inboxes;
use masc_tui::actors::supervisor::{RestartPolicy, RuntimeConfig, start_runtime_with};
use masc_tui::actors::work::WORK_DETAIL;
use masc_tui::server::faults::FaultPlan;
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::timeline::record::StageRecord;
use masc_tui::view::actor::{ViewArgs, ViewEvent, spawn_view};
use masc_tui::view::msg::ViewMsg;
use masc_tui::view::sample::buffer_text;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

fn key(code: KeyCode, modifiers: KeyModifiers) -> ViewMsg {
    ViewMsg::Input(Event::Key(KeyEvent::new(code, modifiers)))
}

/// The newest frame whose text satisfies `pred` (the timeout only guards against a hang).
async fn frame_where(
    events: &mut mpsc::UnboundedReceiver<ViewEvent>,
    pred: impl Fn(&str) -> bool,
) -> String {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Some(ViewEvent::Frame { buffer, .. }) = events.recv().await {
                let text = buffer_text(&buffer);
                if pred(&text) {
                    return text;
                }
            }
        }
    })
    .await
    .expect("expected frame")
}

async fn stage(recorder: &StageRecorder, pred: impl Fn(&StageRecord) -> bool) -> StageRecord {
    recorder
        .wait_for(pred)
        .await
        .expect("expected stage record")
}

#[tokio::test]
async fn a_restarted_work_detail_source_reopens_the_task_on_screen() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let (server, client) = crate::work_rig::server_and_client(FaultPlan::none()).await;
    let (tx, mut events) = mpsc::unbounded_channel();
    let inboxes = Inboxes::new();
    let mut args = ViewArgs::new(TestBackend::new(120, 40));
    args.observer = Some(tx);
    args.inboxes = inboxes.clone();
    let (view, _done) = spawn_view(args).await.unwrap();
    let hour = Duration::from_secs(3600);
    let entries = vec![work_detail_entry(hour), task_list_entry(hour)];
    let runtime = start_runtime_with(
        client,
        Arc::new(view.clone()),
        inboxes,
        RuntimeConfig {
            expected_base: Some(server.base_path()),
            health_interval: Duration::from_millis(50),
            keepers_roster_interval: hour,
            restart: RestartPolicy {
                initial_backoff: Duration::from_millis(1),
                ..RestartPolicy::default()
            },
            fault_drills: true,
            ..RuntimeConfig::default()
        },
        entries,
    )
    .await
    .unwrap();

    // Keepers → Work (Shift-Tab), Goals → Tasks (t), wait for the list, open the first row.
    view.cast(key(KeyCode::BackTab, KeyModifiers::SHIFT))
        .unwrap();
    view.cast(key(KeyCode::Char('t'), KeyModifiers::NONE))
        .unwrap();
    stage(&recorder, |r| r.source == "task_list" && r.stage == "admit").await;
    view.cast(key(KeyCode::Enter, KeyModifiers::NONE)).unwrap();
    let first_body = stage(&recorder, |r| {
        r.source.starts_with("task_body") && r.stage == "admit"
    })
    .await;
    let first_history = stage(&recorder, |r| {
        r.source.starts_with("task_history") && r.stage == "admit"
    })
    .await;
    let opened = frame_where(&mut events, |t| t.contains("TASK ")).await;
    let title = opened
        .lines()
        .find(|l| l.contains("TASK "))
        .map(|l| l.trim().to_string())
        .unwrap();

    runtime.inject_panic(WORK_DETAIL);
    stage(&recorder, |r| {
        r.source == "work_detail" && r.stage == "restart"
    })
    .await;
    // The view re-opened what is on screen: later generations, admitted.
    let body_gen = first_body.generation.unwrap();
    let history_gen = first_history.generation.unwrap();
    let reopened_body = stage(&recorder, |r| {
        r.source == first_body.source
            && r.stage == "admit"
            && r.generation.is_some_and(|g| g > body_gen)
    })
    .await;
    let reopened_history = stage(&recorder, |r| {
        r.source == first_history.source
            && r.stage == "admit"
            && r.generation.is_some_and(|g| g > history_gen)
    })
    .await;
    assert_eq!(
        reopened_body.epoch, first_body.epoch,
        "same workspace epoch"
    );
    assert_eq!(reopened_history.epoch, first_history.epoch);
    // Nothing of the dead incarnation was admitted after the restart.
    let restart_ts = recorder
        .records_where(|r| r.source == "work_detail" && r.stage == "restart")
        .first()
        .map(|r| r.ts_us)
        .unwrap();
    let stale_admits = recorder.records_where(|r| {
        r.stage == "admit"
            && r.ts_us > restart_ts
            && ((r.source == first_body.source && r.generation == Some(body_gen))
                || (r.source == first_history.source && r.generation == Some(history_gen)))
    });
    assert!(
        stale_admits.is_empty(),
        "old tickets admitted: {stale_admits:?}"
    );
    // The same task is still the one on screen.
    let after = frame_where(&mut events, |t| t.contains(&title)).await;
    assert!(after.contains(&title));
    runtime.stop().await;
    server.shutdown().await;
}
