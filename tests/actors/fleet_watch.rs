//! The fleet watch against the embedded server (docs/audits/workspaces.md): each round's counts
//! are read under the root its own `/health` served (G-6, G-9), every failure is its count's
//! (never a `0`), and a round costs five requests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::plan;
use masc_tui::actors::contract::{EventSink, Inboxes, SlotEvent, SourceEvent, Ticket};
use masc_tui::actors::fleet::supervisor::{FleetConfig, FleetHandle, start_fleet};
use masc_tui::actors::fleet::{
    FleetConnection, FleetCount, FleetLine, FleetName, FleetObservation, FleetSlot, WatchTarget,
};
use masc_tui::actors::supervisor::RestartPolicy;
use masc_tui::protocol::client::{ClientConfig, ErrorClass, TokenSource};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{RunningServer, ServeOptions, start};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

struct Fleet {
    handle: FleetHandle,
    events: mpsc::UnboundedReceiver<SourceEvent>,
    inboxes: Inboxes,
}

impl Fleet {
    /// The next line posted (any workspace).
    async fn next_line(&mut self) -> (Ticket<FleetSlot>, FleetLine) {
        let inbox = self.inboxes.get::<FleetSlot, FleetObservation>();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv())
                .await
                .expect("a fleet line within 20 s")
                .expect("the fleet is running");
            if let SourceEvent::Delivered { upto, .. } = event {
                for e in inbox.drain_upto(upto) {
                    if let SlotEvent::Observed(ticket, FleetObservation(line)) = e {
                        return (ticket, line);
                    }
                }
            }
        }
    }
}

fn target(name: &str, server: &RunningServer) -> WatchTarget {
    let mut client = ClientConfig::new(server.base_url());
    client.token = server.token().map_or(TokenSource::None, TokenSource::Fixed);
    WatchTarget {
        name: FleetName(name.into()),
        client,
        expected_base: Some(server.base_path()),
        colour: None,
        refused: None,
    }
}

async fn watch(targets: Vec<WatchTarget>, period: Duration) -> Fleet {
    let (tx, events) = mpsc::unbounded_channel();
    let inboxes = Inboxes::new();
    let cfg = FleetConfig {
        targets,
        period,
        active: None,
        active_period: period,
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        },
        fault_drills: true,
    };
    let sink: Arc<dyn EventSink> = Arc::new(tx);
    let handle = start_fleet(cfg, sink, inboxes.clone()).await.unwrap();
    Fleet {
        handle,
        events,
        inboxes,
    }
}

