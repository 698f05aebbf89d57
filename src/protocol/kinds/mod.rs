//! The fixture-manifest kind names (`../shared/fixtures/masc/MANIFEST.tsv`) mapped to decoders.
//! Used by `masc-tui decode --as KIND FILE` and by the manifest test.

pub mod keeper;
pub mod system;
pub mod work;

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
    "keeper_chat_history",
    "keeper_chat_events",
    "turn_transcript",
    "keeper_chat_operation",
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
    "keeper_waiting_inventory",
    "keeper_status",
    "keeper_context",
    "keeper_metrics_line",
    "keeper_turns",
    "held_tool_calls",
    "turn_records",
    "provider_input",
    "runtime_probe",
];

/// Decode `bytes` as `kind`. `None` when the kind name is unknown.
pub fn decode_kind(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    if !KINDS.contains(&kind) {
        return None;
    }
    // Each family registers its kinds in its own dispatcher; the first that knows the kind wins.
    let dispatchers: &[KindDecoder] = &[work::decode, system::decode, keeper::decode];
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

#[cfg(test)]
mod compat_fixture_tests {
    use super::*;
    use crate::protocol::routes::{NotFoundMeaning, RouteFamily, classify_404};

    /// Every row of `tests/fixtures/compat/MANIFEST.tsv` (older MASC shapes built
    /// from MASC's own encoders) decodes, is rejected, or — for 404 bodies — is judged exactly
    /// as its `expect` column says.
    #[test]
    fn compat_fixtures_decode_or_reject_as_the_manifest_says_issue13() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat");
        let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
        let mut checked = 0;
        let mut failures = Vec::new();
        for line in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 6, "{line}");
            let (file, kind, expect) = (cols[0], cols[1], cols[5]);
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let got = if kind == "route_404" {
                let (_, route) = expect.split_once('@').unwrap();
                let family = RouteFamily::from_name(route).unwrap();
                match classify_404(family, &bytes) {
                    NotFoundMeaning::NotServed => format!("not_served@{route}"),
                    NotFoundMeaning::ObjectNotFound => format!("object_not_found@{route}"),
                }
            } else {
                match decode_kind(kind, &bytes).unwrap() {
                    Ok(_) => "decode".to_string(),
                    Err(e) => format!("reject:{}", e.reason()),
                }
            };
            if got != expect {
                failures.push(format!("{file}: expected {expect}, got {got}"));
            }
            checked += 1;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(checked >= 13, "{checked} rows");
    }
}
