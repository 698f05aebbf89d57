//! What the save tests on the embedded server share (`save_*.rs`, `runtime_save_rig`): the
//! confirmed scope a save is submitted under, a submission straight to the save hub (what the
//! view's submit casts), a step's name as the tests compare them, and the traced stages of one
//! kind. Each surface's receipts and steps stay with its tests (their payloads differ).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test rig
use crate::actor_support::Rig;
use masc_tui::actors::contract::{IdentityState, SlotEvent, SourceEvent};
use masc_tui::actors::saves::hub::Save;
use masc_tui::actors::saves::{Receipt, SAVES, SaveCommand, SaveEvent, SaveId, SaveKind, SaveStep};
use masc_tui::protocol::admission::ReadScope;

/// The scope of the workspace's confirmation (the one a save is submitted under).
pub async fn confirmed_scope(rig: &mut Rig) -> ReadScope {
    match rig
        .view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await
    {
        Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => scope.clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

/// The scope of the confirmation already received, else of the next one (a test submitting
/// several saves under one confirmation).
pub async fn current_scope(rig: &mut Rig) -> ReadScope {
    let confirmed =
        |e: &SourceEvent| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. }));
    match rig.view.last_event(confirmed) {
        Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => scope.clone(),
        _ => confirmed_scope(rig).await,
    }
}

/// Submits `intent` as a save of kind `K` straight to the hub (what the view's submit does);
/// its fresh save id.
pub async fn submit<K: SaveKind>(rig: &mut Rig, intent: K::Intent, scope: ReadScope) -> SaveId {
    let hub = rig
        .source_handle(SAVES)
        .await
        .commands::<SaveCommand>()
        .expect("the save hub takes SaveCommand");
    let id = SaveId::fresh();
    hub.send_message(SaveCommand::Submit(Save::<K>::submission(
        id.clone(),
        intent,
        scope,
    )))
    .unwrap();
    id
}

/// A step as the tests compare them: `written`, `sending`, `ended:<class>`, `restored:<class>`.
pub fn step_name<R: Receipt>(step: &SaveStep<R>) -> String {
    match step {
        SaveStep::Written => "written".into(),
        SaveStep::Sending => "sending".into(),
        SaveStep::Ended(r) => format!("ended:{}", r.class().as_str()),
        SaveStep::Restored(r) => format!("restored:{}", r.class().as_str()),
    }
}

/// The traced stages of one kind (`save:<kind>`) as `stage:outcome`: dispatch, worker enter,
/// worker return.
pub fn stages(rig: &Rig, kind: &str) -> Vec<String> {
    rig.recorder
        .records_where(|r| r.source == format!("save:{kind}"))
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect()
}

/// The worker returns of one kind (`worker_return:<outcome>`), in order: one a save that
/// reached its worker.
pub fn worker_returns(rig: &Rig, kind: &str) -> Vec<String> {
    stages(rig, kind)
        .into_iter()
        .filter(|s| s.starts_with("worker_return"))
        .collect()
}

/// The receipt of save `id` on surface `(S, P)`; `event` picks the kind's save events out of
/// the surface's payload.
pub async fn receipt_on<S, P, K>(
    rig: &mut Rig,
    id: &SaveId,
    event: fn(&P) -> Option<&SaveEvent<K>>,
) -> K::Receipt
where
    S: Send + 'static,
    P: Send + 'static,
    K: SaveKind,
{
    let ended = |e: &SlotEvent<S, P>| match e {
        SlotEvent::Observed(_, p) => {
            event(p).is_some_and(|ev| ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        }
        _ => false,
    };
    let step = match rig.view.wait_slot::<S, P>(ended).await {
        Some(SlotEvent::Observed(_, p)) => event(p).map(|ev| ev.step.clone()),
        _ => None,
    };
    match step {
        Some(SaveStep::Ended(r)) => r,
        other => panic!("no receipt of {id}: {other:?}"),
    }
}

/// The steps of save `id` on surface `(S, P)`, in order (as [`step_name`] names them), each
/// checked to have landed in `slot`, the save's own.
pub fn steps_on<S, P, K>(
    rig: &mut Rig,
    id: &SaveId,
    slot: &S,
    event: fn(&P) -> Option<&SaveEvent<K>>,
) -> Vec<String>
where
    S: PartialEq + std::fmt::Debug + Send + 'static,
    P: Send + 'static,
    K: SaveKind,
{
    rig.view
        .slot_events::<S, P>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, p) => event(p).filter(|ev| ev.save_id == *id).map(|ev| {
                assert_eq!(&t.slot, slot, "a save's steps land in its own slot");
                step_name(&ev.step)
            }),
            _ => None,
        })
        .collect()
}