async fn server(faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        faults,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

const HOUR: Duration = Duration::from_secs(3600);

#[tokio::test]
async fn g9_a_round_counts_under_the_root_its_own_health_served() {
    let server = server(FaultPlan::none()).await;
    let mut fleet = watch(vec![target("seeded", &server)], HOUR).await;
    let (ticket, line) = fleet.next_line().await;
    assert_eq!(ticket.slot, FleetSlot::Line(FleetName("seeded".into())));
    let Some(root) = line.connection.root() else {
        panic!("not connected: {:?}", line.connection);
    };
    assert_eq!(root.0, server.masc_root());
    // The ticket names the root the counts were read under (what the view admits by).
    assert_eq!(ticket.scope.workspace, *root);
    // The seed: juno in error, held tool calls at the Gate.
    assert!(
        matches!(line.keepers_in_error, FleetCount::Count(n) if n >= 1),
        "{line:?}"
    );
    assert!(
        matches!(line.gate_items, FleetCount::Count(n) if n >= 1),
        "{line:?}"
    );
    assert!(matches!(line.approvals, FleetCount::Count(_)), "{line:?}");
    assert!(matches!(line.asks, FleetCount::Count(_)), "{line:?}");
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn g9_counts_answered_for_another_root_are_failures_never_counts() {
    let rule = r#"{"match":{"method":"GET","path":"/api/v1/*"},"fault":{"receipt":"wrong"}}"#;
    let server = server(plan(rule)).await;
    let mut fleet = watch(vec![target("moved", &server)], HOUR).await;
    let (_, line) = fleet.next_line().await;
    assert!(line.connection.root().is_some());
    for count in line.counts() {
        assert_eq!(
            count,
            FleetCount::Failed(ErrorClass::ReceiptMismatch),
            "{line:?}"
        );
    }
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_down_workspace_is_unreachable_and_nothing_is_counted() {
    // A port nothing listens on: bind one, note it, free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = WatchTarget {
        name: FleetName("down".into()),
        client: ClientConfig::new(format!("http://127.0.0.1:{port}")),
        expected_base: None,
        colour: None,
        refused: None,
    };
    let mut fleet = watch(vec![target], HOUR).await;
    let (ticket, line) = fleet.next_line().await;
    assert_eq!(
        line.connection,
        FleetConnection::Unreachable {
            class: ErrorClass::Transport
        }
    );
    assert_eq!(line.counts(), [FleetCount::NotRead; 4]);
    assert!(ticket.scope.workspace.0.is_empty());
    fleet.handle.stop().await;
}

#[tokio::test]
async fn a_refused_token_fails_every_count_and_says_so() {
    let server = server(FaultPlan::none()).await;
    let mut target = target("wrong-token", &server);
    target.client.token = TokenSource::Fixed("not-the-token".into());
    let mut fleet = watch(vec![target], HOUR).await;
    let (_, line) = fleet.next_line().await;
    // `/health` needs no token: the identity is read, the counts are refused.
    assert!(line.connection.root().is_some(), "{line:?}");
    assert_eq!(
        line.refused(),
        Some(ErrorClass::Unauthorized(401)),
        "{line:?}"
    );
    assert_eq!(
        line.keepers_in_error,
        FleetCount::Failed(ErrorClass::Unauthorized(401)),
        "a refused count is never a 0"
    );
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_slow_and_a_malformed_read_fail_only_their_own_counts() {
    let rules = [
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/asks"},"fault":{"delay_ms":1500}}"#,
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"malformed":true}}"#,
    ]
    .join(",");
    let server = server(plan(&rules)).await;
    let mut target = target("flaky", &server);
    target.client.request_timeout = Duration::from_millis(400);
    let mut fleet = watch(vec![target], HOUR).await;
    let (_, line) = fleet.next_line().await;
    assert_eq!(
        line.asks,
        FleetCount::Failed(ErrorClass::Timeout),
        "{line:?}"
    );
    assert!(
        matches!(
            line.keepers_in_error,
            FleetCount::Failed(ErrorClass::Decode(_))
        ),
        "{line:?}"
    );
    assert!(matches!(line.gate_items, FleetCount::Count(_)), "{line:?}");
    assert!(matches!(line.approvals, FleetCount::Count(_)), "{line:?}");
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_mismatched_base_reads_no_count() {
    let server = server(FaultPlan::none()).await;
    let mut target = target("elsewhere", &server);
    target.expected_base = Some("/srv/some-other-workspace".into());
    let mut fleet = watch(vec![target], HOUR).await;
    let (_, line) = fleet.next_line().await;
    assert!(
        matches!(line.connection, FleetConnection::Mismatch { .. }),
        "{line:?}"
    );
    assert_eq!(server.request_count("GET", "/api/v1/gate/keepers"), 0);
    assert_eq!(server.request_count("GET", "/api/v1/keepers/asks"), 0);
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_round_costs_five_requests_and_rounds_never_overlap() {
    let server = server(FaultPlan::none()).await;
    let mut fleet = watch(vec![target("counted", &server)], Duration::from_millis(30)).await;
    let mut rounds = Vec::new();
    for _ in 0..3 {
        rounds.push(fleet.next_line().await.0.generation);
    }
    fleet.handle.stop().await;
    assert!(rounds.windows(2).all(|w| w[0] < w[1]), "{rounds:?}");
    let counted = [
        "/health",
        "/api/v1/gate/keepers",
        "/api/v1/operator",
        "/api/v1/keepers/tool-approvals",
        "/api/v1/keepers/asks",
    ]
    .map(|path| server.request_count("GET", path));
    // Each path once per round (a round may have started before the stop: at most one more).
    let total: usize = counted.iter().sum();
    assert!(
        counted.iter().all(|&n| n == counted[0]),
        "one request per path per round: {counted:?}"
    );
    assert!((15..=20).contains(&total), "{counted:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn g6_a_watch_that_panics_is_restarted_and_its_rounds_keep_rising() {
    let server = server(FaultPlan::none()).await;
    let name = FleetName("drilled".into());
    let mut fleet = watch(vec![target("drilled", &server)], HOUR).await;
    let (first, _) = fleet.next_line().await;
    fleet.handle.inject_panic(&name);
    let (second, line) = fleet.next_line().await;
    assert!(second.generation > first.generation);
    assert!(line.connection.root().is_some());
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_refused_configuration_is_said_once_and_nothing_is_sent() {
    let server = server(FaultPlan::none()).await;
    let mut target = target("exposed", &server);
    target.refused = Some("token file readable by others (mode 644): chmod 600 x".into());
    let mut fleet = watch(vec![target], Duration::from_millis(10)).await;
    let (_, line) = fleet.next_line().await;
    assert!(
        matches!(&line.connection, FleetConnection::Refused { reason } if reason.contains("chmod 600")),
        "{line:?}"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.request_count("GET", "/health"), 0);
    fleet.handle.stop().await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_sessions_own_workspace_is_watched_at_its_slower_period() {
    let server = server(FaultPlan::none()).await;
    let (tx, events) = mpsc::unbounded_channel();
    let inboxes = Inboxes::new();
    let cfg = FleetConfig {
        targets: vec![target("own", &server), target("hidden", &server)],
        period: Duration::from_millis(30),
        active: Some(FleetName("own".into())),
        active_period: HOUR,
        restart: RestartPolicy::default(),
        fault_drills: false,
    };
    let sink: Arc<dyn EventSink> = Arc::new(tx);
    let handle = start_fleet(cfg, sink, inboxes.clone()).await.unwrap();
    let mut fleet = Fleet {
        handle,
        events,
        inboxes,
    };
    let mut rounds = std::collections::HashMap::<String, u32>::new();
    while rounds.get("hidden").copied().unwrap_or(0) < 4 {
        let (ticket, _) = fleet.next_line().await;
        *rounds.entry(ticket.slot.name().0.clone()).or_default() += 1;
    }
    assert_eq!(rounds.get("own"), Some(&1), "{rounds:?}");
    fleet.handle.stop().await;
    server.shutdown().await;
}
