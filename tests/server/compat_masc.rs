//! The embedded server playing MASC v0.24.0, read through the REAL admitted client: the
//! extension and newer routes answer MASC's unknown-route 404 and the client records them
//! "not served" without asking again; the older shapes decode with only their missing parts
//! unavailable; a cancelled and a failed chat turn settle through their `Failed` record with
//! `outcome_ref: null`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use masc_tui::protocol::chat::{
    ChatOperationRecord, ChatStreamOutcome, ChatStreamValidator, OperationProgress,
};
use masc_tui::protocol::client::{ClientConfig, ClientError, TokenSource, WorkspaceClient};
use masc_tui::protocol::decode::SinceRelease;
use masc_tui::protocol::health::{CommitField, IdentityVerdict, judge_identity};
use masc_tui::protocol::keepers::KeeperRoster;
use masc_tui::protocol::routes::{Capability, RouteFamily};
use masc_tui::protocol::runtime::RuntimeResolved;
use masc_tui::protocol::tasks::TaskList;
use masc_tui::protocol::tools::ToolsInventoryRead;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::{ChatTurnFault, Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use std::time::Duration;

async fn august(faults: FaultPlan) -> (RunningServer, WorkspaceClient, ReadAuthority) {
    played(MascRelease::V0_24_0, faults).await
}

/// The embedded server playing `release`, its client and the read authority of its epoch 1.
pub(crate) async fn played(
    release: MascRelease,
    faults: FaultPlan,
) -> (RunningServer, WorkspaceClient, ReadAuthority) {
    let server = start(ServeOptions {
        auth: AuthMode::Token("compat-token".into()),
        compat: Some(release),
        faults,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let mut config = ClientConfig::new(server.base_url());
    config.token = TokenSource::Fixed("compat-token".into());
    config.request_timeout = Duration::from_secs(10);
    config.sse_idle_timeout = Duration::from_secs(10);
    let client = WorkspaceClient::new(config).unwrap();
    let health = client.health().await.unwrap();
    let IdentityVerdict::Match {
        masc_root, mode, ..
    } = judge_identity(Some(&server.base_path()), &health)
    else {
        panic!("identity")
    };
    let auth = ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(masc_root.clone()),
            epoch: 1,
        },
        expected_root: masc_root,
        mode,
    };
    (server, client, auth)
}

/// A 404 on an extension route is "not served", recorded per family, and
/// never asked again until the server changes; a served route is recorded served; a 404 that
/// names a missing object keeps that meaning.
#[tokio::test]
async fn the_august_release_404s_extension_routes_and_the_client_never_asks_twice_issue13() {
    let (server, client, auth) = august(FaultPlan::none()).await;
    assert_eq!(
        auth.mode,
        AdmissionMode::Health,
        "no receipts on MASC v0.24.0"
    );
    for _ in 0..3 {
        match client
            .get::<TaskList>(&auth, "/api/v1/dashboard/tasks")
            .await
        {
            Err(ClientError::NotServed { route }) => assert_eq!(route, RouteFamily::TaskList),
            other => panic!("task list on v0.24.0: {other:?}"),
        }
    }
    assert_eq!(
        server.request_count("GET", "/api/v1/dashboard/tasks"),
        1,
        "a route known not served is answered from the table"
    );
    let caps = client.capabilities();
    assert_eq!(caps.get(RouteFamily::TaskList), Capability::NotServed);
    // Under /api/v1/keepers/ MASC's prefix handler answers {"error":"not found"}.
    match client
        .get::<masc_tui::protocol::asks::AskList>(&auth, "/api/v1/keepers/asks")
        .await
    {
        Err(e) => assert_eq!(
            e,
            ClientError::NotServed {
                route: RouteFamily::Asks
            }
        ),
        Ok(_) => panic!("asks are newer MASC"),
    }
    let roster = client
        .get::<KeeperRoster>(&auth, "/api/v1/gate/keepers?detailed=true")
        .await
        .unwrap();
    assert_eq!(roster.value.candle, None, "no Candle on v0.24.0");
    assert_eq!(caps.get(RouteFamily::Roster), Capability::Served);
    // §4.4: an unknown operation is a served route's object 404.
    match client
        .get::<ChatOperationRecord>(&auth, "/api/v1/keepers/rondo/chat/operations/tui-none")
        .await
    {
        Err(ClientError::Status { status: 404, .. }) => {}
        other => panic!("unknown operation: {other:?}"),
    }
    assert_eq!(caps.get(RouteFamily::ChatOperation), Capability::Served);
    let not_served = caps.not_served();
    assert_eq!(not_served, vec![RouteFamily::TaskList, RouteFamily::Asks]);
    // A withdrawn epoch (a restart may be an upgrade) forgets the table: asked once more.
    client.forget_root(&auth.expected_root);
    assert_eq!(caps.get(RouteFamily::TaskList), Capability::Unknown);
    assert!(matches!(
        client
            .get::<TaskList>(&auth, "/api/v1/dashboard/tasks")
            .await,
        Err(ClientError::NotServed { .. })
    ));
    assert_eq!(server.request_count("GET", "/api/v1/dashboard/tasks"), 2);
    server.shutdown().await;
}

/// The release's own shapes, read through the client.
#[tokio::test]
async fn the_august_shapes_decode_with_only_their_missing_parts_unavailable_issue13() {
    let (server, client, auth) = august(FaultPlan::none()).await;
    let health = client.health().await.unwrap();
    assert_eq!(health.version.as_deref(), Some("0.24.0"));
    assert_eq!(
        health.build.as_ref().and_then(|b| b.commit()),
        Some(("e2bb55f793", CommitField::Commit))
    );
    assert!(health.admission.is_none());
    let runtime = client
        .get::<RuntimeResolved>(&auth, "/api/v1/runtime/resolved")
        .await
        .unwrap();
    let catalogue = runtime.value.catalogue.as_ref().unwrap();
    assert!(!catalogue.runtimes.is_empty());
    assert!(
        catalogue
            .runtimes
            .iter()
            .all(|r| r.provider_id == SinceRelease::NotInRelease)
    );
    assert!(
        catalogue
            .lanes
            .iter()
            .all(|l| l.declared == SinceRelease::NotInRelease)
    );
    assert_eq!(catalogue.media_failover, SinceRelease::NotInRelease);
    assert_eq!(runtime.value.usage, Ok(SinceRelease::NotInRelease));
    // The first inventory read may be the warming placeholder; the next is settled.
    let mut settled = None;
    for _ in 0..5 {
        if let ToolsInventoryRead::Settled(inv) = &*client
            .get::<ToolsInventoryRead>(&auth, "/api/v1/dashboard/tools")
            .await
            .unwrap()
            .value
        {
            settled = Some(inv.clone());
            break;
        }
    }
    let inv = settled.expect("a settled inventory");
    assert_eq!(inv.effective_keeper_surface, SinceRelease::NotInRelease);
    assert_eq!(inv.skill_activations, SinceRelease::NotInRelease);
    server.shutdown().await;
}

async fn send_turn(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    request_id: &str,
) -> Result<ChatStreamOutcome, masc_tui::protocol::decode::DecodeError> {
    send_turn_to(client, auth, "rondo", request_id)
        .await
        .map(|(outcome, _)| outcome)
}

/// One chat send to `keeper` through the stream validator: its outcome and every event.
pub(crate) async fn send_turn_to(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    keeper: &str,
    request_id: &str,
) -> Result<
    (
        ChatStreamOutcome,
        Vec<masc_tui::protocol::chat::ChatStreamEvent>,
    ),
    masc_tui::protocol::decode::DecodeError,
> {
    let body = serde_json::json!({"request_id": request_id, "name": keeper, "message": "stop?"});
    let mut stream = client
        .post_sse(auth, "/api/v1/keepers/chat/stream", &body)
        .await
        .unwrap();
    let mut validator = ChatStreamValidator::new(Some(request_id), Some(keeper));
    let mut events = Vec::new();
    while let Some(Ok(frame)) = stream.next().await {
        if let Some(event) = validator.push_frame(&frame)? {
            events.push(event);
        }
    }
    validator.finish().map(|outcome| (outcome, events))
}

/// Defects 1 and 5 end to end: a cancelled turn (`RUN_FINISHED` without reply details) is a
/// refused stream, and its record — `Failed`, `Turn_cancelled`, `outcome_ref: null` — decodes
/// as a settled cancellation. Defect 4's stream: `RUN_ERROR` after partial text is a failed
/// run, its record a settled failure.
#[tokio::test]
async fn a_cancelled_and_a_failed_turn_settle_through_their_null_outcome_ref_records_issue13() {
    let plan = FaultPlan {
        rules: vec![
            FaultRule::new(
                "POST",
                "/api/v1/keepers/chat/stream",
                When::Nth { nth: 1 },
                Fault::ChatTurn {
                    chat_turn: ChatTurnFault::Cancelled,
                },
            ),
            FaultRule::new(
                "POST",
                "/api/v1/keepers/chat/stream",
                When::Nth { nth: 2 },
                Fault::ChatTurn {
                    chat_turn: ChatTurnFault::RunError,
                },
            ),
        ],
    };
    let (server, client, auth) = august(plan).await;
    let cancelled = "tui-0190f5a0-0000-7000-8000-00000000c0c1";
    let refused = send_turn(&client, &auth, cancelled).await.unwrap_err();
    assert_eq!(refused.reason(), "missing_reply_details");
    let record = client
        .get_with(
            &auth,
            &format!("/api/v1/keepers/rondo/chat/operations/{cancelled}"),
            move |b: &[u8]| ChatOperationRecord::decode_for(b, cancelled),
        )
        .await
        .unwrap();
    assert!(record.value.progress.is_cancellation());
    assert!(matches!(
        &record.value.progress,
        OperationProgress::Failed {
            outcome_ref: None,
            ..
        }
    ));
    let failed = "tui-0190f5a0-0000-7000-8000-00000000c0c2";
    match send_turn(&client, &auth, failed).await.unwrap() {
        ChatStreamOutcome::Failed {
            pre_acceptance: false,
            ..
        } => {}
        other => panic!("a run error after acceptance: {other:?}"),
    }
    let record = client
        .get_with(
            &auth,
            &format!("/api/v1/keepers/rondo/chat/operations/{failed}"),
            move |b: &[u8]| ChatOperationRecord::decode_for(b, failed),
        )
        .await
        .unwrap();
    assert!(record.value.progress.state().is_terminal());
    assert!(!record.value.progress.is_cancellation());
    server.shutdown().await;
}
