//! Churn on the Keepers screen (docs/performance.md, "A busy workspace"): 1,000 Keepers on the
//! embedded server, 10 % of them changing status every second, the real actor runtime (every
//! registered source at its production cadence) and the real view actor painting a 200×60
//! frame into a byte-counting terminal.
//!
//! The view actor runs alone on its own thread (a current-thread tokio runtime), so that
//! thread's CPU time is the view actor's: admission, projection, paint and present — not the
//! server, the sources' workers or decode (they run on the other runtime and its blocking pool,
//! as they do in the TUI). Measured over the window after a settle:
//! - the view actor's CPU as a share of one core;
//! - bytes written to the terminal per second and frames (flushes) per second;
//! - the process's resident set at the window's start and end, and its peak (VmHWM).
//!
//! `CHURN_SECS` (default 300) is the window, `CHURN_SETTLE_SECS` (default 15) the settle,
//! `CHURN_KEEPERS` (default 1,000) the scaled Keepers, `CHURN_SHARE` (default 0.10) the share
//! changed each second. Run: `cargo bench --bench churn`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

#[path = "support/measure.rs"]
mod measure;
use measure::{env_or, load_average, status_kib};

use crossterm::event::Event;
use masc_tui::actors::contract::{EventSink, Inboxes};
use masc_tui::actors::registry;
use masc_tui::actors::supervisor::{RuntimeConfig, start_runtime_with};
use masc_tui::outbox::OutboxLocation;
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::store::scale::Scale;
use masc_tui::server::{AuthMode, ServeOptions, start};
use masc_tui::view::actor::{ViewArgs, spawn_view};
use masc_tui::view::msg::ViewMsg;
use ratatui::backend::CrosstermBackend;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;
const STATUSES: &[&str] = &["active", "busy", "idle", "listening", "error", "offline"];

/// The terminal: counts bytes and flushes (one flush per presented frame).
struct Sink {
    bytes: Arc<AtomicU64>,
    frames: Arc<AtomicU64>,
    pending: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending > 0 {
            self.bytes.fetch_add(self.pending, Ordering::Relaxed);
            self.frames.fetch_add(1, Ordering::Relaxed);
            self.pending = 0;
        }
        Ok(())
    }
}

