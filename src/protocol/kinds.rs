//! The fixture-manifest kind names (`../shared/fixtures/masc/MANIFEST.tsv`) mapped to decoders.
//! Used by `masc-tui decode --as KIND FILE` and by the manifest test.

use super::decode::{DecodeError, DecodeErrorKind};

/// A decoded payload summarised in one short line (typed values rendered, no raw body text).
pub type KindSummary = String;

/// A family's kind dispatcher: `None` when it does not know the kind.
pub type KindDecoder = fn(&str, &[u8]) -> Option<Result<KindSummary, DecodeError>>;

/// Every kind name the manifest uses.
pub const KINDS: &[&str] = &[
    "health",
    "gate_keepers",
    "keeper_chat_stream",
    "keeper_chat_history_page",
    "tasks_history",
    "goals_tree",
    "goals_detail",
    "planning",
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
];

/// Decode `bytes` as `kind`. `None` when the kind name is unknown.
pub fn decode_kind(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    if !KINDS.contains(&kind) {
        return None;
    }
    // Each family registers its kinds in its own dispatcher; the first that knows the kind wins.
    let dispatchers: &[KindDecoder] = &[super::kinds_work::decode];
    for d in dispatchers {
        if let Some(r) = d(kind, bytes) {
            return Some(r);
        }
    }
    Some(Err(DecodeError::new(
        DecodeErrorKind::Other("decoder_not_built"),
        ".",
        format!("no decoder is built for kind {kind} yet"),
    )))
}
