//! Task history of 10,000 events: decode time per page (200 rows, echo-checked
//! `TaskHistoryPage::decode_for`), preparation time of the wrapped history rows (full, and the
//! incremental append of one page), and the frame cost of the task detail while scrolling.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{Criterion, criterion_group, criterion_main};
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::work::{HistoryChain, HistoryPageRead, WorkObservation, WorkSlot};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::tasks::{PageRequest, TaskHistoryPage};
use masc_tui::view::model::Model;
use masc_tui::view::screens::work::WorkPane;
use masc_tui::view::screens::work::state::layout_width_for;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use masc_tui::view::work::LayoutJob;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const TASK: &str = "task-1013";
const EVENTS: usize = 10_000;
const PAGE: usize = 200;

const NOTES: &[&str] = &[
    "ran cargo test --lib protocol",
    "디코더 경로 에러 메시지 개선",
    "rebased on main",
    "fixture 추가: gate_keepers__status_outside_vocabulary",
    "waiting on review 👀",
    "clippy clean — a longer note that wraps onto a second row on an ordinary pane width",
];

fn page_body(index: usize) -> (Vec<u8>, PageRequest) {
    let cursor = (index > 0).then(|| format!("c1.abcd1234.1.{}", EVENTS - index * PAGE));
    let next = (index + 1 < EVENTS / PAGE)
        .then(|| format!("c1.abcd1234.1.{}", EVENTS - (index + 1) * PAGE));
    let rows: Vec<serde_json::Value> = (0..PAGE)
        .map(|i| {
            let k = EVENTS - index * PAGE - i;
            serde_json::json!({
                "ts": format!("2026-10-{:02}T{:02}:{:02}:00Z", 1 + k % 28, k % 24, k % 60),
                "type": "task_note", "action": "note", "task_id": TASK,
                "agent": "rondo", "actor_kind": "keeper",
                "notes": format!("#{k} {}", NOTES[k % NOTES.len()]),
            })
        })
        .collect();
    let body = serde_json::json!({
        "schema": "masc.task_history_page.v1", "task_id": TASK, "cursor": cursor,
        "next_cursor": next, "has_more": next.is_some(), "rows": rows,
    });
    (
        serde_json::to_vec(&body).unwrap(),
        PageRequest {
            task_id: TASK.into(),
            cursor,
            limit: PAGE as u32,
        },
    )
}

/// The whole 10,000-event chain, page by page, as the source admits it.
fn chain() -> Vec<Arc<HistoryChain>> {
    let mut chains = vec![Arc::new(HistoryChain::fresh(TASK))];
    for index in 0..EVENTS / PAGE {
        let (body, request) = page_body(index);
        let base = chains.last().unwrap().clone();
        let page = TaskHistoryPage::decode_for(&body, &request, base.used_cursors()).unwrap();
        chains.push(Arc::new(base.append(&request, Arc::new(page)).unwrap()));
    }
    chains
}

fn scope() -> ReadScope {
    ReadScope {
        workspace: WorkspaceId("/w/.masc".into()),
        epoch: 1,
    }
}

fn detail_model(full: &Arc<HistoryChain>, before: &Arc<HistoryChain>, width: u16) -> Model {
    let mut m = Model::default();
    m.on_identity(IdentityState::Confirmed {
        scope: scope(),
        base_path: "/w".into(),
        mode: AdmissionMode::Receipt,
    });
    m.work.open_task(TASK);
    let ticket = Ticket {
        slot: WorkSlot::TaskHistory(TASK.into()),
        generation: 1,
        scope: scope(),
    };
    m.deliver(
        SlotEvent::<_, WorkObservation>::Dispatched(ticket.clone()),
        Instant::now(),
    );
    let request = before.next_request(PAGE as u32).unwrap();
    let drained = m.deliver(
        SlotEvent::Observed(
            ticket,
            WorkObservation::TaskHistory(Box::new(HistoryPageRead {
                base: before.clone(),
                request,
                result: Ok(Admitted {
                    value: full.clone(),
                    mode: AdmissionMode::Receipt,
                    from_cache: false,
                }),
            })),
        ),
        Instant::now(),
    );
    assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
    for job in m.work.layouts.jobs(m.work.task.as_ref(), width) {
        let p = job.run();
        m.work.layouts.admit(p, m.work.task.as_ref(), width);
    }
    m
}

fn bench(c: &mut Criterion) {
    let (body, request) = page_body(10);
    let used: Vec<String> = (1..10)
        .map(|i| format!("c1.abcd1234.1.{}", EVENTS - i * PAGE))
        .collect();
    c.bench_function("history_page_decode_200_rows", |b| {
        b.iter(|| TaskHistoryPage::decode_for(black_box(&body), &request, &used).unwrap())
    });

    let chains = chain();
    let full = chains.last().unwrap().clone();
    let before = chains[chains.len() - 2].clone();
    assert_eq!(full.len(), EVENTS);
    let area = Rect::new(0, 0, 120, 40);
    let width = layout_width_for(area);
    let key = |rows: usize, chain: &Arc<HistoryChain>| masc_tui::view::work::LayoutKey {
        part: masc_tui::view::work::LayoutPart::History,
        task_id: TASK.into(),
        source: chain.prefix_id,
        rows,
        width,
    };
    c.bench_function("history_prep_full_10000_events", |b| {
        b.iter(|| {
            LayoutJob::History {
                key: key(EVENTS, &full),
                chain: full.clone(),
                previous: None,
            }
            .run()
        })
    });
    let previous = Arc::new(
        LayoutJob::History {
            key: key(before.len(), &before),
            chain: before.clone(),
            previous: None,
        }
        .run(),
    );
    c.bench_function("history_prep_append_one_page_to_9800", |b| {
        b.iter(|| {
            LayoutJob::History {
                key: key(EVENTS, &full),
                chain: full.clone(),
                previous: Some(previous.clone()),
            }
            .run()
        })
    });

    let model = detail_model(&full, &before, width);
    let mut ui = Ui {
        area,
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.screen_mut::<masc_tui::view::screens::work::WorkUi>()
        .unwrap()
        .pane = WorkPane::Tasks;
    ui.screen_mut::<masc_tui::view::screens::work::WorkUi>()
        .unwrap()
        .tasks
        .open = Some(TASK.into());
    let ctx = ProjectionCtx::now(Theme::default());
    let mut scroll = 0usize;
    c.bench_function("task_detail_frame_while_scrolling_10000", |b| {
        b.iter(|| {
            scroll = (scroll + 7) % 15_000;
            ui.screen_mut::<masc_tui::view::screens::work::WorkUi>()
                .unwrap()
                .tasks
                .history_scroll = scroll;
            let mut buf = Buffer::empty(area);
            render(&model, &ui, &ctx, area, &mut buf);
            black_box(buf);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
