//! The System Logs model (§15.1; the System `logs` pane): the rows held at the chosen filters,
//! merged by `seq` from whole pages, deltas (`since_seq`) and pages back (`before_seq`), and the
//! window and page-back slots each with its own state (a failed refresh keeps the rows beside
//! the failure).
//!
//! A read asked under other filters than the ones shown is rejected (`other_target`), never
//! merged; a whole page replaces the rows (what the server's window holds now); rows of another
//! workspace are dropped when its epoch closes (G-6).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::system_logs::{LogsRead, SYSTEM_LOGS, SystemLogsObservation, SystemLogsSlot};
use crate::protocol::admission::ReadScope;
use crate::protocol::routes::RouteFamily;
use crate::protocol::system_logs::{LogQuery, LogRing, LogRowSlot, LogsPage};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The most rows held: beyond it the oldest go (paging back brings them again).
pub const MAX_ROWS: usize = 5_000;

#[derive(Debug)]
pub struct SystemLogsModel {
    inbox: Inbox<SystemLogsSlot, SystemLogsObservation>,
    pub window: Slot<Arc<LogsPage>>,
    pub older: Slot<Arc<LogsPage>>,
    /// The filters shown (the source reads under the same, the view asked them).
    pub filters: LogQuery,
    /// Every row held at these filters, by `seq`.
    pub rows: BTreeMap<u64, LogRowSlot>,
    /// Rows that did not decode and had no `seq` (counted, shown by what they said).
    pub unnumbered: Vec<LogRowSlot>,
    /// The newest page's view of the ring (`total`, `start_seq`, `dropped_before`).
    pub ring: Option<LogRing>,
    pub total: Option<u64>,
    /// A page back answered with no rows: nothing older in the live window.
    pub oldest_reached: bool,
    /// The workspace the rows were read in.
    scope: Option<ReadScope>,
}

impl Default for SystemLogsModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl SystemLogsModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            window: Slot::default(),
            older: Slot::default(),
            filters: LogQuery::default(),
            rows: BTreeMap::new(),
            unnumbered: Vec::new(),
            ring: None,
            total: None,
            oldest_reached: false,
            scope: None,
        }
    }

    /// New filters: what is held was read under others and goes.
    pub fn set_filters(&mut self, filters: LogQuery) {
        self.filters = filters.filters();
        self.clear();
    }

    fn clear(&mut self) {
        self.rows.clear();
        self.unnumbered.clear();
        self.ring = None;
        self.total = None;
        self.oldest_reached = false;
    }

    /// The rows newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &LogRowSlot> {
        self.unnumbered.iter().chain(self.rows.values().rev())
    }

    pub fn len(&self) -> usize {
        self.rows.len() + self.unnumbered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The oldest `seq` held (a page back asks before it).
    pub fn oldest_seq(&self) -> Option<u64> {
        self.rows.keys().next().copied()
    }

    fn merge(&mut self, page: &LogsPage) {
        for row in &page.rows {
            match row.seq() {
                Some(seq) => {
                    self.rows.insert(seq, row.clone());
                }
                None => self.unnumbered.push(row.clone()),
            }
        }
        while self.rows.len() > MAX_ROWS {
            self.rows.pop_first();
        }
    }

    fn take(&mut self, read: &LogsRead, older: bool, scope: &ReadScope) {
        let Ok(admitted) = &read.result else {
            return;
        };
        let page = admitted.value.as_ref();
        if self.scope.as_ref().map(|s| &s.workspace) != Some(&scope.workspace) {
            self.clear();
            self.scope = Some(scope.clone());
        }
        if older {
            self.oldest_reached = page.rows.is_empty();
        } else {
            if read.query.since_seq.is_none() {
                // A whole page: what the window holds now.
                self.rows.clear();
                self.unnumbered.clear();
                self.oldest_reached = false;
            }
            self.ring = page.ring;
            self.total = Some(page.total);
        }
        self.merge(page);
    }
}

impl SurfaceModel for SystemLogsModel {
    type Slot = SystemLogsSlot;
    type Payload = SystemLogsObservation;

    fn inbox(&self) -> &Inbox<SystemLogsSlot, SystemLogsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<SystemLogsSlot>, gate: &EpochGate) -> bool {
        match ticket.slot {
            SystemLogsSlot::Window => self.window.dispatched(ticket, gate),
            SystemLogsSlot::Older => self.older.dispatched(ticket, gate),
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<SystemLogsSlot>,
        payload: &SystemLogsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        let fits = matches!(
            (&ticket.slot, payload),
            (SystemLogsSlot::Window, SystemLogsObservation::Window(_))
                | (SystemLogsSlot::Older, SystemLogsObservation::Older(_))
        );
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        let slot = match ticket.slot {
            SystemLogsSlot::Window => &self.window,
            SystemLogsSlot::Older => &self.older,
        };
        slot.judge(ticket, gate)?;
        // Asked under other filters than the ones shown: not these rows.
        if payload.read().query.filters() != self.filters {
            return Err(RejectReason::OtherTarget);
        }
        Ok(())
    }

    fn apply(
        &mut self,
        ticket: &Ticket<SystemLogsSlot>,
        payload: SystemLogsObservation,
        now: Instant,
    ) {
        let (older, read) = match payload {
            SystemLogsObservation::Window(read) => (false, read),
            SystemLogsObservation::Older(read) => (true, read),
        };
        self.take(&read, older, &ticket.scope);
        let slot = if older {
            &mut self.older
        } else {
            &mut self.window
        };
        slot.apply_with(ticket, read.result, now, |v| v);
    }

    fn retired(&mut self, ticket: &Ticket<SystemLogsSlot>) -> bool {
        match ticket.slot {
            SystemLogsSlot::Window => self.window.retired(ticket),
            SystemLogsSlot::Older => self.older.retired(ticket),
        }
    }

    fn slot(&mut self, key: &SystemLogsSlot) -> Option<&mut dyn ReadSlot> {
        Some(match key {
            SystemLogsSlot::Window => &mut self.window,
            SystemLogsSlot::Older => &mut self.older,
        })
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![
            (SYSTEM_LOGS, &mut self.window as &mut dyn ReadSlot),
            (SYSTEM_LOGS, &mut self.older),
        ]
    }

    /// A new epoch of another workspace: its rows go with its values (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        if self
            .scope
            .as_ref()
            .is_some_and(|held| held.workspace != scope.workspace)
        {
            self.clear();
            self.scope = None;
            changed = true;
        }
        changed
    }

    fn any_failed(&self) -> bool {
        self.window.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.window])
    }
}

impl SystemLogsModel {
    /// The view asked the source for `command`: new filters drop what was held under others.
    pub fn on_command(&mut self, command: &crate::actors::system_logs::SystemLogsCommand) {
        if let crate::actors::system_logs::SystemLogsCommand::Filters(filters) = command {
            self.set_filters(filters.clone());
        }
    }
}
