//! Key → paint, end to end (docs/performance.md): the real view actor with a crossterm backend
//! writing to a sink, the real actor runtime against the embedded server whose every `/api/v1` GET
//! is stalled by a fault-plan delay (so every polled source has a read in flight), and a
//! 10,000-entry chat transcript. Timed per key: the key event cast to the view actor → the flush of
//! the frame it caused (the last byte written). 1,000 keys: `j`/`k` on the Keepers roster,
//! PgUp/PgDn in the chat transcript, typing in the chat composer. Keys are spaced past the 16 ms
//! frame window, so each one is an input frame that preempts the deadline (T.1).
//!
//! Run: `cargo bench --bench key_to_paint`. Prints p50 / p99 / max per key class and overall,
//! and the process's CPU time over the keys. `K2P_TRACE=file` installs the session's tracing as
//! the TUI does (the trace file); `K2P_TRACE=otlp` adds `--otlp` to an in-bench OTLP/HTTP
//! collector on loopback (docs/timeline.md); unset, no subscriber at all. `K2P_LIVE=off` (with a
//! `K2P_TRACE`) leaves the live Sources view's aggregation out of the subscriber and its
//! `source_stats` source out of the runtime, to measure what the live view costs. Between the
//! roster and the chat, with the live view on, 100 `j`/`k` on System › sources (the live view on
//! screen, its snapshot read every 2 s) are their own class, `sources`.
//! `/health` is not stalled: a stalled probe would withdraw the workspace (G-6) and the screen
//! would then show the withdrawal instead of the transcript.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::chat::{CHAT_HUB, ChatObservation, ChatSlot};
use masc_tui::actors::contract::{EventSink, Inboxes, Outlet, Ticket};
use masc_tui::actors::registry;
use masc_tui::actors::source_stats::SOURCE_STATS;
use masc_tui::actors::supervisor::{RuntimeConfig, start_runtime_with};
use masc_tui::outbox::OutboxLocation;
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::chat::{ChatHistoryPage, ChatHistoryRow, ChatRole};
use masc_tui::protocol::client::{Admitted, ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::scale::Scale;
use masc_tui::server::{AuthMode, ServeOptions, start};
use masc_tui::timeline::LiveAggregation;
use masc_tui::view::actor::{ViewArgs, spawn_view};
use masc_tui::view::msg::ViewMsg;
use ratatui::backend::CrosstermBackend;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ENTRIES: usize = 10_000;
const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;
/// Past the 16 ms frame window: every key is a preempting input frame.
const SPACING: Duration = Duration::from_millis(20);

/// The terminal: counts bytes and reports the instant of every flush (one per frame).
struct Sink {
    pending: usize,
    flushes: mpsc::Sender<(Instant, usize)>,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending > 0 {
            let _ = self.flushes.send((Instant::now(), self.pending));
            self.pending = 0;
        }
        Ok(())
    }
}

