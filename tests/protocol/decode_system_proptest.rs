//! Bad input never panics: every system decoder, echo check and §11 classifier over
//! garbled and truncated fixture bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::protocol::asks::{AskAnswerRequest, AskFollowUpEvent, AskList, FollowUpValidator};
use masc_tui::protocol::async_requests::{AsyncRequestDetail, AsyncRequestList};
use masc_tui::protocol::board::{BoardPostDetail, BoardPostRequest, BoardPostsPage, HearthCensus};
use masc_tui::protocol::connectors::{
    ConnectorNamesPage, ConnectorStatusList, NameScope, NamesPageRequest,
};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::keeper_config::{
    CompositeRevision, KeeperConfigSaveRequest, KeeperConfigSnapshot, KeeperCreateRequest,
    ManifestRevision, RuntimeAssignmentRequest, RuntimeAssignmentResponse,
    RuntimeAssignmentRevision,
};
use masc_tui::protocol::kinds::system as kinds_system;
use masc_tui::protocol::operator::{
    ApprovalDecisionReply, ApprovalDecisionRequest, Decision, OperatorApprovals,
};
use masc_tui::protocol::outcome::*;
use masc_tui::protocol::runtime::{
    RuntimeConfigConflict, RuntimeConfigRaw, RuntimeRawSaveRequest, RuntimeResolved,
};
use masc_tui::protocol::skills::SkillsSnapshotRead;
use masc_tui::protocol::tools::ToolsInventoryRead;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const SYSTEM_PREFIXES: &[&str] = &[
    "dashboard_tools__",
    "skills_snapshot__",
    "async_requests__",
    "gate_connectors__",
    "connector_names_page__",
    "board_",
    "runtime_",
    "keeper_config_",
    "keeper_asks__",
    "ask_answer_responses__",
    "operator_summary__",
];

/// Seed corpus: the system fixtures plus a few inline bodies of shapes without fixtures.
fn corpus() -> &'static Vec<Vec<u8>> {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut out: Vec<Vec<u8>> = vec![
            br#"{"schema":"masc.async_request.v1","request_id":"k","submitted_by":"o","target_keeper":"r","physical":{"state":"completed","result":{}},"run":null,"logical":{"state":"observed","owner":"r","terminal_decision":null}}"#.to_vec(),
            br#"{"type":"ASK_FOLLOW_UP_SOURCE","ask_id":"ask-1","keeper":"alpha","source":"tool_result","observation":{"state":"observed","totals":{"success":1,"held":0,"failure":0,"undetermined":0,"malformed":0},"latest":{"bucket":"success","tool":"t","at":1.0}}}"#.to_vec(),
            br#"{"status":"ok","trace_id":"t","decision":"deny","tool_name":"masc_pause","result_status":"not_executed","executed_action":{"confirm_token":"c","trace_id":"t","actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,"payload":{},"delegated_tool":"masc_pause","created_at":"2026-08-21T12:00:00Z","expires_at":null}}"#.to_vec(),
        ];
        let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
        let dir = if near.exists() {
            Some(near)
        } else {
            let abs = PathBuf::from("/work/shared/fixtures/masc");
            abs.exists().then_some(abs)
        };
        match dir {
            None => println!("fixtures absent, fuzzing inline bodies only"),
            Some(dir) => {
                let mut names: Vec<_> = std::fs::read_dir(&dir)
                    .unwrap()
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| SYSTEM_PREFIXES.iter().any(|p| n.starts_with(p)))
                    .collect();
                names.sort();
                for n in names {
                    let bytes = std::fs::read(dir.join(&n)).unwrap();
                    // Keep cases small: the 500-row fixtures are cut to their first 8 KiB.
                    out.push(bytes.into_iter().take(8192).collect());
                }
            }
        }
        out
    })
}

