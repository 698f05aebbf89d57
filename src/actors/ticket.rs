//! Tickets: the proof of ownership a result carries back to the view (sources.md G-2, G-7).

use crate::protocol::admission::ReadScope;
use std::fmt;

/// Which slot of the model a read fills. One variant per owned read; parameterised reads
/// (per keeper, per task) carry their key so a result for another key never fits the slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKey {
    /// `GET /health` cadence (owned by the workspace actor).
    Workspace,
    /// `GET /api/v1/gate/keepers?detailed=true`.
    KeepersRoster,
    /// The chat hub: spawns one chat source per open Keeper and one actor per send.
    ChatHub,
    /// One Keeper's chat: history pages, its sends' streams, reconciliations (§4.3–§4.5).
    Chat { keeper: String },
    /// `GET /api/v1/dashboard/planning` (Work → Goals rollup).
    Planning,
    /// `GET /api/v1/dashboard/tasks` (Work → Tasks list).
    TaskList,
    /// The Work detail source actor (supervision key); its reads carry the keys below.
    WorkDetail,
    /// `GET /api/v1/dashboard/tasks/detail?task_id=` of this task.
    TaskBody(String),
    /// `GET /api/v1/dashboard/tasks/history/page` chain of this task.
    TaskHistory(String),
    /// `GET /api/v1/dashboard/goals/detail?goal_id=` of this goal (B-1).
    GoalTimeline(String),
    /// The Board source actor (supervision key); its reads carry the keys below.
    Board,
    /// `GET /api/v1/board` with the query fixed at dispatch (E-1, E-11).
    BoardPosts,
    /// `GET /api/v1/board/hearths`: the hearth census, a separate dataset slot (E-1, E-3).
    HearthCensus,
    /// `GET /api/v1/board/{post_id}?format=flat` of this post (E-8).
    BoardPost(String),
    /// The Tools source actor (supervision key): three independent slots (T-1).
    Tools,
    /// `GET /api/v1/dashboard/tools` (§6.1).
    ToolsInventory,
    /// `GET /api/v1/skills` (§6.2).
    SkillsCatalog,
    /// `GET /api/v1/async-requests` (§6.3).
    AsyncRequests,
    /// `GET /api/v1/runtime/resolved` (§9.1): the shared Runtime catalogue and usage (F).
    RuntimeCatalogue,
    /// The Connectors source actor (supervision key).
    Connectors,
    /// `GET /api/v1/gate/connectors` (§7.1): status with bindings, delivered first (D-5).
    ConnectorsStatus,
    /// One name cursor chain (§7.2, D-1): `scope` is `server`, `channel` or `person`.
    ConnectorNames { connector: String, scope: String },
    /// The Decisions source actor (supervision key): approvals and asks, read only.
    Decisions,
    /// `GET /api/v1/operator?view=summary…` (§10.5): this actor's pending approvals.
    OperatorApprovals,
    /// `GET /api/v1/keepers/asks` (§10.1): open asks of the fleet.
    OpenAsks,
}

impl SourceKey {
    /// Stable name used in traces and the timeline report.
    pub fn name(&self) -> String {
        match self {
            Self::Workspace => "workspace".to_string(),
            Self::KeepersRoster => "keepers_roster".to_string(),
            Self::ChatHub => "chat_hub".to_string(),
            // The keeper name is an identifier, not body text (G-10).
            Self::Chat { keeper } => format!("chat:{keeper}"),
            // Object ids stay out of trace names (G-10): the ticket identifies the object.
            Self::Planning => "planning".to_string(),
            Self::TaskList => "task_list".to_string(),
            Self::WorkDetail => "work_detail".to_string(),
            Self::TaskBody(_) => "task_body".to_string(),
            Self::TaskHistory(_) => "task_history".to_string(),
            Self::GoalTimeline(_) => "goal_timeline".to_string(),
            Self::Board => "board".to_string(),
            Self::BoardPosts => "board_posts".to_string(),
            Self::HearthCensus => "hearth_census".to_string(),
            Self::BoardPost(_) => "board_post".to_string(),
            Self::Tools => "tools".to_string(),
            Self::ToolsInventory => "tools_inventory".to_string(),
            Self::SkillsCatalog => "skills_catalog".to_string(),
            Self::AsyncRequests => "async_requests".to_string(),
            Self::RuntimeCatalogue => "runtime_catalogue".to_string(),
            Self::Connectors => "connectors".to_string(),
            Self::ConnectorsStatus => "connectors_status".to_string(),
            // Connector ids are identifiers (lower-case transport names), not body text.
            Self::ConnectorNames { connector, scope } => {
                format!("connector_names:{connector}:{scope}")
            }
            Self::Decisions => "decisions".to_string(),
            Self::OperatorApprovals => "operator_approvals".to_string(),
            Self::OpenAsks => "open_asks".to_string(),
        }
    }
}

impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Captured at dispatch; a result is applied only while this ticket still owns its slot and
/// its scope's epoch is current. Generations are per source and never reset (G-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ticket {
    pub source: SourceKey,
    pub generation: u64,
    pub scope: ReadScope,
}