/// CPU time of the thread whose clock this is.
fn thread_cpu(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock` came from pthread_getcpuclockid of a thread that is still running.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A small deterministic generator: the same Keepers change in every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| !a.starts_with('-') && !"churn".contains(a.as_str()))
    {
        return;
    }
    // `cargo test --all-targets` (CI) runs this binary without `--bench`: it only had to build.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    // The allocator as the binary tunes it before any thread (its RSS is what is measured).
    masc_tui::cli::allocator::tune();
    let window = Duration::from_secs(env_or("CHURN_SECS", 300));
    let settle = Duration::from_secs(env_or("CHURN_SETTLE_SECS", 15));
    let keepers: usize = env_or("CHURN_KEEPERS", 1_000);
    let share: f64 = env_or("CHURN_SHARE", 0.10);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = rt
        .block_on(start(ServeOptions {
            auth: AuthMode::Token("churn-token".into()),
            data_dir: Some(dir.path().join("data")),
            scale: Some(Scale {
                keepers,
                tasks: 0,
                history_events: 0,
                chat_messages: 0,
            }),
            ..ServeOptions::default()
        }))
        .unwrap();

    // The view actor on its own thread and runtime.
    let bytes = Arc::new(AtomicU64::new(0));
    let frames = Arc::new(AtomicU64::new(0));
    let inboxes = Inboxes::new();
    let (view_tx, view_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let view_thread = {
        let (bytes, frames, inboxes) = (bytes.clone(), frames.clone(), inboxes.clone());
        std::thread::spawn(move || {
            let local = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let mut clock: libc::clockid_t = 0;
            // SAFETY: this thread's own pthread handle; `clock` is written by the call.
            unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
            local.block_on(async move {
                let writer = BufWriter::with_capacity(
                    1 << 20,
                    Sink {
                        bytes,
                        frames,
                        pending: 0,
                    },
                );
                let mut view_args = ViewArgs::new(CrosstermBackend::new(writer));
                view_args.inboxes = inboxes;
                let (view, view_done) = spawn_view(view_args).await.unwrap();
                view.cast(ViewMsg::Input(Event::Resize(WIDTH, HEIGHT)))
                    .unwrap();
                view_tx.send((view.clone(), clock)).unwrap();
                let _ = stop_rx.await;
                view.stop(None);
                let _ = view_done.await;
            });
        })
    };
    let (view, view_clock) = view_rx.recv().unwrap();

    let outbox = OutboxLocation::File(dir.path().join("outbox.sqlite3"));
    let cfg = RuntimeConfig {
        expected_base: Some(server.base_path()),
        outbox: outbox.clone(),
        ..RuntimeConfig::default()
    };
    let sources = registry::sources(cfg.keepers_roster_interval, &outbox);
    let mut config = ClientConfig::new(server.base_url());
    config.token = TokenSource::Fixed("churn-token".into());
    let client = WorkspaceClient::new(config).unwrap();
    let sink: Arc<dyn EventSink> = Arc::new(view.clone());
    let runtime = rt
        .block_on(start_runtime_with(client, sink, inboxes, cfg, sources))
        .unwrap();

    let store = server.state().store().clone();
    let names: Vec<String> = rt
        .block_on(store.read(|conn| {
            let mut stmt = conn.prepare("SELECT name FROM keepers ORDER BY sort_key, name")?;
            let names = stmt
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(names)
        }))
        .unwrap();
    let per_second = ((names.len() as f64) * share).round() as usize;

    // The churn: every second `per_second` Keepers change status in one write.
    let churn = {
        let store = store.clone();
        let names = names.clone();
        rt.spawn(async move {
            let mut rng = Lcg(0x5eed);
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let picks: Vec<(String, &'static str)> = (0..per_second)
                    .map(|_| {
                        let name = names[(rng.next() as usize) % names.len()].clone();
                        let status = STATUSES[(rng.next() as usize) % STATUSES.len()];
                        (name, status)
                    })
                    .collect();
                let now =
                    masc_tui::server::store::rfc3339(masc_tui::server::store::now_unix() as i64);
                let _ = store
                    .write(move |tx| {
                        let mut stmt = tx.prepare_cached(
                            "UPDATE keepers SET status = ?1, updated_at = ?2 WHERE name = ?3",
                        )?;
                        for (name, status) in &picks {
                            stmt.execute(rusqlite::params![status, now, name])?;
                        }
                        Ok(())
                    })
                    .await;
            }
        })
    };

    std::thread::sleep(settle);
    let rss_start = status_kib("VmRSS:");
    let (bytes0, frames0) = (
        bytes.load(Ordering::Relaxed),
        frames.load(Ordering::Relaxed),
    );
    let cpu0 = thread_cpu(view_clock);
    let t0 = Instant::now();
    let mut rss_samples = vec![rss_start];
    while t0.elapsed() < window {
        std::thread::sleep(Duration::from_secs(5).min(window.saturating_sub(t0.elapsed())));
        rss_samples.push(status_kib("VmRSS:"));
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu = thread_cpu(view_clock) - cpu0;
    let sent = bytes.load(Ordering::Relaxed) - bytes0;
    let painted = frames.load(Ordering::Relaxed) - frames0;
    let rss_end = status_kib("VmRSS:");
    let (rss_min, rss_max) = (
        rss_samples.iter().min().copied().unwrap_or(0),
        rss_samples.iter().max().copied().unwrap_or(0),
    );
    println!(
        "churn: {} Keepers, {per_second} change status each second, {elapsed:.0} s after a {} s settle (load average {:.2})",
        names.len(),
        settle.as_secs(),
        load_average(),
    );
    println!(
        "  view actor CPU   {:>6.2} % of a core  (goal <= 2 %)",
        cpu.as_secs_f64() / elapsed * 100.0
    );
    println!(
        "  to the terminal  {:>6.1} kB/s, {:.2} frames/s, {:.0} B/frame  (goal <= 20 kB/s)",
        sent as f64 / elapsed / 1000.0,
        painted as f64 / elapsed,
        if painted > 0 {
            sent as f64 / painted as f64
        } else {
            0.0
        }
    );
    println!(
        "  RSS              start {:.1} MiB, end {:.1} MiB, min {:.1}, max {:.1} over the window, peak {:.1} MiB  (goal: end - start within 2 MB)",
        rss_start as f64 / 1024.0,
        rss_end as f64 / 1024.0,
        rss_min as f64 / 1024.0,
        rss_max as f64 / 1024.0,
        status_kib("VmHWM:") as f64 / 1024.0
    );

    churn.abort();
    let _ = stop_tx.send(());
    let _ = view_thread.join();
    rt.block_on(runtime.stop());
    drop(server);
}
