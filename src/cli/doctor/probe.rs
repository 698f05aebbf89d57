//! The probe: one GET per read route the TUI uses (with the token, once without it, and once
//! more with `If-None-Match` when the answer carries an ETag), each judged with the client's own
//! decoder. Routes that need an id take the first one an earlier read listed.

use super::report::{DecodeFailure, RouteReport, RouteResult, clean, ms};
use crate::actors::board::reads::{BoardQuery, BoardSort, post_path};
use crate::actors::chat::source::history_path;
use crate::actors::connectors::chain::page_path as names_page_path;
use crate::actors::work::goal_timeline::goal_detail_path;
use crate::actors::work::task_body::task_body_path;
use crate::actors::work::task_history::page_path as history_page_path;
use crate::protocol::admission::ReadAuthority;
use crate::protocol::asks::AskList;
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use crate::protocol::chat::journal::ChatEventsPage;
use crate::protocol::chat::{ChatHistoryArray, ChatHistoryPage, ChatOperationRecord};
use crate::protocol::client::{
    ClientError, ProbeCredentials, ProbeResponse, QueryString, WorkspaceClient, path_segment,
};
use crate::protocol::connectors::{
    ConnectorNamesPage, ConnectorStatusList, NameScope, NamesPageRequest,
};
use crate::protocol::decode::{DecodeError, SinceRelease, WireDecode};
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::keepers::KeeperRoster;
use crate::protocol::operator::OperatorApprovals;
use crate::protocol::planning::PlanningRead;
use crate::protocol::routes::{NotFoundMeaning, RouteFamily, classify_404};
use crate::protocol::runtime::RuntimeResolved;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tasks::{
    LegacyTaskEvents, PageRequest, TaskDetail, TaskHistoryPage, TaskList,
};
use crate::protocol::tools::ToolsInventoryRead;
use crate::protocol::transcript::{TranscriptVersion, TurnTranscript};

pub(super) struct Prober {
    client: WorkspaceClient,
    auth: ReadAuthority,
    routes: Vec<RouteReport>,
}

/// A decoded value with its one-line summary.
type Judged<T> = Result<(T, String), DecodeError>;

fn first_keeper(roster: Option<&KeeperRoster>) -> Option<String> {
    roster.and_then(|r| r.keepers().next().map(|k| k.name.clone()))
}

impl Prober {
    pub(super) fn new(client: WorkspaceClient, auth: ReadAuthority) -> Self {
        Self {
            client,
            auth,
            routes: Vec::new(),
        }
    }

