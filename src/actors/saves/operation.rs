//! [`SaveOperation`]: the one generic save actor. It runs one save of kind `K` from the outbox
//! row to the receipt and stops; it never resends (sources.md H-4, H-5, H-15, I-2, K-1).

use super::refusal::Refusal;
use super::{HubMsg, Receipt, SaveEvent, SaveHubMsg, SaveId, SaveKind, SaveRun, SaveStep};
use crate::actors::contract::{Outlet, Ticket};
use crate::outbox::{NewSave, Outbox, SaveRowState};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::SaveClass;
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::marker::PhantomData;

/// Everything one save needs, captured at submit.
pub struct SaveArgs<K: SaveKind> {
    pub save_id: SaveId,
    pub intent: K::Intent,
    /// The submit-time authority (K-5): the save is made under it or not at all.
    pub authority: ReadAuthority,
    pub ticket: Ticket<K::Slot>,
    pub client: WorkspaceClient,
    pub outbox: Option<Outbox>,
    pub outlet: Outlet<K::Slot, K::Payload>,
    pub hub: ActorRef<SaveHubMsg>,
}

impl<K: SaveKind> SaveArgs<K> {
    fn post(&self, step: SaveStep<K::Receipt>) {
        self.outlet.observed(
            self.ticket.clone(),
            K::payload(SaveEvent {
                save_id: self.save_id.clone(),
                intent: self.intent.clone(),
                workspace: self.authority.scope.workspace.0.clone(),
                step,
            }),
        );
    }

    fn run(&self) -> SaveRun<K> {
        SaveRun {
            save_id: self.save_id.clone(),
            intent: self.intent.clone(),
            authority: self.authority.clone(),
            client: self.client.clone(),
            ticket: self.ticket.clone(),
            outlet: self.outlet.clone(),
            outbox: self.outbox.clone(),
        }
    }

    async fn record(&self, state: SaveRowState, reason: Option<String>) -> bool {
        self.run().record(state, reason).await
    }
}

/// The actor; one per submitted save.
pub struct SaveOperation<K>(PhantomData<fn() -> K>);

impl<K> Default for SaveOperation<K> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<K: SaveKind> Actor for SaveOperation<K> {
    type Msg = ();
    type State = Option<SaveArgs<K>>;
    type Arguments = SaveArgs<K>;

    async fn pre_start(
        &self,
        _myself: ActorRef<()>,
        args: SaveArgs<K>,
    ) -> Result<Self::State, ActorProcessingErr> {
        stage::dispatch(&args.ticket);
        args.outlet.dispatched(args.ticket.clone());
        Ok(Some(args))
    }

    async fn post_start(
        &self,
        myself: ActorRef<()>,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        if let Some(args) = state.take() {
            run(&args).await;
        }
        myself.stop(Some("save ended".into()));
        Ok(())
    }
}

async fn run<K: SaveKind>(args: &SaveArgs<K>) {
    stage::worker_enter(&args.ticket);
    let receipt = drive(args).await;
    let class = receipt.class();
    args.record(SaveRowState::Settled(class), receipt.reason())
        .await;
    let step = SaveStep::Ended(receipt);
    stage::worker_return(&args.ticket, &step.trace_outcome());
    // The hub hears the job is over before the receipt reaches the surface's inbox
    // (unbounded: never dropped, never waited for; H-15, K-1). The order is causal: a submit
    // of the same intent made on seeing the receipt queues behind `Settled` in the hub's
    // mailbox, so the hub never takes it for a duplicate of this finished job and drops it —
    // which left that save "submitted" for good.
    let _ = args.hub.cast(SaveHubMsg::Hub(HubMsg::Settled {
        save_id: args.save_id.clone(),
        class,
    }));
    args.post(step);
}

async fn drive<K: SaveKind>(args: &SaveArgs<K>) -> K::Receipt {
    // 1. Durable before anything leaves.
    let Some(outbox) = args.outbox.clone() else {
        return K::Receipt::refused(Refusal::OutboxUnavailable);
    };
    let intent = match serde_json::to_string(&args.intent) {
        Ok(json) => json,
        Err(_) => return K::Receipt::refused(Refusal::InputsUnrecordable),
    };
    let row = NewSave {
        save_id: args.save_id.0.clone(),
        kind: K::KIND.to_string(),
        workspace: args.authority.scope.workspace.0.clone(),
        target: K::target(&args.intent),
        intent_key: K::intent_key(&args.intent),
        intent,
        epoch: args.ticket.scope.epoch,
        generation: args.ticket.generation,
    };
    let written = tokio::task::spawn_blocking(move || outbox.save_written(&row)).await;
    if !matches!(written, Ok(Ok(()))) {
        return K::Receipt::refused(Refusal::OutboxUnwritable);
    }
    args.post(SaveStep::Written);

    // 2. §2.4: confirm the submit-time epoch with a fresh /health before the write.
    match args.client.health().await {
        Ok(h) if h.paths.effective_masc_root == args.authority.expected_root && !h.is_booting() => {
        }
        Ok(_) => return K::Receipt::refused(Refusal::PrecheckIdentity),
        Err(e) => {
            return K::Receipt::refused(Refusal::precheck_failed(e.class()));
        }
    }

    // 3. From here the request may be on the wire: say so durably first.
    if !args.record(SaveRowState::Sending, None).await {
        return K::Receipt::refused(Refusal::OutboxUnwritable);
    }
    args.post(SaveStep::Sending);

    // 4. The request and its classification; never repeated.
    let receipt = K::run(args.run()).await;
    if receipt.class() == SaveClass::NotSent {
        // Only the transport can prove it never left; anything else after `sending` is as
        // the classifier says.
        tracing::debug!(target: "masc_tui::saves", kind = K::KIND, "refused before sending");
    }
    receipt
}
