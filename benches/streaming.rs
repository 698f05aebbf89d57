//! A streamed chat reply (docs/performance.md, "A busy workspace"): a Keeper's reply streamed at
//! 60 tokens a second (one token per stream event) for the window, below a 10,000-entry
//! transcript, through the whole path the TUI runs — the embedded server's turn (a message
//! `paced reply N tokens at R/s`), the chat hub's stream reader and decode, admission, the
//! transcript, paint and present — into a byte-counting terminal at 200×60.
//!
//! The view actor runs alone on its own thread (a current-thread tokio runtime), so that
//! thread's CPU time is the view actor's. Measured over the window after a settle:
//! - the view actor's CPU as a share of one core;
//! - frames (flushes) per second;
//! - the view actor's CPU per frame (p50 / p99 / max: the thread's CPU clock read at every
//!   flush, so a frame's figure holds the stream events it admitted and its paint);
//! - the process's resident set at the window's start and end.
//!
//! `STREAM_SECS` (default 300) is the window, `STREAM_RATE` (default 60) tokens per second.
//! Run: `cargo bench --bench streaming`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

#[path = "support/measure.rs"]
mod measure;
use measure::{env_or, load_average, status_kib};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::chat::{ChatObservation, ChatSlot};
use masc_tui::actors::contract::{EventSink, Inboxes, Outlet, Ticket};
use masc_tui::actors::registry;
use masc_tui::actors::supervisor::{RuntimeConfig, start_runtime_with};
use masc_tui::outbox::OutboxLocation;
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::chat::{ChatHistoryPage, ChatHistoryRow, ChatRole};
use masc_tui::protocol::client::{Admitted, ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::{AuthMode, ServeOptions, start};
use masc_tui::view::actor::{ViewArgs, spawn_view};
use masc_tui::view::msg::ViewMsg;
use ratatui::backend::CrosstermBackend;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ENTRIES: usize = 10_000;
const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;

/// CPU time of the calling thread.
fn own_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: CLOCK_THREAD_CPUTIME_ID is always valid for the calling thread.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[derive(Default)]
struct Frames {
    /// The view thread's CPU clock at each flush.
    cpu_at_flush: Vec<Duration>,
    bytes: u64,
}

/// The terminal, written by the view thread: at every flush (one per frame) it reads that
/// thread's CPU clock.
struct Sink {
    frames: Arc<Mutex<Frames>>,
    pending: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending > 0 {
            let cpu = own_cpu();
            if let Ok(mut f) = self.frames.lock() {
                f.cpu_at_flush.push(cpu);
                f.bytes += self.pending;
            }
            self.pending = 0;
        }
        Ok(())
    }
}

fn key(code: KeyCode) -> ViewMsg {
    ViewMsg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn transcript_rows(n: usize) -> Vec<ChatHistoryRow> {
    let t0 = 1_700_000_000.0;
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
            ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
        })
        .collect()
}

