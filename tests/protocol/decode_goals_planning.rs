//! Goals tree / detail (protocol.md §5.5, §5.6) and planning (§5.7) on the recorded fixtures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::decode::{DecodeErrorKind, WireDecode};
use masc_tui::protocol::goals::{ApprovalQueueState, GoalDetailRead, GoalsTree, Timeline};
use masc_tui::protocol::planning::{GoalPhase, PlanningRead, ProofObservation};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Option<Vec<u8>> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    let dir = if near.exists() {
        near
    } else {
        PathBuf::from("/work/shared/fixtures/masc")
    };
    let bytes = std::fs::read(dir.join(name)).ok();
    if bytes.is_none() {
        println!("fixtures absent, skipping");
    }
    bytes
}

#[test]
fn tree_keeps_server_timeline_rows_and_drops_ledger_rows_5_5() {
    let Some(b) = fixture("goals_tree__timeline_events_with_ledger_row.json") else {
        return;
    };
    let t = GoalsTree::decode(&b).unwrap();
    let first = t.tree[0].timeline_events.as_ref().unwrap();
    assert_eq!(first.events.len(), 2);
    assert_eq!(first.dropped_rows, 1);
    assert_eq!(first.events[1].kind, "goal_owner");
    // goal-2 has no timeline_events key: not sent, not empty.
    assert_eq!(t.tree[1].timeline_events, None);
}

#[test]
fn tree_without_approval_state_or_full_summary_still_reads_5_5() {
    let Some(b) = fixture("goals_tree__empty_workspace.json") else {
        return;
    };
    let t = GoalsTree::decode(&b).unwrap();
    assert_eq!(t.approval_queue_state, None);
    assert!(t.usable_tree().is_some());
    let Some(b) = fixture("goals_tree__explicit_phase_counts_partial_summary.json") else {
        return;
    };
    let t = GoalsTree::decode(&b).unwrap();
    assert_eq!(t.summary.total_goals, Some(3));
    assert_eq!(t.summary.active_goals, None);
    assert_eq!(t.approval_queue_state, Some(ApprovalQueueState::Ready {}));
}

#[test]
fn detail_fixtures_5_6() {
    let Some(b) = fixture("goals_detail__timeline_only_ready.json") else {
        return;
    };
    let GoalDetailRead::Found(d) = GoalDetailRead::decode(&b).unwrap() else {
        panic!("not found")
    };
    assert!(matches!(&d.timeline, Timeline::Events(e) if e.len() == 1));
    assert_eq!(d.goal, None);
    let Some(b) = fixture("goals_detail__keeper_trust_blocked_on_approval.json") else {
        return;
    };
    let GoalDetailRead::Found(d) = GoalDetailRead::decode_for(&b, "goal-1").unwrap() else {
        panic!("not found")
    };
    assert_eq!(d.linked_keepers.as_ref().unwrap()[0].name, "keeper-sangsu");
    assert_eq!(d.timeline, Timeline::Events(vec![]));
    let e = GoalDetailRead::decode_for(&b, "goal-2").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".goal.id")
    );
}

#[test]
fn planning_fixtures_5_7() {
    let Some(b) = fixture("planning__every_goal_phase.json") else {
        return;
    };
    let PlanningRead::Snapshot(p) = PlanningRead::decode(&b).unwrap() else {
        panic!("goal store unavailable")
    };
    let phases: Vec<GoalPhase> = p.goals.iter().map(|g| g.phase).collect();
    assert_eq!(
        phases,
        [
            GoalPhase::Executing,
            GoalPhase::Blocked,
            GoalPhase::Paused,
            GoalPhase::Verifying,
            GoalPhase::Completed,
            GoalPhase::Dropped
        ]
    );
    // The rollup is shown as sent even though it disagrees with the rows.
    assert_eq!(p.rollup.dropped_count, 5);
    assert_eq!(p.task_backlog.awaiting_verification, None);
    assert!(
        p.goals
            .iter()
            .all(|g| g.verification == ProofObservation::Unreadable)
    );
    let Some(b) = fixture("planning__empty_with_goal_history_block.json") else {
        return;
    };
    let PlanningRead::Snapshot(p) = PlanningRead::decode(&b).unwrap() else {
        panic!("goal store unavailable")
    };
    assert_eq!(p.rollup.blocked_count, Some(0));
    assert_eq!(p.task_backlog.awaiting_verification, Some(0));
    assert!(p.goal_history.unwrap().unlisted.is_empty());
    let Some(b) = fixture("planning__dashboard_warming_envelope.json") else {
        return;
    };
    assert_eq!(
        PlanningRead::decode(&b).unwrap_err().kind,
        DecodeErrorKind::ServerInitializing
    );
}
