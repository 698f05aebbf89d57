//! The Work › Tasks fallback where MASC has the data: when this MASC does
//! not serve the task list route (§5.1, a masc-tui extension; `ClientError::NotServed`), the
//! tasks linked to goals are listed from MASC's goals tree (`GET /api/v1/dashboard/goals`,
//! §5.5), which carries every goal node with its linked tasks.
//!
//! - Why the tree and not one `goals/detail` (§5.6) per goal: both carry the same goal-linked
//!   task rows, but the tree is one GET for the whole workspace (children included) where the
//!   detail route would be one GET per goal on every cadence, and its rows are typed in the
//!   protocol (§5.5 node `tasks`), while §5.6 leaves `linked_tasks` open.
//! - The fallback is its own typed value ([`GoalLinkedTasks`] in its own slot,
//!   `WorkSlot::GoalLinkedTasks`), never a `TaskList` dressed up: it has no backlog/archive
//!   coverage, tasks without a goal are not in it, and the view says so.
//! - It is read only after the task list read came back `not_served` (`task_list`'s source
//!   decides; never on another failure).

use super::{WorkObservation, WorkSlot};
use crate::actors::contract::GenerationCounter;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::Admitted;
use crate::protocol::goals::{ApprovalQueueState, GoalNode, GoalsTree};
use crate::protocol::tasks::TaskStatus;
use std::sync::Arc;

pub const GOALS_TREE_PATH: &str = "/api/v1/dashboard/goals";

/// One task as the goal links list it (§5.5 node `tasks` row), merged over every goal that
/// links it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalLinkedTask {
    pub id: String,
    pub title: String,
    pub status: TaskStatus,
    /// `None`: the row carried no priority (never a default).
    pub priority: Option<i64>,
    pub assignee: Option<String>,
    /// Every goal whose node lists this task, in tree order (never empty).
    pub goal_ids: Vec<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

/// What the goals tree says about goal-linked tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalLinkedTasks {
    /// The tasks the goal links list, in tree order (depth first), each once.
    Listed {
        tasks: Vec<GoalLinkedTask>,
        /// Goal nodes read (children included).
        goals: usize,
        /// Goal nodes without a `tasks` key: their links are unknown, not "no tasks".
        goals_without_task_rows: usize,
    },
    /// §5.5: the approval queue is unavailable, so the tree is not usable.
    TreeUnavailable { title: String },
}

impl GoalLinkedTasks {
    /// The goal-linked tasks of `tree` (pure; runs in the worker).
    pub fn from_tree(tree: &GoalsTree) -> Self {
        if let Some(ApprovalQueueState::Unavailable { title, .. }) = &tree.approval_queue_state {
            return Self::TreeUnavailable {
                title: title.clone(),
            };
        }
        let mut tasks: Vec<GoalLinkedTask> = Vec::new();
        let mut goals = 0;
        let mut without = 0;
        let mut stack: Vec<&GoalNode> = tree.tree.iter().rev().collect();
        while let Some(node) = stack.pop() {
            goals += 1;
            match &node.tasks {
                None => without += 1,
                Some(rows) => {
                    for row in rows {
                        match tasks.iter_mut().find(|t| t.id == row.id) {
                            Some(known) => {
                                if !known.goal_ids.contains(&node.id) {
                                    known.goal_ids.push(node.id.clone());
                                }
                            }
                            None => tasks.push(GoalLinkedTask {
                                id: row.id.clone(),
                                title: row.title.clone(),
                                status: row.status,
                                priority: row.priority,
                                assignee: row.assignee.clone(),
                                goal_ids: vec![node.id.clone()],
                                created_at: row.created_at.clone(),
                                updated_at: row.updated_at.clone(),
                            }),
                        }
                    }
                }
            }
            stack.extend(node.children.iter().flatten().rev());
        }
        Self::Listed {
            tasks,
            goals,
            goals_without_task_rows: without,
        }
    }

    /// The listed tasks (none when the tree is unavailable).
    pub fn tasks(&self) -> &[GoalLinkedTask] {
        match self {
            Self::Listed { tasks, .. } => tasks,
            Self::TreeUnavailable { .. } => &[],
        }
    }

    /// The listed task `id`, if the goal links list it.
    pub fn task(&self, id: &str) -> Option<&GoalLinkedTask> {
        self.tasks().iter().find(|t| t.id == id)
    }
}

pub fn goal_linked_reader() -> Reader<WorkObservation> {
    reader(|auth, client| async move {
        let read = client.get::<GoalsTree>(&auth, GOALS_TREE_PATH).await;
        WorkObservation::GoalLinkedTasks(read.map(|a| Admitted {
            value: Arc::new(GoalLinkedTasks::from_tree(&a.value)),
            mode: a.mode,
            from_cache: a.from_cache,
        }))
    })
}

/// The fallback slot: explicit demand supersedes, the cadence shares (G-3). Not standing: it
/// is demanded only after a `not_served` task list read.
pub fn goal_linked_slot(generations: GenerationCounter) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::GoalLinkedTasks,
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: goal_linked_reader(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode::WireDecode;

    /// Tasks of nested goals are listed once, with every goal that links them; a
    /// node without a `tasks` key is counted, never read as "no tasks".
    #[test]
    fn issue13_goal_links_merge_over_the_whole_tree() {
        let tree = GoalsTree::decode(
            br#"{"approval_queue_state":{"state":"ready"},"tree":[
              {"id":"g1","title":"G1","phase":"executing","tasks":[
                 {"id":"t1","title":"One","status":"todo","priority":2}],
               "children":[{"id":"g2","title":"G2","phase":"executing","tasks":[
                 {"id":"t1","title":"One","status":"todo"},
                 {"id":"t2","title":"Two","status":"done","assignee":"alpha"}]}]},
              {"id":"g3","title":"G3","phase":"paused"}],"summary":{}}"#,
        )
        .unwrap();
        let linked = GoalLinkedTasks::from_tree(&tree);
        let GoalLinkedTasks::Listed {
            tasks,
            goals,
            goals_without_task_rows,
        } = &linked
        else {
            panic!("listed");
        };
        assert_eq!((*goals, *goals_without_task_rows), (3, 1));
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].goal_ids, vec!["g1", "g2"]);
        assert_eq!(tasks[0].priority, Some(2));
        assert_eq!(tasks[1].goal_ids, vec!["g2"]);
        assert_eq!(linked.task("t2").map(|t| t.status), Some(TaskStatus::Done));
    }

    #[test]
    fn issue13_an_unavailable_approval_queue_is_not_an_empty_list() {
        let tree = GoalsTree::decode(
            br#"{"approval_queue_state":{"state":"unavailable","code":"reset_required","title":"Approval queue needs a reset","operator_detail":"d","severity":"bad","icon":"!"},"tree":[],"summary":{}}"#,
        )
        .unwrap();
        assert_eq!(
            GoalLinkedTasks::from_tree(&tree),
            GoalLinkedTasks::TreeUnavailable {
                title: "Approval queue needs a reset".into()
            }
        );
    }
}
