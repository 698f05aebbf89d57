//! OpenTelemetry export of the stage timeline (`--otlp URL`): every read and save ticket
//! becomes a span from its dispatch to its admission, rejection or retirement, with the stage
//! events as span events, sent over OTLP/HTTP (protobuf) to a collector (Jaeger, Grafana
//! Tempo, an OpenTelemetry Collector).
//!
//! How it stays off the actors' and the view's way:
//! - [`OtlpLayer`] (in the global subscriber) copies each stage event into a bounded queue with
//!   `try_send` and returns; a full queue drops the record and counts it (never blocks).
//! - One exporter thread folds the records into tickets ([`super::tickets::TicketFold`]) and
//!   builds the spans through `tracing-opentelemetry` on a private subscriber (never the
//!   global one), so the SDK's batch processor (its own bounded queue and thread) and the
//!   OTLP HTTP client do all network work off every actor.
//! - An unreachable or failing collector costs dropped spans only; the first failed export is
//!   reported once (a `masc_tui::otlp` warning in the trace file), and again only after an
//!   export has succeeded in between.
//!
//! Span times: the span starts and ends when the exporter thread handles the dispatch and the
//! end (one queue hop after the event); the span events carry the stage's own time, and
//! `dispatch_to_end_us` the exact duration from the stage times.

use super::record::{StageRecord, now_us};
use super::stage::{Stage, TARGET};
use super::tickets::{Folded, TicketFold, TicketInterval, TicketKey, ticket_kind};
use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider, SpanData, SpanExporter,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, SystemTime};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// Stage records waiting for the exporter thread; past this they are dropped and counted.
pub const QUEUE_CAPACITY: usize = 4096;
/// Spans waiting in the SDK's batch processor for the collector.
const SPAN_QUEUE_CAPACITY: usize = 2048;
/// Tickets held open at once; past this the oldest is ended as unfinished.
const OPEN_TICKETS: usize = 1024;
/// One export's bound, so a collector that accepts and never answers holds nothing for long.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long shutting down waits for the last spans to leave.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(1);

/// Setting up the export failed (a malformed URL, or the exporter could not be built).
#[derive(Debug, thiserror::Error)]
pub enum OtlpError {
    #[error("--otlp wants an http:// URL of an OTLP/HTTP collector, got {0:?}")]
    Url(String),
    #[error("cannot build the OTLP exporter: {0}")]
    Exporter(String),
    #[error("cannot start the OTLP exporter thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// The collector's traces endpoint for `url`: a URL without a path gets OTLP/HTTP's
/// `/v1/traces`; one with a path is used as given.
pub fn traces_endpoint(url: &str) -> Result<String, OtlpError> {
    let trimmed = url.trim();
    let Some(rest) = trimmed.strip_prefix("http://") else {
        return Err(OtlpError::Url(url.to_string()));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty()
        || authority
            .chars()
            .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(OtlpError::Url(url.to_string()));
    }
    if path.is_empty() || path == "/" {
        Ok(format!("http://{authority}/v1/traces"))
    } else {
        Ok(trimmed.to_string())
    }
}

/// Where the export's own troubles are told (once per outage, see the module docs).
pub type Reporter = Arc<dyn Fn(&str) + Send + Sync>;

/// Reports through `tracing` (the trace file) at WARN.
pub fn trace_file_reporter() -> Reporter {
    Arc::new(|text: &str| {
        tracing::warn!(target: "masc_tui::otlp", "{text}");
    })
}

/// Wraps the OTLP exporter: reports the first failed export of an outage, once.
#[derive(Debug)]
struct ReportingExporter<E> {
    inner: E,
    failing: Arc<AtomicBool>,
    report: ReporterBox,
}

/// `Reporter` with a `Debug` the SDK's exporter trait wants.
#[derive(Clone)]
struct ReporterBox(Reporter);

impl std::fmt::Debug for ReporterBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reporter")
    }
}

impl<E: SpanExporter> SpanExporter for ReportingExporter<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        match &result {
            Err(err) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    (self.report.0)(&format!(
                        "OTLP export failed ({err}); {spans} spans dropped, and spans are dropped until the collector answers (told once)"
                    ));
                }
            }
            Ok(()) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    (self.report.0)("OTLP export recovered");
                }
            }
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

enum Msg {
    Record(StageRecord),
    /// Hand every finished span to the exporter now, then answer.
    Flush(std::sync::mpsc::Sender<()>),
    /// Look at the stop flag: a stop must not wait on a flush to a collector that is gone.
    Wake,
}

