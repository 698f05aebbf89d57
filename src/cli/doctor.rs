//! `masc-tui doctor` — check a live MASC server endpoint by endpoint against the client's
//! contract, without writing anything (issue 13, Must-show 4).
//!
//! Only GETs are sent: `/health` (reachability, identity, base path, admission mode), then
//! every read route the TUI uses, each with the client's token (and once without, to show the
//! route's auth class as the server enforces it), the expected root of the served workspace,
//! and — when the answer carries an ETag — once more with `If-None-Match` (304 behaviour). Each
//! route is judged with the client's own decoders: served and decodes, served and fails to
//! decode (with the JSON path of the first failure), not served by this MASC (MASC's
//! unknown-route 404, `protocol::routes::classify_404`), a 404 naming a missing object, warming,
//! or failed (timeout, status, receipt). Routes that need an id from an earlier read (a Keeper,
//! a Task, a post, a connector) use the first one listed.
//!
//! Exit: 0 every served route decodes; 1 some route fails (or the identity is not a match);
//! 2 the server is unreachable (or `/health` does not decode) or refuses the credentials.
//!
//! Everything printed that the server controls is sanitised: each string of the report when it
//! is built (`crate::sanitize::sanitize`, T.7 plus bidi controls), and the output once more on
//! the way out through the CLI's one writer (`cli::out::text` / `cli::out::json`, issue 16).

use crate::actors::board::reads::{BoardQuery, BoardSort, post_path};
use crate::actors::chat::source::history_path;
use crate::actors::connectors::chain::page_path as names_page_path;
use crate::actors::work::goal_timeline::goal_detail_path;
use crate::actors::work::task_body::task_body_path;
use crate::actors::work::task_history::page_path as history_page_path;
use crate::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use crate::protocol::asks::AskList;
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use crate::protocol::chat::{ChatHistoryPage, ChatOperationRecord};
use crate::protocol::client::{
    ClientConfig, ClientError, ProbeCredentials, ProbeResponse, QueryString, TokenSource,
    WorkspaceClient, path_segment,
};
use crate::protocol::connectors::{
    ConnectorNamesPage, ConnectorStatusList, NameScope, NamesPageRequest,
};
use crate::protocol::decode::{DecodeError, SinceRelease, WireDecode};
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::health::{CommitField, Health, IdentityVerdict, judge_identity};
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
use crate::sanitize::sanitize;
use anyhow::Context;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Server URL; default `http://$MASC_HOST:$MASC_HTTP_PORT` (127.0.0.1:8935).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Bearer token. Without it: `MASC_TOKEN`, then `<base>/.masc/auth/masc-tui.token`.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The workspace base path you expect the server to serve (compared with `/health`).
    #[arg(long, env = "MASC_BASE_PATH", value_name = "DIR")]
    pub base_path: Option<PathBuf>,
    /// Print the report as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
}

/// What `diagnose` needs.
#[derive(Debug, Clone)]
pub struct DoctorConfig {
    pub base_url: String,
    pub token: TokenSource,
    /// `None`: the served base is accepted (and reported).
    pub expected_base: Option<String>,
    pub timeout: Duration,
}

/// How one route was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteResult {
    /// Served; the body decodes with the client's decoder.
    Decodes,
    /// Served; the body fails the client's decoder.
    FailsToDecode,
    /// MASC's unknown-route 404 (or 405): this server does not serve the route.
    NotServed,
    /// Served; the probe's id names no object (a protocol-defined 404).
    ObjectNotFound,
    /// Served; the server is still computing the answer.
    Warming,
    /// Timeout, transport, an unexpected status, a receipt the client would refuse.
    Failed,
    /// 401/403 with the credentials given.
    Unauthorised,
    /// Needs an id no earlier read provided.
    NotProbed,
}

impl RouteResult {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decodes => "decodes",
            Self::FailsToDecode => "fails to decode",
            Self::NotServed => "not served by this MASC",
            Self::ObjectNotFound => "served",
            Self::Warming => "warming",
            Self::Failed => "failed",
            Self::Unauthorised => "unauthorised",
            Self::NotProbed => "not probed",
        }
    }

    /// Counts against exit 0.
    pub fn is_failure(self) -> bool {
        matches!(self, Self::FailsToDecode | Self::Failed)
    }
}

/// The first decode failure of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodeFailure {
    pub reason: String,
    pub path: String,
    pub detail: String,
}

