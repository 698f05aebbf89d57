//! Manifest kinds of the system families (tools, skills, async requests, connectors, board,
//! runtime, keeper config, asks, operator approvals) mapped to their decoders.

use super::KindSummary;
use crate::protocol::asks::{AskAnswerResponse, AskList};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, DetailShape, HearthCensus};
use crate::protocol::connectors::{ConnectorNamesPage, ConnectorStatusList};
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, SinceRelease, WireDecode, decode_object,
};
use crate::protocol::keeper_config::{
    ConfigRevision, KeeperConfigFailure, KeeperConfigSaveResponse, KeeperConfigSnapshot,
    RuntimeAssignmentResponse, decode_assignment_conflict,
};
use crate::protocol::operator::OperatorApprovals;
use crate::protocol::outcome::{SaveOutcome, classify_runtime_raw_save_body};
use crate::protocol::runtime::{
    CommitReceipt, ModelTable, RuntimeConfigConflict, RuntimeConfigPreview, RuntimeConfigRaw,
    RuntimeResolved,
};
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::{KeeperSurface, ToolsInventoryRead};
use serde_json::Value;

/// Decode `bytes` as one of this family's kinds; `None` for kinds of other families.
pub fn decode(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    let r = match kind {
        "dashboard_tools" => ToolsInventoryRead::decode(bytes).map(|t| tools_summary(&t)),
        "skills_snapshot" => SkillsSnapshotRead::decode(bytes).map(|s| skills_summary(&s)),
        "async_requests" => AsyncRequestList::decode(bytes).map(|l| async_summary(&l)),
        "gate_connectors" => connectors(bytes),
        "connector_names_page" => ConnectorNamesPage::decode(bytes).map(|p| {
            format!(
                "names {} {:?}: {} mappings of {}, has_more {}",
                p.connector_id,
                p.kind,
                p.mappings.len(),
                p.total,
                p.has_more
            )
        }),
        "board_posts" => BoardPostsPage::decode(bytes).map(|p| {
            format!(
                "board: {} posts (count {:?}, limit {:?}, offset {:?})",
                p.posts.len(),
                p.count,
                p.limit,
                p.offset
            )
        }),
        "board_post_detail" => BoardPostDetail::decode(bytes).map(|d| {
            let shape = match d.shape {
                DetailShape::Flat => "flat",
                DetailShape::Nested => "nested",
                DetailShape::Paged { .. } => "paged",
            };
            format!(
                "post {} ({shape}): {} comments",
                d.post.id,
                d.comments.len()
            )
        }),
        "board_hearths" => {
            HearthCensus::decode(bytes).map(|c| format!("hearths: {} named", c.hearths.len()))
        }
        "runtime_resolved" => runtime_resolved(bytes),
        "runtime_config_raw" => runtime_config_raw(bytes),
        "runtime_config_conflict" => RuntimeConfigConflict::decode(bytes).map(|c| {
            format!(
                "revision conflict: current {}",
                short(&c.current.source_revision)
            )
        }),
        "keeper_config_snapshot" => KeeperConfigSnapshot::decode(bytes).map(|s| {
            format!(
                "keeper config {}: revision {}, sandbox {:?}, network {:?}",
                s.name.as_deref().unwrap_or("(unnamed)"),
                revision_summary(&s.config_revision),
                s.sandbox_profile,
                s.network_mode
            )
        }),
        "keeper_config_save_responses" => keeper_config_save(bytes),
        "runtime_assignment_responses" => runtime_assignment(bytes),
        "keeper_asks" => AskList::decode(bytes)
            .map(|l| format!("asks: {} listed, {} open", l.asks.len(), l.open_count)),
        "ask_answer_responses" => AskAnswerResponse::decode(bytes).map(|r| {
            format!(
                "ask answer 200: actor {}",
                r.actor.as_deref().unwrap_or("(not echoed)")
            )
        }),
        "operator_summary" => OperatorApprovals::decode(bytes).map(|a| {
            format!(
                "approvals of {}: {} visible, {} hidden, {} total",
                a.actor_filter, a.visible_count, a.hidden_count, a.total_count
            )
        }),
        _ => return None,
    };
    Some(r)
}

fn short(rev: &str) -> &str {
    rev.get(..12).unwrap_or(rev)
}

fn tools_summary(t: &ToolsInventoryRead) -> KindSummary {
    match t {
        ToolsInventoryRead::Warming { .. } => "tools: warming".into(),
        ToolsInventoryRead::Settled(inv) => {
            let surface = match &inv.effective_keeper_surface {
                SinceRelease::NotInRelease => "not sent by this release",
                SinceRelease::Sent(None) => "none",
                SinceRelease::Sent(Some(KeeperSurface::Warming)) => "warming",
                SinceRelease::Sent(Some(KeeperSurface::Unavailable { .. })) => "unavailable",
                SinceRelease::Sent(Some(KeeperSurface::Available(_))) => "available",
            };
            format!(
                "tools: {} registered (count {}), keeper surface {surface}",
                inv.tool_inventory.tools.len(),
                inv.tool_inventory.count
            )
        }
    }
}