/// The tracing layer: stage events into the exporter's queue.
pub struct OtlpLayer {
    queue: SyncSender<Msg>,
    dropped: Arc<AtomicU64>,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for OtlpLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != TARGET {
            return;
        }
        let Some(record) = StageRecord::from_event(event, now_us(), None) else {
            return;
        };
        if let Err(TrySendError::Full(_)) = self.queue.try_send(Msg::Record(record)) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The running export: stops, flushes and joins the exporter thread when dropped.
pub struct OtlpExport {
    queue: SyncSender<Msg>,
    stopping: Arc<AtomicBool>,
    dropped: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OtlpExport {
    /// Stage records dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every record queued so far has been folded and every finished span handed
    /// to the collector (or the export failed). Bounded by the export timeout.
    pub fn flush(&self) {
        let (tx, rx) = std::sync::mpsc::channel();
        if self.queue.send(Msg::Flush(tx)).is_ok() {
            let _ = rx.recv_timeout(EXPORT_TIMEOUT + SHUTDOWN_TIMEOUT);
        }
    }

    /// Ends the open tickets as unfinished, sends what is left and stops the thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.stopping.store(true, Ordering::Relaxed);
        // Wakes the thread if it waits on an empty queue; a full queue wakes it anyway.
        let _ = self.queue.try_send(Msg::Wake);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for OtlpExport {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts the export to `url` (see [`traces_endpoint`]); returns the layer for the subscriber
/// and the handle that stops it.
pub fn start(url: &str, report: Reporter) -> Result<(OtlpLayer, OtlpExport), OtlpError> {
    start_with_capacity(url, report, QUEUE_CAPACITY)
}

fn start_with_capacity(
    url: &str,
    report: Reporter,
    capacity: usize,
) -> Result<(OtlpLayer, OtlpExport), OtlpError> {
    use opentelemetry_otlp::WithExportConfig;
    let endpoint = traces_endpoint(url)?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .with_endpoint(endpoint)
        .with_timeout(EXPORT_TIMEOUT)
        .build()
        .map_err(|e| OtlpError::Exporter(e.to_string()))?;
    let exporter = ReportingExporter {
        inner: exporter,
        failing: Arc::new(AtomicBool::new(false)),
        report: ReporterBox(report),
    };
    let processor = BatchSpanProcessor::builder(exporter)
        .with_batch_config(
            BatchConfigBuilder::default()
                .with_max_queue_size(SPAN_QUEUE_CAPACITY)
                .build(),
        )
        .build();
    let provider = SdkTracerProvider::builder()
        .with_span_processor(processor)
        .with_resource(
            opentelemetry_sdk::Resource::builder()
                .with_service_name("masc-tui")
                .build(),
        )
        .build();
    let (queue, inbox) = sync_channel(capacity);
    let stopping = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicU64::new(0));
    let thread = {
        let stopping = Arc::clone(&stopping);
        std::thread::Builder::new()
            .name("masc-tui-otlp".into())
            .spawn(move || Exporter::new(provider).run(&inbox, &stopping))?
    };
    Ok((
        OtlpLayer {
            queue: queue.clone(),
            dropped: Arc::clone(&dropped),
        },
        OtlpExport {
            queue,
            stopping,
            dropped,
            thread: Some(thread),
        },
    ))
}

/// OTLP integers are signed; tracing-opentelemetry writes a `u64` as text.
fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The exporter thread's state: the fold, the open spans, the private subscriber.
struct Exporter {
    provider: SdkTracerProvider,
    dispatch: tracing::Dispatch,
    fold: TicketFold,
    spans: HashMap<TicketKey, tracing::Span>,
    /// `ts_us` 0 as wall-clock time: stage times become span event timestamps.
    origin: SystemTime,
}

impl Exporter {
    fn new(provider: SdkTracerProvider) -> Self {
        let tracer = provider.tracer("masc-tui");
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_location(false)
            .with_threads(false)
            .with_target(false)
            .with_tracked_inactivity(false);
        let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
        let origin = SystemTime::now()
            .checked_sub(Duration::from_micros(now_us()))
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Self {
            provider,
            dispatch,
            fold: TicketFold::new(),
            spans: HashMap::new(),
            origin,
        }
    }

    fn run(mut self, inbox: &Receiver<Msg>, stopping: &AtomicBool) {
        while let Ok(msg) = inbox.recv() {
            self.handle(msg);
            if stopping.load(Ordering::Relaxed) {
                break;
            }
        }
        while let Ok(msg) = inbox.try_recv() {
            self.handle(msg);
        }
        for ticket in self.fold.drain_unfinished() {
            self.close(&ticket);
        }
        let _ = self.provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT);
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Record(record) => self.record(&record),
            Msg::Flush(done) => {
                let _ = self.provider.force_flush();
                let _ = done.send(());
            }
            Msg::Wake => {}
        }
    }