impl DecodeFailure {
    fn of(e: &DecodeError) -> Self {
        Self {
            reason: e.reason().to_string(),
            path: clean(&e.path),
            detail: clean(&e.detail),
        }
    }
}

/// One probed route.
#[derive(Debug, Clone, Serialize)]
pub struct RouteReport {
    /// `RouteFamily::as_str`.
    pub route: &'static str,
    pub method: &'static str,
    pub template: &'static str,
    /// The target actually requested (ids from earlier reads; sanitised).
    pub target: Option<String>,
    /// The route's auth class in the contract (protocol.md §1.3).
    pub auth: &'static str,
    pub origin: &'static str,
    pub result: RouteResult,
    pub status: Option<u16>,
    /// The status of the same GET without a token (how the server enforces the auth class).
    pub without_token: Option<String>,
    /// A one-line summary of what decoded, or why it failed (sanitised).
    pub detail: String,
    pub decode_error: Option<DecodeFailure>,
    /// `present`, `absent`, or why the client would refuse it.
    pub receipt: Option<String>,
    /// `304` (revalidated), `200 again` (not honoured), `none` (no ETag), or another answer.
    pub etag: Option<String>,
    pub latency_ms: Option<u64>,
}

/// `/health` as the doctor read it.
#[derive(Debug, Clone, Serialize)]
pub struct HealthReport {
    pub reachable: bool,
    pub status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
    pub server: Option<String>,
    pub version: Option<String>,
    pub commit: Option<String>,
    /// `build.commit` or `build.binary_commit`.
    pub commit_field: Option<&'static str>,
    pub base_path: Option<String>,
    pub masc_root: Option<String>,
    /// `ready`, `booting`, or `no startup block (older server)`.
    pub startup: Option<String>,
}

/// The §2.1 judgement.
#[derive(Debug, Clone, Serialize)]
pub struct IdentityReport {
    /// `match`, `mismatch`, `booting`, `unread`.
    pub verdict: &'static str,
    pub expected_base: Option<String>,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub decodes: usize,
    pub fails_to_decode: usize,
    pub not_served: usize,
    pub object_not_found: usize,
    pub warming: usize,
    pub failed: usize,
    pub unauthorised: usize,
    pub not_probed: usize,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub url: String,
    pub health: HealthReport,
    pub identity: Option<IdentityReport>,
    /// `receipts` (§2.2) or `health` (§2.3).
    pub admission: Option<&'static str>,
    pub routes: Vec<RouteReport>,
    pub summary: Summary,
    pub exit_code: i32,
}

impl Report {
    fn finish(mut self) -> Self {
        let mut s = Summary::default();
        for r in &self.routes {
            match r.result {
                RouteResult::Decodes => s.decodes += 1,
                RouteResult::FailsToDecode => s.fails_to_decode += 1,
                RouteResult::NotServed => s.not_served += 1,
                RouteResult::ObjectNotFound => s.object_not_found += 1,
                RouteResult::Warming => s.warming += 1,
                RouteResult::Failed => s.failed += 1,
                RouteResult::Unauthorised => s.unauthorised += 1,
                RouteResult::NotProbed => s.not_probed += 1,
            }
        }
        let identity_ok = self
            .identity
            .as_ref()
            .is_some_and(|i| matches!(i.verdict, "match" | "booting"));
        self.exit_code = if !self.health.reachable || s.unauthorised > 0 {
            2
        } else if s.fails_to_decode > 0 || s.failed > 0 || !identity_ok {
            1
        } else {
            0
        };
        self.summary = s;
        self
    }

    /// The route report of `family`, if probed.
    pub fn route(&self, family: RouteFamily) -> Option<&RouteReport> {
        self.routes.iter().find(|r| r.route == family.as_str())
    }
}

/// Server-controlled text, made safe for a terminal (and for JSON printed to one).
fn clean(text: &str) -> String {
    sanitize(text).into_owned()
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let base_url = match &args.url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let host = std::env::var("MASC_HOST").unwrap_or_else(|_| "127.0.0.1".into());
            let port = std::env::var("MASC_HTTP_PORT").unwrap_or_else(|_| "8935".into());
            format!("http://{host}:{port}")
        }
    };
    let token = match &args.token {
        Some(t) => TokenSource::Fixed(t.clone()),
        None => TokenSource::EnvThenFile {
            base_path: match &args.base_path {
                Some(p) => p.clone(),
                None => std::env::current_dir().context("current directory")?,
            },
        },
    };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let config = DoctorConfig {
        base_url,
        token,
        expected_base: args
            .base_path
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        timeout: Duration::from_secs_f64(args.timeout),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let report = runtime.block_on(diagnose(config));
    // Through the CLI's one output path (issue 16): server strings are already cleaned, and
    // anything else (the URL given, a detail built from an error) is escaped here.
    let mut out = std::io::stdout().lock();
    if args.json {
        super::out::json(&mut out, &report).context("writing the report")?;
    } else {
        super::out::text(&mut out, &render_text(&report)).context("writing the report")?;
    }
    out.flush()?;
    Ok(report.exit_code)
}

