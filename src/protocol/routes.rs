//! The client's route contract: every route masc-tui reads or writes,
//! grouped in families, with its auth class (protocol.md §1.3), where it comes from (MASC's
//! releases, newer MASC, or a masc-tui extension), and whether a 404 on it can mean "this object
//! does not exist" (the protocol defines such a 404 for a few routes).
//!
//! A 404 whose body is MASC's answer to an unknown route is "not served by this MASC"
//! ([`classify_404`]): MASC's router answers an unmatched path with `text/plain` `404 Not Found`
//! (`Router.dispatch`, lib/http_server_eio.ml), and the `/api/v1/keepers/…` prefix handler
//! answers an unknown sub-route with `{"error":"not found"}` (`handle_keeper_get_subroutes`,
//! lib/server/server_dashboard_http_keeper_api.ml). A route whose protocol defines an object
//! 404 (§4.4, §5.2, §6.4, §7.2, §8.2, §9.2, §9.5, §10.1 with `name`) keeps that meaning for any
//! other JSON error body. The client records what it learns per family in a
//! [`CapabilityTable`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// HTTP method of a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
        }
    }
}

/// Auth class of a route (protocol.md §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthClass {
    Public,
    Read,
    Operator,
    Admin,
}

impl AuthClass {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Read => "read",
            Self::Operator => "operator",
            Self::Admin => "admin",
        }
    }
}

/// Where a route comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteOrigin {
    /// Served by every MASC release masc-tui covers (the August 2026 releases and later).
    Masc,
    /// Only in MASC releases newer than the August 2026 ones ("newer MASC" in protocol.md).
    NewerMasc,
    /// A masc-tui extension (per seed 001): never served by MASC.
    Extension,
}

impl RouteOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Masc => "MASC",
            Self::NewerMasc => "newer MASC",
            Self::Extension => "masc-tui extension",
        }
    }
}

/// One family of routes: one endpoint of the protocol, whatever its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RouteFamily {
    Health,
    Roster,
    KeeperTurns,
    ChatStream,
    ChatOperation,
    ChatHistoryPage,
    ChatHistoryArray,
    ChatEvents,
    TaskList,
    TaskDetail,
    TaskHistoryPage,
    TaskHistoryLegacy,
    GoalsTree,
    GoalDetail,
    Planning,
    ToolsInventory,
    Skills,
    AsyncRequests,
    AsyncRequest,
    Connectors,
    ConnectorNames,
    ConnectorBind,
    ConnectorUnbind,
    Board,
    BoardHearths,
    BoardPost,
    BoardCreate,
    BoardVote,
    GoalTransition,
    RuntimeResolved,
    RuntimeProbe,
    RuntimeConfigRaw,
    RuntimeConfigPreview,
    RuntimeAssignment,
    KeeperConfig,
    KeeperCreate,
    KeeperUp,
    Asks,
    AskAnswer,
    AskFollowUp,
    TurnTranscript,
    OperatorSummary,
    OperatorConfirm,
    KeeperStatus,
    KeeperContext,
    KeeperMetricsTail,
    DashboardGate,
    KeeperDirective,
    KeeperBoot,
    KeeperShutdown,
    KeeperPurge,
    ToolApprovalMode,
    ToolApprovalModeSet,
    HeldCalls,
    HeldCallDecision,
    RuntimeTrace,
    TurnInterrupt,
    RunNext,
    TurnRecords,
    ProviderInput,
    SystemLogs,
    GateResolve,
    GateRetry,
}

/// What the contract says about one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteSpec {
    pub family: RouteFamily,
    pub method: Method,
    /// Path with `{param}` segments (no query).
    pub template: &'static str,
    pub auth: AuthClass,
    pub origin: RouteOrigin,
    /// The object a protocol-defined 404 names on this route (`None`: every 404 is "not
    /// served").
    pub object_404: Option<&'static str>,
    /// The protocol.md section.
    pub section: &'static str,
}

const fn spec(
    family: RouteFamily,
    method: Method,
    template: &'static str,
    auth: AuthClass,
    origin: RouteOrigin,
    object_404: Option<&'static str>,
    section: &'static str,
) -> RouteSpec {
    RouteSpec {
        family,
        method,
        template,
        auth,
        origin,
        object_404,
        section,
    }
}

