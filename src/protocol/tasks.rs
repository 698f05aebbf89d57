//! Tasks over HTTP (protocol.md §5): the task object, the task list (§5.1), the task detail
//! (§5.2) and, in [`history`], the history pages (§5.3) and the legacy array (§5.4).

pub mod history;

pub use history::{
    HistoryContinuation, LegacyTaskEvent, LegacyTaskEvents, PageRequest, TaskEventRow,
    TaskHistoryPage,
};

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object, decode_value};
use serde::Deserialize;

pub const TASK_LIST_SCHEMA: &str = "masc.task_list.v1";
pub const TASK_DETAIL_SCHEMA: &str = "masc.task_detail.v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Todo,
    Claimed,
    InProgress,
    AwaitingVerification,
    Done,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Todo => "todo",
            Self::Claimed => "claimed",
            Self::InProgress => "in_progress",
            Self::AwaitingVerification => "awaiting_verification",
            Self::Done => "done",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The status with the fields that status carries (MASC's task JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskState {
    Todo,
    Claimed {
        assignee: String,
        claimed_at: String,
    },
    InProgress {
        assignee: String,
        started_at: String,
    },
    AwaitingVerification {
        assignee: String,
        started_at: String,
        submitted_at: String,
        verification_id: String,
    },
    Done {
        assignee: String,
        completed_at: String,
        /// `None`: the server sent `null` (no notes), not an empty note.
        notes: Option<String>,
    },
    Cancelled {
        cancelled_by: String,
        cancelled_at: String,
        reason: String,
    },
}

impl TaskState {
    pub fn status(&self) -> TaskStatus {
        match self {
            Self::Todo => TaskStatus::Todo,
            Self::Claimed { .. } => TaskStatus::Claimed,
            Self::InProgress { .. } => TaskStatus::InProgress,
            Self::AwaitingVerification { .. } => TaskStatus::AwaitingVerification,
            Self::Done { .. } => TaskStatus::Done,
            Self::Cancelled { .. } => TaskStatus::Cancelled,
        }
    }
}

/// A task body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: String,
    pub title: String,
    pub description: String,
    pub priority: i64,
    pub files: Vec<String>,
    pub created_at: String,
    pub created_by: Option<String>,
    pub state: TaskState,
}

#[derive(Deserialize)]
struct TaskWire {
    id: String,
    title: String,
    description: String,
    #[serde(default = "default_priority")]
    priority: i64,
    files: Vec<String>,
    created_at: String,
    #[serde(default)]
    created_by: Option<String>,
    status: TaskStatus,
    #[serde(default)]
    assignee: Option<String>,
    #[serde(default)]
    claimed_at: Option<String>,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    submitted_at: Option<String>,
    #[serde(default)]
    verification_id: Option<String>,
    #[serde(default)]
    completed_at: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    cancelled_by: Option<String>,
    #[serde(default)]
    cancelled_at: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

fn default_priority() -> i64 {
    3
}

impl Task {
    /// Decode a task object found at `path` (e.g. `.task`).
    pub fn from_value(value: &serde_json::Value, path: &str) -> Result<Self, DecodeError> {
        let w: TaskWire = decode_value(value).map_err(|e| reroot(e, path))?;
        let status = w.status;
        let need = |v: Option<String>, field: &str| {
            v.ok_or_else(|| {
                DecodeError::new(
                    DecodeErrorKind::MissingField,
                    format!("{path}.{field}"),
                    format!("status {} without {field}", status.as_str()),
                )
            })
        };
        let state = match status {
            TaskStatus::Todo => TaskState::Todo,
            TaskStatus::Claimed => TaskState::Claimed {
                assignee: need(w.assignee, "assignee")?,
                claimed_at: need(w.claimed_at, "claimed_at")?,
            },
            TaskStatus::InProgress => TaskState::InProgress {
                assignee: need(w.assignee, "assignee")?,
                started_at: need(w.started_at, "started_at")?,
            },
            TaskStatus::AwaitingVerification => TaskState::AwaitingVerification {
                assignee: need(w.assignee, "assignee")?,
                started_at: need(w.started_at, "started_at")?,
                submitted_at: need(w.submitted_at, "submitted_at")?,
                verification_id: need(w.verification_id, "verification_id")?,
            },
            TaskStatus::Done => TaskState::Done {
                assignee: need(w.assignee, "assignee")?,
                completed_at: need(w.completed_at, "completed_at")?,
                notes: w.notes,
            },
            TaskStatus::Cancelled => TaskState::Cancelled {
                cancelled_by: need(w.cancelled_by, "cancelled_by")?,
                cancelled_at: need(w.cancelled_at, "cancelled_at")?,
                reason: need(w.reason, "reason")?,
            },
        };
        Ok(Self {
            id: w.id,
            title: w.title,
            description: w.description,
            priority: w.priority,
            files: w.files,
            created_at: w.created_at,
            created_by: w.created_by,
            state,
        })
    }
}

/// Prefix a nested decode error's path with where the nested value sits.
pub(crate) fn reroot(mut e: DecodeError, at: &str) -> DecodeError {
    let inner = if e.path == "." { "" } else { e.path.as_str() };
    e.path = format!("{at}{inner}");
    if e.path.is_empty() {
        e.path = ".".to_string();
    }
    e
}

/// One read source of the task list (closed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase", deny_unknown_fields)]
pub enum SourceRead {
    /// A struct variant so that `deny_unknown_fields` applies to it (serde ignores extra
    /// keys on unit variants of internally tagged enums).
    Read {},
    Unavailable {
        reason: String,
    },
}

impl SourceRead {
    pub fn is_read(&self) -> bool {
        matches!(self, Self::Read {})
    }
}

/// Which stores the list was read from (closed). An unavailable one is never "no tasks".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSources {
    pub backlog: SourceRead,
    pub archive: SourceRead,
    pub goal_links: SourceRead,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TaskListRow {
    pub id: String,
    pub title: String,
    pub status: TaskStatus,
    pub priority: i64,
    pub assignee: Option<String>,
    pub created_at: String,
    pub completed_at: Option<String>,
    pub archived: bool,
    /// `None` when goal links are unavailable (never "no goals").
    pub goal_ids: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskList {
    pub sources: TaskSources,
    pub tasks: Vec<TaskListRow>,
}

#[derive(Deserialize)]
struct TaskListWire {
    schema: String,
    sources: TaskSources,
    tasks: Vec<TaskListRow>,
}

fn check_schema(got: &str, want: &str) -> Result<(), DecodeError> {
    if got == want {
        Ok(())
    } else {
        Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            ".schema",
            format!("schema is not {want}"),
        ))
    }
}

