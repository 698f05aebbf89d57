//! The Keeper operations a session made, as the Keepers surface keeps them (sources.md H-5, H-6,
//! H-9, H-11, H-16): one [`SaveBook`] per kind, and the one rule that spans them — Settings,
//! Sandbox and assignment of one Keeper never overlap (H-11); other Keepers' saves are independent.

use crate::actors::contract::Ticket;
use crate::actors::keepers::KeepersSlot;
use crate::actors::keepers::ops::assignment::AssignmentSave;
use crate::actors::keepers::ops::create::CreateSave;
use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleSave};
use crate::actors::keepers::ops::sandbox::SandboxSave;
use crate::actors::keepers::ops::settings::SettingsSave;
use crate::actors::keepers::ops::{KeeperOpEvent, KeeperOpSlot};
use crate::actors::saves::SaveStep;
use crate::view::admission::RejectReason;
use crate::view::saves::{SaveBook, SaveEntry};

fn is_receipt<R>(step: &SaveStep<R>) -> bool {
    matches!(step, SaveStep::Ended(_) | SaveStep::Restored(_))
}

#[derive(Debug, Default)]
pub struct KeeperOpsModel {
    pub sandbox: SaveBook<SandboxSave>,
    pub assignment: SaveBook<AssignmentSave>,
    /// Lifecycle actions (independent of the three above; one per Keeper in flight).
    pub lifecycle: SaveBook<LifecycleSave>,
    /// Settings saves of `e` (exclusive with Sandbox and assignment, H-11).
    pub settings: SaveBook<SettingsSave>,
    /// Creates of `a` (independent of every other operation; one per name in flight).
    pub create: SaveBook<CreateSave>,
    /// A receipt landed: the roster is re-read (it never replaces the receipt).
    reread: bool,
    /// A `g` tool gate receipt landed: the tool approval modes are re-read too (§14.4; the
    /// status line's `AUTO`/`YOLO` follows the server, never the receipt).
    reread_modes: bool,
}

