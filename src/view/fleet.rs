//! The fleet: one line per configured workspace from its background watch
//! (`crate::actors::fleet`; docs/audits/workspaces.md). Admitted by its own rules, never by the
//! active workspace's epoch gate: a line is kept only under the name its ticket carries, only
//! newer than the last admitted round of that name, and only when the ticket's root is the one
//! its counts were read under. The active epoch opening or closing never touches it.
//!
//! A round that could not read the workspace keeps the last connected round's counts beside
//! it (nothing lost): the picker shows both, with the time each was read.

use super::admission::{EpochGate, ReadSlot, RejectReason};
use super::surface::SurfaceModel;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::fleet::{FleetConnection, FleetLine, FleetName, FleetObservation, FleetSlot};
use crate::protocol::admission::ReadScope;
use crate::protocol::routes::RouteFamily;
use ratatui::style::Color;
use std::collections::HashMap;
use std::time::Instant;

/// A configured workspace as the session knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetMember {
    pub name: FleetName,
    pub colour: Option<Color>,
}

/// The configured workspaces and which one this session shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FleetRoster {
    /// In config file order.
    pub members: Vec<FleetMember>,
    /// The workspace the session's sources read (`None`: an unnamed one, `--url`).
    pub active: Option<FleetName>,
}

impl FleetRoster {
    pub fn active_member(&self) -> Option<&FleetMember> {
        let active = self.active.as_ref()?;
        self.members.iter().find(|m| &m.name == active)
    }
}

/// One admitted line and when the view admitted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub line: FleetLine,
    pub round: u64,
    pub at: Instant,
}

/// What the fleet knows of one workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FleetEntry {
    /// The newest admitted round.
    pub newest: Option<Seen>,
    /// The newest round that read the counts (kept beside a failed newer round).
    pub last_connected: Option<Seen>,
    /// A round is being read.
    pub reading: bool,
}

#[derive(Debug)]
pub struct FleetModel {
    inbox: Inbox<FleetSlot, FleetObservation>,
    pub roster: FleetRoster,
    entries: HashMap<FleetName, FleetEntry>,
}

impl Default for FleetModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl FleetModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            roster: FleetRoster::default(),
            entries: HashMap::new(),
        }
    }

    /// The configured members, each with what is known of it, in config order.
    pub fn lines(&self) -> impl Iterator<Item = (&FleetMember, Option<&FleetEntry>)> {
        self.roster
            .members
            .iter()
            .map(|m| (m, self.entries.get(&m.name)))
    }

    pub fn entry(&self, name: &FleetName) -> Option<&FleetEntry> {
        self.entries.get(name)
    }

    fn configured(&self, name: &FleetName) -> bool {
        self.roster.members.iter().any(|m| &m.name == name)
    }
}

impl SurfaceModel for FleetModel {
    type Slot = FleetSlot;
    type Payload = FleetObservation;