/// The name of the roster's first row (the one selected when the view starts).
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

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| !a.starts_with('-') && !"streaming".contains(a.as_str()))
    {
        return;
    }
    // `cargo test --all-targets` (CI) runs this binary without `--bench`: it only had to build.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    // The allocator as the binary tunes it before any thread (its RSS is what is measured).
    masc_tui::cli::allocator::tune();
    let window = Duration::from_secs(env_or("STREAM_SECS", 300));
    let rate: u64 = env_or("STREAM_RATE", 60);
    let settle = Duration::from_secs(5);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = rt
        .block_on(start(ServeOptions {
            auth: AuthMode::Token("stream-token".into()),
            data_dir: Some(dir.path().join("data")),
            ..ServeOptions::default()
        }))
        .unwrap();

    let frames = Arc::new(Mutex::new(Frames::default()));
    let inboxes = Inboxes::new();
    let (view_tx, view_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let view_thread = {
        let (frames, inboxes) = (frames.clone(), inboxes.clone());
        std::thread::spawn(move || {
            let local = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            local.block_on(async move {
                let writer = BufWriter::with_capacity(1 << 20, Sink { frames, pending: 0 });
                let mut view_args = ViewArgs::new(CrosstermBackend::new(writer));
                view_args.inboxes = inboxes;
                let (view, view_done) = spawn_view(view_args).await.unwrap();
                view.cast(ViewMsg::Input(Event::Resize(WIDTH, HEIGHT)))
                    .unwrap();
                view_tx.send(view.clone()).unwrap();
                let _ = stop_rx.await;
                view.stop(None);
                let _ = view_done.await;
            });
        })
    };
    let view = view_rx.recv().unwrap();

    let outbox = OutboxLocation::File(dir.path().join("outbox.sqlite3"));
    let cfg = RuntimeConfig {
        expected_base: Some(server.base_path()),
        outbox: outbox.clone(),
        ..RuntimeConfig::default()
    };
    let sources = registry::sources(cfg.keepers_roster_interval, &outbox);
    let mut config = ClientConfig::new(server.base_url());
    config.token = TokenSource::Fixed("stream-token".into());
    let client = WorkspaceClient::new(config).unwrap();
    let sink: Arc<dyn EventSink> = Arc::new(view.clone());
    let runtime = rt
        .block_on(start_runtime_with(
            client,
            sink.clone(),
            inboxes.clone(),
            cfg,
            sources,
        ))
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let keeper = rt.block_on(first_keeper(&server));

    // The chat of the first Keeper, then 10,000 entries delivered as the hub delivers a newest
    // page (at every epoch the workspace may be in: the one in force is admitted).
    view.cast(key(KeyCode::Char('c'))).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let outlet: Outlet<ChatSlot, ChatObservation> = Outlet::new(&inboxes, sink.clone());
    for epoch in 1..=4 {
        let ticket = Ticket {
            slot: ChatSlot::History {
                keeper: keeper.clone(),
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
    std::thread::sleep(Duration::from_secs(1));

    // The send: a reply long enough to outlast the settle and the window.
    let tokens = rate * (window.as_secs() + settle.as_secs() + 30);
    for c in format!("paced reply {tokens} tokens at {rate}/s").chars() {
        view.cast(key(KeyCode::Char(c))).unwrap();
    }
    view.cast(key(KeyCode::Enter)).unwrap();
    std::thread::sleep(settle);

    let (frames0, bytes0) = {
        let f = frames.lock().unwrap();
        (f.cpu_at_flush.len(), f.bytes)
    };
    let rss_start = status_kib("VmRSS:");
    let t0 = Instant::now();
    std::thread::sleep(window);
    let elapsed = t0.elapsed().as_secs_f64();
    let rss_end = status_kib("VmRSS:");
    let (cpu_at, bytes) = {
        let f = frames.lock().unwrap();
        (
            f.cpu_at_flush[frames0.saturating_sub(1)..].to_vec(),
            f.bytes - bytes0,
        )
    };
    let per_frame: Vec<Duration> = cpu_at.windows(2).map(|w| w[1] - w[0]).collect();
    let cpu: Duration = per_frame.iter().sum();
    let mut sorted = per_frame.clone();
    sorted.sort();
    println!(
        "streaming: a reply at {rate} tokens/s below a {ENTRIES}-entry transcript, 200×60, {elapsed:.0} s after a {} s settle (load average {:.2})",
        settle.as_secs(),
        load_average()
    );
    println!(
        "  view actor CPU  {:>6.2} % of a core  (goal <= 3 %)",
        cpu.as_secs_f64() / elapsed * 100.0
    );
    println!(
        "  frames          {:>6.1}/s, {:.0} B/frame, {:.1} kB/s  (goal <= 60/s)",
        per_frame.len() as f64 / elapsed,
        if per_frame.is_empty() {
            0.0
        } else {
            bytes as f64 / per_frame.len() as f64
        },
        bytes as f64 / elapsed / 1000.0
    );
    println!(
        "  view CPU per frame p50 {:.3} ms, frame p99 {:.3} ms, max {:.3} ms  (goal p99 <= 1 ms)",
        quantile(&sorted, 0.50).as_secs_f64() * 1e3,
        quantile(&sorted, 0.99).as_secs_f64() * 1e3,
        sorted.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
    println!(
        "  RSS             start {:.1} MiB, end {:.1} MiB  (goal: end - start within 2 MB)",
        rss_start as f64 / 1024.0,
        rss_end as f64 / 1024.0
    );

    let _ = stop_tx.send(());
    let _ = view_thread.join();
    rt.block_on(runtime.stop());
    drop(server);
}