/// The newest operation on one Keeper, whichever kind.
#[derive(Debug, Clone, Copy)]
pub enum LatestOp<'a> {
    Sandbox(&'a SaveEntry<SandboxSave>),
    Assignment(&'a SaveEntry<AssignmentSave>),
    Lifecycle(&'a SaveEntry<LifecycleSave>),
    Settings(&'a SaveEntry<SettingsSave>),
    Create(&'a SaveEntry<CreateSave>),
}

impl KeeperOpsModel {
    pub fn dispatched(&mut self, op: &KeeperOpSlot, ticket: &Ticket<KeepersSlot>) -> bool {
        match op {
            KeeperOpSlot::Sandbox(id) => self.sandbox.dispatched(id, ticket),
            KeeperOpSlot::Assignment(id) => self.assignment.dispatched(id, ticket),
            KeeperOpSlot::Lifecycle(id) => self.lifecycle.dispatched(id, ticket),
            KeeperOpSlot::Settings(id) => self.settings.dispatched(id, ticket),
            KeeperOpSlot::Create(id) => self.create.dispatched(id, ticket),
        }
    }

    pub fn judge(
        &self,
        op: &KeeperOpSlot,
        ticket: &Ticket<KeepersSlot>,
        event: &KeeperOpEvent,
    ) -> Result<(), RejectReason> {
        if op.save_id() != event.save_id() {
            return Err(RejectReason::UnknownSlot);
        }
        match (op, event) {
            (KeeperOpSlot::Sandbox(_), KeeperOpEvent::Sandbox(e)) => self.sandbox.judge(ticket, e),
            (KeeperOpSlot::Assignment(_), KeeperOpEvent::Assignment(e)) => {
                self.assignment.judge(ticket, e)
            }
            (KeeperOpSlot::Lifecycle(_), KeeperOpEvent::Lifecycle(e)) => {
                self.lifecycle.judge(ticket, e)
            }
            (KeeperOpSlot::Settings(_), KeeperOpEvent::Settings(e)) => {
                self.settings.judge(ticket, e)
            }
            (KeeperOpSlot::Create(_), KeeperOpEvent::Create(e)) => self.create.judge(ticket, e),
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    pub fn apply(&mut self, event: KeeperOpEvent) {
        match event {
            KeeperOpEvent::Sandbox(e) => {
                self.reread |= is_receipt(&e.step);
                self.sandbox.apply(e);
            }
            KeeperOpEvent::Assignment(e) => {
                self.reread |= is_receipt(&e.step);
                self.assignment.apply(e);
            }
            KeeperOpEvent::Lifecycle(e) => {
                self.reread |= is_receipt(&e.step);
                self.reread_modes |=
                    is_receipt(&e.step) && matches!(e.intent.action, LifecycleAction::ToolGate(_));
                self.lifecycle.apply(e);
            }
            KeeperOpEvent::Settings(e) => {
                self.reread |= is_receipt(&e.step);
                self.settings.apply(e);
            }
            KeeperOpEvent::Create(e) => {
                self.reread |= is_receipt(&e.step);
                self.create.apply(e);
            }
        }
    }

    pub fn retired(&mut self, op: &KeeperOpSlot, ticket: &Ticket<KeepersSlot>) -> bool {
        match op {
            KeeperOpSlot::Sandbox(id) => self.sandbox.retired(id, ticket),
            KeeperOpSlot::Assignment(id) => self.assignment.retired(id, ticket),
            KeeperOpSlot::Lifecycle(id) => self.lifecycle.retired(id, ticket),
            KeeperOpSlot::Settings(id) => self.settings.retired(id, ticket),
            KeeperOpSlot::Create(id) => self.create.retired(id, ticket),
        }
    }

    /// Whether a receipt asked for a re-read since the last call.
    pub fn take_reread(&mut self) -> bool {
        std::mem::take(&mut self.reread)
    }

    /// Whether a tool gate receipt asked for the tool approval modes since the last call.
    pub fn take_reread_modes(&mut self) -> bool {
        std::mem::take(&mut self.reread_modes)
    }

    /// H-11: the operation on `keeper` still in flight in `workspace`, by name, if any.
    pub fn busy(&self, keeper: &str, workspace: &str) -> Option<&'static str> {
        if self.sandbox.in_flight(keeper, workspace).is_some() {
            return Some("sandbox");
        }
        if self.assignment.in_flight(keeper, workspace).is_some() {
            return Some("runtime assignment");
        }
        if self.settings.in_flight(keeper, workspace).is_some() {
            return Some("settings");
        }
        None
    }

    /// The newest create in `workspace`, whatever its name (its line shows until another
    /// operation is newer).
    pub fn latest_create(&self, workspace: &str) -> Option<&SaveEntry<CreateSave>> {
        self.create
            .entries()
            .rev()
            .find(|e| e.workspace == workspace)
    }

    /// The newest operation on `keeper` in `workspace` (save ids sort by time).
    pub fn latest(&self, keeper: &str, workspace: &str) -> Option<LatestOp<'_>> {
        let candidates = [
            self.sandbox
                .latest(keeper, workspace)
                .map(|e| (&e.save_id, LatestOp::Sandbox(e))),
            self.assignment
                .latest(keeper, workspace)
                .map(|e| (&e.save_id, LatestOp::Assignment(e))),
            self.lifecycle
                .latest(keeper, workspace)
                .map(|e| (&e.save_id, LatestOp::Lifecycle(e))),
            self.settings
                .latest(keeper, workspace)
                .map(|e| (&e.save_id, LatestOp::Settings(e))),
            self.create
                .latest(keeper, workspace)
                .map(|e| (&e.save_id, LatestOp::Create(e))),
        ];
        candidates
            .into_iter()
            .flatten()
            .max_by(|a, b| a.0.cmp(b.0))
            .map(|(_, op)| op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::keepers::ops::lifecycle::{
        LifecycleApplied, LifecycleIntent, LifecycleOutcome,
    };
    use crate::actors::saves::{SaveEvent, SaveId};
    use crate::protocol::keeper_ops::ToolApprovalMode;
    use crate::protocol::outcome::DirectiveApplied;
    use crate::protocol::outcome::SaveOutcome;

    fn lifecycle(action: LifecycleAction, step: SaveStep<LifecycleOutcome>) -> KeeperOpEvent {
        KeeperOpEvent::Lifecycle(SaveEvent {
            save_id: SaveId("save-1".into()),
            intent: LifecycleIntent::new("run", action),
            workspace: "/w/.masc".into(),
            step,
        })
    }

    /// C-57, §14.4: a `g` tool gate receipt asks for the tool approval modes again (the status
    /// line follows the server, not the receipt); another lifecycle receipt, or a tool gate
    /// still sending, does not.
    #[test]
    fn c57_s14_4_a_tool_gate_receipt_re_reads_the_tool_modes() {
        let mut ops = KeeperOpsModel::default();
        let gate = LifecycleAction::ToolGate(ToolApprovalMode::Yolo);
        ops.apply(lifecycle(gate, SaveStep::Sending));
        assert!(!ops.take_reread_modes());
        ops.apply(lifecycle(
            LifecycleAction::Wake,
            SaveStep::Ended(SaveOutcome::Applied {
                detail: LifecycleApplied::Directive(DirectiveApplied::Signalled),
                warning: None,
            }),
        ));
        assert!(ops.take_reread() && !ops.take_reread_modes());
        ops.apply(lifecycle(
            gate,
            SaveStep::Ended(SaveOutcome::Applied {
                detail: LifecycleApplied::ToolGate(ToolApprovalMode::Yolo),
                warning: None,
            }),
        ));
        assert!(ops.take_reread_modes());
        assert!(!ops.take_reread_modes(), "taken once");
    }
}
