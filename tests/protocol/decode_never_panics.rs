//! Bad input never panics: every decoder of the work families (and the chat stream
//! validator) over truncated / garbled fixtures and random bytes returns a value or a
//! `DecodeError`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::chat::{
    ChatHistoryPage, ChatOperationRecord, ChatPostAnswer, ChatStreamReader,
};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::goals::{GoalDetailRead, GoalsTree};
use masc_tui::protocol::kinds::decode_kind;
use masc_tui::protocol::planning::PlanningRead;
use masc_tui::protocol::tasks::{
    LegacyTaskEvents, PageRequest, TaskDetail, TaskHistoryPage, TaskList,
};
use masc_tui::protocol::transcript::TurnTranscript;
use masc_tui::protocol::turns::KeeperTurns;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const WORK_KINDS: &[&str] = &[
    "health",
    "gate_keepers",
    "keeper_chat_stream",
    "keeper_chat_history_page",
    "tasks_history",
    "goals_tree",
    "goals_detail",
    "planning",
];

/// Spec examples, so the run has seeds even when the fixtures are absent.
const EXAMPLES: &[&str] = &[
    r#"{"schema":"masc.task_history_page.v1","task_id":"task-1013","cursor":null,"next_cursor":"c1","has_more":true,"rows":[{"ts":"2026-10-08T10:00:00Z","task_id":"task-1013"}]}"#,
    r#"{"schema":"masc.task_detail.v1","task_id":"t","goal":{"state":"unlinked"},"task":{"id":"t","title":"x","description":"d","files":[],"created_at":"c","status":"todo"}}"#,
    r#"{"schema":"masc.task_list.v1","sources":{"backlog":{"state":"read"},"archive":{"state":"read"},"goal_links":{"state":"read"}},"tasks":[]}"#,
    r#"{"schema":"masc.turn_transcript.v2","keeper":"a","turn_ref":"t","found":true,"rows":[{"turn_ref":"t","kind":"utterance","role":"user","content":"c","ts":1}]}"#,
    r#"{"schema":"masc.keeper_turns.v1","keepers":[{"keeper_name":"a","status":"ok","turn":null}]}"#,
    r#"{"schema":"masc.keeper_chat_operation.v1","operation_id":"tui-01","sequence":"7","created_at":1.0,"execution_digest":"d1","source":"tui","input":{},"state":"Queued"}"#,
];

fn seeds() -> &'static Vec<Vec<u8>> {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut out: Vec<Vec<u8>> = EXAMPLES.iter().map(|e| e.as_bytes().to_vec()).collect();
        let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
        let dir = if near.exists() {
            near
        } else {
            PathBuf::from("/work/shared/fixtures/masc")
        };
        if let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) {
            for line in manifest.lines().skip(1) {
                let cols: Vec<&str> = line.split('\t').collect();
                if cols.len() > 1
                    && WORK_KINDS.contains(&cols[1])
                    && let Ok(bytes) = std::fs::read(dir.join(cols[0]))
                {
                    out.push(bytes);
                }
            }
        }
        out
    })
}

/// Run every decoder on `bytes`; only panics matter here.
fn decode_everything(bytes: &[u8]) {
    for kind in WORK_KINDS {
        let _ = decode_kind(kind, bytes);
    }
    let _ = ChatHistoryPage::decode(bytes);
    let _ = ChatHistoryPage::decode_for(bytes, Some(1.0));
    let _ = ChatOperationRecord::decode_for(bytes, "tui-01");
    let _ = ChatPostAnswer::from_recorded(bytes, Some("tui-request-1"), Some("keeper.one"));
    let _ = KeeperTurns::decode(bytes);
    let _ = TurnTranscript::decode_for(bytes, "a", "t");
    let _ = TaskList::decode(bytes);
    let _ = TaskDetail::decode_for(bytes, "t");
    let request = PageRequest {
        task_id: "task-1013".into(),
        cursor: None,
        limit: 1,
    };
    let _ = TaskHistoryPage::decode_for(bytes, &request, &["c1".to_string()]);
    let _ = LegacyTaskEvents::decode(bytes);
    let _ = GoalsTree::decode(bytes);
    let _ = GoalDetailRead::decode_for(bytes, "goal-1");
    let _ = PlanningRead::decode(bytes);
}

#[derive(Debug, Clone)]
enum Garble {
    Truncate(usize),
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
}

fn garble() -> impl Strategy<Value = Vec<Garble>> {
    prop::collection::vec(
        prop_oneof![
            any::<usize>().prop_map(Garble::Truncate),
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Garble::Flip(i, b)),
            (any::<usize>(), 0usize..16).prop_map(|(i, n)| Garble::Delete(i, n)),
            (
                any::<usize>(),
                prop::collection::vec(
                    prop::sample::select(b"{}[]\":,\n 0-1eatrunlfdat: ".to_vec()),
                    1..8
                )
            )
                .prop_map(|(i, b)| Garble::Insert(i, b)),
        ],
        1..4,
    )
}

fn apply(mut bytes: Vec<u8>, edits: &[Garble]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Garble::Truncate(i) => bytes.truncate(i % len),
            Garble::Flip(i, b) => {
                if !bytes.is_empty() {
                    let at = i % bytes.len();
                    bytes[at] = *b;
                }
            }
            Garble::Delete(i, n) => {
                let start = (i % len).min(bytes.len());
                let end = (start + n).min(bytes.len());
                bytes.drain(start..end);
            }
            Garble::Insert(i, ins) => {
                let at = (i % len).min(bytes.len());
                bytes.splice(at..at, ins.iter().copied());
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn garbled_fixtures_never_panic(seed in any::<prop::sample::Index>(), edits in garble()) {
        let seeds = seeds();
        let bytes = apply(seed.get(seeds).clone(), &edits);
        decode_everything(&bytes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_everything(&bytes);
    }

    /// The incremental validator on arbitrary chunking of garbled streams: no panic, and
    /// the same verdict as reading the whole body at once.
    #[test]
    fn chat_stream_chunking_is_panic_free_and_consistent(
        seed in any::<prop::sample::Index>(),
        edits in garble(),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let seeds = seeds();
        let bytes = apply(seed.get(seeds).clone(), &edits);
        let mut whole = ChatStreamReader::new(None, None);
        let whole_verdict = whole.push(&bytes).and_then(|_| whole.finish());
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunked = ChatStreamReader::new(None, None);
        let mut start = 0;
        let mut verdict = Ok(());
        for p in points.into_iter().chain(std::iter::once(bytes.len())) {
            if verdict.is_ok() {
                verdict = chunked.push(&bytes[start..p]).map(|_| ());
            }
            start = p;
        }
        let chunked_verdict = verdict.and_then(|_| chunked.finish());
        prop_assert_eq!(whole_verdict, chunked_verdict);
    }
}
