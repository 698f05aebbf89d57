//! The embedded server playing the newer MASC and MASC main of 2026-08-23 (protocol-15 §15.9,
//! §15.13), read through the REAL admitted client: `ops-bot`'s
//! transcript in the newer store's shape (Gate steps, an unknown role, delivery pairs) and in
//! the August one (no `system` rows, no newer fields); the bare array with its autonomous turns;
//! a held call's `CUSTOM` events on a turn's stream; a failed request persisted under its
//! request id.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::compat_masc::{played, send_turn_to};
use masc_tui::protocol::chat::rows::RowIdentity;
use masc_tui::protocol::chat::{
    ChatHistoryArray, ChatHistoryPage, ChatRole, ChatStreamEvent, ChatStreamOutcome,
};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::{ChatTurnFault, Fault, FaultPlan, FaultRule, When};
use masc_tui::server::store::chat_newer::{FAILED_REQUEST_ID, NEWER_CHAT_KEEPER};

fn page_path() -> String {
    format!("/api/v1/keepers/{NEWER_CHAT_KEEPER}/chat/history/page")
}

/// §15.9, §15.13: the newer store's rows on a newer MASC — three Gate steps of one approval
/// and two of another, a neutral `system` row, an unknown role (counted, never a failure), a
/// failed request under its operation key; on `aug` and `v0.24.0` the same transcript in the
/// August shape: no `system` or unknown-role rows, no `approval_lifecycle`, no `execution_id`.
#[tokio::test]
async fn s15_9_ops_bot_reads_in_the_newer_and_the_august_shape() {
    let (server, client, auth) = played(MascRelease::Newer, FaultPlan::none()).await;
    let page = client
        .get::<ChatHistoryPage>(&auth, &page_path())
        .await
        .unwrap();
    let gate: Vec<&str> = page
        .value
        .messages
        .iter()
        .filter_map(|r| r.gate_step())
        .map(|g| g.phase.as_str())
        .collect();
    assert_eq!(
        gate,
        [
            "requested",
            "resolved_approved",
            "replay_applied",
            "requested",
            "resolved_rejected"
        ]
    );
    let counts = page.value.counts();
    assert_eq!(
        (counts.unknown_role, counts.identity_ignored, counts.dropped),
        (1, 1, 0)
    );
    let failure = page
        .value
        .messages
        .iter()
        .find(|r| r.is_request_failure())
        .unwrap();
    assert_eq!(failure.identity.operation_id(), Some(FAILED_REQUEST_ID));
    assert!(
        page.value
            .messages
            .iter()
            .any(|r| r.role == ChatRole::Tool && r.execution_id.as_deref() == Some("exec-ops-7"))
    );
    server.shutdown().await;

    for release in [MascRelease::Aug, MascRelease::V0_24_0] {
        let (server, client, auth) = played(release, FaultPlan::none()).await;
        let page = client
            .get::<ChatHistoryPage>(&auth, &page_path())
            .await
            .unwrap();
        let rows = &page.value.messages;
        assert!(
            rows.iter().all(|r| matches!(
                r.role,
                ChatRole::User | ChatRole::Assistant | ChatRole::Tool
            )),
            "{release}"
        );
        assert!(
            rows.iter()
                .all(|r| r.approval.is_none() && r.execution_id.is_none())
        );
        assert!(page.value.counts().is_clean(), "{release}");
        assert!(
            rows.iter()
                .any(|r| matches!(r.identity, RowIdentity::Pair(_))),
            "the August store writes delivery pairs too"
        );
        server.shutdown().await;
    }
}