    fn at(&self, ts_us: u64) -> SystemTime {
        self.origin + Duration::from_micros(ts_us)
    }

    fn record(&mut self, r: &StageRecord) {
        match self.fold.push(r) {
            Folded::Opened(key) => {
                if self.fold.open_count() > OPEN_TICKETS
                    && let Some(oldest) = self.fold.evict_oldest()
                {
                    self.close(&oldest);
                }
                let span = tracing::dispatcher::with_default(&self.dispatch, || {
                    let kind = ticket_kind(&key.source);
                    tracing::info_span!(
                        target: "masc_tui::otlp",
                        "ticket",
                        otel.name = %format_args!("{kind} {}", key.source),
                        source = %key.source,
                        kind = kind,
                        ticket = as_i64(key.generation),
                        epoch = r.epoch.map(as_i64),
                        workspace = r.workspace.as_deref(),
                        outcome = tracing::field::Empty,
                        reason = tracing::field::Empty,
                        failure_class = tracing::field::Empty,
                        dispatch_to_end_us = tracing::field::Empty,
                        otel.status_code = tracing::field::Empty,
                    )
                });
                self.event(&span, r);
                self.spans.insert(key, span);
            }
            Folded::Stage(key) => {
                if let Some(span) = self.spans.get(&key) {
                    self.event(span, r);
                }
            }
            Folded::Closed(ticket) => {
                if let Some(span) = self.spans.get(&ticket.key) {
                    self.event(span, r);
                }
                self.close(&ticket);
            }
            Folded::Loose => self.loose(r),
        }
    }

    fn event(&self, span: &tracing::Span, r: &StageRecord) {
        let mut attributes = Vec::new();
        if let Some(reason) = &r.reason {
            attributes.push(KeyValue::new("reason", reason.clone()));
        }
        if let Some(outcome) = &r.outcome {
            attributes.push(KeyValue::new("outcome", outcome.clone()));
        }
        span.add_event_with_timestamp(r.stage.clone(), self.at(r.ts_us), attributes);
    }

    /// Ends the span of `ticket` with its outcome.
    fn close(&mut self, ticket: &TicketInterval) {
        let Some(span) = self.spans.remove(&ticket.key) else {
            return;
        };
        span.record("outcome", ticket.ending.outcome());
        if let Some(reason) = ticket.ending.reason() {
            span.record("reason", reason);
        }
        if let Some(class) = &ticket.failure_class {
            span.record("failure_class", class.as_str());
            span.record("otel.status_code", "ERROR");
        }
        if let Some(end) = ticket.end_us {
            span.record(
                "dispatch_to_end_us",
                as_i64(end.saturating_sub(ticket.dispatch_us)),
            );
        }
        drop(span);
    }

    /// A per-source event (refused demand, restart) as a span of its own.
    fn loose(&self, r: &StageRecord) {
        let Some(stage) =
            Stage::parse(&r.stage).filter(|s| matches!(s, Stage::Refused | Stage::Restart))
        else {
            return;
        };
        let span = tracing::dispatcher::with_default(&self.dispatch, || {
            tracing::info_span!(
                target: "masc_tui::otlp",
                "source_event",
                otel.name = %format_args!("{} {}", stage.as_str(), r.source),
                source = %r.source,
                reason = r.reason.as_deref(),
            )
        });
        self.event(&span, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ticket(u64);

    impl super::super::stage::StageTicket for Ticket {
        fn stage_source(&self) -> String {
            "s".into()
        }
        fn stage_generation(&self) -> u64 {
            self.0
        }
        fn stage_epoch(&self) -> u64 {
            1
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        // No exporter thread drains this queue of one.
        let (queue, _inbox) = sync_channel(1);
        let dropped = Arc::new(AtomicU64::new(0));
        let layer = OtlpLayer {
            queue,
            dropped: Arc::clone(&dropped),
        };
        let _g = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        for g in 0..3 {
            super::super::stage::dispatch(&Ticket(g));
        }
        tracing::info!(target: "masc_tui::other", "not a stage event");
        assert_eq!(dropped.load(Ordering::Relaxed), 2);
    }
}