/// Probe the server and judge every route.
pub async fn diagnose(config: DoctorConfig) -> Report {
    let mut client_config = ClientConfig::new(config.base_url.clone());
    client_config.token = config.token.clone();
    client_config.request_timeout = config.timeout;
    client_config.connect_timeout = config.timeout.min(Duration::from_secs(3));
    let mut report = Report {
        url: clean(&config.base_url),
        health: HealthReport {
            reachable: false,
            status: None,
            latency_ms: None,
            error: None,
            server: None,
            version: None,
            commit: None,
            commit_field: None,
            base_path: None,
            masc_root: None,
            startup: None,
        },
        identity: None,
        admission: None,
        routes: Vec::new(),
        summary: Summary::default(),
        exit_code: 2,
    };
    let client = match WorkspaceClient::new(client_config) {
        Ok(c) => c,
        Err(e) => {
            report.health.error = Some(clean(&e.to_string()));
            return report.finish();
        }
    };
    let Some(health) = read_health(&client, &mut report.health).await else {
        return report.finish();
    };
    let verdict = judge_identity(config.expected_base.as_deref(), &health);
    report.identity = Some(identity_report(&verdict, config.expected_base.as_deref()));
    let mode = health.admission_mode();
    report.admission = Some(match mode {
        AdmissionMode::Receipt => "receipts",
        AdmissionMode::Health => "health",
    });
    // The doctor reads the served workspace whatever the verdict (it is a diagnosis), with
    // the served root as the expected root.
    let root = health.paths.effective_masc_root.clone();
    let auth = ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(root.clone()),
            epoch: 0,
        },
        expected_root: root,
        mode,
    };
    let mut probe = Prober {
        client,
        auth,
        routes: Vec::new(),
    };
    probe.all_routes().await;
    report.routes = probe.routes;
    report.finish()
}

async fn read_health(client: &WorkspaceClient, out: &mut HealthReport) -> Option<Health> {
    let resp = match client
        .probe_get("/health", None, None, ProbeCredentials::Token)
        .await
    {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(clean(&e.to_string()));
            return None;
        }
    };
    out.status = Some(resp.status);
    out.latency_ms = Some(ms(resp.elapsed));
    if !(200..300).contains(&resp.status) {
        out.error = Some(format!("/health answered HTTP {}", resp.status));
        return None;
    }
    let health = match Health::decode(&resp.body) {
        Ok(h) => h,
        Err(e) => {
            out.error = Some(clean(&format!("/health does not decode: {e}")));
            return None;
        }
    };
    out.reachable = true;
    out.server = health.server.as_deref().map(clean);
    out.version = health.version.as_deref().map(clean);
    if let Some((commit, field)) = health.build.as_ref().and_then(|b| b.commit()) {
        out.commit = Some(clean(commit));
        out.commit_field = Some(match field {
            CommitField::Commit => "build.commit",
            CommitField::BinaryCommit => "build.binary_commit",
        });
    }
    out.base_path = Some(clean(&health.paths.effective_base_path));
    out.masc_root = Some(clean(&health.paths.effective_masc_root));
    out.startup = Some(match &health.startup {
        None => "no startup block (older server)".to_string(),
        Some(s) if s.state_ready => "ready".to_string(),
        Some(_) => "booting (state_ready false)".to_string(),
    });
    Some(health)
}

fn identity_report(verdict: &IdentityVerdict, expected: Option<&str>) -> IdentityReport {
    let (name, detail) = match verdict {
        IdentityVerdict::Match { base_path, .. } => (
            "match",
            match expected {
                Some(_) => format!("serves {} as expected", clean(base_path)),
                None => format!(
                    "serves {} (no --base-path / MASC_BASE_PATH given: accepted as served)",
                    clean(base_path)
                ),
            },
        ),
        IdentityVerdict::Mismatch { expected, served } => (
            "mismatch",
            format!(
                "expected {} but the server serves {}",
                clean(expected),
                clean(served)
            ),
        ),
        IdentityVerdict::Booting => (
            "booting",
            "state_ready is false: stores are replaying; reads may answer warming".to_string(),
        ),
        IdentityVerdict::Unread { reason } => ("unread", clean(reason)),
    };
    IdentityReport {
        verdict: name,
        expected_base: expected.map(clean),
        detail,
    }
}