use AuthClass::{Admin, Operator, Public, Read};
use Method::{Get, Post};
use RouteFamily as F;
use RouteOrigin::{Extension, Masc, NewerMasc};

/// Every route of the contract. Literal segments are listed before a parameter in the same
/// position (`/api/v1/board/hearths` before `/api/v1/board/{post_id}`).
pub const ROUTES: &[RouteSpec] = &[
    spec(F::Health, Get, "/health", Public, Masc, None, "§3"),
    spec(
        F::Roster,
        Get,
        "/api/v1/gate/keepers",
        Operator,
        Masc,
        None,
        "§4.1",
    ),
    spec(
        F::KeeperTurns,
        Get,
        "/api/v1/keepers/turns",
        Read,
        NewerMasc,
        None,
        "§4.2",
    ),
    spec(
        F::ChatStream,
        Post,
        "/api/v1/keepers/chat/stream",
        Operator,
        Masc,
        Some("keeper"),
        "§4.3",
    ),
    spec(
        F::ChatOperation,
        Get,
        "/api/v1/keepers/{name}/chat/operations/{request_id}",
        Read,
        Masc,
        Some("chat operation"),
        "§4.4",
    ),
    spec(
        F::ChatHistoryPage,
        Get,
        "/api/v1/keepers/{name}/chat/history/page",
        Public,
        Masc,
        None,
        "§4.5",
    ),
    spec(
        F::ChatHistoryArray,
        Get,
        "/api/v1/keepers/{name}/chat/history",
        Public,
        Masc,
        None,
        "§15.9",
    ),
    spec(
        F::ChatEvents,
        Get,
        "/api/v1/keepers/{name}/chat/events",
        Admin,
        NewerMasc,
        Some("chat operation journal"),
        "§15.9",
    ),
    spec(
        F::TaskList,
        Get,
        "/api/v1/dashboard/tasks",
        Public,
        Extension,
        None,
        "§5.1",
    ),
    spec(
        F::TaskDetail,
        Get,
        "/api/v1/dashboard/tasks/detail",
        Public,
        Extension,
        Some("task"),
        "§5.2",
    ),
    spec(
        F::TaskHistoryPage,
        Get,
        "/api/v1/dashboard/tasks/history/page",
        Public,
        Extension,
        None,
        "§5.3",
    ),
    spec(
        F::TaskHistoryLegacy,
        Get,
        "/api/v1/dashboard/tasks/history",
        Public,
        Masc,
        None,
        "§5.4",
    ),
    spec(
        F::GoalsTree,
        Get,
        "/api/v1/dashboard/goals",
        Public,
        Masc,
        None,
        "§5.5",
    ),
    spec(
        F::GoalDetail,
        Get,
        "/api/v1/dashboard/goals/detail",
        Public,
        Masc,
        None,
        "§5.6",
    ),
    spec(
        F::Planning,
        Get,
        "/api/v1/dashboard/planning",
        Public,
        Masc,
        None,
        "§5.7",
    ),
    spec(
        F::ToolsInventory,
        Get,
        "/api/v1/dashboard/tools",
        Public,
        Masc,
        None,
        "§6.1",
    ),
    spec(
        F::Skills,
        Get,
        "/api/v1/skills",
        Public,
        NewerMasc,
        None,
        "§6.2",
    ),
    spec(
        F::AsyncRequests,
        Get,
        "/api/v1/async-requests",
        Admin,
        NewerMasc,
        None,
        "§6.3",
    ),
    spec(
        F::AsyncRequest,
        Get,
        "/api/v1/async-requests/{request_id}",
        Admin,
        Extension,
        Some("async request"),
        "§6.4",
    ),
    spec(
        F::Connectors,
        Get,
        "/api/v1/gate/connectors",
        Public,
        Masc,
        None,
        "§7.1",
    ),
    spec(
        F::ConnectorNames,
        Get,
        "/api/v1/gate/connector/names",
        Read,
        NewerMasc,
        Some("connector"),
        "§7.2",
    ),
    spec(
        F::ConnectorBind,
        Post,
        "/api/v1/gate/connector/bind",
        Operator,
        Masc,
        Some("connector or keeper"),
        "§7.3",
    ),
    spec(
        F::ConnectorUnbind,
        Post,
        "/api/v1/gate/connector/unbind",
        Operator,
        Masc,
        Some("connector or binding"),
        "§7.4",
    ),
    spec(F::Board, Get, "/api/v1/board", Public, Masc, None, "§8.1"),
    spec(
        F::BoardHearths,
        Get,
        "/api/v1/board/hearths",
        Public,
        Masc,
        None,
        "§8.3",
    ),
    spec(
        F::BoardPost,
        Get,
        "/api/v1/board/{post_id}",
        Public,
        Masc,
        Some("post"),
        "§8.2",
    ),
    spec(
        F::BoardCreate,
        Post,
        "/api/v1/tools/masc_board_post",
        Operator,
        Masc,
        None,
        "§8.4",
    ),
    spec(
        F::BoardVote,
        Post,
        "/api/v1/tools/masc_board_vote",
        Operator,
        Masc,
        None,
        "§15.6",
    ),
    spec(
        F::GoalTransition,
        Post,
        "/api/v1/tools/masc_goal_transition",
        Operator,
        NewerMasc,
        None,
        "§15.4",
    ),
    spec(
        F::RuntimeResolved,
        Get,
        "/api/v1/runtime/resolved",
        Public,
        Masc,
        None,
        "§9.1",
    ),
    spec(
        F::RuntimeProbe,
        Get,
        "/api/v1/dashboard/runtime-probe",
        Read,
        NewerMasc,
        None,
        "docs/protocol-extensions.md",
    ),
    spec(
        F::RuntimeConfigRaw,
        Get,
        "/api/v1/runtime/config/raw",
        Admin,
        Masc,
        Some("runtime config file"),
        "§9.2",
    ),
    spec(
        F::RuntimeConfigPreview,
        Post,
        "/api/v1/runtime/config/raw/preview",
        Admin,
        Masc,
        None,
        "§9.3",
    ),
    spec(
        F::RuntimeAssignment,
        Post,
        "/api/v1/runtime/config/assignment",
        Admin,
        Masc,
        None,
        "§9.8",
    ),
    spec(
        F::KeeperConfig,
        Get,
        "/api/v1/keepers/{name}/config",
        Read,
        Masc,
        Some("keeper"),
        "§9.5",
    ),
    spec(
        F::KeeperCreate,
        Post,
        "/api/v1/keepers",
        Admin,
        Extension,
        None,
        "§9.9",
    ),
    spec(
        F::KeeperUp,
        Post,
        "/api/v1/keepers/{name}/up",
        Admin,
        NewerMasc,
        None,
        "§15.11",
    ),
    spec(
        F::Asks,
        Get,
        "/api/v1/keepers/asks",
        Read,
        NewerMasc,
        Some("keeper"),
        "§10.1",
    ),
    spec(
        F::AskAnswer,
        Post,
        "/api/v1/keepers/ask-answer",
        Operator,
        NewerMasc,
        Some("ask or keeper"),
        "§10.2",
    ),
    spec(
        F::AskFollowUp,
        Get,
        "/api/v1/keepers/asks/follow-up",
        Read,
        Extension,
        Some("ask"),
        "§10.3",
    ),
    spec(
        F::TurnTranscript,
        Get,
        "/api/v1/keepers/{name}/turn-transcript",
        Public,
        Masc,
        None,
        "§15.10",
    ),
    spec(
        F::OperatorSummary,
        Get,
        "/api/v1/operator",
        Public,
        Masc,
        None,
        "§10.5",
    ),
    spec(
        F::OperatorConfirm,
        Post,
        "/api/v1/operator/confirm",
        Operator,
        Masc,
        None,
        "§10.5",
    ),
    spec(
        F::KeeperStatus,
        Get,
        "/api/v1/gate/keeper-status",
        Operator,
        Masc,
        Some("keeper"),
        "§14.7",
    ),
    spec(
        F::KeeperContext,
        Get,
        "/api/v1/keepers/{name}/context",
        Read,
        Extension,
        Some("keeper"),
        "§14.8",
    ),
    spec(
        F::KeeperMetricsTail,
        Get,
        "/api/v1/keepers/{name}/metrics-tail",
        Read,
        Extension,
        Some("keeper"),
        "§14.9",
    ),
    spec(
        F::DashboardGate,
        Get,
        "/api/v1/dashboard/gate",
        Public,
        Masc,
        None,
        "§14.4",
    ),
    spec(
        F::KeeperDirective,
        Post,
        "/api/v1/keepers/{name}/directive",
        Admin,
        Masc,
        Some("keeper meta"),
        "§14.1",
    ),
    spec(
        F::KeeperBoot,
        Post,
        "/api/v1/keepers/{name}/boot",
        Admin,
        Masc,
        None,
        "§14.2",
    ),
    spec(
        F::KeeperShutdown,
        Post,
        "/api/v1/keepers/{name}/shutdown",
        Admin,
        Masc,
        None,
        "§14.2",
    ),
    spec(
        F::KeeperPurge,
        Post,
        "/api/v1/dashboard/agents/purge",
        Admin,
        Masc,
        Some("agent or keeper"),
        "§14.3",
    ),
    spec(
        F::ToolApprovalMode,
        Get,
        "/api/v1/keepers/tool-approval-mode",
        Read,
        NewerMasc,
        None,
        "§14.4",
    ),
    spec(
        F::ToolApprovalModeSet,
        Post,
        "/api/v1/keepers/tool-approval-mode",
        Operator,
        NewerMasc,
        Some("keeper"),
        "§14.4",
    ),
    spec(
        F::RuntimeTrace,
        Get,
        "/api/v1/keepers/{name}/runtime-trace",
        Public,
        Masc,
        Some("keeper"),
        "§14.12",
    ),
    spec(
        F::HeldCalls,
        Get,
        "/api/v1/keepers/tool-approvals",
        Read,
        NewerMasc,
        None,
        "§14.5",
    ),
    spec(
        F::HeldCallDecision,
        Post,
        "/api/v1/keepers/tool-approval",
        Operator,
        NewerMasc,
        Some("keeper"),
        "§14.5",
    ),
    spec(
        F::TurnInterrupt,
        Post,
        "/api/v1/keepers/turn/interrupt",
        Operator,
        Masc,
        Some("keeper"),
        "§14.13",
    ),
    spec(
        F::RunNext,
        Post,
        "/api/v1/keepers/turn/run-next",
        Operator,
        NewerMasc,
        Some("keeper"),
        "§14.14",
    ),
    spec(
        F::TurnRecords,
        Get,
        "/api/v1/keepers/{name}/turn-records",
        Read,
        Masc,
        None,
        "§14.11",
    ),
    spec(
        F::ProviderInput,
        Get,
        "/api/v1/keepers/{name}/provider-input",
        Read,
        NewerMasc,
        Some("turn"),
        "§14.11",
    ),
    spec(
        F::SystemLogs,
        Get,
        "/api/v1/dashboard/logs",
        Public,
        Masc,
        None,
        "§15.1",
    ),
    spec(
        F::GateResolve,
        Post,
        "/api/v1/dashboard/gate/resolve",
        Admin,
        Masc,
        Some("approval"),
        "§15.3",
    ),
    spec(
        F::GateRetry,
        Post,
        "/api/v1/dashboard/gate/retry",
        Admin,
        Masc,
        None,
        "§15.3",
    ),
];

