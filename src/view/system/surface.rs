//! How the System surface admits, applies and retires its slots: its [`SurfaceModel`] face
//! (one slot per Tools list, the Keeper surface, the open async request, the Runtime joined
//! load, the connector status and name chains, and each save's own slot). The model's state and
//! its own operations are the parent module's.

use super::*;

impl SurfaceModel for SystemModel {
    type Slot = SystemSlot;
    type Payload = SystemObservation;

    fn inbox(&self) -> &Inbox<SystemSlot, SystemObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<SystemSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            // A save is admitted by its own book, not the epoch (H-16, K-5).
            SystemSlot::RuntimeForm(save_id) => return self.forms.dispatched(save_id, ticket),
            SystemSlot::RuntimeRaw(save_id) => return self.raws.dispatched(save_id, ticket),
            SystemSlot::BindWrite(id) => return self.binds.dispatched(id, ticket),
            SystemSlot::UnbindWrite(id) => return self.unbinds.dispatched(id, ticket),
            SystemSlot::ConnectorsStatus if gate.check(ticket).is_ok() => {
                if let Some(r) = self.reread.as_mut()
                    && r.covering.is_none()
                {
                    r.covering = Some(ticket.generation);
                }
            }
            _ => {}
        }
        if matches!(ticket.slot, SystemSlot::ConnectorNames { .. }) && gate.check(ticket).is_ok() {
            // A chain's slot exists from its first dispatch on.
            self.names.entry(ticket.slot.clone()).or_default();
        }
        if ticket.slot == SystemSlot::RuntimeCatalogue && self.probe.dispatched(ticket, gate) {
            // One ticket owns both parts of the joined load.
            self.runtime_loads.last_dispatched = Some(ticket.generation);
        }
        let taken = match self.slot_mut(&ticket.slot) {
            Some(slot) => slot.dispatched(ticket, gate),
            None => false,
        };
        if taken && ticket.slot == SystemSlot::RuntimeConfig {
            self.config_reads.dispatched(ticket.generation);
        }
        taken
    }

    fn judge(
        &mut self,
        ticket: &Ticket<SystemSlot>,
        payload: &SystemObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        let fits = matches!(
            (&ticket.slot, payload),
            (
                SystemSlot::ToolsInventory,
                SystemObservation::ToolsInventory(_)
            ) | (
                SystemSlot::SkillsCatalog,
                SystemObservation::SkillsCatalog(_)
            ) | (
                SystemSlot::AsyncRequests,
                SystemObservation::AsyncRequests(_)
            ) | (
                SystemSlot::RuntimeCatalogue,
                SystemObservation::RuntimeCatalogue(_)
            ) | (
                SystemSlot::RuntimeConfig,
                SystemObservation::RuntimeConfig(_)
            ) | (
                SystemSlot::ConnectorsStatus,
                SystemObservation::ConnectorsStatus(_)
            ) | (
                SystemSlot::ConnectorNames { .. },
                SystemObservation::ConnectorNames(_)
            ) | (
                SystemSlot::AsyncRequest(_),
                SystemObservation::AsyncRequest(_)
            ) | (
                SystemSlot::KeeperSurface(_),
                SystemObservation::KeeperSurface(_)
            ) | (SystemSlot::BindWrite(_), SystemObservation::Bind(_))
                | (SystemSlot::UnbindWrite(_), SystemObservation::Unbind(_))
        );
        match (&ticket.slot, payload) {
            (SystemSlot::RuntimeForm(id), SystemObservation::RuntimeForm(event)) => {
                return judge_save(&self.forms, id, ticket, event);
            }
            (SystemSlot::RuntimeRaw(id), SystemObservation::RuntimeRaw(event)) => {
                return judge_save(&self.raws, id, ticket, event);
            }
            _ => {}
        }
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        // Receipts are not gated by the epoch (a write already made, H-16): its own book.
        match (&ticket.slot, payload) {
            (SystemSlot::BindWrite(_), SystemObservation::Bind(e)) => {
                return self.binds.judge(ticket, e);
            }
            (SystemSlot::UnbindWrite(_), SystemObservation::Unbind(e)) => {
                return self.unbinds.judge(ticket, e);
            }
            _ => {}
        }
        match &ticket.slot {
            key @ SystemSlot::ConnectorNames { .. } => {
                Slot::judge_if_open(self.names.get(key), ticket, gate)
            }
            // T-11: only the request still open with this id; its context must be the one
            // the read was dispatched with.
            SystemSlot::AsyncRequest(id) => {
                let open = self.request_for(id);
                if let (Some(open), SystemObservation::AsyncRequest(read)) = (open, payload)
                    && (read.request_id != open.request_id || read.held != open.held)
                {
                    gate.check(ticket)?;
                    return Err(RejectReason::OtherTarget);
                }
                Slot::judge_if_open(open.map(|r| &r.detail), ticket, gate)
            }
            // Only the Keeper still selected, and only an answer asked for it.
            SystemSlot::KeeperSurface(keeper) => {
                if let SystemObservation::KeeperSurface(read) = payload
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
    fn apply(&mut self, ticket: &Ticket<SystemSlot>, payload: SystemObservation, now: Instant) {
        match payload {
            SystemObservation::ToolsInventory(r) => self.tools.apply_with(ticket, r, now, |v| v),
            SystemObservation::SkillsCatalog(r) => self.skills.apply_with(ticket, r, now, |v| v),
            SystemObservation::AsyncRequests(r) => self.asyncs.apply_with(ticket, r, now, |v| v),
            SystemObservation::RuntimeCatalogue(load) => {
                self.runtime_loads.settled = Some(SettledLoad {
                    generation: ticket.generation,
                    parts: load.parts(),
                    forced: load.forced,
                });
                let load = *load;
                self.runtime.apply_with(ticket, load.resolved, now, |v| v);
                self.probe.apply_with(ticket, load.probe, now, |v| v);
            }
            SystemObservation::RuntimeConfig(r) => {
                if r.is_ok() {
                    self.config_reads.shown(ticket.generation);
                }
                self.config.apply_with(ticket, r, now, |v| v)
            }
            SystemObservation::RuntimeForm(event) => {
                self.save_landed(&event.step, true);
                self.forms.apply(*event);
            }
            SystemObservation::RuntimeRaw(event) => {
                if receipt_of(&event.step).is_some() {
                    // Reads dispatched up to now never reconfirm a base after it (J-3).
                    self.config_reads.receipt(&event.save_id);
                }
                // A refused or unsent raw save changed nothing: only a save that may have
                // written the file re-reads the catalogue and the source.
                self.save_landed(&event.step, false);
                self.raws.apply(*event);
            }
            SystemObservation::ConnectorsStatus(r) => {
                // D-14: the read after a binding write settles the re-read only when admitted.
                if let Some(reread) = self.reread
                    && reread.covering == Some(ticket.generation)
                {
                    self.reread = if r.is_ok() {
                        None
                    } else {
                        Some(Reread::default())
                    };
                }
                if let Ok(a) = &r {
                    // Chains of connectors the new list no longer has are gone with them.
                    let listed: Vec<&str> = a
                        .value
                        .connectors()
                        .map(|c| c.connector_id.as_str())
                        .collect();
                    self.names.retain(|key, _| match key {
                        SystemSlot::ConnectorNames { connector, .. } => {
                            listed.contains(&connector.as_str())
                        }
                        _ => false,
                    });
                }
                self.connectors.apply_with(ticket, r, now, |v| v)
            }
            SystemObservation::ConnectorNames(read) => {
                if let Some(slot) = self.names.get_mut(&ticket.slot) {
                    slot.apply_with(ticket, read.result, now, |v| v);
                }
            }
            SystemObservation::AsyncRequest(read) => {
                if let Some(open) = self.request_mut(&read.request_id) {
                    let ok = read.result.is_ok();
                    open.detail.apply_with(ticket, read.result, now, |v| v);
                    if ok {
                        open.admitted(now);
                    }
                }
            }
            SystemObservation::KeeperSurface(read) => {
                if let Some(selected) = self.surface.as_mut().filter(|s| s.keeper == read.keeper) {
                    selected.read.apply_with(ticket, read.result, now, |v| v);
                }
            }
            SystemObservation::Bind(event) => {
                if let SaveStep::Ended(r) = &event.step {
                    self.binding_settled(Receipt::class(r), &event.workspace);
                }
                self.binds.apply(*event);
            }
            SystemObservation::Unbind(event) => {
                if let SaveStep::Ended(r) = &event.step {
                    self.binding_settled(Receipt::class(r), &event.workspace);
                }
                self.unbinds.apply(*event);
            }
        }
    }

    /// D-13: a new epoch of the same workspace restarts the re-read a binding write is owed
    /// (the read that covered it was withdrawn: the next status read covers it); a confirmed
    /// different workspace clears it. Then the usual rule (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        match &self.reread_workspace {
            Some(w) if *w == scope.workspace.0 => {
                if let Some(r) = self.reread.as_mut() {
                    changed |= r.covering.take().is_some();
                }
            }
            Some(_) => {
                self.reread = None;
                self.reread_workspace = None;
                self.write_demand = false;
                changed = true;
            }
            None => {}
        }
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    fn retired(&mut self, ticket: &Ticket<SystemSlot>) -> bool {
        match &ticket.slot {
            SystemSlot::RuntimeForm(save_id) => return self.forms.retired(save_id, ticket),
            SystemSlot::RuntimeRaw(save_id) => return self.raws.retired(save_id, ticket),
            SystemSlot::BindWrite(id) => return self.binds.retired(id, ticket),
            SystemSlot::UnbindWrite(id) => return self.unbinds.retired(id, ticket),
            SystemSlot::RuntimeCatalogue => {
                self.probe.retired(ticket);
            }
            _ => {}
        }
        self.slot_mut(&ticket.slot)
            .is_some_and(|s| s.retired(ticket))
    }

    fn slot(&mut self, key: &SystemSlot) -> Option<&mut dyn ReadSlot> {
        self.slot_mut(key).map(|s| s.as_read_slot())
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> = vec![
            (
                SystemSlot::ToolsInventory.source(),
                &mut self.tools as &mut dyn ReadSlot,
            ),
            (SystemSlot::SkillsCatalog.source(), &mut self.skills),
            (SystemSlot::AsyncRequests.source(), &mut self.asyncs),
            (SystemSlot::RuntimeCatalogue.source(), &mut self.runtime),
            (SystemSlot::RuntimeCatalogue.source(), &mut self.probe),
            (SystemSlot::RuntimeConfig.source(), &mut self.config),
            (SystemSlot::ConnectorsStatus.source(), &mut self.connectors),
        ];
        for (key, slot) in self.names.iter_mut() {
            all.push((key.source(), slot));
        }
        if let Some(open) = self.request.as_mut() {
            all.push((TOOLS, &mut open.detail));
        }
        if let Some(selected) = self.surface.as_mut() {
            all.push((TOOLS, &mut selected.read));
        }
        all
    }

    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.runtime_reread) {
            // The post-save demand: coalesces with a read in flight (F-2).
            vec![RUNTIME, RUNTIME_CONFIG]
        } else {
            Vec::new()
        }
    }

    fn any_failed(&self) -> bool {
        self.tools.failed()
            || self.skills.failed()
            || self.asyncs.failed()
            || self.runtime.failed()
            || (self.probe.failed() && !self.probe_not_served())
            || self.connectors.failed()
    }

    /// The standing slots and every name chain (connector names are newer MASC, §7.2).
    fn not_served(&self) -> Vec<RouteFamily> {
        let mut slots: Vec<&dyn ReadSlot> = vec![
            &self.tools,
            &self.skills,
            &self.asyncs,
            &self.runtime,
            &self.connectors,
        ];
        slots.extend(self.names.values().map(|s| s as &dyn ReadSlot));
        not_served_of(&slots)
    }
}