struct Prober {
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
    async fn all_routes(&mut self) {
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
        let keeper = first_keeper(roster.as_ref());
        self.check(
            RouteFamily::ChatHistoryPage,
            keeper.as_deref().map(|k| history_path(k, None)),
            |b| {
                let p = ChatHistoryPage::decode_for(b, None)?;
                let n = p.messages.len();
                Ok((p, format!("{n} messages on the newest page")))
            },
        )
        .await;
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
        self.check(
            RouteFamily::ToolsInventory,
            Some(crate::actors::system::TOOLS_PATH.to_string()),
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
        self.check(
            RouteFamily::Skills,
            Some(crate::actors::system::SKILLS_PATH.to_string()),
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
            Some(crate::actors::system::ASYNC_REQUESTS_PATH.to_string()),
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
        self.check(
            RouteFamily::RuntimeResolved,
            Some(crate::actors::system::RUNTIME_RESOLVED_PATH.to_string()),
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
        self.routes.push(report);
        value
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

/// The human report. Every server-controlled string in `report` is already sanitised.
pub fn render_text(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let h = &report.health;
    let _ = writeln!(out, "masc-tui doctor · {}", report.url);
    if !h.reachable {
        let _ = writeln!(
            out,
            "reachable   no · {}",
            h.error.as_deref().unwrap_or("no answer")
        );
        let _ = writeln!(out, "exit 2 (unreachable)");
        return out;
    }
    let _ = writeln!(
        out,
        "reachable   yes · /health {} in {} ms",
        h.status.unwrap_or_default(),
        h.latency_ms.unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "server      {} {} · {}",
        h.server.as_deref().unwrap_or("(no server field)"),
        h.version.as_deref().unwrap_or("(no version)"),
        match (&h.commit, h.commit_field) {
            (Some(c), Some(field)) => format!("{field} {c}"),
            _ => "no build commit".to_string(),
        }
    );
    if let Some(i) = &report.identity {
        let _ = writeln!(out, "identity    {} · {}", i.verdict, i.detail);
    }
    let _ = writeln!(
        out,
        "workspace   base {} · root {} · {}",
        h.base_path.as_deref().unwrap_or("?"),
        h.masc_root.as_deref().unwrap_or("?"),
        h.startup.as_deref().unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "admission   {}",
        match report.admission {
            Some("receipts") => "receipt mode: every read must carry the workspace receipt (§2.2)",
            _ =>
                "health mode: no workspace receipts advertised; reads are admitted by /health only (§2.3)",
        }
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<56} {:<8} {:<8} RESULT",
        "ROUTE", "AUTH", "NO TOKEN"
    );
    for r in &report.routes {
        let mut line = format!(
            "{:<56} {:<8} {:<8} {}",
            format!("{} {}", r.method, r.template),
            r.auth,
            r.without_token.as_deref().unwrap_or("-"),
            r.result.as_str()
        );
        if !r.detail.is_empty() {
            let _ = write!(line, " · {}", r.detail);
        }
        if let Some(etag) = &r.etag {
            let _ = write!(line, " · etag {etag}");
        }
        if let Some(receipt) = &r.receipt
            && report.admission == Some("receipts")
        {
            let _ = write!(line, " · receipt {receipt}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let s = &report.summary;
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "summary     {} decode · {} not served · {} served with an object 404 · {} warming · {} fail to decode · {} failed · {} unauthorised · {} not probed",
        s.decodes,
        s.not_served,
        s.object_not_found,
        s.warming,
        s.fails_to_decode,
        s.failed,
        s.unauthorised,
        s.not_probed
    );
    let _ = writeln!(
        out,
        "exit {}{}",
        report.exit_code,
        match report.exit_code {
            0 => " (every served route decodes)",
            1 => " (some routes fail)",
            _ => " (unreachable or unauthorised)",
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::compat::MascRelease;
    use crate::server::faults::{Fault, FaultPlan, FaultRule, When};
    use crate::server::{AuthMode, RunningServer, ServeOptions, start};
    use serde_json::json;

    const TOKEN: &str = "doctor-token";

    async fn server(
        compat: Option<MascRelease>,
        no_receipts: bool,
        faults: FaultPlan,
    ) -> RunningServer {
        start(ServeOptions {
            auth: AuthMode::Token(TOKEN.into()),
            compat,
            legacy_no_receipts: no_receipts,
            faults,
            ..ServeOptions::default()
        })
        .await
        .unwrap()
    }

    fn config(s: &RunningServer, token: &str) -> DoctorConfig {
        DoctorConfig {
            base_url: s.base_url(),
            token: TokenSource::Fixed(token.into()),
            expected_base: Some(s.base_path()),
            timeout: Duration::from_secs(10),
        }
    }

    fn result(report: &Report, family: RouteFamily) -> RouteResult {
        report
            .route(family)
            .map(|r| r.result)
            .unwrap_or(RouteResult::NotProbed)
    }

    fn rule(path: &str, fault: Fault) -> FaultRule {
        FaultRule::new("GET", path, When::Every { every: true }, fault)
    }

    /// The current embedded server: receipt mode, every route served and decoding, ETags
    /// revalidate with 304 and the receipt; the auth class shows without a token.
    #[tokio::test]
    async fn doctor_on_the_current_embedded_server_every_route_decodes_exit_0() {
        let s = server(None, false, FaultPlan::none()).await;
        let report = diagnose(config(&s, TOKEN)).await;
        assert_eq!(report.exit_code, 0, "{}", render_text(&report));
        assert_eq!(report.admission, Some("receipts"));
        assert_eq!(report.identity.as_ref().map(|i| i.verdict), Some("match"));
        assert_eq!(report.health.commit_field, Some("build.commit"));
        assert_eq!(report.summary.not_served, 0);
        assert_eq!(report.summary.decodes, report.routes.len() - 1);
        assert_eq!(
            result(&report, RouteFamily::ChatOperation),
            RouteResult::ObjectNotFound
        );
        let roster = report.route(RouteFamily::Roster).unwrap();
        assert_eq!(roster.receipt.as_deref(), Some("present"));
        assert_eq!(roster.etag.as_deref(), Some("304"));
        assert_eq!(roster.auth, "operator");
        assert_eq!(roster.without_token.as_deref(), Some("401"));
        let board = report.route(RouteFamily::Board).unwrap();
        assert_eq!(board.without_token.as_deref(), Some("200"));
        s.shutdown().await;
    }

    /// MASC v0.24.0 (`--compat`): health mode, the seven extension and newer routes not served,
    /// everything served decodes — exit 0.
    #[tokio::test]
    async fn doctor_on_masc_v0_24_0_names_the_routes_it_does_not_serve_exit_0() {
        let s = server(Some(MascRelease::V0_24_0), false, FaultPlan::none()).await;
        let report = diagnose(config(&s, TOKEN)).await;
        assert_eq!(report.exit_code, 0, "{}", render_text(&report));
        assert_eq!(report.admission, Some("health"));
        assert_eq!(report.health.version.as_deref(), Some("0.24.0"));
        assert_eq!(report.health.commit.as_deref(), Some("e2bb55f793"));
        let not_served: Vec<&str> = report
            .routes
            .iter()
            .filter(|r| r.result == RouteResult::NotServed)
            .map(|r| r.route)
            .collect();
        assert_eq!(
            not_served,
            vec![
                "task_list",
                "task_detail",
                "task_history_page",
                "skills",
                "async_requests",
                "connector_names",
                "asks"
            ]
        );
        assert_eq!(
            result(&report, RouteFamily::TaskHistoryLegacy),
            RouteResult::Decodes
        );
        assert_eq!(
            result(&report, RouteFamily::RuntimeResolved),
            RouteResult::Decodes
        );
        assert!(
            report
                .route(RouteFamily::RuntimeResolved)
                .is_some_and(|r| r.detail.contains("usage not sent by this release"))
        );
        assert!(
            report
                .routes
                .iter()
                .all(|r| r.receipt.as_deref() != Some("present"))
        );
        s.shutdown().await;
    }

    /// `--legacy-no-receipts`: the current routes in health mode.
    #[tokio::test]
    async fn doctor_on_a_server_without_receipts_reports_health_mode_exit_0() {
        let s = server(None, true, FaultPlan::none()).await;
        let report = diagnose(config(&s, TOKEN)).await;
        assert_eq!(report.exit_code, 0, "{}", render_text(&report));
        assert_eq!(report.admission, Some("health"));
        assert_eq!(report.summary.not_served, 0);
        s.shutdown().await;
    }

    /// Fault plans: a route answering MASC's plain-text 404 is not served (not a failure); a
    /// malformed body and a body missing a field fail to decode with the JSON path of the
    /// first failure (exit 1); a slow route still decodes; a 500 with control bytes in its
    /// body is reported sanitised.
    #[tokio::test]
    async fn doctor_under_faults_judges_each_route_alone_and_exits_1() {
        let plan = FaultPlan {
            rules: vec![
                rule(
                    "/api/v1/dashboard/planning",
                    Fault::Status {
                        status: 404,
                        body: Some(json!("404 Not Found")),
                    },
                ),
                rule(
                    "/api/v1/runtime/resolved",
                    Fault::Malformed { malformed: true },
                ),
                rule(
                    "/api/v1/dashboard/tools",
                    Fault::Status {
                        status: 200,
                        body: Some(
                            json!({"generated_at":"x","tool_inventory":{"tools":[],"surface_summary":{}},"tool_usage":{}}),
                        ),
                    },
                ),
                rule("/api/v1/board/hearths", Fault::Delay { delay_ms: 300 }),
                rule(
                    "/api/v1/gate/connectors",
                    Fault::Status {
                        status: 500,
                        body: Some(json!("\u{1b}[31mboom\u{202e}")),
                    },
                ),
            ],
        };
        let s = server(None, false, plan).await;
        let report = diagnose(config(&s, TOKEN)).await;
        let text = render_text(&report);
        assert_eq!(report.exit_code, 1, "{text}");
        assert_eq!(
            result(&report, RouteFamily::Planning),
            RouteResult::NotServed
        );
        assert_eq!(
            result(&report, RouteFamily::GoalDetail),
            RouteResult::NotProbed,
            "no goal id without planning"
        );
        let runtime = report.route(RouteFamily::RuntimeResolved).unwrap();
        assert_eq!(runtime.result, RouteResult::FailsToDecode);
        assert_eq!(
            runtime.decode_error.as_ref().map(|e| e.reason.as_str()),
            Some("syntax")
        );
        let tools = report.route(RouteFamily::ToolsInventory).unwrap();
        assert_eq!(tools.result, RouteResult::FailsToDecode);
        let failure = tools.decode_error.as_ref().unwrap();
        assert_eq!(
            (failure.reason.as_str(), failure.path.as_str()),
            ("missing_field", ".tool_inventory")
        );
        assert_eq!(
            result(&report, RouteFamily::BoardHearths),
            RouteResult::Decodes
        );
        let connectors = report.route(RouteFamily::Connectors).unwrap();
        assert_eq!(connectors.result, RouteResult::Failed);
        assert!(connectors.detail.contains("HTTP 500"));
        for out in [text.as_str(), &serde_json::to_string(&report).unwrap()] {
            assert!(
                !out.contains('\u{1b}') && !out.contains('\u{202e}'),
                "unsanitised: {out}"
            );
        }
        s.shutdown().await;
    }

    #[tokio::test]
    async fn doctor_exits_2_when_the_token_is_refused() {
        let s = server(None, false, FaultPlan::none()).await;
        let report = diagnose(config(&s, "not-the-token")).await;
        assert_eq!(report.exit_code, 2);
        assert_eq!(
            result(&report, RouteFamily::Roster),
            RouteResult::Unauthorised
        );
        assert!(report.health.reachable, "/health is public");
        s.shutdown().await;
    }

    #[tokio::test]
    async fn doctor_exits_2_when_nothing_answers() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let report = diagnose(DoctorConfig {
            base_url: format!("http://{addr}"),
            token: TokenSource::None,
            expected_base: None,
            timeout: Duration::from_secs(5),
        })
        .await;
        assert_eq!(report.exit_code, 2);
        assert!(!report.health.reachable);
        assert!(report.routes.is_empty(), "nothing is probed past /health");
        assert!(render_text(&report).contains("reachable   no"));
    }

    #[tokio::test]
    async fn doctor_exits_1_when_the_server_serves_another_workspace() {
        let s = server(None, false, FaultPlan::none()).await;
        let mut cfg = config(&s, TOKEN);
        cfg.expected_base = Some("/srv/another-workspace".into());
        let report = diagnose(cfg).await;
        assert_eq!(
            report.identity.as_ref().map(|i| i.verdict),
            Some("mismatch")
        );
        assert_eq!(report.exit_code, 1);
        s.shutdown().await;
    }
}
