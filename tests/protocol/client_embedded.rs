//! The admitted client against the real embedded server and its fault plans
//! (protocol.md §1.3, §1.4, §2.1–§2.5, §11, §13; sources.md G-9).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{
    ClientConfig, ClientError, TokenSource, WorkspaceClient, WriteExchange,
};
use masc_tui::protocol::health::{IdentityVerdict, judge_identity};
use masc_tui::protocol::keepers::KeeperRoster;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use std::sync::Arc;
use std::time::Duration;

const ROSTER: &str = "/api/v1/gate/keepers";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn client_for(server: &RunningServer, edit: impl FnOnce(&mut ClientConfig)) -> WorkspaceClient {
    let mut config = ClientConfig::new(server.base_url());
    config.token = match server.token() {
        Some(t) => TokenSource::Fixed(t),
        None => TokenSource::None,
    };
    config.request_timeout = Duration::from_secs(5);
    edit(&mut config);
    WorkspaceClient::new(config).unwrap()
}

/// Open an epoch the way the workspace actor does: `/health`, then §2.1.
async fn open_epoch(client: &WorkspaceClient, expected_base: &str) -> ReadAuthority {
    let health = client.health().await.unwrap();
    match judge_identity(Some(expected_base), &health) {
        IdentityVerdict::Match {
            masc_root, mode, ..
        } => ReadAuthority {
            scope: ReadScope {
                workspace: WorkspaceId(masc_root.clone()),
                epoch: 1,
            },
            expected_root: masc_root,
            mode,
        },
        other => panic!("expected a match, got {other:?}"),
    }
}

fn plan(json: &str) -> FaultPlan {
    FaultPlan::from_json(json).unwrap()
}

#[tokio::test]
async fn s2_1_embedded_health_opens_a_receipt_mode_epoch() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let health = client.health().await.unwrap();
    assert_eq!(
        judge_identity(Some(&server.base_path()), &health),
        IdentityVerdict::Match {
            base_path: server.base_path(),
            masc_root: server.masc_root(),
            mode: AdmissionMode::Receipt,
        }
    );
    assert!(matches!(
        judge_identity(Some("/nonexistent/another"), &health),
        IdentityVerdict::Mismatch { .. }
    ));
}

#[tokio::test]
async fn s2_1_embedded_boot_phase_is_booting_then_match() {
    let server = start(ServeOptions {
        boot_delay_reads: 1,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let client = client_for(&server, |_| {});
    let base = server.base_path();
    let first = client.health().await.unwrap();
    assert_eq!(
        judge_identity(Some(&base), &first),
        IdentityVerdict::Booting
    );
    let second = client.health().await.unwrap();
    assert!(matches!(
        judge_identity(Some(&base), &second),
        IdentityVerdict::Match { .. }
    ));
}

#[tokio::test]
async fn g9_embedded_roster_read_is_admitted_then_revalidated_by_304() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    let first = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    assert_eq!(first.mode, AdmissionMode::Receipt);
    assert!(!first.from_cache);
    let second = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    assert!(
        second.from_cache,
        "the server's ETag made the re-read a 304"
    );
    assert!(Arc::ptr_eq(&first.value, &second.value));
    assert_eq!(server.request_count("GET", ROSTER), 2);
}

#[tokio::test]
async fn s2_2_embedded_receipt_faults_fail_the_read_and_spare_the_cache() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    let first = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    for (receipt, expected) in [
        ("missing", "receipt_missing"),
        ("duplicate", "receipt_duplicated"),
        ("wrong", "receipt_mismatch"),
    ] {
        // These land on 304s (the client holds the tag).
        server.set_faults(plan(&format!(
            r#"{{"rules":[{{"match":{{"path":"{ROSTER}"}},"fault":{{"receipt":"{receipt}"}}}}]}}"#
        )));
        let err = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap_err();
        assert_eq!(err.class().to_string(), expected);
    }
    // On a 200 (no cache entry under this target) too.
    server.set_faults(plan(&format!(
        r#"{{"rules":[{{"match":{{"path":"{ROSTER}"}},"fault":{{"receipt":"wrong"}}}}]}}"#
    )));
    let err = client
        .get::<KeeperRoster>(&auth, &format!("{ROSTER}?detailed=true"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::ReceiptMismatch { .. }),
        "{err:?}"
    );
    server.set_faults(FaultPlan::none());
    let again = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    assert!(again.from_cache);
    assert!(Arc::ptr_eq(&first.value, &again.value));
    assert_eq!(client.cached_reads(), 1, "the refused 200 was not cached");
}

#[tokio::test]
async fn g9_embedded_server_of_another_workspace_is_never_admitted() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    server.switch_workspace("/srv/another", "/srv/another/.masc");
    let err = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap_err();
    assert_eq!(
        err,
        ClientError::WorkspaceMismatch {
            expected: auth.expected_root.clone(),
            served: "/srv/another/.masc".into(),
        }
    );
    let health = client.health().await.unwrap();
    assert!(matches!(
        judge_identity(Some(&auth.expected_root.replace("/.masc", "")), &health),
        IdentityVerdict::Mismatch { .. }
    ));
}