impl RouteFamily {
    /// The contract entry of this family.
    pub fn spec(self) -> &'static RouteSpec {
        // Every family has exactly one entry (checked by a test); the fallback is unreachable.
        ROUTES
            .iter()
            .find(|s| s.family == self)
            .unwrap_or(&ROUTES[0])
    }

    /// Stable snake_case name (traces, doctor, `--json`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Health => "health",
            Self::Roster => "roster",
            Self::KeeperTurns => "keeper_turns",
            Self::ChatStream => "chat_stream",
            Self::ChatOperation => "chat_operation",
            Self::ChatHistoryPage => "chat_history_page",
            Self::ChatHistoryArray => "chat_history",
            Self::ChatEvents => "chat_events",
            Self::TaskList => "task_list",
            Self::TaskDetail => "task_detail",
            Self::TaskHistoryPage => "task_history_page",
            Self::TaskHistoryLegacy => "task_history_legacy",
            Self::GoalsTree => "goals_tree",
            Self::GoalDetail => "goal_detail",
            Self::Planning => "planning",
            Self::ToolsInventory => "tools_inventory",
            Self::Skills => "skills",
            Self::AsyncRequests => "async_requests",
            Self::AsyncRequest => "async_request",
            Self::Connectors => "connectors",
            Self::ConnectorNames => "connector_names",
            Self::ConnectorBind => "connector_bind",
            Self::ConnectorUnbind => "connector_unbind",
            Self::Board => "board",
            Self::BoardHearths => "board_hearths",
            Self::BoardPost => "board_post",
            Self::BoardCreate => "board_create",
            Self::BoardVote => "board_vote",
            Self::GoalTransition => "goal_transition",
            Self::RuntimeResolved => "runtime_resolved",
            Self::RuntimeProbe => "runtime_probe",
            Self::RuntimeConfigRaw => "runtime_config_raw",
            Self::RuntimeConfigPreview => "runtime_config_preview",
            Self::RuntimeAssignment => "runtime_assignment",
            Self::KeeperConfig => "keeper_config",
            Self::KeeperCreate => "keeper_create",
            Self::KeeperUp => "keeper_up",
            Self::Asks => "asks",
            Self::AskAnswer => "ask_answer",
            Self::AskFollowUp => "ask_follow_up",
            Self::TurnTranscript => "turn_transcript",
            Self::OperatorSummary => "operator_summary",
            Self::OperatorConfirm => "operator_confirm",
            Self::KeeperStatus => "keeper_status",
            Self::KeeperContext => "keeper_context",
            Self::KeeperMetricsTail => "keeper_metrics_tail",
            Self::DashboardGate => "dashboard_gate",
            Self::KeeperDirective => "keeper_directive",
            Self::KeeperBoot => "keeper_boot",
            Self::KeeperShutdown => "keeper_shutdown",
            Self::KeeperPurge => "keeper_purge",
            Self::ToolApprovalMode => "tool_approval_mode",
            Self::ToolApprovalModeSet => "tool_approval_mode_set",
            Self::HeldCalls => "held_calls",
            Self::HeldCallDecision => "held_call_decision",
            Self::RuntimeTrace => "runtime_trace",
            Self::TurnInterrupt => "turn_interrupt",
            Self::RunNext => "run_next",
            Self::TurnRecords => "turn_records",
            Self::ProviderInput => "provider_input",
            Self::SystemLogs => "system_logs",
            Self::GateResolve => "gate_resolve",
            Self::GateRetry => "gate_retry",
        }
    }

    /// Parse [`RouteFamily::as_str`].
    pub fn from_name(name: &str) -> Option<Self> {
        ROUTES.iter().map(|s| s.family).find(|f| f.as_str() == name)
    }

    /// The family of a request target (`path?query`), if the contract names it.
    pub fn of_target(method: Method, target: &str) -> Option<Self> {
        let path = target.split(['?', '#']).next().unwrap_or("");
        let segments: Vec<&str> = path.split('/').collect();
        ROUTES
            .iter()
            .filter(|s| s.method == method)
            .find(|s| template_matches(s.template, &segments))
            .map(|s| s.family)
    }
}

