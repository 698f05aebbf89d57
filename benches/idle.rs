//! Idle network: what the demo costs per minute on the Keepers screen when nothing
//! changes. The embedded server with the demo seed, the real actor runtime (every registered
//! source at its production cadence, `/health` every 2 s) and the real view actor painting a
//! 200×60 frame into a test backend; after a settle (first reads, name chains) the client's one
//! event per HTTP read (`masc_tui::request`) is tallied per route family for the window.
//!
//! `IDLE_SECS` (default 60) is the window, `IDLE_SETTLE_SECS` (default 15) the settle. Run:
//! `cargo bench --bench idle`. Prints requests and body bytes per minute, total and per route.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench harness

use masc_tui::actors::contract::{EventSink, Inboxes};
use masc_tui::actors::supervisor::{RuntimeConfig, start_runtime};
use masc_tui::outbox::OutboxLocation;
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::{AuthMode, ServeOptions, start};
use masc_tui::view::actor::{ViewArgs, spawn_view};
use masc_tui::view::msg::ViewMsg;
use ratatui::backend::TestBackend;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Requests, 304s and body bytes per route family while `measuring`.
#[derive(Default)]
struct Tally {
    measuring: AtomicBool,
    routes: Mutex<BTreeMap<String, (u64, u64, u64)>>,
}

#[derive(Default)]
struct ReadFields {
    route: String,
    status: u64,
    bytes: u64,
}

impl Visit for ReadFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "route" {
            self.route = value.to_string();
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "status" => self.status = value,
            "bytes" => self.bytes = value,
            _ => {}
        }
    }
    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

struct TallyLayer(Arc<Tally>);

impl<S: tracing::Subscriber> Layer<S> for TallyLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != "masc_tui::request"
            || !self.0.measuring.load(Ordering::SeqCst)
        {
            return;
        }
        let mut fields = ReadFields::default();
        event.record(&mut fields);
        if let Ok(mut routes) = self.0.routes.lock() {
            let entry = routes.entry(fields.route).or_default();
            entry.0 += 1;
            entry.1 += u64::from(fields.status == 304);
            entry.2 += fields.bytes;
        }
    }
}

fn secs_from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that excludes this binary skips it.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| !a.starts_with('-') && !"idle".contains(a.as_str()))
    {
        return;
    }
    // `cargo test --all-targets` (CI) runs this binary without `--bench`: it only had to build.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let window = secs_from_env("IDLE_SECS", 60);
    let settle = secs_from_env("IDLE_SETTLE_SECS", 15);
    let tally = Arc::new(Tally::default());
    let subscriber = tracing_subscriber::registry().with(TallyLayer(tally.clone()));
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let server = start(ServeOptions {
            auth: AuthMode::Token("idle-token".into()),
            data_dir: Some(dir.path().join("data")),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let mut config = ClientConfig::new(server.base_url());
        config.token = TokenSource::Fixed("idle-token".into());
        let client = WorkspaceClient::new(config).unwrap();
        let inboxes = Inboxes::new();
        let mut view_args = ViewArgs::new(TestBackend::new(200, 60));
        view_args.inboxes = inboxes.clone();
        let (view, view_done) = spawn_view(view_args).await.unwrap();
        let sink: Arc<dyn EventSink> = Arc::new(view.clone());
        let runtime = start_runtime(
            client,
            sink,
            inboxes,
            RuntimeConfig {
                expected_base: Some(server.base_path()),
                outbox: OutboxLocation::File(dir.path().join("outbox.sqlite3")),
                ..RuntimeConfig::default()
            },
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_secs(settle)).await;
        tally.measuring.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(window)).await;
        tally.measuring.store(false, Ordering::SeqCst);
        runtime.stop().await;
        let _ = view.cast(ViewMsg::Shutdown);
        let _ = view_done.await;
        server.shutdown().await;
    });

    let routes = tally.routes.lock().unwrap();
    let per_minute = |n: u64| n as f64 * 60.0 / window as f64;
    let requests: u64 = routes.values().map(|r| r.0).sum();
    let bytes: u64 = routes.values().map(|r| r.2).sum();
    println!(
        "idle {window} s (after {settle} s settle), demo seed, Keepers screen: \
         {:.1} requests/min, {:.0} body bytes/min",
        per_minute(requests),
        per_minute(bytes)
    );
    for (route, (n, not_modified, b)) in routes.iter() {
        println!(
            "  {route:<28} {:>6.1} req/min  {:>5.1} of them 304  {:>8.0} B/min",
            per_minute(*n),
            per_minute(*not_modified),
            per_minute(*b)
        );
    }
}