#[tokio::test]
async fn s1_3_embedded_auth_rules() {
    let server = server().await;
    let base = server.base_path();
    let good = client_for(&server, |_| {});
    let auth = open_epoch(&good, &base).await;

    let wrong = client_for(&server, |c| c.token = TokenSource::Fixed("nope".into()));
    let before = server.request_count("GET", ROSTER);
    let err = wrong.get::<KeeperRoster>(&auth, ROSTER).await.unwrap_err();
    assert!(
        matches!(err, ClientError::Unauthorized { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(server.request_count("GET", ROSTER) - before, 2);

    let none = client_for(&server, |c| c.token = TokenSource::None);
    assert_eq!(
        none.get::<KeeperRoster>(&auth, ROSTER).await.unwrap_err(),
        ClientError::NoToken
    );
}

#[tokio::test]
async fn s1_3_embedded_no_auth_server_needs_no_token() {
    let server = start(ServeOptions {
        auth: AuthMode::NoAuth,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    assert!(client.get::<KeeperRoster>(&auth, ROSTER).await.is_ok());
}

#[tokio::test]
async fn s13_embedded_common_read_faults_are_typed() {
    let server = server().await;
    let client = client_for(&server, |c| c.request_timeout = Duration::from_millis(300));
    let auth = open_epoch(&client, &server.base_path()).await;
    let cases = [
        (
            r#"{"status":503,"body":{"error":"not initialized"}}"#,
            "warming",
        ),
        (r#"{"status":500,"body":{"error":"boom"}}"#, "status_500"),
        // A 503 without the warming body is a failed read, not "warming".
        (r#"{"status":503}"#, "status_503"),
        (
            r#"{"status":503,"body":{"error":"overloaded"}}"#,
            "status_503",
        ),
        (r#"{"malformed":true}"#, "decode_syntax"),
        (r#"{"truncate_at":10}"#, "transport"),
        (r#"{"drop":"before_apply"}"#, "transport"),
        (r#"{"delay_ms":3000}"#, "timeout"),
    ];
    for (fault, class) in cases {
        server.set_faults(plan(&format!(
            r#"{{"rules":[{{"match":{{"path":"{ROSTER}"}},"fault":{fault}}}]}}"#
        )));
        // A fresh target each time so no cached tag turns the answer into a 304.
        let target = format!("{ROSTER}?limit={}", 10 + class.len());
        let err = client
            .get::<KeeperRoster>(&auth, &target)
            .await
            .unwrap_err();
        assert_eq!(err.class().to_string(), class, "fault {fault}");
    }
    assert_eq!(client.cached_reads(), 0);
}

/// §13 stale 304: the client cannot tell; it is admitted from the cache like any 304 with a
/// matching receipt (docs/audits/admission.md §7).
#[tokio::test]
async fn s13_embedded_stale_304_is_admitted_from_the_cache() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    let first = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    server.set_faults(plan(&format!(
        r#"{{"rules":[{{"match":{{"path":"{ROSTER}"}},"fault":{{"stale_304":true}}}}]}}"#
    )));
    let again = client.get::<KeeperRoster>(&auth, ROSTER).await.unwrap();
    assert!(again.from_cache);
    assert!(Arc::ptr_eq(&first.value, &again.value));
}

#[tokio::test]
async fn s11_embedded_write_drops_are_outcome_unknown_and_refused_is_not_sent() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let auth = open_epoch(&client, &server.base_path()).await;
    let path = "/api/v1/keepers";
    let body = serde_json::json!({"name": "zeta"});
    for point in ["before_apply", "after_apply"] {
        server.set_faults(plan(&format!(
            r#"{{"rules":[{{"match":{{"method":"POST","path":"{path}"}},"fault":{{"drop":"{point}"}}}}]}}"#
        )));
        let before = server.request_count("POST", path);
        let exchange = client.post_json(&auth, path, &body).await;
        assert!(
            matches!(exchange, WriteExchange::OutcomeUnknown { .. }),
            "{point}: {exchange:?}"
        );
        assert_eq!(
            server.request_count("POST", path) - before,
            1,
            "never resent"
        );
    }
    server.set_faults(plan(&format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{path}"}},"fault":{{"status":409,"body":{{"error":"keeper_exists"}}}}}}]}}"#
    )));
    assert!(matches!(
        client.post_json(&auth, path, &body).await,
        WriteExchange::Responded { status: 409, .. }
    ));
    server.shutdown().await;
    assert!(matches!(
        client.post_json(&auth, path, &body).await,
        WriteExchange::NotSent { .. }
    ));
}

/// §3: the cadence probe is conditional on the tag of the last `/health` it
/// admitted: an unchanged identity comes back as a 304 that re-admits the stored answer (same
/// identity fields), a held probe says so, and another identity is a fresh 200.
#[tokio::test]
async fn s3_the_cadence_probe_is_conditional_and_held_by_the_embedded_server() {
    let server = server().await;
    let client = client_for(&server, |_| {});
    let first = client.health_watch(None).await.unwrap();
    assert!(
        !first.not_modified && !first.held,
        "the first probe has no tag"
    );
    let again = client.health_watch(None).await.unwrap();
    assert!(again.not_modified, "an unchanged identity is a 304");
    assert_eq!(again.health.paths, first.health.paths);
    // A one-second hold of an unchanged identity: answered 304 with Preference-Applied.
    let held = client
        .health_watch(Some(Duration::from_secs(1)))
        .await
        .unwrap();
    assert!(held.not_modified && held.held);
    server.switch_workspace("/srv/other", "/srv/other/.masc");
    let moved = client.health_watch(None).await.unwrap();
    assert!(!moved.not_modified);
    assert_ne!(moved.health.paths, first.health.paths);
    assert_eq!(
        client.health_watch(None).await.unwrap().health.paths,
        moved.health.paths,
        "the 304 re-admits the new identity"
    );
    server.shutdown().await;
}
