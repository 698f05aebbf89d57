//! The fleet watch: a light background watch of every configured workspace (docs/audits/
//! workspaces.md). One actor per workspace ([`watch`]), each with its own client, reads a round
//! — `GET /health` judged against that workspace's own base path (§2.1), then, only under the
//! root that answer served, the few reads the attention counts come from (G-9: every count's
//! receipt is checked against that root) — and posts one [`FleetLine`] tagged by a ticket
//! naming the workspace and the root it was read from. [`supervisor`] keeps them running.
//!
//! A line is never an observation of the active workspace: the view keeps it under its own
//! name and the active epoch neither admits nor withdraws it.

pub mod supervisor;
pub mod watch;

use crate::actors::contract::{Payload, SlotKey, SourceKey};
use crate::actors::decisions::{OPEN_ASKS_PATH, OPERATOR_APPROVALS_PATH};
use crate::actors::keepers::roster::ROSTER_PATH;
use crate::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use crate::protocol::asks::AskList;
use crate::protocol::client::{ClientConfig, ClientError, ErrorClass, WorkspaceClient};
use crate::protocol::health::{IdentityVerdict, judge_identity};
use crate::protocol::held_calls::{HELD_CALLS_PATH, HeldToolCalls};
use crate::protocol::keepers::{KeeperRoster, KeeperStatus};
use crate::protocol::operator::OperatorApprovals;
use ratatui::style::Color;
use std::fmt;
use std::time::Duration;

/// The fleet watch (supervision key and the trace name of its lines).
pub const FLEET: SourceKey = SourceKey("fleet");

/// How often a watch reads a round: five requests per round keep a hidden workspace within
/// six requests a minute.
pub const DEFAULT_ROUND: Duration = Duration::from_secs(60);

/// How often the session's own workspace is watched (its sources read it anyway; with them it
/// stays within 30 requests a minute).
pub const ACTIVE_ROUND: Duration = Duration::from_secs(300);

/// A configured workspace's name (the config file's `[workspaces.NAME]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FleetName(pub String);

impl fmt::Display for FleetName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The slot of one configured workspace's line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FleetSlot {
    Line(FleetName),
}

impl FleetSlot {
    pub fn name(&self) -> &FleetName {
        match self {
            Self::Line(name) => name,
        }
    }
}

impl SlotKey for FleetSlot {
    fn trace_name(&self) -> String {
        // The configured name names the slot itself (G-10 allows it); roots stay out.
        format!("{}:{}", FLEET.0, self.name())
    }

    fn source(&self) -> SourceKey {
        FLEET
    }
}

/// What a watch is told about its workspace.
#[derive(Debug, Clone)]
pub struct WatchTarget {
    pub name: FleetName,
    /// Its own client configuration: URL and token source (never the active session's).
    pub client: ClientConfig,
    /// Its `base_path`, if configured: the identity judgement expects it.
    pub expected_base: Option<String>,
    pub colour: Option<Color>,
    /// Why it is not watched (a token file others may read): said once, nothing is sent.
    pub refused: Option<String>,
}

/// Whether a round could read the workspace's identity, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetConnection {
    /// `/health` matched: the counts were read under this root.
    Connected {
        root: WorkspaceId,
        mode: AdmissionMode,
    },
    /// `state_ready: false`.
    Booting,
    /// The server serves another base than the configured one.
    Mismatch { expected: String, served: String },
    /// `/health` answered without an identity (empty base or root).
    Unread { reason: String },
    /// `/health` failed (down, timeout, a status, a body that does not decode).
    Unreachable { class: ErrorClass },
    /// The watch failed more often than its restart policy allows: no further rounds.
    WatchStopped,
    /// Not watched: its configuration is refused (e.g. a token file others may read).
    Refused { reason: String },
}

impl FleetConnection {
    /// The root the round's counts were read under, if any.
    pub fn root(&self) -> Option<&WorkspaceId> {
        match self {
            Self::Connected { root, .. } => Some(root),
            _ => None,
        }
    }
}

/// One attention count, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetCount {
    /// Not read this round: the identity was not confirmed.
    NotRead,
    Count(u64),
    /// At least this many: the read saw one page of a longer list.
    AtLeast(u64),
    /// This MASC does not serve the route.
    NotServed,
    /// The read failed: never a `0`.
    Failed(ErrorClass),
}

impl FleetCount {
    fn of<T>(result: Result<T, ClientError>, count: impl FnOnce(T) -> FleetCount) -> Self {
        match result {
            Ok(value) => count(value),
            Err(ClientError::NotServed { .. }) => Self::NotServed,
            Err(err) => Self::Failed(err.class()),
        }
    }

