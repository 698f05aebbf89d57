#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! `--otlp URL`: the stage timeline exported as OpenTelemetry spans over OTLP/HTTP (protobuf),
//! received by an in-test collector that decodes every request with `opentelemetry-proto`'s
//! messages (`prost`) and checked span by span (G-1: read-path evidence; G-6 tickets; G-10:
//! the workspace only as its digest).

use masc_tui::actors::contract::Ticket;
use masc_tui::actors::keepers::{KeepersSlot, ROSTER};
use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
use masc_tui::timeline::otlp::{self, Reporter};
use masc_tui::timeline::stage;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use std::sync::{Arc, Mutex};
use tracing_subscriber::layer::SubscriberExt;

/// An OTLP/HTTP collector on loopback: every `POST /v1/traces` body decoded and kept.
struct Collector {
    url: String,
    requests: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Collector {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let requests: Arc<Mutex<Vec<ExportTraceServiceRequest>>> = Arc::default();
        let kept = Arc::clone(&requests);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: bytes::Bytes| {
                let kept = Arc::clone(&kept);
                async move {
                    assert_eq!(headers["content-type"], "application/x-protobuf");
                    let request = ExportTraceServiceRequest::decode(body).unwrap();
                    kept.lock().unwrap().push(request);
                    (
                        [("content-type", "application/x-protobuf")],
                        Vec::<u8>::new(),
                    )
                }
            }),
        );
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            url,
            requests,
            _runtime: runtime,
        }
    }

    fn spans(&self) -> Vec<Span> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .flat_map(|r| &r.resource_spans)
            .flat_map(|rs| &rs.scope_spans)
            .flat_map(|ss| ss.spans.clone())
            .collect()
    }

    fn service_names(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .flat_map(|r| &r.resource_spans)
            .filter_map(|rs| rs.resource.as_ref())
            .filter_map(|res| text(&res.attributes, "service.name"))
            .collect()
    }
}

fn attr<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Any> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attr(attributes, key)? {
        Any::StringValue(s) => Some(s.clone()),
        other => panic!("{key} is not a string: {other:?}"),
    }
}

fn int(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attr(attributes, key)? {
        Any::IntValue(i) => Some(*i),
        other => panic!("{key} is not an integer: {other:?}"),
    }
}

fn ticket(generation: u64) -> Ticket<KeepersSlot> {
    Ticket {
        slot: KeepersSlot::Roster,
        generation,
        scope: ReadScope {
            workspace: WorkspaceId("/w/.masc".into()),
            epoch: 2,
        },
    }
}

fn counting_reporter() -> (Reporter, Arc<Mutex<Vec<String>>>) {
    let told: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept = Arc::clone(&told);
    (
        Arc::new(move |text: &str| kept.lock().unwrap().push(text.to_string())),
        told,
    )
}

