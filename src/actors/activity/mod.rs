//! The Activity source (§15.2): MASC's MCP observer stream as one long-running worker per read
//! epoch — `initialize` for a session id, the stream with it, and on a drop a reconnect with
//! backoff (`Retry-After` honoured) asking `Last-Event-ID` = the last id seen, a refused session
//! starting again with a fresh `initialize`. Events replayed after a reconnect are dropped by
//! id; ids the server could no longer replay are said as missed. No token: "needs a token" (the
//! worker ends; `r` tries again). The workspace check is the `/health` epoch: withdrawal or a
//! new epoch cancels the worker (G-6) and the next confirmation opens a new one. The feed
//! opens when Activity is first shown (`ActivityCommand::Open`) and follows every epoch from
//! then on: a session that never looks at Activity holds no stream.

use crate::actors::contract::{
    DemandKind, IdentityState, Payload, SlotKey, SourceContext, SourceKey,
};
use crate::actors::read::WorkerReturn;
use crate::actors::read::requests::{Emit, RequestWorkers, StepRules};
use crate::actors::read::shell::{Ctl, Myself, OnCommand, OwnKey, SourceState};
use crate::protocol::client::{ObserverOpenError, WorkspaceClient};
use crate::protocol::observer::{ObserverEvent, decode_event};
use std::time::Duration;

/// The source (supervision key).
pub const ACTIVITY: SourceKey = SourceKey("activity");

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ActivitySlot {
    /// The observer feed of the current epoch.
    Feed,
}

impl SlotKey for ActivitySlot {
    fn trace_name(&self) -> String {
        "activity_feed".to_string()
    }

    fn source(&self) -> SourceKey {
        ACTIVITY
    }
}

/// Where the feed stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedLink {
    /// Opening (attempt 0 is the first).
    Opening { attempt: u32 },
    /// Streaming; `resumed_after` the id a reconnect asked to replay after.
    Open {
        session: String,
        resumed_after: Option<u64>,
    },
    /// The stream ended or could not be opened; reopening in `retry_in`.
    Lost {
        why: String,
        retry_in: Duration,
        last_id: Option<u64>,
    },
    /// Ids after a reconnect skipped ones the server could no longer replay.
    Missed { from: u64, to: u64 },
    /// No token held: the feed cannot be opened (never "no activity").
    NeedsToken,
    /// This server has no MCP endpoint.
    NotServed,
}

impl FeedLink {
    /// The worker ends after this step (nothing to reconnect to without an operator).
    pub fn ends(&self) -> bool {
        matches!(self, Self::NeedsToken | Self::NotServed)
    }
}

#[derive(Debug, Clone)]
pub enum ActivityObservation {
    Link(FeedLink),
    Event(Box<ObserverEvent>),
}

impl Payload for ActivityObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Link(FeedLink::Opening { .. }) => "opening".into(),
            Self::Link(FeedLink::Open { .. }) => "open".into(),
            Self::Link(FeedLink::Lost { .. }) => "lost".into(),
            Self::Link(FeedLink::Missed { .. }) => "missed".into(),
            Self::Link(FeedLink::NeedsToken) => "needs_token".into(),
            Self::Link(FeedLink::NotServed) => "not_served".into(),
            Self::Event(e) => match e.as_ref() {
                ObserverEvent::Row(_) => "event".into(),
                ObserverEvent::Undecodable { .. } => "undecodable".into(),
            },
        }
    }
}

/// The first reconnect waits this long, doubling to [`BACKOFF_MAX`].
pub const BACKOFF_FIRST: Duration = Duration::from_millis(250);
pub const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// The wait before reconnect attempt `attempt` (1 is the first reconnect).
pub fn backoff(attempt: u32) -> Duration {
    let factor = 1u32 << attempt.saturating_sub(1).min(8);
    (BACKOFF_FIRST * factor).min(BACKOFF_MAX)
}

fn link(emit: &Emit<ActivityObservation>, l: FeedLink) {
    emit(ActivityObservation::Link(l));
}