/// §15.9: the bare array is the newest window of direct rows, then the autonomous turns
/// appended — one with a trace block, one with `content: null` and no blocks; both releases
/// serve it (it is MASC's route since August).
#[tokio::test]
async fn s15_9_the_bare_array_carries_the_autonomous_turns() {
    for release in [MascRelease::Newer, MascRelease::Aug] {
        let (server, client, auth) = played(release, FaultPlan::none()).await;
        let array = client
            .get::<ChatHistoryArray>(
                &auth,
                &format!("/api/v1/keepers/{NEWER_CHAT_KEEPER}/chat/history"),
            )
            .await
            .unwrap();
        let autonomous: Vec<&str> = array.value.autonomous().map(|r| r.id.as_str()).collect();
        assert_eq!(
            autonomous,
            ["autonomous:trace-ops-bot#5", "autonomous:trace-ops-bot#8"],
            "{release}"
        );
        let first = array.value.autonomous().next().unwrap();
        assert!(first.trace.as_ref().unwrap().steps.len() >= 5);
        let blank = array.value.autonomous().nth(1).unwrap();
        assert!(blank.content.is_empty() && blank.trace.is_none());
        let tail: Vec<bool> = array
            .value
            .rows
            .iter()
            .map(|r| r.autonomous.is_some())
            .collect();
        assert!(
            tail.ends_with(&[true, true]) && !tail[..tail.len() - 2].contains(&true),
            "autonomous rows are appended after the direct window"
        );
        let unknown = client
            .get::<ChatHistoryArray>(&auth, "/api/v1/keepers/nobody/chat/history")
            .await
            .unwrap();
        assert!(unknown.value.rows.is_empty());
        server.shutdown().await;
    }
}

/// §15.9 stream events and §15.14 faults on a newer MASC: a turn holding a call streams
/// `REQUESTED` then `SETTLED` for that call and completes; a settlement for a call never
/// announced is still a valid stream; a failed turn's request is persisted under its own
/// request id.
#[tokio::test]
async fn s15_9_held_call_events_and_a_persisted_failure_on_a_newer_stream() {
    let rule = |nth, chat_turn| {
        FaultRule::new(
            "POST",
            "/api/v1/keepers/chat/stream",
            When::Nth { nth },
            Fault::ChatTurn { chat_turn },
        )
    };
    let plan = FaultPlan {
        rules: vec![
            rule(1, ChatTurnFault::HoldsCall),
            rule(2, ChatTurnFault::SettledUnannounced),
            rule(3, ChatTurnFault::RunError),
        ],
    };
    let (server, client, auth) = played(MascRelease::Newer, plan).await;
    let held = "tui-0190f5a0-0000-7000-8000-00000000e0c1";
    let (outcome, events) = send_turn_to(&client, &auth, "mira", held).await.unwrap();
    assert!(matches!(outcome, ChatStreamOutcome::Completed { .. }));
    let hints: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            ChatStreamEvent::ToolApprovalRequested(r) => {
                Some(format!("requested {}", r.tool_call_id))
            }
            ChatStreamEvent::ToolApprovalSettled(s) => {
                Some(format!("settled {} {}", s.tool_call_id, s.outcome))
            }
            _ => None,
        })
        .collect();
    let call = format!("tool-{held}-1");
    assert_eq!(
        hints,
        [
            format!("requested {call}"),
            format!("settled {call} approved")
        ]
    );

    let stray = "tui-0190f5a0-0000-7000-8000-00000000e0c2";
    let (outcome, events) = send_turn_to(&client, &auth, "mira", stray).await.unwrap();
    assert!(matches!(outcome, ChatStreamOutcome::Completed { .. }));
    assert!(events.iter().any(|e| matches!(e,
        ChatStreamEvent::ToolApprovalSettled(s) if s.tool_call_id.ends_with("-never-asked"))));

    let failed = "tui-0190f5a0-0000-7000-8000-00000000e0c3";
    let (outcome, _) = send_turn_to(&client, &auth, "mira", failed).await.unwrap();
    assert!(matches!(outcome, ChatStreamOutcome::Failed { .. }));
    let page = client
        .get::<ChatHistoryPage>(&auth, "/api/v1/keepers/mira/chat/history/page")
        .await
        .unwrap();
    let keyed: Vec<&str> = page
        .value
        .messages
        .iter()
        .filter(|r| r.is_request_failure())
        .filter_map(|r| r.identity.operation_id())
        .collect();
    assert_eq!(keyed, [failed]);
    server.shutdown().await;
}

