//! The doctor against the embedded server: served, not served, faulted and older releases.

use super::*;
use crate::protocol::routes::RouteFamily;
use crate::server::compat::MascRelease;
use crate::server::faults::{Fault, FaultPlan, FaultRule, When};
use crate::server::{AuthMode, RunningServer, ServeOptions, start};
use serde_json::json;

const TOKEN: &str = "doctor-token";

async fn server(
    compat: Option<MascRelease>,
    no_receipts: bool,
    faults: FaultPlan,
) -> RunningServer {
    start(ServeOptions {
        auth: AuthMode::Token(TOKEN.into()),
        compat,
        legacy_no_receipts: no_receipts,
        faults,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

fn config(s: &RunningServer, token: &str) -> DoctorConfig {
    DoctorConfig {
        base_url: s.base_url(),
        token: TokenSource::Fixed(token.into()),
        expected_base: Some(s.base_path()),
        timeout: Duration::from_secs(10),
    }
}

/// The routes the report judged not served, in probe order.
fn not_served(report: &Report) -> Vec<&'static str> {
    report
        .routes
        .iter()
        .filter(|r| r.result == RouteResult::NotServed)
        .map(|r| r.route)
        .collect()
}

fn result(report: &Report, family: RouteFamily) -> RouteResult {
    report
        .route(family)
        .map(|r| r.result)
        .unwrap_or(RouteResult::NotProbed)
}

fn rule(path: &str, fault: Fault) -> FaultRule {
    FaultRule::new("GET", path, When::Every { every: true }, fault)
}

/// The current embedded server: receipt mode, every route served and decoding, ETags
/// revalidate with 304 and the receipt; the auth class shows without a token.
#[tokio::test]
async fn doctor_on_the_current_embedded_server_every_route_decodes_exit_0() {
    let s = server(None, false, FaultPlan::none()).await;
    let report = diagnose(config(&s, TOKEN)).await;
    assert_eq!(report.exit_code, 0, "{}", render_text(&report));
    assert_eq!(report.admission, Some("receipts"));
    assert_eq!(report.identity.as_ref().map(|i| i.verdict), Some("match"));
    assert_eq!(report.health.commit_field, Some("build.commit"));
    assert_eq!(report.summary.not_served, 0);
    assert_eq!(report.summary.decodes, report.routes.len() - 2);
    for family in [RouteFamily::ChatOperation, RouteFamily::ChatEvents] {
        assert_eq!(
            result(&report, family),
            RouteResult::ObjectNotFound,
            "{family:?}"
        );
    }
    assert!(
        report.release.starts_with("the embedded server"),
        "{}",
        report.release
    );
    let transcript = report.route(RouteFamily::TurnTranscript).unwrap();
    assert_eq!(transcript.shape, "masc-tui version 2 (extension)");
    let roster = report.route(RouteFamily::Roster).unwrap();
    assert_eq!(roster.receipt.as_deref(), Some("present"));
    assert_eq!(roster.etag.as_deref(), Some("304"));
    assert_eq!(roster.auth, "operator");
    assert_eq!(roster.without_token.as_deref(), Some("401"));
    let board = report.route(RouteFamily::Board).unwrap();
    assert_eq!(board.without_token.as_deref(), Some("200"));
    s.shutdown().await;
}

/// MASC v0.24.0 (`--compat`): health mode, the seven extension and newer routes not served,
/// everything served decodes — exit 0.
#[tokio::test]
async fn doctor_on_masc_v0_24_0_names_the_routes_it_does_not_serve_exit_0() {
    let s = server(Some(MascRelease::V0_24_0), false, FaultPlan::none()).await;
    let report = diagnose(config(&s, TOKEN)).await;
    assert_eq!(report.exit_code, 0, "{}", render_text(&report));
    assert_eq!(report.admission, Some("health"));
    assert_eq!(report.health.version.as_deref(), Some("0.24.0"));
    assert_eq!(report.health.commit.as_deref(), Some("e2bb55f793"));
    let not_served = not_served(&report);
    assert_eq!(
        not_served,
        vec![
            "chat_events",
            "task_list",
            "task_detail",
            "task_history_page",
            "skills",
            "async_requests",
            "connector_names",
            "asks"
        ]
    );
    assert_eq!(
        result(&report, RouteFamily::TaskHistoryLegacy),
        RouteResult::Decodes
    );
    assert_eq!(
        result(&report, RouteFamily::RuntimeResolved),
        RouteResult::Decodes
    );
    assert!(
        report
            .route(RouteFamily::RuntimeResolved)
            .is_some_and(|r| r.detail.contains("usage not sent by this release"))
    );
    assert!(
        report
            .routes
            .iter()
            .all(|r| r.receipt.as_deref() != Some("present"))
    );
    s.shutdown().await;
}

/// `--legacy-no-receipts`: the current routes in health mode.
#[tokio::test]
async fn doctor_on_a_server_without_receipts_reports_health_mode_exit_0() {
    let s = server(None, true, FaultPlan::none()).await;
    let report = diagnose(config(&s, TOKEN)).await;
    assert_eq!(report.exit_code, 0, "{}", render_text(&report));
    assert_eq!(report.admission, Some("health"));
    assert_eq!(report.summary.not_served, 0);
    s.shutdown().await;
}

/// Fault plans: a route answering MASC's plain-text 404 is not served (not a failure); a
/// malformed body and a body missing a field fail to decode with the JSON path of the
/// first failure (exit 1); a slow route still decodes; a 500 with control bytes in its
/// body is reported sanitised.
#[tokio::test]
async fn doctor_under_faults_judges_each_route_alone_and_exits_1() {
    let plan = FaultPlan {
        rules: vec![
            rule(
                "/api/v1/dashboard/planning",
                Fault::Status {
                    status: 404,
                    body: Some(json!("404 Not Found")),
                },
            ),
            rule(
                "/api/v1/runtime/resolved",
                Fault::Malformed { malformed: true },
            ),
            rule(
                "/api/v1/dashboard/tools",
                Fault::Status {
                    status: 200,
                    body: Some(
                        json!({"generated_at":"x","tool_inventory":{"tools":[],"surface_summary":{}},"tool_usage":{}}),
                    ),
                },
            ),
            rule("/api/v1/board/hearths", Fault::Delay { delay_ms: 300 }),
            rule(
                "/api/v1/gate/connectors",
                Fault::Status {
                    status: 500,
                    body: Some(json!("\u{1b}[31mboom\u{202e}")),
                },
            ),
        ],
    };
    let s = server(None, false, plan).await;
    let report = diagnose(config(&s, TOKEN)).await;
    let text = render_text(&report);
    assert_eq!(report.exit_code, 1, "{text}");
    assert_eq!(
        result(&report, RouteFamily::Planning),
        RouteResult::NotServed
    );
    assert_eq!(
        result(&report, RouteFamily::GoalDetail),
        RouteResult::NotProbed,
        "no goal id without planning"
    );
    let runtime = report.route(RouteFamily::RuntimeResolved).unwrap();
    assert_eq!(runtime.result, RouteResult::FailsToDecode);
    assert_eq!(
        runtime.decode_error.as_ref().map(|e| e.reason.as_str()),
        Some("syntax")
    );
    let tools = report.route(RouteFamily::ToolsInventory).unwrap();
    assert_eq!(tools.result, RouteResult::FailsToDecode);
    let failure = tools.decode_error.as_ref().unwrap();
    assert_eq!(
        (failure.reason.as_str(), failure.path.as_str()),
        ("missing_field", ".tool_inventory")
    );
    assert_eq!(
        result(&report, RouteFamily::BoardHearths),
        RouteResult::Decodes
    );
    let connectors = report.route(RouteFamily::Connectors).unwrap();
    assert_eq!(connectors.result, RouteResult::Failed);
    assert!(connectors.detail.contains("HTTP 500"));
    for out in [text.as_str(), &serde_json::to_string(&report).unwrap()] {
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{202e}'),
            "unsanitised: {out}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn doctor_exits_2_when_the_token_is_refused() {
    let s = server(None, false, FaultPlan::none()).await;
    let report = diagnose(config(&s, "not-the-token")).await;
    assert_eq!(report.exit_code, 2);
    assert_eq!(
        result(&report, RouteFamily::Roster),
        RouteResult::Unauthorised
    );
    assert!(report.health.reachable, "/health is public");
    s.shutdown().await;
}

#[tokio::test]
async fn doctor_exits_2_when_nothing_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let report = diagnose(DoctorConfig {
        base_url: format!("http://{addr}"),
        token: TokenSource::None,
        expected_base: None,
        timeout: Duration::from_secs(5),
    })
    .await;
    assert_eq!(report.exit_code, 2);
    assert!(!report.health.reachable);
    assert!(report.routes.is_empty(), "nothing is probed past /health");
    assert!(render_text(&report).contains("reachable   no"));
}

#[tokio::test]
async fn doctor_exits_1_when_the_server_serves_another_workspace() {
    let s = server(None, false, FaultPlan::none()).await;
    let mut cfg = config(&s, TOKEN);
    cfg.expected_base = Some("/srv/another-workspace".into());
    let report = diagnose(cfg).await;
    assert_eq!(
        report.identity.as_ref().map(|i| i.verdict),
        Some("mismatch")
    );
    assert_eq!(report.exit_code, 1);
    s.shutdown().await;
}

/// `doctor` against the embedded server playing `release`: exit 0, its release line
/// starting with `named`.
async fn diagnosed(release: MascRelease, named: &str) -> (RunningServer, Report) {
    let s = server(Some(release), false, FaultPlan::none()).await;
    let report = diagnose(config(&s, TOKEN)).await;
    assert_eq!(report.exit_code, 0, "{}", render_text(&report));
    assert!(report.release.starts_with(named), "{}", report.release);
    (s, report)
}

/// `doctor` names for each route which release shape it saw — the release
/// `/health` names, MASC's version-1 turn transcript on every played release, the August
/// store's rows and Candle-less roster on `aug`, the newer routes served (and the extensions
/// absent "as on every MASC") on `newer`.
#[tokio::test]
async fn doctor_names_the_release_shape_of_every_route_on_aug_and_newer() {
    let (s, report) = diagnosed(MascRelease::Aug, "MASC main of 2026-08-23").await;
    let shape = |f: RouteFamily| report.route(f).map(|r| r.shape.clone()).unwrap_or_default();
    assert_eq!(
        shape(RouteFamily::TurnTranscript),
        "MASC version 1 (version=2 ignored)"
    );
    assert_eq!(shape(RouteFamily::Roster), "MASC, August shape (no Candle)");
    assert_eq!(
        shape(RouteFamily::ChatEvents),
        "absent, as on MASC v0.24.0 and Aug (newer MASC serves it)"
    );
    assert_eq!(
        shape(RouteFamily::TaskList),
        "absent, as on every MASC (a masc-tui extension)"
    );
    assert!(render_text(&report).contains("shape: MASC version 1"));
    s.shutdown().await;

    let (s, report) = diagnosed(MascRelease::Newer, "newer MASC").await;
    let shape = |f: RouteFamily| report.route(f).map(|r| r.shape.clone()).unwrap_or_default();
    for f in [
        RouteFamily::Skills,
        RouteFamily::Asks,
        RouteFamily::ConnectorNames,
    ] {
        assert_eq!(result(&report, f), RouteResult::Decodes, "{f:?}");
        assert_eq!(shape(f), "newer MASC", "{f:?}");
    }
    assert_eq!(
        result(&report, RouteFamily::ChatEvents),
        RouteResult::ObjectNotFound
    );
    assert_eq!(
        shape(RouteFamily::TurnTranscript),
        "MASC version 1 (version=2 ignored)"
    );
    let not_served = not_served(&report);
    assert_eq!(
        not_served,
        ["task_list", "task_detail", "task_history_page"]
    );
    s.shutdown().await;
}
