//! The goals tree (protocol.md §5.5) and the goal detail / timeline (§5.6).

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object, decode_value};
use super::tasks::TaskStatus;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// Why the keeper approval queue cannot be read (closed: the one code MASC writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalUnavailableCode {
    ResetRequired,
}

/// `approval_queue_state` (closed). When unavailable the tree is not usable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase", deny_unknown_fields)]
pub enum ApprovalQueueState {
    /// A struct variant so that `deny_unknown_fields` applies (see `tasks::SourceRead`).
    Ready {},
    Unavailable {
        code: ApprovalUnavailableCode,
        title: String,
        operator_detail: String,
        severity: String,
        icon: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimelineSeverity {
    Ok,
    Warn,
    Bad,
}

/// One server-shaped timeline row. `kind` stays open (`task`, `approval`, `goal_phase`,
/// and other goal events); `lane` is `task:<id>`, `approval:<id>`, `keeper:<name>` or `goal`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TimelineEvent {
    pub ts: String,
    pub kind: String,
    pub lane: String,
    pub title: String,
    pub summary: String,
    pub severity: TimelineSeverity,
}

/// A node's embedded `timeline_events`: server-shaped rows kept; other rows (raw ledger
/// lines the server never sends) dropped and counted, not shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeTimeline {
    pub events: Vec<TimelineEvent>,
    pub dropped_rows: usize,
}

fn node_timeline<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NodeTimeline>, D::Error> {
    let rows = Option::<Vec<serde_json::Value>>::deserialize(d)?;
    Ok(rows.map(|rows| {
        let mut t = NodeTimeline::default();
        for row in &rows {
            match decode_value::<TimelineEvent>(row) {
                Ok(e) => t.events.push(e),
                Err(_) => t.dropped_rows += 1,
            }
        }
        t
    }))
}

/// A goal's target: MASC stores numbers or text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum TargetValue {
    Number(f64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoalTaskRow {
    pub id: String,
    pub title: String,
    pub status: TaskStatus,
    #[serde(default)]
    pub priority: Option<i64>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub goal_id: Option<String>,
    #[serde(default)]
    pub is_terminal: Option<bool>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

/// A goal node. Absent collections are `None` (not sent), never an empty list.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoalNode {
    pub id: String,
    pub title: String,
    /// The tree's phase vocabulary is not closed (the planning view's is: `GoalPhase`).
    pub phase: String,
    #[serde(default)]
    pub priority: Option<i64>,
    #[serde(default)]
    pub metric: Option<String>,
    #[serde(default)]
    pub target_value: Option<TargetValue>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub tasks: Option<Vec<GoalTaskRow>>,
    #[serde(default)]
    pub task_count: Option<u64>,
    #[serde(default)]
    pub task_done_count: Option<u64>,
    #[serde(default)]
    pub children: Option<Vec<GoalNode>>,
    #[serde(default, deserialize_with = "node_timeline")]
    pub timeline_events: Option<NodeTimeline>,
    #[serde(default)]
    pub last_activity_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

impl GoalNode {
    /// This node and every descendant.
    pub fn node_count(&self) -> usize {
        1 + self
            .children
            .iter()
            .flatten()
            .map(GoalNode::node_count)
            .sum::<usize>()
    }
}

/// The tree summary; servers send subsets, so every count is optional (absent ≠ 0).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GoalsSummary {
    #[serde(default)]
    pub total_goals: Option<u64>,
    #[serde(default)]
    pub active_goals: Option<u64>,
    #[serde(default)]
    pub phase_counts: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    pub total_tasks: Option<u64>,
    #[serde(default)]
    pub done_tasks: Option<u64>,
    #[serde(default)]
    pub pending_approvals: Option<u64>,
}

/// `GET /api/v1/dashboard/goals`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoalsTree {
    #[serde(default)]
    pub generated_at: Option<String>,
    /// `None`: not reported (the server always writes it; some recorded bodies omit it).
    #[serde(default)]
    pub approval_queue_state: Option<ApprovalQueueState>,
    pub tree: Vec<GoalNode>,
    pub summary: GoalsSummary,
}

impl GoalsTree {
    /// The tree when usable: `None` while the approval queue is unavailable.
    pub fn usable_tree(&self) -> Option<&[GoalNode]> {
        match self.approval_queue_state {
            Some(ApprovalQueueState::Unavailable { .. }) => None,
            _ => Some(&self.tree),
        }
    }
}

impl WireDecode for GoalsTree {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        reject_warming(bytes)?;
        decode_json_object(bytes)
    }
}

/// The dashboard warming bodies (§1.4, §5.7) are refused as `server_initializing`, never data.
pub(crate) fn reject_warming(bytes: &[u8]) -> Result<(), DecodeError> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(bytes)
    else {
        return Ok(());
    };
    let initializing = map.get("status").and_then(|s| s.as_str()) == Some("initializing");
    let not_initialized = map.get("error").and_then(|s| s.as_str()) == Some("not initialized");
    if initializing || not_initialized {
        return Err(DecodeError::new(
            DecodeErrorKind::ServerInitializing,
            if initializing { ".status" } else { ".error" },
            "the server is warming up",
        ));
    }
    Ok(())
}

/// The goal timeline. `null` is `Unavailable`, never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timeline {
    Events(Vec<TimelineEvent>),
    Unavailable,
    /// The key was absent (older or partial server).
    NotSent,
}

