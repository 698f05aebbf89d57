//! The Activity model (§15.2): the observer feed's rows as they arrived, admitted only from the
//! ticket of the feed that owns the slot in the current epoch; where the feed stands (opening,
//! open, lost and reconnecting, needs a token, not served) and what it missed (ids the server
//! could no longer replay, events it sent that could not be read, rows dropped over the budget).
//!
//! About 1,000 rows are kept, quiet rows (heartbeats, signals, snapshots, stream frames,
//! telemetry) in a budget of their own so a token-streamed reply cannot evict the calls.

use super::admission::{EpochGate, ReadSlot, RejectReason};
use super::surface::SurfaceModel;
use crate::actors::activity::{ACTIVITY, ActivityObservation, ActivitySlot, FeedLink};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::protocol::observer::{ActivityRow, ObserverEvent};
use crate::protocol::routes::RouteFamily;
use std::collections::VecDeque;
use std::time::{Instant, SystemTime};

/// Rows kept in all.
pub const KEPT: usize = 1000;
/// Of which at most this many quiet ones.
pub const QUIET_KEPT: usize = 300;

/// One row with the TUI's own arrival clock (not the server's `ts_unix`).
#[derive(Debug, Clone)]
pub struct Arrived {
    pub at: SystemTime,
    pub row: ActivityRow,
}

#[derive(Debug)]
pub struct ActivityModel {
    inbox: Inbox<ActivitySlot, ActivityObservation>,
    owner: Option<Ticket<ActivitySlot>>,
    /// The workspace the rows were read in (another workspace's epoch drops them, G-6).
    workspace: Option<String>,
    pub link: Option<(FeedLink, Instant)>,
    /// Oldest first.
    pub rows: VecDeque<Arrived>,
    quiet: usize,
    /// Events that could not be read, and the last reason.
    pub undecodable: u64,
    pub last_undecodable: Option<String>,
    /// Ids the server could no longer replay after reconnects.
    pub missed: u64,
    /// Rows dropped over the budget.
    pub dropped: u64,
    /// Reconnects since the view opened.
    pub reconnects: u64,
}

impl Default for ActivityModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl ActivityModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            owner: None,
            workspace: None,
            link: None,
            rows: VecDeque::new(),
            quiet: 0,
            undecodable: 0,
            last_undecodable: None,
            missed: 0,
            dropped: 0,
            reconnects: 0,
        }
    }

    fn push(&mut self, row: ActivityRow) {
        if row.quiet {
            self.quiet += 1;
        }
        self.rows.push_back(Arrived {
            at: SystemTime::now(),
            row,
        });
        if self.quiet > QUIET_KEPT
            && let Some(i) = self.rows.iter().position(|a| a.row.quiet)
        {
            self.rows.remove(i);
            self.quiet -= 1;
            self.dropped += 1;
        }
        if self.rows.len() > KEPT
            && let Some(old) = self.rows.pop_front()
        {
            if old.row.quiet {
                self.quiet -= 1;
            }
            self.dropped += 1;
        }
    }

    fn clear(&mut self) {
        self.rows.clear();
        self.quiet = 0;
        self.undecodable = 0;
        self.last_undecodable = None;
        self.missed = 0;
        self.dropped = 0;
        self.link = None;
    }

    /// Whether a feed owns the slot now.
    pub fn streaming(&self) -> bool {
        self.owner.is_some()
    }
}

impl SurfaceModel for ActivityModel {
    type Slot = ActivitySlot;
    type Payload = ActivityObservation;

    fn inbox(&self) -> &Inbox<ActivitySlot, ActivityObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<ActivitySlot>, gate: &EpochGate) -> bool {
        if gate.check(ticket).is_err() {
            return false;
        }
        let ws = ticket.scope.workspace.0.clone();
        if self.workspace.as_ref() != Some(&ws) {
            self.clear();
            self.workspace = Some(ws);
        }
        self.owner = Some(ticket.clone());
        true
    }

    fn judge(
        &mut self,
        ticket: &Ticket<ActivitySlot>,
        _payload: &ActivityObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        gate.check(ticket)?;
        match &self.owner {
            Some(owner) if owner == ticket => Ok(()),
            Some(_) => Err(RejectReason::Superseded),
            None => Err(RejectReason::Withdrawn),
        }
    }

    fn apply(
        &mut self,
        _ticket: &Ticket<ActivitySlot>,
        payload: ActivityObservation,
        now: Instant,
    ) {
        match payload {
            ActivityObservation::Link(link) => {
                match &link {
                    FeedLink::Missed { from, to } => {
                        self.missed += to.saturating_sub(*from) + 1;
                    }
                    FeedLink::Open {
                        resumed_after: Some(_),
                        ..
                    } => self.reconnects += 1,
                    _ => {}
                }
                if link.ends() {
                    self.owner = None;
                }
                if !matches!(link, FeedLink::Missed { .. }) {
                    self.link = Some((link, now));
                }
            }
            ActivityObservation::Event(event) => match *event {
                ObserverEvent::Row(row) => self.push(row),
                ObserverEvent::Undecodable { reason, .. } => {
                    self.undecodable += 1;
                    self.last_undecodable = Some(reason);
                }
            },
        }
    }

    fn retired(&mut self, ticket: &Ticket<ActivitySlot>) -> bool {
        if self.owner.as_ref() == Some(ticket) {
            self.owner = None;
            return true;
        }
        false
    }

    fn slot(&mut self, _key: &ActivitySlot) -> Option<&mut dyn ReadSlot> {
        None
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        Vec::new()
    }

    /// The feed of the old epoch is no longer admitted; another workspace's rows go (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let changed = self.owner.take().is_some();
        if self.workspace.as_deref() != Some(scope.workspace.0.as_str()) {
            self.clear();
            self.workspace = None;
            return true;
        }
        changed
    }

    /// Withdrawn: the feed closes; the rows stay as the last observation (G-6).
    fn on_withdrawn(&mut self) -> bool {
        self.owner.take().is_some()
    }

    fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        source == ACTIVITY && self.owner.take().is_some()
    }

    fn on_source_stopped(&mut self, source: SourceKey) -> bool {
        source == ACTIVITY && self.owner.take().is_some()
    }

    fn any_failed(&self) -> bool {
        false
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        Vec::new()
    }
}