    fn inbox(&self) -> &Inbox<FleetSlot, FleetObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<FleetSlot>, _: &EpochGate) -> bool {
        let name = ticket.slot.name();
        if !self.configured(name) {
            return false;
        }
        let entry = self.entries.entry(name.clone()).or_default();
        let changed = !entry.reading;
        entry.reading = true;
        changed
    }

    /// Not the epoch gate: the name must be configured, the round newer than the last
    /// admitted one, and the ticket's root the root of the line's counts (G-6).
    fn judge(
        &mut self,
        ticket: &Ticket<FleetSlot>,
        payload: &FleetObservation,
        _: &EpochGate,
    ) -> Result<(), RejectReason> {
        let name = ticket.slot.name();
        if !self.configured(name) {
            return Err(RejectReason::UnknownSlot);
        }
        let read_under = payload.0.connection.root().map(|r| r.0.as_str());
        if read_under.unwrap_or("") != ticket.scope.workspace.0 {
            return Err(RejectReason::OtherTarget);
        }
        let last = self
            .entries
            .get(name)
            .and_then(|e| e.newest.as_ref())
            .map(|s| s.round);
        if last.is_some_and(|last| ticket.generation <= last) {
            return Err(RejectReason::Superseded);
        }
        Ok(())
    }

    fn apply(&mut self, ticket: &Ticket<FleetSlot>, payload: FleetObservation, now: Instant) {
        let entry = self.entries.entry(ticket.slot.name().clone()).or_default();
        let seen = Seen {
            line: payload.0,
            round: ticket.generation,
            at: now,
        };
        if matches!(seen.line.connection, FleetConnection::Connected { .. }) {
            entry.last_connected = Some(seen.clone());
        }
        entry.newest = Some(seen);
        entry.reading = false;
    }

    fn retired(&mut self, ticket: &Ticket<FleetSlot>) -> bool {
        match self.entries.get_mut(ticket.slot.name()) {
            Some(entry) if entry.reading => {
                entry.reading = false;
                true
            }
            _ => false,
        }
    }

    fn slot(&mut self, _: &FleetSlot) -> Option<&mut dyn ReadSlot> {
        None
    }

    /// None: the active workspace's epoch, restarts and stops do not reach the fleet.
    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        Vec::new()
    }

    fn on_new_epoch(&mut self, _: &ReadScope) -> bool {
        false
    }

    fn any_failed(&self) -> bool {
        // Another workspace's trouble is its own line's, never the header's `degraded`.
        false
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::contract::{IdentityState, SlotEvent};
    use crate::actors::fleet::FleetCount;
    use crate::protocol::admission::{AdmissionMode, WorkspaceId};
    use crate::protocol::client::ErrorClass;
    use crate::view::model::Model;

    fn name(n: &str) -> FleetName {
        FleetName(n.into())
    }

    fn connected(root: &str, approvals: u64) -> FleetLine {
        FleetLine {
            connection: FleetConnection::Connected {
                root: WorkspaceId(root.into()),
                mode: AdmissionMode::Receipt,
            },
            keepers_in_error: FleetCount::Count(0),
            approvals: FleetCount::Count(approvals),
            gate_items: FleetCount::Count(0),
            asks: FleetCount::Count(0),
        }
    }

    fn ticket(n: &str, round: u64, root: &str) -> Ticket<FleetSlot> {
        Ticket {
            slot: FleetSlot::Line(name(n)),
            generation: round,
            scope: ReadScope {
                workspace: WorkspaceId(root.into()),
                epoch: round,
            },
        }
    }

    fn model() -> Model {
        let mut model = Model::default();
        model.fleet.roster = FleetRoster {
            members: ["prod", "staging"]
                .map(|n| FleetMember {
                    name: name(n),
                    colour: None,
                })
                .to_vec(),
            active: Some(name("prod")),
        };
        model
    }

    fn deliver(model: &mut Model, t: Ticket<FleetSlot>, line: FleetLine) -> Vec<RejectReason> {
        model
            .deliver(
                SlotEvent::Observed(t, FleetObservation(line)),
                Instant::now(),
            )
            .rejected
    }

    fn approvals(model: &Model, n: &str) -> Option<FleetCount> {
        let entry = model.fleet.entry(&name(n))?;
        Some(entry.newest.as_ref()?.line.approvals)
    }

    #[test]
    fn g6_a_line_is_kept_only_under_its_own_name_and_root() {
        let mut m = model();
        assert!(
            deliver(
                &mut m,
                ticket("staging", 1, "/s/.masc"),
                connected("/s/.masc", 2)
            )
            .is_empty()
        );
        assert_eq!(approvals(&m, "staging"), Some(FleetCount::Count(2)));
        assert_eq!(
            approvals(&m, "prod"),
            None,
            "never shown under another name"
        );
        // A ticket whose root is not the root the counts were read under.
        assert_eq!(
            deliver(
                &mut m,
                ticket("staging", 2, "/p/.masc"),
                connected("/s/.masc", 9)
            ),
            vec![RejectReason::OtherTarget]
        );
        // A workspace that is not configured.
        assert_eq!(
            deliver(
                &mut m,
                ticket("gone", 3, "/g/.masc"),
                connected("/g/.masc", 9)
            ),
            vec![RejectReason::UnknownSlot]
        );
        assert_eq!(approvals(&m, "staging"), Some(FleetCount::Count(2)));
    }

    #[test]
    fn g6_an_older_round_never_replaces_a_newer_one() {
        let mut m = model();
        assert!(
            deliver(
                &mut m,
                ticket("prod", 5, "/p/.masc"),
                connected("/p/.masc", 1)
            )
            .is_empty()
        );
        assert_eq!(
            deliver(
                &mut m,
                ticket("prod", 4, "/p/.masc"),
                connected("/p/.masc", 7)
            ),
            vec![RejectReason::Superseded]
        );
        assert_eq!(approvals(&m, "prod"), Some(FleetCount::Count(1)));
    }

    #[test]
    fn a_failed_round_keeps_the_last_counts_beside_it() {
        let mut m = model();
        deliver(
            &mut m,
            ticket("prod", 1, "/p/.masc"),
            connected("/p/.masc", 3),
        );
        let down = FleetLine::unread(FleetConnection::Unreachable {
            class: ErrorClass::Transport,
        });
        assert!(deliver(&mut m, ticket("prod", 2, ""), down).is_empty());
        let entry = m.fleet.entry(&name("prod")).unwrap();
        assert_eq!(
            entry.newest.as_ref().unwrap().line.approvals,
            FleetCount::NotRead
        );
        let kept = entry.last_connected.as_ref().unwrap();
        assert_eq!((kept.round, kept.line.approvals), (1, FleetCount::Count(3)));
    }

    #[test]
    fn g6_the_active_epoch_neither_admits_nor_withdraws_a_fleet_line() {
        let mut m = model();
        // No epoch is open for the active workspace: a fleet line is still admitted.
        assert!(
            deliver(
                &mut m,
                ticket("staging", 1, "/s/.masc"),
                connected("/s/.masc", 4)
            )
            .is_empty()
        );
        m.on_identity(IdentityState::Confirmed {
            scope: ReadScope {
                workspace: WorkspaceId("/p/.masc".into()),
                epoch: 9,
            },
            base_path: "/p".into(),
            mode: AdmissionMode::Receipt,
        });
        m.on_identity(IdentityState::Unconfirmed { reason: "x".into() });
        assert_eq!(approvals(&m, "staging"), Some(FleetCount::Count(4)));
        // Another workspace's trouble never degrades the header.
        let down = FleetLine::unread(FleetConnection::Unreachable {
            class: ErrorClass::Transport,
        });
        deliver(&mut m, ticket("staging", 2, ""), down);
        assert!(!SurfaceModel::any_failed(&m.fleet));
    }
}