impl std::fmt::Display for RouteFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.spec();
        write!(f, "{} {}", s.method.as_str(), s.template)
    }
}

fn template_matches(template: &str, segments: &[&str]) -> bool {
    let parts: Vec<&str> = template.split('/').collect();
    parts.len() == segments.len()
        && parts.iter().zip(segments).all(|(t, s)| {
            if t.starts_with('{') && t.ends_with('}') {
                !s.is_empty()
            } else {
                t == s
            }
        })
}

/// What a 404 on a known route means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotFoundMeaning {
    /// MASC's answer to a route it does not have: this server does not serve the route.
    NotServed,
    /// The route is served; the object the request names does not exist (protocol-defined).
    ObjectNotFound,
}

/// Judge a 404 body on `family` (see the module doc). Only the exact generic bodies of an
/// unknown route, or any 404 on a route that defines no object 404, are "not served".
pub fn classify_404(family: RouteFamily, body: &[u8]) -> NotFoundMeaning {
    if is_route_miss_body(body) {
        return NotFoundMeaning::NotServed;
    }
    match family.spec().object_404 {
        Some(_) => NotFoundMeaning::ObjectNotFound,
        None => NotFoundMeaning::NotServed,
    }
}

/// MASC's unknown-route bodies: anything that is not a JSON object (the router's text/plain
/// `404 Not Found`, an empty body), or a JSON object whose only content is the generic
/// `"error": "not found"`.
pub fn is_route_miss_body(body: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(obj)) = serde_json::from_slice::<serde_json::Value>(body)
    else {
        return true;
    };
    let generic = obj
        .get("error")
        .and_then(|e| e.as_str())
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("not found"));
    generic && obj.keys().all(|k| k == "error" || k == "ok")
}