/// §15.10: every played release answers the turn transcript in MASC's version 1 — also when
/// `version=2` is asked (MASC ignores it) — and the client reads it: the request's line, the
/// retained response, the failed request as a failure; an unknown Keeper is "not retained".
#[tokio::test]
async fn s15_10_every_release_answers_version_1_even_when_asked_for_2() {
    use masc_tui::protocol::transcript::{TranscriptRowKind, TranscriptVersion, TurnTranscript};
    for release in [MascRelease::V0_24_0, MascRelease::Aug, MascRelease::Newer] {
        let (server, client, auth) = played(release, FaultPlan::none()).await;
        let read = |keeper: &'static str| {
            let client = client.clone();
            let auth = auth.clone();
            async move {
                client
                    .get_with(
                        &auth,
                        &format!(
                            "/api/v1/keepers/{keeper}/turn-transcript?turn_ref=trace-rondo%2342&version=2"
                        ),
                        move |b: &[u8]| TurnTranscript::decode_for(b, keeper, "trace-rondo#42"),
                    )
                    .await
                    .unwrap()
            }
        };
        let found = read("rondo").await;
        let TurnTranscript::Found { rows, version, .. } = found.value.as_ref() else {
            panic!("{release}: {:?}", found.value)
        };
        assert_eq!(*version, TranscriptVersion::V1, "{release}");
        assert!(
            rows.iter()
                .any(|r| r.kind == TranscriptRowKind::RequestFailure),
            "{release}"
        );
        let ghost = read("ghost").await;
        assert!(
            matches!(
                ghost.value.as_ref(),
                TurnTranscript::NotRetained {
                    version: TranscriptVersion::V1,
                    ..
                }
            ),
            "{release}"
        );
        server.shutdown().await;
    }
}

/// §15.9 turn journal: on a newer MASC `/chat/events` answers a turn's lines in MASC's journal
/// codec, the seqs of the stream's `id:` lines (the acceptance takes seq 1), filtered by
/// `since_seq`, ending with `run_finished`; a made-up operation is 404 `unknown_operation`; an
/// August MASC does not serve the route.
#[tokio::test]
async fn s15_9_the_turn_journal_answers_a_turns_lines_after_since_seq() {
    use masc_tui::protocol::chat::journal::{ChatEventsPage, JournalEvent, JournalRefusal};
    use masc_tui::protocol::client::ClientError;
    let (server, client, auth) = played(MascRelease::Newer, FaultPlan::none()).await;
    let id = "tui-0190f5a0-0000-7000-8000-00000000e0d1";
    let (outcome, _) = send_turn_to(&client, &auth, "mira", id).await.unwrap();
    assert!(matches!(outcome, ChatStreamOutcome::Completed { .. }));
    let read = |since: Option<u64>| {
        let client = client.clone();
        let auth = auth.clone();
        async move {
            let mut path = format!("/api/v1/keepers/mira/chat/events?operation_id={id}");
            if let Some(s) = since {
                path.push_str(&format!("&since_seq={s}"));
            }
            client
                .get_with(&auth, &path, move |b: &[u8]| {
                    ChatEventsPage::decode_for(b, id, since)
                })
                .await
        }
    };
    let whole = read(None).await.unwrap();
    let seqs: Vec<u64> = whole.value.events.iter().map(|l| l.seq).collect();
    assert_eq!(seqs.first(), Some(&1));
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
    assert!(matches!(
        whole.value.terminal().map(|l| &l.event),
        Some(JournalEvent::RunFinished { .. })
    ));
    assert!(
        whole
            .value
            .events
            .iter()
            .any(|l| matches!(&l.event, JournalEvent::ReplyDetails { turn_outcome, .. } if turn_outcome == "visible_reply"))
    );
    let tail = read(Some(3)).await.unwrap();
    assert_eq!(tail.value.events.first().map(|l| l.seq), Some(4));
    assert_eq!(tail.value.next_since_seq, *seqs.last().unwrap());
    let unknown = client
        .get::<masc_tui::protocol::chat::ChatHistoryArray>(
            &auth,
            "/api/v1/keepers/mira/chat/events?operation_id=tui-never",
        )
        .await
        .unwrap_err();
    let ClientError::Status { status, body } = &unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(
        JournalRefusal::of(*status, body.as_bytes()),
        Some(JournalRefusal::UnknownOperation)
    );
    server.shutdown().await;

    let (server, client, auth) = played(MascRelease::Aug, FaultPlan::none()).await;
    let err = client
        .get_with(
            &auth,
            &format!("/api/v1/keepers/mira/chat/events?operation_id={id}"),
            move |b: &[u8]| ChatEventsPage::decode_for(b, id, None),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::NotServed { .. }), "{err:?}");
    server.shutdown().await;
}
