//! How the Tools surface admits, applies and retires its slots: its [`SurfaceModel`] face
//! (one slot per Tools list, the Keeper surface and the open async request). The model's state
//! and its own operations are the parent module's.

use super::*;

impl SurfaceModel for ToolsModel {
    type Slot = ToolsSlot;
    type Payload = ToolsObservation;

    fn inbox(&self) -> &Inbox<ToolsSlot, ToolsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<ToolsSlot>, gate: &EpochGate) -> bool {
        match self.slot_mut(&ticket.slot) {
            Some(slot) => slot.dispatched(ticket, gate),
            None => false,
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<ToolsSlot>,
        payload: &ToolsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        let fits = matches!(
            (&ticket.slot, payload),
            (
                ToolsSlot::ToolsInventory,
                ToolsObservation::ToolsInventory(_)
            ) | (ToolsSlot::SkillsCatalog, ToolsObservation::SkillsCatalog(_))
                | (ToolsSlot::AsyncRequests, ToolsObservation::AsyncRequests(_))
                | (
                    ToolsSlot::AsyncRequest(_),
                    ToolsObservation::AsyncRequest(_)
                )
                | (
                    ToolsSlot::KeeperSurface(_),
                    ToolsObservation::KeeperSurface(_)
                )
        );
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        match &ticket.slot {
            // T-11: only the request still open with this id; its context must be the one
            // the read was dispatched with.
            ToolsSlot::AsyncRequest(id) => {
                let open = self.request_for(id);
                if let (Some(open), ToolsObservation::AsyncRequest(read)) = (open, payload)
                    && (read.request_id != open.request_id || read.held != open.held)
                {
                    gate.check(ticket)?;
                    return Err(RejectReason::OtherTarget);
                }
                Slot::judge_if_open(open.map(|r| &r.detail), ticket, gate)
            }
            // Only the Keeper still selected, and only an answer asked for it.
            ToolsSlot::KeeperSurface(keeper) => {
                if let ToolsObservation::KeeperSurface(read) = payload
                    && read.keeper != *keeper
                {
                    gate.check(ticket)?;
                    return Err(RejectReason::OtherTarget);
                }
                Slot::judge_if_open(self.surface_for(keeper).map(|s| &s.read), ticket, gate)
            }
            key => match self.slot_mut(key) {
                Some(slot) => slot.judge(ticket, gate),
                None => Err(RejectReason::UnknownSlot),
            },
        }
    }

    /// Applies a judged observation to its own slot only (T-2).
    fn apply(&mut self, ticket: &Ticket<ToolsSlot>, payload: ToolsObservation, now: Instant) {
        match payload {
            ToolsObservation::ToolsInventory(r) => self.inventory.apply_with(ticket, r, now, |v| v),
            ToolsObservation::SkillsCatalog(r) => self.skills.apply_with(ticket, r, now, |v| v),
            ToolsObservation::AsyncRequests(r) => self.asyncs.apply_with(ticket, r, now, |v| v),
            ToolsObservation::AsyncRequest(read) => {
                if let Some(open) = self.request_mut(&read.request_id) {
                    let ok = read.result.is_ok();
                    open.detail.apply_with(ticket, read.result, now, |v| v);
                    if ok {
                        open.admitted(now);
                    }
                }
            }
            ToolsObservation::KeeperSurface(read) => {
                if let Some(selected) = self.surface.as_mut().filter(|s| s.keeper == read.keeper) {
                    selected.read.apply_with(ticket, read.result, now, |v| v);
                }
            }
        }
    }

    fn retired(&mut self, ticket: &Ticket<ToolsSlot>) -> bool {
        self.slot_mut(&ticket.slot)
            .is_some_and(|s| s.retired(ticket))
    }

    fn slot(&mut self, key: &ToolsSlot) -> Option<&mut dyn ReadSlot> {
        self.slot_mut(key).map(|s| s.as_read_slot())
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> = vec![
            (TOOLS, &mut self.inventory as &mut dyn ReadSlot),
            (TOOLS, &mut self.skills),
            (TOOLS, &mut self.asyncs),
        ];
        if let Some(open) = self.request.as_mut() {
            all.push((TOOLS, &mut open.detail));
        }
        if let Some(selected) = self.surface.as_mut() {
            all.push((TOOLS, &mut selected.read));
        }
        all
    }

    fn any_failed(&self) -> bool {
        self.inventory.failed() || self.skills.failed() || self.asyncs.failed()
    }

    /// The standing slots.
    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.inventory, &self.skills, &self.asyncs])
    }
}
