//! What a save needs from its hub ([`SaveEnv`]), and how a step of a save is posted on its own
//! ticket outside an operation (a refusal, a crash report, a restored row).

use super::{SaveEvent, SaveHubMsg, SaveId, SaveKind, SaveStep, SubmitScope};
use crate::actors::contract::{EventSink, GenerationBook, Inboxes, Outlet, SlotKey, Ticket};
use crate::outbox::Outbox;
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use ractor::ActorRef;
use std::sync::Arc;

/// What a save needs from its hub.
#[derive(Clone)]
pub struct SaveEnv {
    pub client: WorkspaceClient,
    pub outbox: Option<Outbox>,
    pub inboxes: Inboxes,
    pub events: Arc<dyn EventSink>,
    pub generations: GenerationBook,
    pub hub: ActorRef<SaveHubMsg>,
}

impl SaveEnv {
    pub fn outlet<K: SaveKind>(&self) -> Outlet<K::Slot, K::Payload> {
        Outlet::new(&self.inboxes, self.events.clone())
    }

    pub fn ticket<K: SaveKind>(
        &self,
        save_id: &SaveId,
        intent: &K::Intent,
        scope: &SubmitScope,
    ) -> Ticket<K::Slot> {
        let slot = K::slot(save_id, intent);
        // The registry lists each kind's slot under the hub by the kind's name alone
        // (`save:<kind>`), so every slot a kind makes must say the same.
        debug_assert_eq!(slot.source(), super::SAVES, "{} slot's owner", K::KIND);
        debug_assert!(
            slot.trace_name() == format!("save:{}", K::KIND)
                || slot.trace_name().starts_with(&format!("save:{}:", K::KIND)),
            "{} slot's trace name {}",
            K::KIND,
            slot.trace_name()
        );
        Ticket {
            generation: self.generations.counter(&slot).next(),
            slot,
            scope: scope.clone(),
        }
    }
}

/// Posts one step of a save with its own ticket (dispatch first).
pub fn post_once<K: SaveKind>(
    env: &SaveEnv,
    ticket: Ticket<K::Slot>,
    save_id: SaveId,
    intent: K::Intent,
    step: SaveStep<K::Receipt>,
) {
    let outlet = env.outlet::<K>();
    stage::dispatch(&ticket);
    outlet.dispatched(ticket.clone());
    stage::worker_return(&ticket, &step.trace_outcome());
    outlet.observed(
        ticket.clone(),
        K::payload(SaveEvent {
            save_id,
            intent,
            workspace: ticket.scope.workspace.0.clone(),
            step,
        }),
    );
}