/// What the client knows about one route family on the server it talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// Not requested yet (or forgotten after the server changed).
    Unknown,
    /// The server answered the route (any answer its handler gives).
    Served,
    /// The server answered MASC's unknown-route 404: this MASC does not serve it.
    NotServed,
}

impl Capability {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unknown => "unknown",
            Self::Served => "served",
            Self::NotServed => "not_served",
        }
    }
}

/// The per-family capability table one client keeps for its server. Cheap to clone (shared).
/// Forgotten when the server's identity or build changes ([`CapabilityTable::reset`]).
#[derive(Debug, Clone, Default)]
pub struct CapabilityTable {
    inner: Arc<Mutex<BTreeMap<RouteFamily, Capability>>>,
}

impl CapabilityTable {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<RouteFamily, Capability>> {
        // A plain map; a poisoned lock still holds a whole one.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, family: RouteFamily) -> Capability {
        self.lock()
            .get(&family)
            .copied()
            .unwrap_or(Capability::Unknown)
    }

    /// Record an observation. Returns the previous value.
    pub fn record(&self, family: RouteFamily, capability: Capability) -> Capability {
        self.lock()
            .insert(family, capability)
            .unwrap_or(Capability::Unknown)
    }

    /// Every family of the contract with what is known about it, in contract order.
    pub fn snapshot(&self) -> Vec<(RouteFamily, Capability)> {
        let known = self.lock().clone();
        ROUTES
            .iter()
            .map(|s| {
                (
                    s.family,
                    known.get(&s.family).copied().unwrap_or(Capability::Unknown),
                )
            })
            .collect()
    }

