//! The embedded server at scale, read through the REAL admitted client as the TUI reads it:
//! the roster route lists its first 200 (§4.1: `limit` only, no offset, as in MASC) and says
//! how many there are; a Keeper beyond them is reached by name (§14.7); every scaled Task's
//! body decodes (§5.2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::actors::keepers::ROSTER_PATH;
use masc_tui::actors::work::task_body::task_body_path;
use masc_tui::protocol::admission::{ReadAuthority, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, ClientError, TokenSource, WorkspaceClient};
use masc_tui::protocol::health::{IdentityVerdict, judge_identity};
use masc_tui::protocol::keeper_detail::{KeeperStatus, keeper_status_path};
use masc_tui::protocol::keepers::KeeperRoster;
use masc_tui::protocol::tasks::TaskDetail;
use masc_tui::server::store::scale::Scale;
use masc_tui::server::{AuthMode, ServeOptions, start};
use std::time::Duration;

#[tokio::test]
async fn issue27_scaled_roster_pages_as_masc_and_every_keeper_and_task_is_readable() {
    let server = start(ServeOptions {
        auth: AuthMode::Token("scale-token".into()),
        scale: Some(Scale {
            keepers: 320,
            tasks: 24,
            history_events: 10,
            chat_messages: 1,
        }),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let mut config = ClientConfig::new(server.base_url());
    config.token = TokenSource::Fixed("scale-token".into());
    config.request_timeout = Duration::from_secs(10);
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
    // §4.1: the whole bound, and how many there are beyond it.
    let roster = client
        .get::<KeeperRoster>(&auth, ROSTER_PATH)
        .await
        .unwrap();
    assert_eq!(roster.value.count, 200);
    assert_eq!(roster.value.limit, Some(200));
    assert!(roster.value.truncated);
    assert!(
        roster.value.total > 320,
        "the seed's Keepers and the scaled ones"
    );
    let listed: Vec<&str> = roster.value.keepers().map(|k| k.name.as_str()).collect();
    assert!(!listed.contains(&"k-00300"), "beyond the first 200");
    // §14.7: a Keeper beyond the page is reached by name.
    let path = keeper_status_path("k-00300");
    let found = client
        .get_with(&auth, &path, |b: &[u8]| {
            KeeperStatus::decode_for(b, "k-00300")
        })
        .await
        .unwrap();
    assert_eq!(found.value.name, "k-00300");
    let path = keeper_status_path("k-99999");
    match client
        .get_with(&auth, &path, |b: &[u8]| {
            KeeperStatus::decode_for(b, "k-99999")
        })
        .await
    {
        Err(ClientError::Status { status: 404, .. }) => {}
        other => panic!("an unknown name: {other:?}"),
    }
    // §5.2: every scaled Task's body decodes, in every status.
    for i in 1..=24 {
        let id = format!("task-s{i:05}");
        let path = task_body_path(&id);
        let asked = id.clone();
        let detail = client
            .get_with(&auth, &path, move |b: &[u8]| {
                TaskDetail::decode_for(b, &asked)
            })
            .await
            .unwrap_or_else(|e| panic!("{id}: {e:?}"));
        assert_eq!(detail.value.task.id, id);
    }
    server.shutdown().await;
}
