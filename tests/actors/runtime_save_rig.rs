//! What the `runtime.toml` save tests share (the model/account form, `save_runtime_form`, and
//! the raw editor, `save_runtime_raw`): the confirmed scope, a raw config read through its own
//! source, a submission to the save hub, and the receipt that lands in the save's own slot.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::Rig;
pub use crate::save_rig::confirmed_scope;
use crate::save_rig::step_name;
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl};
use masc_tui::actors::runtime::RUNTIME_CONFIG;
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::outcome::RuntimeRawSaveOutcome;
use masc_tui::protocol::runtime::RuntimeConfigRaw;
use std::sync::Arc;

pub type Event = SlotEvent<RuntimeSlot, RuntimeObservation>;

pub const PREVIEW: &str = "/api/v1/runtime/config/raw/preview";
pub const SAVE: &str = "/api/v1/runtime/config/raw";

/// Reads the raw config through its own source (what a form or `e` opens on): the next
/// config observation.
pub async fn read_config(rig: &mut Rig) -> Arc<RuntimeConfigRaw> {
    let source = rig.source_handle(RUNTIME_CONFIG).await;
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    match rig
        .view
        .wait_slot(|e: &Event| {
            matches!(e, SlotEvent::Observed(t, RuntimeObservation::Config(_)) if t.slot == RuntimeSlot::Config)
        })
        .await
    {
        Some(SlotEvent::Observed(_, RuntimeObservation::Config(Ok(a)))) => a.value.clone(),
        other => panic!("no config read: {other:?}"),
    }
}

/// The save id and step a form or raw save event carries, with its own slot.
fn save_step(
    e: &Event,
) -> Option<(
    &RuntimeSlot,
    &SaveId,
    &SaveStep<RuntimeRawSaveOutcome>,
    RuntimeSlot,
)> {
    match e {
        SlotEvent::Observed(t, RuntimeObservation::Form(ev)) => Some((
            &t.slot,
            &ev.save_id,
            &ev.step,
            RuntimeSlot::Form(ev.save_id.clone()),
        )),
        SlotEvent::Observed(t, RuntimeObservation::Raw(ev)) => Some((
            &t.slot,
            &ev.save_id,
            &ev.step,
            RuntimeSlot::Raw(ev.save_id.clone()),
        )),
        _ => None,
    }
}

/// The receipt of `id` (a form or a raw save), asserted to land in the save's own slot.
pub async fn receipt(rig: &mut Rig, id: &SaveId) -> RuntimeRawSaveOutcome {
    let ended = rig
        .view
        .wait_slot::<RuntimeSlot, RuntimeObservation>(|e: &Event| {
            save_step(e)
                .is_some_and(|(_, save, step, _)| save == id && matches!(step, SaveStep::Ended(_)))
        })
        .await;
    match ended.and_then(save_step) {
        Some((slot, _, SaveStep::Ended(r), own)) => {
            assert_eq!(*slot, own, "its own slot");
            r.clone()
        }
        other => panic!("no receipt: {other:?}"),
    }
}

/// The steps of `id` seen so far, in order (`written`, `sending`, `ended:<class>`).
pub fn steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<RuntimeSlot, RuntimeObservation>()
        .iter()
        .filter_map(save_step)
        .filter(|(_, save, _, _)| *save == id)
        .map(|(_, _, step, _)| step_name(step))
        .collect()
}