    /// Probes every route in order and returns their reports.
    pub(super) async fn all_routes(mut self) -> Vec<RouteReport> {
        let roster = self
            .check(
                RouteFamily::Roster,
                Some(crate::actors::keepers::roster::ROSTER_PATH.to_string()),
                |b| {
                    let r = KeeperRoster::decode(b)?;
                    if let Some(e) = r.first_refused_row() {
                        return Err(e.clone());
                    }
                    let n = r.keepers().count();
                    Ok((r, format!("{n} keepers")))
                },
            )
            .await;
        if let Some(r) = &roster {
            self.refine(
                RouteFamily::Roster,
                match r.candle {
                    None => "MASC, August shape (no Candle)",
                    Some(_) => "MASC with Candle (newer or the embedded server)",
                },
            );
        }
        let keeper = first_keeper(roster.as_ref());
        let page = self
            .check(
                RouteFamily::ChatHistoryPage,
                keeper.as_deref().map(|k| history_path(k, None)),
                |b| {
                    let p = ChatHistoryPage::decode_for(b, None)?;
                    let n = p.messages.len();
                    Ok((p, format!("{n} messages on the newest page")))
                },
            )
            .await;
        if let Some(p) = &page {
            self.refine(RouteFamily::ChatHistoryPage, chat_rows_shape(&p.messages));
        }
        self.check(
            RouteFamily::ChatHistoryArray,
            keeper
                .as_deref()
                .map(|k| format!("/api/v1/keepers/{}/chat/history", path_segment(k))),
            |b| {
                let a = ChatHistoryArray::decode(b)?;
                let s = format!(
                    "{} rows, {} autonomous turns",
                    a.rows.len(),
                    a.autonomous().count()
                );
                Ok((a, s))
            },
        )
        .await;
        let transcript = self
            .check(
                RouteFamily::TurnTranscript,
                keeper.as_deref().map(|k| {
                    QueryString::new()
                        .pair("turn_ref", "doctor-probe#0")
                        .pair("version", "2")
                        .append_to(&format!(
                            "/api/v1/keepers/{}/turn-transcript",
                            path_segment(k)
                        ))
                }),
                |b| {
                    let t = TurnTranscript::decode(b)?;
                    let s = match &t {
                        TurnTranscript::Found { rows, .. } => format!("{} rows", rows.len()),
                        TurnTranscript::NotRetained { .. } => {
                            "not retained for the probe's turn_ref".to_string()
                        }
                    };
                    Ok((t, s))
                },
            )
            .await;
        if let Some(t) = &transcript {
            let version = match t {
                TurnTranscript::Found { version, .. }
                | TurnTranscript::NotRetained { version, .. } => *version,
            };
            self.refine(
                RouteFamily::TurnTranscript,
                match version {
                    TranscriptVersion::V1 => "MASC version 1 (version=2 ignored)",
                    TranscriptVersion::V2 => "masc-tui version 2 (extension)",
                },
            );
        }
        // No request id to reconcile: a made-up one must be the route's object 404.
        let op_keeper = keeper.clone().unwrap_or_else(|| "doctor".into());
        self.check(
            RouteFamily::ChatOperation,
            Some(format!(
                "/api/v1/keepers/{}/chat/operations/doctor-probe-0",
                path_segment(&op_keeper)
            )),
            |b| {
                let r = ChatOperationRecord::decode_for(b, "doctor-probe-0")?;
                Ok((r, "a record for a made-up request id".to_string()))
            },
        )
        .await;
        // The turn journal (§15.9, newer MASC): a made-up operation must be its object 404.
        self.check(
            RouteFamily::ChatEvents,
            Some(
                QueryString::new()
                    .pair("operation_id", "doctor-probe-0")
                    .append_to(&format!(
                        "/api/v1/keepers/{}/chat/events",
                        path_segment(&op_keeper)
                    )),
            ),
            |b| {
                let p = ChatEventsPage::decode_for(b, "doctor-probe-0", None)?;
                let n = p.events.len();
                Ok((p, format!("{n} journal lines for a made-up operation id")))
            },
        )
        .await;
        let planning = self
            .check(
                RouteFamily::Planning,
                Some(crate::actors::work::planning::PLANNING_PATH.to_string()),
                |b| {
                    let p = PlanningRead::decode(b)?;
                    let s = match &p {
                        PlanningRead::Snapshot(s) => format!("{} goals", s.goals.len()),
                        PlanningRead::GoalStoreUnavailable { .. } => {
                            "goal store unavailable (typed answer)".to_string()
                        }
                    };
                    Ok((p, s))
                },
            )
            .await;
        let goal = match planning.as_ref() {
            Some(PlanningRead::Snapshot(s)) => s.goals.first().map(|g| g.id.clone()),
            _ => None,
        };
        let goal_id = goal.clone().unwrap_or_default();
        self.check(
            RouteFamily::GoalDetail,
            goal.as_deref().map(goal_detail_path),
            move |b| {
                let d = GoalDetailRead::decode_for(b, &goal_id)?;
                let s = match &d {
                    GoalDetailRead::Found(_) => "goal found".to_string(),
                    GoalDetailRead::NotFound { .. } => "HTTP 200 not-found body".to_string(),
                };
                Ok((d, s))
            },
        )
        .await;
        let tasks = self
            .check(
                RouteFamily::TaskList,
                Some(crate::actors::work::task_list::TASK_LIST_PATH.to_string()),
                |b| {
                    let l = TaskList::decode(b)?;
                    let n = l.tasks.len();
                    Ok((l, format!("{n} tasks")))
                },
            )
            .await;
        // Without a listed task a made-up id still tells served from not served.
        let task = tasks
            .as_ref()
            .and_then(|l| l.tasks.first().map(|t| t.id.clone()))
            .unwrap_or_else(|| "doctor-probe-task".to_string());
        let task_for_detail = task.clone();
        self.check(
            RouteFamily::TaskDetail,
            Some(task_body_path(&task)),
            move |b| {
                let d = TaskDetail::decode_for(b, &task_for_detail)?;
                Ok((d, "task body".to_string()))
            },
        )
        .await;
        let request = PageRequest {
            task_id: task.clone(),
            cursor: None,
            limit: 50,
        };
        let page_request = request.clone();
        self.check(
            RouteFamily::TaskHistoryPage,
            Some(history_page_path(&request)),
            move |b| {
                let p = TaskHistoryPage::decode_for(b, &page_request, &[])?;
                let n = p.rows.len();
                Ok((p, format!("{n} rows on the newest page")))
            },
        )
        .await;
        self.check(
            RouteFamily::TaskHistoryLegacy,
            Some(
                QueryString::new()
                    .pair("task_id", &task)
                    .pair("limit", "50")
                    .append_to("/api/v1/dashboard/tasks/history"),
            ),
            |b| {
                let e = LegacyTaskEvents::decode(b)?;
                let n = e.events.len();
                Ok((
                    e,
                    format!("{n} legacy event lines (no cursor, no end signal)"),
                ))
            },
        )
        .await;
        let tools = self
            .check(
            RouteFamily::ToolsInventory,
            Some(crate::actors::tools::TOOLS_PATH.to_string()),
            |b| {
                let t = ToolsInventoryRead::decode(b)?;
                let s = match &t {
                    ToolsInventoryRead::Warming { .. } => {
                        "warming placeholder (not 0 tools)".to_string()
                    }
                    ToolsInventoryRead::Settled(inv) => format!(
                        "{} tools{}",
                        inv.tool_inventory.count,
                        match inv.effective_keeper_surface {
                            SinceRelease::NotInRelease =>
                                " · keeper surface and skill activations not sent by this release",
                            SinceRelease::Sent(_) => "",
                        }
                    ),
                };
                Ok((t, s))
            },
        )
        .await;
        if let Some(ToolsInventoryRead::Settled(inv)) = &tools {
            self.refine(
                RouteFamily::ToolsInventory,
                match inv.effective_keeper_surface {
                    SinceRelease::NotInRelease => {
                        "MASC, August shape (no keeper surface, no skill activations)"
                    }
                    SinceRelease::Sent(_) => {
                        "MASC with the keeper surface (newer or the embedded server)"
                    }
                },
            );
        }
        self.check(
            RouteFamily::Skills,
            Some(crate::actors::tools::SKILLS_PATH.to_string()),
            |b| {
                let s = SkillsSnapshotRead::decode(b)?;
                let text = match &s {
                    SkillsSnapshotRead::Ready(r) => format!("ready, {} surfaces", r.surfaces.len()),
                    SkillsSnapshotRead::NotRegistered => "not registered".to_string(),
                    SkillsSnapshotRead::Uninitialized => "uninitialised".to_string(),
                    SkillsSnapshotRead::InvalidWorkspace => "invalid workspace".to_string(),
                };
                Ok((s, text))
            },
        )
        .await;
        self.check(
            RouteFamily::AsyncRequests,
            Some(crate::actors::tools::ASYNC_REQUESTS_PATH.to_string()),
            |b| {
                let l = AsyncRequestList::decode(b)?;
                let s = match &l {
                    AsyncRequestList::Ready { requests, .. } => {
                        format!("{} active requests", requests.len())
                    }
                    AsyncRequestList::Unavailable { .. } => "unavailable (typed answer)".into(),
                };
                Ok((l, s))
            },
        )
        .await;
        let connectors = self
            .check(
                RouteFamily::Connectors,
                Some(crate::actors::connectors::source::STATUS_PATH.to_string()),
                |b| {
                    let l = ConnectorStatusList::decode(b)?;
                    if let Some(e) = l.first_refused_row() {
                        return Err(e.clone());
                    }
                    let n = l.connectors().count();
                    Ok((l, format!("{n} connectors")))
                },
            )
            .await;
        let connector = connectors
            .as_ref()
            .and_then(|l| l.connectors().next().map(|c| c.connector_id.clone()));
        let names_request = connector.map(|connector_id| NamesPageRequest {
            connector_id,
            scope: NameScope::Channel,
            after_id: None,
        });
        let decode_request = names_request.clone();
        self.check(
            RouteFamily::ConnectorNames,
            names_request.as_ref().map(names_page_path),
            move |b| {
                let Some(req) = decode_request.as_ref() else {
                    return Err(DecodeError::new(
                        crate::protocol::decode::DecodeErrorKind::Other("no_request"),
                        ".",
                        "no connector to ask for",
                    ));
                };
                let p = ConnectorNamesPage::decode_for(b, req)?;
                let n = p.mappings.len();
                Ok((p, format!("{n} channel names on the first page")))
            },
        )
        .await;
        let board = self
            .check(
                RouteFamily::Board,
                Some(
                    BoardQuery {
                        sort: BoardSort::Hot,
                        hearth: None,
                    }
                    .path(),
                ),
                |b| {
                    let p = BoardPostsPage::decode(b)?;
                    let n = p.posts.len();
                    Ok((p, format!("{n} posts")))
                },
            )
            .await;
        self.check(
            RouteFamily::BoardHearths,
            Some(crate::actors::board::reads::HEARTHS_PATH.to_string()),
            |b| {
                let c = HearthCensus::decode(b)?;
                let n = c.hearths.len();
                Ok((c, format!("{n} hearths")))
            },
        )
        .await;
        let post = board
            .as_ref()
            .and_then(|p| p.posts.first().map(|p| p.id.clone()));
        let post_id = post.clone().unwrap_or_default();
        self.check(
            RouteFamily::BoardPost,
            post.as_deref().map(post_path),
            move |b| {
                let d = BoardPostDetail::decode_for(b, &post_id)?;
                Ok((d, "post detail".to_string()))
            },
        )
        .await;
        let runtime = self
            .check(
                RouteFamily::RuntimeResolved,
                Some(crate::actors::runtime::RUNTIME_RESOLVED_PATH.to_string()),
                |b| {
                    let r = RuntimeResolved::decode(b)?;
                    let catalogue = r.catalogue.clone()?;
                    let usage = match r.usage.clone()? {
                        SinceRelease::Sent(u) => {
                            format!("{} usage accounts", u.provider_usage_windows.len())
                        }
                        SinceRelease::NotInRelease => "usage not sent by this release".to_string(),
                    };
                    let s = format!(
                        "{} runtimes, {} lanes · {usage}",
                        catalogue.runtimes.len(),
                        catalogue.lanes.len()
                    );
                    Ok((r, s))
                },
            )
            .await;
        if let Some(r) = &runtime {
            let august = matches!(r.usage.clone(), Ok(SinceRelease::NotInRelease));
            self.refine(
                RouteFamily::RuntimeResolved,
                if august {
                    "MASC, August shape (no usage windows, quota fields or `declared`)"
                } else {
                    "MASC with usage windows (newer or the embedded server)"
                },
            );
        }
        self.check(
            RouteFamily::KeeperConfig,
            keeper
                .as_deref()
                .map(|k| format!("/api/v1/keepers/{}/config", path_segment(k))),
            |b| {
                let s = KeeperConfigSnapshot::decode(b)?;
                Ok((s, "settings snapshot".to_string()))
            },
        )
        .await;
        self.check(
            RouteFamily::Asks,
            Some(crate::actors::decisions::OPEN_ASKS_PATH.to_string()),
            |b| {
                let l = AskList::decode(b)?;
                let n = l.asks.len();
                Ok((l, format!("{n} open asks")))
            },
        )
        .await;
        self.check(
            RouteFamily::OperatorSummary,
            Some(crate::actors::decisions::OPERATOR_APPROVALS_PATH.to_string()),
            |b| {
                let a = OperatorApprovals::decode(b)?;
                let n = a.items.len();
                Ok((a, format!("{n} pending approvals of this actor")))
            },
        )
        .await;
        self.routes
    }