fn key(code: KeyCode) -> ViewMsg {
    ViewMsg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn transcript_rows(n: usize) -> Vec<ChatHistoryRow> {
    let t0 = 1_787_000_000.0;
    (0..n)
        .map(|i| ChatHistoryRow {
            id: format!("m{i}"),
            role: if i % 2 == 0 {
                ChatRole::User
            } else {
                ChatRole::Assistant
            },
            content: if i % 2 == 0 {
                format!("질문 {i}: 배포 상태 알려줘 🙂")
            } else {
                format!(
                    "답변 {i}: **배포**는 끝났고 `main` 에 올렸어. 다음은 검증이야. {}",
                    "가나다라 ".repeat(i % 13)
                )
            },
            ts: Some(t0 + i as f64 * 7.0),
            kind: None,
            turn_ref: None,
            tool_call_id: None,
            tool_call_name: None,
            ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
        })
        .collect()
}

struct Timings(Vec<(&'static str, Duration)>);

impl Timings {
    fn report(&self, class: &str) {
        let mut v: Vec<Duration> = self
            .0
            .iter()
            .filter(|(c, _)| class == "all" || *c == class)
            .map(|(_, d)| *d)
            .collect();
        if v.is_empty() {
            return;
        }
        v.sort();
        let at = |q: f64| v[((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1];
        println!(
            "  {class:<7} n={:>4}  p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
            v.len(),
            at(0.50).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            v[v.len() - 1].as_secs_f64() * 1e3,
        );
    }
}

/// User + system CPU time of the whole process so far.
fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// An OTLP/HTTP collector that accepts every export (counted) and keeps nothing.
async fn sink_collector(exports: Arc<std::sync::atomic::AtomicU64>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |_body: bytes::Bytes| {
            exports.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async {
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
}

/// The name of the roster's first row (the one selected after `j`×n, `k`×n).
async fn first_keeper(server: &masc_tui::server::RunningServer) -> String {
    let mut rb = reqwest::Client::new()
        .get(format!(
            "{}/api/v1/gate/keepers?detailed=true",
            server.base_url()
        ))
        .header("X-MASC-Agent", "masc-tui");
    if let Some(t) = server.token() {
        rb = rb.bearer_auth(t);
    }
    let v: serde_json::Value = rb.send().await.unwrap().json().await.unwrap();
    v["keepers"][0]["name"].as_str().unwrap().to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| !a.starts_with('-') && !"key_to_paint".contains(a.as_str()))
    {
        return;
    }
    // `cargo test --all-targets` (CI) runs this binary without `--bench`: it only had to build.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let trace_mode = std::env::var("K2P_TRACE").unwrap_or_default();
    let trace_dir = tempfile::tempdir().unwrap();
    let exports = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let collector = (trace_mode == "otlp").then(|| rt.block_on(sink_collector(exports.clone())));
    let live = match std::env::var("K2P_LIVE").as_deref() {
        Ok("off") => LiveAggregation::Off,
        _ => LiveAggregation::On,
    };
    let trace = (!trace_mode.is_empty()).then(|| {
        masc_tui::timeline::init_tracing_with(
            Some(trace_dir.path().join("trace.jsonl")),
            collector.as_deref(),
            live,
        )
        .unwrap()
    });
    let (flush_tx, flushes) = mpsc::channel();
    let (timings, cpu) = rt.block_on(async move {
        let dir = tempfile::tempdir().unwrap();
        let server = start(ServeOptions {
            auth: AuthMode::Token("k2p-token".into()),
            data_dir: Some(dir.path().join("data")),
            scale: Some(Scale {
                keepers: 1_000,
                tasks: 0,
                history_events: 0,
                chat_messages: 0,
            }),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let mut config = ClientConfig::new(server.base_url());
        config.token = TokenSource::Fixed("k2p-token".into());
        let client = WorkspaceClient::new(config).unwrap();
        let inboxes = Inboxes::new();
        let writer = BufWriter::with_capacity(
            1 << 20,
            Sink {
                pending: 0,
                flushes: flush_tx,
            },
        );
        let mut view_args = ViewArgs::new(CrosstermBackend::new(writer));
        view_args.inboxes = inboxes.clone();
        let (view, view_done) = spawn_view(view_args).await.unwrap();
        view.cast(ViewMsg::Input(Event::Resize(WIDTH, HEIGHT)))
            .unwrap();
        let sink: Arc<dyn EventSink> = Arc::new(view.clone());
        // Every source but the chat hub: the transcript is delivered below, as the hub would.
        let sources = registry::sources(Duration::from_secs(5), &OutboxLocation::File(dir.path().join("outbox.sqlite3")))
            .into_iter()
            .filter(|s| s.key() != CHAT_HUB)
            .filter(|s| live == LiveAggregation::On || s.key() != SOURCE_STATS)
            .collect();
        let runtime = start_runtime_with(
            client.clone(),
            sink.clone(),
            inboxes.clone(),
            RuntimeConfig {
                expected_base: Some(server.base_path()),
                outbox: OutboxLocation::File(dir.path().join("outbox.sqlite3")),
                ..RuntimeConfig::default()
            },
            sources,
        )
        .await
        .unwrap();
        // Settle: identity confirmed, first reads answered.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let first = first_keeper(&server).await;
        // Every workspace GET stalls from now on.
        server.set_faults(
            FaultPlan::from_json(
                r#"{"rules":[{"match":{"method":"GET","path":"/api/v1/*"},"fault":{"delay_ms":600000}}]}"#,
            )
            .unwrap(),
        );
        tokio::time::sleep(Duration::from_secs(6)).await;

        let mut timings = Vec::new();
        let cpu_before = process_cpu();
        let mut press = |class: &'static str, msg: ViewMsg| {
            while flushes.try_recv().is_ok() {}
            let t0 = Instant::now();
            view.cast(msg).unwrap();
            let painted = flushes
                .recv_timeout(Duration::from_secs(2))
                .ok()
                .filter(|(at, _)| *at >= t0);
            std::thread::sleep(SPACING);
            match painted {
                Some((at, _)) => timings.push((class, at - t0)),
                None => println!("  (a `{class}` key painted nothing)"),
            }
        };
        // Roster: j down, k up.
        for _ in 0..150 {
            press("j", key(KeyCode::Char('j')));
        }
        for _ in 0..150 {
            press("k", key(KeyCode::Char('k')));
        }
        // Keepers → Board → System › Runtime, `P` wraps to sources: the live view on screen
        // (without the live view the pane has no rows: its keys change nothing to paint).
        if live == LiveAggregation::On {
            for code in [KeyCode::Tab, KeyCode::Tab, KeyCode::Char('P')] {
                view.cast(key(code)).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(2500)).await;
            for i in 0..100 {
                press("sources", key(KeyCode::Char(if i < 50 { 'j' } else { 'k' })));
            }
            for _ in 0..2 {
                view.cast(key(KeyCode::BackTab)).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        // The chat of the selected (first) Keeper, with the transcript delivered as the hub
        // delivers a newest page.
        view.cast(key(KeyCode::Char('c'))).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let outlet: Outlet<ChatSlot, ChatObservation> = Outlet::new(&inboxes, sink.clone());
        for epoch in 1..=4 {
            let ticket = Ticket {
                slot: ChatSlot::History {
                    keeper: first.clone(),
                },
                generation: 1_000_000,
                scope: ReadScope {
                    workspace: WorkspaceId(server.masc_root()),
                    epoch,
                },
            };
            outlet.dispatched(ticket.clone());
            outlet.observed(
                ticket,
                ChatObservation::HistoryPage {
                    before: None,
                    result: Ok(Admitted {
                        value: Arc::new(ChatHistoryPage {
                dropped: Vec::new(),
                            messages: transcript_rows(ENTRIES),
                            has_more: false,
                            next_before: None,
                            schema_sent: true,
                        }),
                        mode: AdmissionMode::Receipt,
                        from_cache: false,
                    }),
                },
            );
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        for _ in 0..125 {
            press("PgUp", key(KeyCode::PageUp));
        }
        for _ in 0..125 {
            press("PgDn", key(KeyCode::PageDown));
        }
        for i in 0..450 {
            let c = (b'a' + (i % 26) as u8) as char;
            press("typing", key(if i % 40 == 39 { KeyCode::Char(' ') } else { KeyCode::Char(c) }));
        }
        let cpu = process_cpu() - cpu_before;
        runtime.stop().await;
        let _ = view.cast(ViewMsg::Shutdown);
        let _ = view_done.await;
        server.shutdown().await;
        (timings, cpu)
    });
    drop(trace);
    let timings = Timings(timings);
    println!(
        "key → last byte of the frame, {} keys, 200×60, {ENTRIES}-entry transcript, every /api/v1 GET stalled:",
        timings.0.len()
    );
    for class in ["j", "k", "sources", "PgUp", "PgDn", "typing", "all"] {
        timings.report(class);
    }
    println!(
        "  tracing {:<5} live view {:<3} process CPU over the keys {:.0} ms ({:.3} ms per key); OTLP exports received {}",
        if trace_mode.is_empty() {
            "none"
        } else {
            trace_mode.as_str()
        },
        match (trace_mode.is_empty(), live) {
            (false, LiveAggregation::On) => "on",
            _ => "off",
        },
        cpu.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3 / timings.0.len().max(1) as f64,
        exports.load(std::sync::atomic::Ordering::Relaxed),
    );
}