/// The feed: open, stream, reconnect — until cancelled, or until it needs an operator.
async fn feed(client: WorkspaceClient, emit: Emit<ActivityObservation>) {
    let mut session: Option<String> = None;
    let mut last_id: Option<u64> = None;
    let mut attempt: u32 = 0;
    loop {
        link(&emit, FeedLink::Opening { attempt });
        let mut wait = None;
        let why = 'open: {
            let s = match session.clone() {
                Some(s) => s,
                None => match client.mcp_initialize().await {
                    Ok(s) => {
                        session = Some(s.clone());
                        s
                    }
                    Err(ObserverOpenError::NoToken) => return link(&emit, FeedLink::NeedsToken),
                    Err(ObserverOpenError::NotServed) => return link(&emit, FeedLink::NotServed),
                    Err(ObserverOpenError::Later { retry_after, .. }) => {
                        wait = retry_after;
                        break 'open "initialize: server not ready".to_string();
                    }
                    Err(e) => break 'open format!("initialize: {}", e.class()),
                },
            };
            let mut stream = match client.observer_stream(&s, last_id).await {
                Ok(stream) => stream,
                Err(ObserverOpenError::NoToken) => return link(&emit, FeedLink::NeedsToken),
                Err(ObserverOpenError::SessionRefused(m)) => {
                    // A refused session is never reused: start again at initialize.
                    session = None;
                    break 'open format!("session refused: {m}");
                }
                Err(ObserverOpenError::Later {
                    retry_after,
                    status,
                }) => {
                    wait = retry_after;
                    break 'open format!("stream: HTTP {status}");
                }
                Err(e) => break 'open format!("stream: {}", e.class()),
            };
            link(
                &emit,
                FeedLink::Open {
                    session: s,
                    resumed_after: last_id,
                },
            );
            attempt = 0;
            let mut first_after_open = true;
            loop {
                match stream.next().await {
                    Some(Ok(frame)) => {
                        if frame.data.is_empty() {
                            continue;
                        }
                        let event = decode_event(frame.id.as_deref(), &frame.data);
                        let id = match &event {
                            ObserverEvent::Row(r) => r.id,
                            ObserverEvent::Undecodable { id, .. } => *id,
                        };
                        if let (Some(id), Some(last)) = (id, last_id) {
                            if id <= last {
                                // Replayed after a reconnect: already shown.
                                continue;
                            }
                            if first_after_open && id > last + 1 {
                                link(
                                    &emit,
                                    FeedLink::Missed {
                                        from: last + 1,
                                        to: id - 1,
                                    },
                                );
                            }
                        }
                        first_after_open = false;
                        if id.is_some() {
                            last_id = id;
                        }
                        emit(ActivityObservation::Event(Box::new(event)));
                    }
                    Some(Err(end)) => break 'open format!("stream ended: {}", end.class()),
                    None => break 'open "stream ended".to_string(),
                }
            }
        };
        attempt = attempt.saturating_add(1);
        let retry_in = wait.unwrap_or_else(|| backoff(attempt));
        link(
            &emit,
            FeedLink::Lost {
                why,
                retry_in,
                last_id,
            },
        );
        tokio::time::sleep(retry_in).await;
    }
}

/// What the view asks: open the feed now (Activity shown, or `r` after "needs a token"), and
/// on every epoch after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActivityCommand {
    Open,
}

crate::source_commands!(ActivitySlot, ActivityObservation, ActivityCommand);

pub struct ActivityState {
    workers: RequestWorkers<ActivitySlot, ActivityObservation>,
    /// Activity was shown: the feed follows every epoch.
    wanted: bool,
}

const RULES: StepRules<ActivitySlot, ActivityObservation> = StepRules {
    last: |p| matches!(p, ActivityObservation::Link(l) if l.ends()),
    panicked: |_| None,
};

impl ActivityState {
    fn open(&mut self, myself: &Myself<Self>) {
        self.workers
            .dispatch(myself, ActivitySlot::Feed, (), |_auth, client, emit| {
                feed(client, emit)
            });
    }
}

impl SourceState for ActivityState {
    type Slot = ActivitySlot;
    type Payload = ActivityObservation;
    type Command = ActivityCommand;
    type Args = ();

    fn start(ctx: SourceContext, _myself: &Myself<Self>, _args: ()) -> Self {
        Self {
            workers: RequestWorkers::new(&ctx, RULES),
            wanted: false,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: ActivityCommand) {
        match command {
            ActivityCommand::Open => {
                self.wanted = true;
                if self.workers.in_flight(&ActivitySlot::Feed).is_none() {
                    self.open(&ctl.myself);
                }
            }
        }
    }

    /// `r`: open the feed when none runs (a running feed reconnects by itself).
    fn demand(&mut self, ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Explicit
            && self.wanted
            && self.workers.in_flight(&ActivitySlot::Feed).is_none()
        {
            self.open(&ctl.myself);
        }
    }

    /// One feed per read epoch: a new epoch cancels the old feed and opens one (G-6).
    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        let had = self.workers.authority().map(|a| a.scope.clone());
        self.workers.identity(&identity);
        let now = self.workers.authority().map(|a| a.scope.clone());
        if self.wanted
            && now.is_some()
            && (had != now || self.workers.in_flight(&ActivitySlot::Feed).is_none())
        {
            self.open(&ctl.myself);
        }
    }

    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<ActivitySlot, ActivityObservation>,
    ) -> bool {
        self.workers.returned(ret);
        false
    }

    fn stop(&mut self, reason: &str) {
        self.workers.cancel_where(|_| true, reason);
    }
}

impl OwnKey for ActivityState {
    const KEY: SourceKey = ACTIVITY;
}

/// Spawns the Activity source under the supervisor.
pub type ActivitySpawner = OnCommand<ActivityState>;