    /// Probe one route and judge it; returns the decoded value when it decodes.
    async fn check<T>(
        &mut self,
        family: RouteFamily,
        target: Option<String>,
        decode: impl FnOnce(&[u8]) -> Judged<T>,
    ) -> Option<T> {
        let spec = family.spec();
        let mut report = RouteReport {
            route: family.as_str(),
            method: spec.method.as_str(),
            template: spec.template,
            target: target.as_deref().map(clean),
            auth: spec.auth.as_str(),
            origin: spec.origin.as_str(),
            shape: String::new(),
            result: RouteResult::NotProbed,
            status: None,
            without_token: None,
            detail: String::new(),
            decode_error: None,
            receipt: None,
            etag: None,
            latency_ms: None,
        };
        let Some(target) = target else {
            report.detail = "no id from an earlier read to ask for".into();
            self.routes.push(report);
            return None;
        };
        let root = self.auth.expected_root.clone();
        report.without_token = Some(
            match self
                .client
                .probe_get(&target, Some(&root), None, ProbeCredentials::Anonymous)
                .await
            {
                Ok(r) => r.status.to_string(),
                Err(e) => e.class().to_string(),
            },
        );
        let value = match self
            .client
            .probe_get(&target, Some(&root), None, ProbeCredentials::Token)
            .await
        {
            Ok(resp) => self.judge(family, &target, resp, decode, &mut report).await,
            Err(err) => {
                let (result, detail) = match &err {
                    ClientError::Unauthorized { status, code } => (
                        RouteResult::Unauthorised,
                        format!(
                            "HTTP {status} with the given credentials{}",
                            code.as_deref()
                                .map(|c| format!(" ({})", clean(c)))
                                .unwrap_or_default()
                        ),
                    ),
                    ClientError::NoToken => (
                        RouteResult::Unauthorised,
                        "401 and no token to send".to_string(),
                    ),
                    other => (RouteResult::Failed, clean(&other.to_string())),
                };
                report.result = result;
                report.detail = detail;
                None
            }
        };
        report.shape = default_shape(family, report.result);
        self.routes.push(report);
        value
    }