    /// The families known not to be served.
    pub fn not_served(&self) -> Vec<RouteFamily> {
        self.lock()
            .iter()
            .filter(|(_, c)| **c == Capability::NotServed)
            .map(|(f, _)| *f)
            .collect()
    }

    /// Forget everything (another server, another build).
    pub fn reset(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_exactly_one_spec_and_a_unique_name() {
        for s in ROUTES {
            assert_eq!(
                ROUTES.iter().filter(|o| o.family == s.family).count(),
                1,
                "{:?}",
                s.family
            );
            assert_eq!(s.family.spec(), s);
            assert_eq!(RouteFamily::from_name(s.family.as_str()), Some(s.family));
        }
    }

    #[test]
    fn targets_map_to_their_family() {
        let cases = [
            (Get, "/health", Some(F::Health)),
            (Get, "/api/v1/gate/keepers?detailed=true", Some(F::Roster)),
            (Get, "/api/v1/keepers/turns", Some(F::KeeperTurns)),
            (
                Get,
                "/api/v1/keepers/asks?include_resolved=true",
                Some(F::Asks),
            ),
            (
                Get,
                "/api/v1/keepers/asks/follow-up?name=a&ask_id=b",
                Some(F::AskFollowUp),
            ),
            (
                Get,
                "/api/v1/keepers/rondo/chat/operations/tui-1",
                Some(F::ChatOperation),
            ),
            (
                Get,
                "/api/v1/keepers/%ED%95%98/chat/history/page?before=1.5",
                Some(F::ChatHistoryPage),
            ),
            (Get, "/api/v1/keepers/rondo/config", Some(F::KeeperConfig)),
            (Get, "/api/v1/keepers/rondo/context", Some(F::KeeperContext)),
            (
                Get,
                "/api/v1/keepers/rondo/turn-records?limit=50",
                Some(F::TurnRecords),
            ),
            (
                Get,
                "/api/v1/keepers/rondo/provider-input?turn_ref=t%231",
                Some(F::ProviderInput),
            ),
            (
                Get,
                "/api/v1/keepers/rondo/metrics-tail?limit=200",
                Some(F::KeeperMetricsTail),
            ),
            (
                Get,
                "/api/v1/gate/keeper-status?name=rondo",
                Some(F::KeeperStatus),
            ),
            (Post, "/api/v1/keepers/rondo/config", None),
            (Get, "/api/v1/dashboard/tasks", Some(F::TaskList)),
            (
                Get,
                "/api/v1/dashboard/tasks/detail?task_id=t",
                Some(F::TaskDetail),
            ),
            (
                Get,
                "/api/v1/dashboard/tasks/history/page?task_id=t",
                Some(F::TaskHistoryPage),
            ),
            (
                Get,
                "/api/v1/dashboard/tasks/history?task_id=t",
                Some(F::TaskHistoryLegacy),
            ),
            (Get, "/api/v1/board/hearths", Some(F::BoardHearths)),
            (Get, "/api/v1/board/post-1?format=flat", Some(F::BoardPost)),
            (Get, "/api/v1/board?sort_by=hot", Some(F::Board)),
            (Get, "/api/v1/async-requests/kmsg-1", Some(F::AsyncRequest)),
            (Post, "/api/v1/keepers/chat/stream", Some(F::ChatStream)),
            (Get, "/api/v1/nothing", None),
            (Get, "/api/v1/board/", None),
        ];
        for (method, target, family) in cases {
            assert_eq!(RouteFamily::of_target(method, target), family, "{target}");
        }
    }

    #[test]
    fn masc_route_miss_bodies_are_not_served_on_any_route() {
        for family in [F::TaskList, F::ChatOperation, F::BoardPost, F::Skills] {
            assert_eq!(
                classify_404(family, b"404 Not Found"),
                NotFoundMeaning::NotServed
            );
            assert_eq!(classify_404(family, b""), NotFoundMeaning::NotServed);
            assert_eq!(
                classify_404(family, br#"{"error":"not found"}"#),
                NotFoundMeaning::NotServed
            );
        }
    }

    #[test]
    fn a_protocol_object_404_keeps_its_meaning() {
        let op = br#"{"schema":"masc.keeper_chat_operation.error.v1","error":"unknown_operation","message":"x"}"#;
        assert_eq!(
            classify_404(F::ChatOperation, op),
            NotFoundMeaning::ObjectNotFound
        );
        assert_eq!(
            classify_404(
                F::TaskDetail,
                br#"{"error":"task_not_found","task_id":"t"}"#
            ),
            NotFoundMeaning::ObjectNotFound
        );
        assert_eq!(
            classify_404(F::BoardPost, br#"{"error":"Post not found: p"}"#),
            NotFoundMeaning::ObjectNotFound
        );
        // A route without an object 404: any 404 means the route is absent.
        assert_eq!(
            classify_404(F::TaskList, br#"{"error":"something else"}"#),
            NotFoundMeaning::NotServed
        );
    }

    #[test]
    fn the_table_records_resets_and_lists_every_family() {
        let t = CapabilityTable::default();
        assert_eq!(t.get(F::Skills), Capability::Unknown);
        t.record(F::Skills, Capability::NotServed);
        t.record(F::Roster, Capability::Served);
        let shared = t.clone();
        assert_eq!(shared.get(F::Skills), Capability::NotServed);
        assert_eq!(t.not_served(), vec![F::Skills]);
        assert_eq!(t.snapshot().len(), ROUTES.len());
        t.reset();
        assert_eq!(shared.get(F::Roster), Capability::Unknown);
    }
}