impl WireDecode for TaskList {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: TaskListWire = decode_json_object(bytes)?;
        check_schema(&w.schema, TASK_LIST_SCHEMA)?;
        let links_read = w.sources.goal_links.is_read();
        if let Some(i) = w
            .tasks
            .iter()
            .position(|t| t.goal_ids.is_some() != links_read)
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!(".tasks[{i}].goal_ids"),
                if links_read {
                    "goal_ids null although goal links were read"
                } else {
                    "goal_ids listed although goal links are unavailable"
                },
            ));
        }
        Ok(Self {
            sources: w.sources,
            tasks: w.tasks,
        })
    }
}

/// The canonical goal observation of a task detail (closed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase", deny_unknown_fields)]
pub enum GoalObservation {
    /// Non-empty and without repeats.
    Linked {
        goal_ids: Vec<String>,
    },
    Unlinked {},
    Unavailable {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskDetail {
    pub task_id: String,
    pub task: Task,
    pub goal: GoalObservation,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskDetailWire {
    schema: String,
    task_id: String,
    task: serde_json::Value,
    goal: GoalObservation,
}

impl WireDecode for TaskDetail {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: TaskDetailWire = decode_json_object(bytes)?;
        check_schema(&w.schema, TASK_DETAIL_SCHEMA)?;
        let task = Task::from_value(&w.task, ".task")?;
        if task.id != w.task_id {
            return Err(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                ".task.id",
                "task.id is not task_id",
            ));
        }
        if let GoalObservation::Linked { goal_ids } = &w.goal {
            let mut seen = std::collections::HashSet::new();
            if goal_ids.is_empty() || !goal_ids.iter().all(|g| seen.insert(g)) {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    ".goal.goal_ids",
                    "linked goal observation needs distinct, non-empty goal_ids",
                ));
            }
        }
        Ok(Self {
            task_id: w.task_id,
            task,
            goal: w.goal,
        })
    }
}

impl TaskDetail {
    /// Decode the detail read for `task_id`: the echo must be exact.
    pub fn decode_for(bytes: &[u8], task_id: &str) -> Result<Self, DecodeError> {
        let detail = Self::decode(bytes)?;
        if detail.task_id != task_id {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".task_id",
                "task_id is not the requested task",
            ));
        }
        Ok(detail)
    }
}

#[cfg(test)]
mod tests;