/// Feed one body to every decoder and classifier; only panics matter here.
fn exercise(bytes: &[u8]) {
    for kind in [
        "dashboard_tools",
        "skills_snapshot",
        "async_requests",
        "gate_connectors",
        "connector_names_page",
        "board_posts",
        "board_post_detail",
        "board_hearths",
        "runtime_resolved",
        "runtime_config_raw",
        "runtime_config_conflict",
        "keeper_config_snapshot",
        "keeper_config_save_responses",
        "runtime_assignment_responses",
        "keeper_asks",
        "ask_answer_responses",
        "operator_summary",
    ] {
        let _ = kinds_system::decode(kind, bytes);
    }
    let _ = ToolsInventoryRead::decode(bytes);
    let _ = SkillsSnapshotRead::decode(bytes);
    let _ = AsyncRequestList::decode(bytes);
    let _ = AsyncRequestDetail::decode_for(bytes, "k", Some(("o", "r")));
    let _ = ConnectorStatusList::decode(bytes);
    let _ = ConnectorNamesPage::decode_for(
        bytes,
        &NamesPageRequest {
            connector_id: "discord".into(),
            scope: NameScope::Channel,
            after_id: Some("100".into()),
        },
    );
    let _ = BoardPostsPage::decode(bytes);
    let _ = BoardPostDetail::decode_for(bytes, "post-1");
    let _ = HearthCensus::decode(bytes);
    let _ = RuntimeResolved::decode(bytes);
    let _ = RuntimeConfigRaw::decode(bytes);
    let _ = RuntimeConfigConflict::decode(bytes);
    let _ = KeeperConfigSnapshot::decode(bytes);
    let _ = RuntimeAssignmentResponse::decode(bytes);
    let _ = AskList::decode(bytes);
    if let Ok(ev) = AskFollowUpEvent::decode(bytes) {
        let mut v = FollowUpValidator::new("ask-1", "alpha");
        let _ = v.accept(ev);
        let _ = v.finish();
    }
    let _ = OperatorApprovals::decode(bytes);
    let deny = ApprovalDecisionRequest {
        confirm_token: "c".into(),
        decision: Decision::Deny,
    };
    let _ = ApprovalDecisionReply::decode_for(bytes, &deny);

    let settings = KeeperConfigSaveRequest {
        keeper: "alpha".into(),
        expected: CompositeRevision {
            manifest: ManifestRevision::Missing {},
            runtime_assignment: RuntimeAssignmentRevision::RuntimeConfigMissing {},
        },
    };
    let assignment = RuntimeAssignmentRequest {
        keeper_name: "alpha".into(),
        runtime_id: None,
        expected: RuntimeAssignmentRevision::RuntimeConfigMissing {},
    };
    let raw = RuntimeRawSaveRequest {
        expected_source_revision: "a".repeat(64),
    };
    let binding = ConnectorBindingRequest {
        connector_id: "discord".into(),
        channel_id: "111".into(),
        keeper_name: "alpha".into(),
    };
    for status in [200u16, 201, 400, 404, 409, 422, 500, 503] {
        let _ = classify_keeper_config_save(status, bytes, &settings);
        let _ = classify_runtime_assignment(status, bytes, &assignment);
        let _ = classify_runtime_raw_save(status, bytes, &raw);
        let _ = classify_keeper_create(status, bytes, &KeeperCreateRequest { name: "s".into() });
        let _ = classify_ask_answer(
            status,
            bytes,
            &AskAnswerRequest {
                keeper: "alpha".into(),
                ask_id: "ask-1".into(),
            },
        );
        let _ = classify_board_post(status, bytes, &BoardPostRequest { title: "t".into() });
        let _ = classify_connector_bind(status, bytes, &binding);
        let _ = classify_connector_unbind(status, bytes, &binding);
        let _ = classify_approval_decision(status, bytes, &deny);
    }
    let _ = classify_runtime_raw_save_body(bytes);
    let _ = runtime_form_preview_gate(200, bytes);
}

#[test]
fn whole_seeds_do_not_panic() {
    for seed in corpus() {
        exercise(seed);
    }
}

/// JSON pointers of every node of a value.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        serde_json::Value::Object(m) => {
            for (k, child) in m {
                let key = k.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn scalar(choice: u8, n: i64) -> serde_json::Value {
    match choice % 7 {
        0 => serde_json::Value::Null,
        1 => serde_json::Value::Bool(n % 2 == 0),
        2 => serde_json::json!(n),
        3 => serde_json::json!(-1.5),
        4 => serde_json::json!(""),
        5 => serde_json::json!([]),
        _ => serde_json::json!({}),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn truncated_seeds_do_not_panic(index in any::<prop::sample::Index>(), cut in any::<prop::sample::Index>()) {
        let seed = index.get(corpus());
        let end = cut.index(seed.len() + 1);
        exercise(&seed[..end]);
    }

    #[test]
    fn garbled_seeds_do_not_panic(
        index in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = index.get(corpus()).clone();
        if !bytes.is_empty() {
            for (at, b) in edits {
                let i = at.index(bytes.len());
                bytes[i] = b;
            }
        }
        exercise(&bytes);
    }

    /// Structure-aware: one node of a seed replaced by another JSON type or value.
    #[test]
    fn retyped_nodes_do_not_panic(
        index in any::<prop::sample::Index>(),
        node in any::<prop::sample::Index>(),
        choice in any::<u8>(),
        n in any::<i64>(),
    ) {
        let seed = index.get(corpus());
        if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(seed) {
            let mut ptrs = Vec::new();
            pointers(&v, String::new(), &mut ptrs);
            let ptr = node.get(&ptrs).clone();
            if let Some(slot) = v.pointer_mut(&ptr) {
                *slot = scalar(choice, n);
            }
            exercise(&serde_json::to_vec(&v).unwrap());
        }
    }

    #[test]
    fn arbitrary_bytes_do_not_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        exercise(&bytes);
    }
}