    /// A known, non-zero count (what needs a look).
    pub fn needs_look(self) -> bool {
        matches!(self, Self::Count(n) | Self::AtLeast(n) if n > 0)
    }
}

/// One round of one workspace: its connection and its attention counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetLine {
    pub connection: FleetConnection,
    /// Keepers whose status is `error` (the roster's first page).
    pub keepers_in_error: FleetCount,
    /// This operator's pending approvals (§10.5 summary, visible to this actor).
    pub approvals: FleetCount,
    /// Held tool calls waiting at the Gate (§14.5).
    pub gate_items: FleetCount,
    /// Open Asks of the fleet (§10.1).
    pub asks: FleetCount,
}

impl FleetLine {
    /// A round without identity: nothing counted.
    pub fn unread(connection: FleetConnection) -> Self {
        Self {
            connection,
            keepers_in_error: FleetCount::NotRead,
            approvals: FleetCount::NotRead,
            gate_items: FleetCount::NotRead,
            asks: FleetCount::NotRead,
        }
    }

    pub fn counts(&self) -> [FleetCount; 4] {
        [
            self.keepers_in_error,
            self.approvals,
            self.gate_items,
            self.asks,
        ]
    }

    /// A count was refused for its credential (the token is wrong or missing): the routes a
    /// MASC serves without a token still count, so one refusal says the token is the problem.
    pub fn refused(&self) -> Option<ErrorClass> {
        self.counts().into_iter().find_map(|c| match c {
            FleetCount::Failed(class @ (ErrorClass::Unauthorized(_) | ErrorClass::NoToken)) => {
                Some(class)
            }
            _ => None,
        })
    }
}

/// A line as a watch posts it.
#[derive(Debug, Clone)]
pub struct FleetObservation(pub FleetLine);

impl Payload for FleetObservation {
    fn outcome(&self) -> String {
        match &self.0.connection {
            FleetConnection::Connected { .. } => "ok".to_string(),
            FleetConnection::Booting => "booting".to_string(),
            FleetConnection::Mismatch { .. } => "mismatch".to_string(),
            FleetConnection::Unread { .. } => "unread".to_string(),
            FleetConnection::Unreachable { class } => class.to_string(),
            FleetConnection::WatchStopped => "watch_stopped".to_string(),
            FleetConnection::Refused { .. } => "refused".to_string(),
        }
    }
}

/// Reads one round: `/health` (conditional: the client keeps its tag), then the counts under
/// the root it served. `round` is the ticket's generation, carried as the authority's epoch.
pub async fn read_round(
    client: &WorkspaceClient,
    expected_base: Option<&str>,
    round: u64,
) -> FleetLine {
    let health = match client.health_watch(None).await {
        Ok(answer) => answer.health,
        Err(err) => return FleetLine::unread(FleetConnection::Unreachable { class: err.class() }),
    };
    let (root, mode) = match judge_identity(expected_base, &health) {
        IdentityVerdict::Match {
            masc_root, mode, ..
        } => (masc_root, mode),
        IdentityVerdict::Booting => return FleetLine::unread(FleetConnection::Booting),
        IdentityVerdict::Mismatch { expected, served } => {
            return FleetLine::unread(FleetConnection::Mismatch { expected, served });
        }
        IdentityVerdict::Unread { reason } => {
            return FleetLine::unread(FleetConnection::Unread { reason });
        }
    };
    let auth = ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(root.clone()),
            epoch: round,
        },
        expected_root: root.clone(),
        mode,
    };
    let (roster, approvals, held, asks) = tokio::join!(
        client.get::<KeeperRoster>(&auth, ROSTER_PATH),
        client.get::<OperatorApprovals>(&auth, OPERATOR_APPROVALS_PATH),
        client.get::<HeldToolCalls>(&auth, HELD_CALLS_PATH),
        client.get::<AskList>(&auth, OPEN_ASKS_PATH),
    );
    FleetLine {
        connection: FleetConnection::Connected {
            root: WorkspaceId(root),
            mode,
        },
        keepers_in_error: FleetCount::of(roster, |r| {
            let roster = &r.value;
            let n = roster
                .keepers()
                .filter(|k| k.status == KeeperStatus::Error)
                .count() as u64;
            if roster.total > roster.count {
                FleetCount::AtLeast(n)
            } else {
                FleetCount::Count(n)
            }
        }),
        approvals: FleetCount::of(approvals, |a| FleetCount::Count(a.value.visible_count)),
        gate_items: FleetCount::of(held, |h| FleetCount::Count(h.value.pending.len() as u64)),
        asks: FleetCount::of(asks, |a| FleetCount::Count(a.value.open_count)),
    }
}