    /// The shape a decoded answer of `family` showed, where the releases differ.
    fn refine(&mut self, family: RouteFamily, shape: impl Into<String>) {
        if let Some(r) = self
            .routes
            .iter_mut()
            .rev()
            .find(|r| r.route == family.as_str() && r.result == RouteResult::Decodes)
        {
            r.shape = shape.into();
        }
    }

    async fn judge<T>(
        &self,
        family: RouteFamily,
        target: &str,
        resp: ProbeResponse,
        decode: impl FnOnce(&[u8]) -> Judged<T>,
        report: &mut RouteReport,
    ) -> Option<T> {
        report.status = Some(resp.status);
        report.latency_ms = Some(ms(resp.elapsed));
        match resp.status {
            404 | 405 => {
                let meaning = if resp.status == 405 {
                    NotFoundMeaning::NotServed
                } else {
                    classify_404(family, &resp.body)
                };
                match meaning {
                    NotFoundMeaning::NotServed => {
                        report.result = RouteResult::NotServed;
                        report.detail = format!(
                            "HTTP {} — MASC's unknown-route answer ({} route)",
                            resp.status,
                            family.spec().origin.as_str()
                        );
                    }
                    NotFoundMeaning::ObjectNotFound => {
                        report.result = RouteResult::ObjectNotFound;
                        report.detail = format!(
                            "404 names a missing {} (the probe's id), not a missing route",
                            family.spec().object_404.unwrap_or("object")
                        );
                    }
                }
                return None;
            }
            s if (200..300).contains(&s) => {}
            503 => {
                report.result = RouteResult::Warming;
                report.detail = "HTTP 503 (not initialised yet)".into();
                return None;
            }
            s => {
                report.result = RouteResult::Failed;
                let body = crate::sanitize::sanitize_bytes(&resp.body[..resp.body.len().min(160)]);
                report.detail = format!("HTTP {s}: {body}");
                return None;
            }
        }
        report.receipt = Some(
            match crate::protocol::client::check_receipt(&self.auth, &resp.headers) {
                Ok(()) => receipt_word(&resp.headers).to_string(),
                Err(e) => {
                    report.result = RouteResult::Failed;
                    report.detail = format!("the client would refuse this read: {}", e.class());
                    return None;
                }
            },
        );
        report.etag = Some(self.etag(target, &resp).await);
        if crate::protocol::client::is_warming_body(&resp.body) {
            report.result = RouteResult::Warming;
            report.detail = "the server's warming body (not data, not empty)".into();
            return None;
        }
        match decode(&resp.body) {
            Ok((value, summary)) => {
                report.result = RouteResult::Decodes;
                report.detail = clean(&summary);
                Some(value)
            }
            Err(e) => {
                report.result = RouteResult::FailsToDecode;
                report.detail = format!("{} at {}", e.reason(), clean(&e.path));
                report.decode_error = Some(DecodeFailure::of(&e));
                None
            }
        }
    }