/// A present key (`Some(None)` = `null`) versus an absent one (`None`, via `default`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A linked keeper of the detail; only the name is read, the rest is diagnostics.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LinkedKeeper {
    pub name: String,
    #[serde(default)]
    pub current_task_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GoalDetail {
    pub generated_at: Option<String>,
    pub approval_queue_state: Option<ApprovalQueueState>,
    /// `None`: null or absent (the approval store was unreadable, or a partial body).
    pub goal: Option<GoalNode>,
    pub linked_tasks: Option<Vec<serde_json::Value>>,
    pub linked_keepers: Option<Vec<LinkedKeeper>>,
    pub approvals: Option<Vec<serde_json::Value>>,
    pub execution_receipts: Option<Vec<serde_json::Value>>,
    pub timeline: Timeline,
}

/// A goal-detail read: the detail, or the HTTP-200 "not found" body (a failure of that read,
/// never an empty goal).
#[derive(Debug, Clone, PartialEq)]
pub enum GoalDetailRead {
    Found(Box<GoalDetail>),
    NotFound { goal_id: String, error: String },
}

#[derive(Deserialize)]
struct DetailWire {
    #[serde(default)]
    generated_at: Option<String>,
    #[serde(default)]
    approval_queue_state: Option<ApprovalQueueState>,
    #[serde(default)]
    goal: Option<GoalNode>,
    #[serde(default)]
    linked_tasks: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    linked_keepers: Option<Vec<LinkedKeeper>>,
    #[serde(default)]
    approvals: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    execution_receipts: Option<Vec<serde_json::Value>>,
    #[serde(default, deserialize_with = "present")]
    timeline: Option<Option<Vec<TimelineEvent>>>,
}

#[derive(Deserialize)]
struct NotFoundWire {
    #[allow(dead_code)]
    ok: bool,
    error: String,
    goal_id: String,
}

impl WireDecode for GoalDetailRead {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        reject_warming(bytes)?;
        let value: serde_json::Value = decode_json_object(bytes)?;
        if value.get("ok").and_then(|v| v.as_bool()) == Some(false) {
            let w: NotFoundWire = decode_value(&value)?;
            return Ok(Self::NotFound {
                goal_id: w.goal_id,
                error: w.error,
            });
        }
        let w: DetailWire = decode_value(&value)?;
        let timeline = match w.timeline {
            Some(Some(events)) => Timeline::Events(events),
            Some(None) => Timeline::Unavailable,
            None => Timeline::NotSent,
        };
        Ok(Self::Found(Box::new(GoalDetail {
            generated_at: w.generated_at,
            approval_queue_state: w.approval_queue_state,
            goal: w.goal,
            linked_tasks: w.linked_tasks,
            linked_keepers: w.linked_keepers,
            approvals: w.approvals,
            execution_receipts: w.execution_receipts,
            timeline,
        })))
    }
}

impl GoalDetailRead {
    /// Decode the detail read for `goal_id`: the not-found echo and `goal.id` must be exact.
    pub fn decode_for(bytes: &[u8], goal_id: &str) -> Result<Self, DecodeError> {
        let read = Self::decode(bytes)?;
        let (got, path) = match &read {
            Self::NotFound { goal_id, .. } => (Some(goal_id.as_str()), ".goal_id"),
            Self::Found(d) => (d.goal.as_ref().map(|g| g.id.as_str()), ".goal.id"),
        };
        if got.is_some_and(|g| g != goal_id) {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                path,
                "goal id is not the requested goal",
            ));
        }
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_queue_state_is_closed_5_5() {
        let extra =
            br#"{"approval_queue_state":{"state":"ready","legacy":true},"tree":[],"summary":{}}"#;
        let e = GoalsTree::decode(extra).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownField);
        let unavailable = br#"{"approval_queue_state":{"state":"unavailable","code":"reset_required","title":"t","operator_detail":"d","severity":"bad","icon":"!"},"tree":[{"id":"g","title":"G","phase":"executing"}],"summary":{}}"#;
        let t = GoalsTree::decode(unavailable).unwrap();
        assert!(t.usable_tree().is_none());
        assert_eq!(t.tree.len(), 1);
    }

    #[test]
    fn detail_timeline_null_absent_and_empty_differ_5_6() {
        let null = br#"{"approval_queue_state":{"state":"ready"},"timeline":null}"#;
        let empty = br#"{"approval_queue_state":{"state":"ready"},"timeline":[]}"#;
        let absent = br#"{"approval_queue_state":{"state":"ready"}}"#;
        let tl = |b: &[u8]| match GoalDetailRead::decode(b).unwrap() {
            GoalDetailRead::Found(d) => d.timeline,
            GoalDetailRead::NotFound { .. } => unreachable!(),
        };
        assert_eq!(tl(null), Timeline::Unavailable);
        assert_eq!(tl(empty), Timeline::Events(vec![]));
        assert_eq!(tl(absent), Timeline::NotSent);
    }

    #[test]
    fn detail_not_found_is_typed_and_echo_checked_5_6() {
        let body = br#"{"ok":false,"error":"Goal goal-9 not found","goal_id":"goal-9"}"#;
        assert!(matches!(
            GoalDetailRead::decode_for(body, "goal-9").unwrap(),
            GoalDetailRead::NotFound { ref goal_id, .. } if goal_id == "goal-9"
        ));
        let e = GoalDetailRead::decode_for(body, "goal-7").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
    }

    #[test]
    fn warming_body_is_not_an_empty_tree() {
        let e = GoalsTree::decode(br#"{"status":"initializing","message":"Server is warming up"}"#)
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::ServerInitializing);
    }
}