fn skills_summary(s: &SkillsSnapshotRead) -> KindSummary {
    match s {
        SkillsSnapshotRead::Ready(r) => format!(
            "skills ready: {} surfaces ({} without usage), {} rejections",
            r.surfaces.len(),
            r.surfaces.iter().filter(|s| !s.usage_reported).count(),
            r.snapshot.rejections.len()
        ),
        SkillsSnapshotRead::NotRegistered => "skills: not registered".into(),
        SkillsSnapshotRead::Uninitialized => "skills: uninitialized".into(),
        SkillsSnapshotRead::InvalidWorkspace => "skills: invalid workspace".into(),
    }
}

fn async_summary(l: &AsyncRequestList) -> KindSummary {
    match l {
        AsyncRequestList::Ready { summary, .. } => format!(
            "async requests: {} active ({} runtime-owned, {} ownership unknown)",
            summary.active, summary.runtime_owned, summary.ownership_unknown
        ),
        AsyncRequestList::Unavailable { error, .. } => {
            format!("async requests unavailable: {error:?}")
        }
    }
}

/// Strict view: the first refused row refuses the kind (the source keeps the others).
fn connectors(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let l = ConnectorStatusList::decode(bytes)?;
    if let Some(e) = l.first_refused_row() {
        return Err(e.clone());
    }
    let bindings: usize = l.connectors().map(|c| c.configured_bindings.len()).sum();
    Ok(format!(
        "connectors: {} rows, {bindings} bindings",
        l.connectors().count()
    ))
}

/// Strict view: either section failing refuses the kind (the source keeps the other).
fn runtime_resolved(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let r = RuntimeResolved::decode(bytes)?;
    let catalogue = r.catalogue.clone()?;
    let usage = match r.usage.clone()? {
        SinceRelease::Sent(u) => format!("usage accounts {}", u.provider_usage_windows.len()),
        SinceRelease::NotInRelease => "usage not sent by this release".to_string(),
    };
    Ok(format!(
        "runtimes: {}, lanes {}, assignments {}, {usage}",
        catalogue.runtimes.len(),
        catalogue.lanes.len(),
        catalogue.assignments.len(),
    ))
}

/// The §9.2–§9.4 response family: read, preview, commit receipt, or an error body whose
/// status is implied by its shape (§11 runtime raw save).
fn runtime_config_raw(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let obj = decode_object(bytes)?;
    if obj.contains_key("can_save") {
        let p = RuntimeConfigPreview::decode(bytes)?;
        return Ok(format!("preview: can_save {}", p.can_save));
    }
    if obj.contains_key("state") || obj.contains_key("commit") {
        let r = CommitReceipt::decode(bytes)?;
        return Ok(format!(
            "committed {} ({:?})",
            short(&r.commit.source_revision),
            r.commit.durability
        ));
    }
    if obj.contains_key("error") && obj.get("ok") != Some(&Value::Bool(true)) {
        return Err(match classify_runtime_raw_save_body(bytes) {
            SaveOutcome::NotApplied { reason } => {
                DecodeError::new(DecodeErrorKind::Other("http_400_refused"), ".error", reason)
            }
            other => DecodeError::new(
                DecodeErrorKind::Other("outcome_unknown"),
                ".",
                format!("raw save response reads as {}", other.class()),
            ),
        });
    }
    let raw = RuntimeConfigRaw::decode(bytes)?;
    let table = match &raw.model_table {
        ModelTable::NotSent => "not sent",
        ModelTable::Ready(_) => "ready",
        ModelTable::Unavailable { .. } => "unavailable",
        ModelTable::Refused(_) => "refused",
    };
    Ok(format!(
        "raw config {}{}, model table {table}",
        short(&raw.source_revision),
        if raw.revision_is_canonical() {
            ""
        } else {
            " (opaque revision)"
        }
    ))
}

fn revision_summary(r: &ConfigRevision) -> &'static str {
    match r {
        ConfigRevision::Unavailable { .. } => "unavailable",
        ConfigRevision::Composite(_) => "composite",
    }
}

fn keeper_config_save(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let obj = decode_object(bytes)?;
    if obj.get("error").is_some_and(Value::is_object) {
        let f = KeeperConfigFailure::decode(bytes)?;
        return Ok(format!("settings save failure {:?}", f.code));
    }
    let r = KeeperConfigSaveResponse::decode(bytes)?;
    Ok(format!(
        "settings save: applied {}, revision {}",
        r.config_write.applied,
        revision_summary(&r.config_write.revision)
    ))
}

fn runtime_assignment(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let obj = decode_object(bytes)?;
    if obj.get("error").is_some_and(Value::is_object) {
        decode_assignment_conflict(bytes)?;
        return Ok("assignment revision conflict".into());
    }
    Ok(match RuntimeAssignmentResponse::decode(bytes)? {
        RuntimeAssignmentResponse::Committed(r) => {
            format!("assignment committed ({:?})", r.commit.durability)
        }
        RuntimeAssignmentResponse::Unchanged { .. } => "assignment unchanged".into(),
    })
}
