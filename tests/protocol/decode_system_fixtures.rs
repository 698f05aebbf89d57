//! Typed meaning of selected system fixtures (not just decode/reject): unknown, warming,
//! unavailable and empty stay distinct values (protocol.md §6–§10).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::protocol::board::{BoardPostDetail, DetailShape};
use masc_tui::protocol::connectors::{
    ConnectorNamesPage, ConnectorStatusList, NameScope, NamesPageRequest,
};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::keeper_config::{
    AssignmentState, ConfigRevision, KeeperConfigSnapshot, RuntimeAssignmentRevision,
};
use masc_tui::protocol::operator::{ActionType, OperatorApprovals};
use masc_tui::protocol::runtime::{ResolvedTarget, RuntimeResolved};
use masc_tui::protocol::skills::{SkillSurfaceKind, SkillsSnapshotRead};
use masc_tui::protocol::tools::{KeeperSurface, ToolsInventoryRead};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Option<Vec<u8>> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    let dir = if near.exists() {
        near
    } else {
        PathBuf::from("/work/shared/fixtures/masc")
    };
    if !dir.exists() {
        println!("fixtures absent, skipping");
        return None;
    }
    Some(std::fs::read(dir.join(name)).unwrap())
}

#[test]
fn settled_empty_inventory_is_zero_tools_not_warming_s6_1() {
    let Some(b) = fixture("dashboard_tools__settled_empty_inventory.json") else {
        return;
    };
    let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(&b).unwrap() else {
        panic!("a settled inventory")
    };
    assert!(inv.tool_inventory.tools.is_empty());
    assert_eq!(
        inv.effective_keeper_surface,
        masc_tui::protocol::decode::SinceRelease::Sent(None)
    );
}

#[test]
fn direct_call_null_reads_not_callable_s6_1() {
    let Some(b) = fixture("dashboard_tools__direct_call_null.json") else {
        return;
    };
    let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(&b).unwrap() else {
        panic!("a settled inventory")
    };
    assert!(!inv.tool_inventory.tools[0].direct_call_allowed);
    assert_eq!(inv.tool_inventory.tools[0].dispatch_registered, None);
}

#[test]
fn keeper_surface_available_carries_tools_s6_1() {
    let Some(b) = fixture("dashboard_tools__keeper_surface_available_with_skill_profile.json")
    else {
        return;
    };
    let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(&b).unwrap() else {
        panic!("a settled inventory")
    };
    let masc_tui::protocol::decode::SinceRelease::Sent(Some(KeeperSurface::Available(s))) =
        inv.effective_keeper_surface
    else {
        panic!("an available surface")
    };
    assert_eq!(s.tools[0].origin.kind, "composition_skill");
    assert_eq!(s.composition_skills.len(), 1);
}

#[test]
fn skills_ready_composition_surface_s6_2() {
    let Some(b) = fixture("skills_snapshot__ready_composition_usage_and_flow.json") else {
        return;
    };
    let SkillsSnapshotRead::Ready(r) = SkillsSnapshotRead::decode(&b).unwrap() else {
        panic!("ready")
    };
    assert_eq!(r.surfaces[0].kind, SkillSurfaceKind::Composition);
    assert_eq!(r.surfaces[0].usage[0].invocations, 12);
    assert!(
        r.usage_coverage.is_none(),
        "not reported is not zero ledgers"
    );
}

#[test]
fn names_page_without_cursor_fields_is_a_first_page_s7_2() {
    let Some(b) = fixture("connector_names_page__single_page_no_cursor_fields.json") else {
        return;
    };
    let req = NamesPageRequest {
        connector_id: "discord".into(),
        scope: NameScope::Channel,
        after_id: None,
    };
    let p = ConnectorNamesPage::decode_for(&b, &req).unwrap();
    assert_eq!(p.after_id, None, "absent, not null");
    assert_eq!(p.next_cursor(), None);
    // The same page answering a later link of the chain has no after_id echo: refused.
    let later = NamesPageRequest {
        after_id: Some("100".into()),
        ..req
    };
    assert!(ConnectorNamesPage::decode_for(&b, &later).is_err());
}

#[test]
fn first_of_two_pages_continues_the_chain_s7_2() {
    let Some(b) = fixture("connector_names_page__first_of_two_pages_500.json") else {
        return;
    };
    let req = NamesPageRequest {
        connector_id: "discord".into(),
        scope: NameScope::Channel,
        after_id: None,
    };
    let p = ConnectorNamesPage::decode_for(&b, &req).unwrap();
    assert_eq!(p.mappings.len(), 500);
    assert_eq!(p.next_cursor(), Some("100499"));
}

#[test]
fn large_binding_list_s7_1() {
    let Some(b) = fixture("gate_connectors__502_bindings.json") else {
        return;
    };
    let l = ConnectorStatusList::decode(&b).unwrap();
    assert_eq!(
        l.connectors().next().unwrap().configured_bindings.len(),
        502
    );
    assert!(l.generated_at.is_none());
}

#[test]
fn paged_detail_shape_and_id_check_s8_2() {
    let Some(b) = fixture("board_post_detail__paged_five_comments_wide_body.json") else {
        return;
    };
    let d = BoardPostDetail::decode_for(&b, "post-1").unwrap();
    assert!(matches!(d.shape, DetailShape::Paged { .. }));
    assert_eq!(d.comments.len(), 5);
    assert!(BoardPostDetail::decode_for(&b, "post-b").is_err());
}

#[test]
fn runtime_lanes_and_default_assignment_s9_1() {
    let Some(b) = fixture("runtime_resolved__five_runtimes_three_lanes.json") else {
        return;
    };
    let r = RuntimeResolved::decode(&b).unwrap();
    let c = r.catalogue.unwrap();
    assert_eq!(c.runtimes.len(), 5);
    assert_eq!(c.runtimes[0].quota_exhausted, None, "omitted is not false");
    assert_eq!(
        c.assignments[0].resolved,
        ResolvedTarget::Lane {
            id: "primary".into()
        }
    );
    assert!(r.usage.is_ok());
}

#[test]
fn settings_snapshot_composite_revision_s9_5() {
    let Some(b) = fixture("keeper_config_snapshot__settings_editor_fields.json") else {
        return;
    };
    let s = KeeperConfigSnapshot::decode(&b).unwrap();
    let ConfigRevision::Composite(c) = &s.config_revision else {
        panic!("composite")
    };
    let RuntimeAssignmentRevision::RuntimeConfigPresent { assignment, .. } = &c.runtime_assignment
    else {
        panic!("present")
    };
    assert_eq!(
        *assignment,
        AssignmentState::Assigned {
            runtime_id: "anthropic.claude-opus-5".into()
        }
    );
    assert_eq!(s.max_context_override, None);
    assert_eq!(s.skills.unwrap().names, None, "null = all published");
}

#[test]
fn two_visible_approvals_s10_5() {
    let Some(b) = fixture("operator_summary__two_visible_one_hidden.json") else {
        return;
    };
    let a = OperatorApprovals::decode(&b).unwrap();
    assert_eq!(a.items.len(), 2);
    assert_eq!(a.items[1].action_type, ActionType::KeeperProbe);
    assert_eq!(a.items[1].target_id.as_deref(), Some("keeper.one"));
    assert_eq!(a.hidden_actors, ["other-agent"]);
}
