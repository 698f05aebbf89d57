//! Embedded server over loopback, through the real admitted client (receipt mode, token):
//! request throughput of a cached GET answered 304 (the client's ETag cache sends
//! `If-None-Match`, the stored value is re-admitted) and of an unconditional 200 (cache
//! forgotten before every read, so the body is served, receipt-checked and decoded), for the
//! roster and the task list; and the decode cost of the largest seeded bodies (a task
//! history page of 200 rows, a connector names page of 500).
//!
//! Throughput is reported per request (`elem/s` = requests/s) or per body byte.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use masc_tui::protocol::admission::{ReadAuthority, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::protocol::connectors::{ConnectorNamesPage, NameScope, NamesPageRequest};
use masc_tui::protocol::decode::{DecodeError, WireDecode};
use masc_tui::protocol::health::{IdentityVerdict, judge_identity};
use masc_tui::protocol::keepers::KeeperRoster;
use masc_tui::protocol::tasks::{PageRequest, TaskHistoryPage, TaskList};
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

const ROSTER: &str = "/api/v1/gate/keepers?detailed=true";
const TASKS: &str = "/api/v1/dashboard/tasks";
const HISTORY: &str = "/api/v1/dashboard/tasks/history/page?task_id=task-1013&limit=200";
const NAMES: &str = "/api/v1/gate/connector/names?name=discord&scope=channel&limit=500";

/// The admitted body, undecoded (to time the decoders on their own).
struct Body(bytes::Bytes);

impl WireDecode for Body {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self(bytes::Bytes::copy_from_slice(bytes)))
    }
}

struct Setup {
    _server: RunningServer,
    client: WorkspaceClient,
    auth: ReadAuthority,
}

fn setup(rt: &Runtime) -> Setup {
    rt.block_on(async {
        let server = start(ServeOptions {
            auth: AuthMode::Token("bench-token".into()),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let mut config = ClientConfig::new(server.base_url());
        config.token = TokenSource::Fixed("bench-token".into());
        let client = WorkspaceClient::new(config).unwrap();
        let health = client.health().await.unwrap();
        let IdentityVerdict::Match {
            masc_root, mode, ..
        } = judge_identity(Some(&server.base_path()), &health)
        else {
            panic!("identity match expected");
        };
        let auth = ReadAuthority {
            scope: ReadScope {
                workspace: WorkspaceId(masc_root.clone()),
                epoch: 1,
            },
            expected_root: masc_root,
            mode,
        };
        Setup {
            _server: server,
            client,
            auth,
        }
    })
}

/// `iters` sequential admitted reads of `target`; `fresh` forgets the cache before each one
/// (unconditional 200), otherwise every read after the first is a 304.
fn timed_reads<T: WireDecode + Send + Sync + 'static>(
    rt: &Runtime,
    s: &Setup,
    target: &str,
    fresh: bool,
    iters: u64,
) -> Duration {
    rt.block_on(async {
        // Warm the cache entry (and the connection) outside the timed section.
        s.client.get::<T>(&s.auth, target).await.unwrap();
        let start = Instant::now();
        for _ in 0..iters {
            if fresh {
                s.client.forget_root(&s.auth.expected_root);
            }
            let admitted = s.client.get::<T>(&s.auth, target).await.unwrap();
            assert_eq!(admitted.from_cache, !fresh);
            black_box(admitted);
        }
        start.elapsed()
    })
}

fn bench_requests(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let s = setup(&rt);
    let mut group = c.benchmark_group("loopback_get");
    group.throughput(Throughput::Elements(1));
    group.bench_function("roster_304_cached", |b| {
        b.iter_custom(|iters| timed_reads::<KeeperRoster>(&rt, &s, ROSTER, false, iters))
    });
    group.bench_function("roster_200_unconditional", |b| {
        b.iter_custom(|iters| timed_reads::<KeeperRoster>(&rt, &s, ROSTER, true, iters))
    });
    group.bench_function("task_list_304_cached", |b| {
        b.iter_custom(|iters| timed_reads::<TaskList>(&rt, &s, TASKS, false, iters))
    });
    group.bench_function("task_list_200_unconditional", |b| {
        b.iter_custom(|iters| timed_reads::<TaskList>(&rt, &s, TASKS, true, iters))
    });
    group.finish();

    // The largest seeded bodies, decoded with their echo-checking decoders.
    let (history, names) = rt.block_on(async {
        let history = s.client.get::<Body>(&s.auth, HISTORY).await.unwrap();
        let names = s.client.get::<Body>(&s.auth, NAMES).await.unwrap();
        (history.value.0.clone(), names.value.0.clone())
    });
    let history_req = PageRequest {
        task_id: "task-1013".into(),
        cursor: None,
        limit: 200,
    };
    let names_req = NamesPageRequest {
        connector_id: "discord".into(),
        scope: NameScope::Channel,
        after_id: None,
    };
    assert_eq!(
        TaskHistoryPage::decode_for(&history, &history_req, &[])
            .unwrap()
            .rows
            .len(),
        200
    );
    assert_eq!(
        ConnectorNamesPage::decode_for(&names, &names_req)
            .unwrap()
            .mappings
            .len(),
        500
    );
    let mut group = c.benchmark_group("decode_largest_seeded");
    group.throughput(Throughput::Bytes(history.len() as u64));
    group.bench_function("task_history_page_200_rows", |b| {
        b.iter(|| TaskHistoryPage::decode_for(black_box(&history), &history_req, &[]).unwrap())
    });
    // The floor: serde_json reading the same bytes into an untyped value (docs/performance.md
    // compares the echo-checked decode with it).
    group.bench_function("task_history_page_serde_json_value_only", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&history)).unwrap())
    });
    group.throughput(Throughput::Bytes(names.len() as u64));
    group.bench_function("connector_names_page_500", |b| {
        b.iter(|| ConnectorNamesPage::decode_for(black_box(&names), &names_req).unwrap())
    });
    group.finish();
    println!(
        "body sizes: task history page {} bytes, connector names page {} bytes",
        history.len(),
        names.len()
    );
}

criterion_group!(benches, bench_requests);
criterion_main!(benches);