    /// §2.5: the same GET with `If-None-Match` must answer 304 (with the receipt in receipt
    /// mode).
    async fn etag(&self, target: &str, first: &ProbeResponse) -> String {
        let Some(tag) = first
            .headers
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
        else {
            return "none".into();
        };
        match self
            .client
            .probe_get(
                target,
                Some(&self.auth.expected_root),
                Some(tag),
                ProbeCredentials::Token,
            )
            .await
        {
            Ok(r) if r.status == 304 => {
                match crate::protocol::client::check_receipt(&self.auth, &r.headers) {
                    Ok(()) => "304".into(),
                    Err(e) => format!("304 refused ({})", e.class()),
                }
            }
            Ok(r) if r.status == 200 => "200 again (If-None-Match not honoured)".into(),
            Ok(r) => format!("HTTP {} to If-None-Match", r.status),
            Err(e) => format!("revalidation failed ({})", e.class()),
        }
    }
}

/// Which releases the answer fits, from the contract's origin of the route and the result;
/// refined per family where the shapes differ between releases ([`Prober::refine`]).
fn default_shape(family: RouteFamily, result: RouteResult) -> String {
    use crate::protocol::routes::RouteOrigin;
    let origin = family.spec().origin;
    match (result, origin) {
        (RouteResult::Decodes | RouteResult::ObjectNotFound, RouteOrigin::Masc) => {
            "MASC (every covered release)".into()
        }
        (RouteResult::Decodes | RouteResult::ObjectNotFound, RouteOrigin::NewerMasc) => {
            "newer MASC".into()
        }
        (RouteResult::Decodes | RouteResult::ObjectNotFound, RouteOrigin::Extension) => {
            "masc-tui extension".into()
        }
        (RouteResult::NotServed, RouteOrigin::NewerMasc) => {
            "absent, as on MASC v0.24.0 and Aug (newer MASC serves it)".into()
        }
        (RouteResult::NotServed, RouteOrigin::Extension) => {
            "absent, as on every MASC (a masc-tui extension)".into()
        }
        (RouteResult::NotServed, RouteOrigin::Masc) => {
            "absent although every covered MASC release serves it".into()
        }
        _ => String::new(),
    }
}

/// What a chat page's rows show of the store that wrote them (§15.9).
fn chat_rows_shape(rows: &[crate::protocol::chat::ChatHistoryRow]) -> &'static str {
    use crate::protocol::chat::ChatRole;
    use crate::protocol::chat::rows::RowIdentity;
    let newer = rows.iter().any(|m| {
        matches!(m.role, ChatRole::System | ChatRole::RequestFailure)
            || m.approval.is_some()
            || m.execution_id.is_some()
    });
    if newer {
        "newer chat store (system Gate rows or execution_id seen)"
    } else if rows
        .iter()
        .any(|m| matches!(m.identity, RowIdentity::Pair(_)))
    {
        "August chat store (delivery pairs, no newer fields seen)"
    } else {
        "§4.5 rows (no delivery pairs or newer fields seen)"
    }
}

fn receipt_word(headers: &reqwest::header::HeaderMap) -> &'static str {
    if headers
        .get(crate::protocol::client::RECEIPT_HEADER)
        .is_some()
    {
        "present"
    } else {
        "absent"
    }
}