#[test]
fn g1_each_ticket_is_a_span_with_its_stage_events_and_outcome() {
    let collector = Collector::start();
    let (reporter, told) = counting_reporter();
    let (layer, export) = otlp::start(&collector.url, reporter).unwrap();
    {
        let _g = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        let admitted = ticket(1);
        stage::dispatch(&admitted);
        stage::worker_enter(&admitted);
        stage::worker_return(&admitted, "timeout");
        stage::observe(&admitted, "timeout");
        stage::admit(&admitted);
        let rejected = ticket(2);
        stage::dispatch(&rejected);
        stage::worker_return(&rejected, "ok");
        stage::reject(&rejected, "stale_epoch");
        let unfinished = ticket(3);
        stage::dispatch(&unfinished);
        stage::refused(&ROSTER, "no_epoch");
        // Not a stage event: never exported.
        tracing::info!(target: "masc_tui::other", "plain event");
    }
    export.shutdown();
    assert!(
        told.lock().unwrap().is_empty(),
        "{:?}",
        told.lock().unwrap()
    );
    assert!(collector.service_names().iter().all(|n| n == "masc-tui"));
    let spans = collector.spans();
    let by_ticket = |g: i64| {
        spans
            .iter()
            .find(|s| int(&s.attributes, "ticket") == Some(g))
            .unwrap_or_else(|| panic!("no span for ticket {g} in {spans:#?}"))
    };
    let digest = stage::workspace_digest("/w/.masc");

    let s1 = by_ticket(1);
    assert_eq!(s1.name, "read keepers_roster");
    assert_eq!(
        text(&s1.attributes, "source").as_deref(),
        Some("keepers_roster")
    );
    assert_eq!(text(&s1.attributes, "workspace"), Some(digest.clone()));
    assert_eq!(int(&s1.attributes, "epoch"), Some(2));
    assert_eq!(text(&s1.attributes, "outcome").as_deref(), Some("admitted"));
    assert_eq!(
        text(&s1.attributes, "failure_class").as_deref(),
        Some("timeout")
    );
    let names: Vec<&str> = s1.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "admit"
        ]
    );
    // Stage times, in order, on the events.
    assert!(
        s1.events
            .windows(2)
            .all(|w| w[0].time_unix_nano <= w[1].time_unix_nano)
    );
    assert_eq!(
        text(&s1.events[2].attributes, "outcome").as_deref(),
        Some("timeout")
    );
    assert!(s1.end_time_unix_nano >= s1.start_time_unix_nano);
    assert!(int(&s1.attributes, "dispatch_to_end_us").is_some());

    let s2 = by_ticket(2);
    assert_eq!(text(&s2.attributes, "outcome").as_deref(), Some("rejected"));
    assert_eq!(
        text(&s2.attributes, "reason").as_deref(),
        Some("stale_epoch")
    );
    assert_eq!(text(&s2.attributes, "failure_class"), None);
    assert_eq!(
        text(&s2.events.last().unwrap().attributes, "reason").as_deref(),
        Some("stale_epoch")
    );
    // Open when the export stopped: ended as unfinished, never dropped.
    assert_eq!(
        text(&by_ticket(3).attributes, "outcome").as_deref(),
        Some("unfinished")
    );
    let refused = spans
        .iter()
        .find(|s| s.name == "refused keepers_roster")
        .expect("the refused demand as a span of its own");
    assert_eq!(
        text(&refused.attributes, "reason").as_deref(),
        Some("no_epoch")
    );
    assert_eq!(spans.len(), 4, "{spans:#?}");
    // No path anywhere in what left the process (G-10).
    let raw: Vec<u8> = collector
        .requests
        .lock()
        .unwrap()
        .iter()
        .flat_map(Message::encode_to_vec)
        .collect();
    assert!(!raw.windows(8).any(|w| w == b"/w/.masc"));
}

#[test]
fn an_unreachable_collector_is_reported_once_and_nothing_waits_on_it() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (reporter, told) = counting_reporter();
    let (layer, export) = otlp::start(&format!("http://127.0.0.1:{port}"), reporter).unwrap();
    let _g = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    for round in 0..3u64 {
        for g in 0..10 {
            let t = ticket(round * 100 + g);
            stage::dispatch(&t);
            stage::admit(&t);
        }
        // Three failed exports.
        export.flush();
    }
    export.shutdown();
    let told = told.lock().unwrap();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("OTLP export failed"), "{told:?}");
}

#[test]
fn a_url_without_a_path_gets_the_traces_path() {
    assert_eq!(
        otlp::traces_endpoint("http://localhost:4318").unwrap(),
        "http://localhost:4318/v1/traces"
    );
    assert_eq!(
        otlp::traces_endpoint("http://localhost:4318/").unwrap(),
        "http://localhost:4318/v1/traces"
    );
    assert_eq!(
        otlp::traces_endpoint("http://collector:4318/custom/traces").unwrap(),
        "http://collector:4318/custom/traces"
    );
    assert!(otlp::traces_endpoint("localhost:4318").is_err());
    assert!(otlp::traces_endpoint("https://collector:4318").is_err());
    assert!(otlp::traces_endpoint("http://").is_err());
}
