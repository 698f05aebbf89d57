//! Connector bind and unbind saves on the embedded server (protocol.md §7.3, §7.4, §11;
//! sources.md H-5, K-1): typed receipts in each save's own slot, one POST each, never resent,
//! the traced stages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, rig_with};
use crate::save_rig::{confirmed_scope, step_name};
use crate::work_rig::plan;
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::saves::{Receipt, SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;

type Event = SlotEvent<ConnectorsSlot, ConnectorsObservation>;

const BIND: &str = "/api/v1/gate/connector/bind";
const UNBIND: &str = "/api/v1/gate/connector/unbind";

fn intent(channel: &str, keeper: &str) -> BindingIntent {
    BindingIntent {
        connector_id: "discord".into(),
        channel_id: channel.into(),
        keeper_name: keeper.into(),
    }
}

async fn submit(rig: &mut Rig, unbind: bool, i: BindingIntent, scope: ReadScope) -> SaveId {
    if unbind {
        crate::save_rig::submit::<ConnectorUnbind>(rig, i, scope).await
    } else {
        crate::save_rig::submit::<ConnectorBind>(rig, i, scope).await
    }
}

/// The class (and reason) of `id`'s receipt.
async fn receipt(rig: &mut Rig, id: &SaveId) -> (SaveClass, Option<String>) {
    let ended = rig
        .view
        .wait_slot::<ConnectorsSlot, ConnectorsObservation>(|e: &Event| match e {
            SlotEvent::Observed(_, ConnectorsObservation::Bind(ev)) => {
                ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_))
            }
            SlotEvent::Observed(_, ConnectorsObservation::Unbind(ev)) => {
                ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_))
            }
            _ => false,
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, ConnectorsObservation::Bind(ev))) => match &ev.step {
            SaveStep::Ended(r) => (Receipt::class(r), Receipt::reason(r)),
            _ => unreachable!(),
        },
        Some(SlotEvent::Observed(_, ConnectorsObservation::Unbind(ev))) => match &ev.step {
            SaveStep::Ended(r) => (Receipt::class(r), Receipt::reason(r)),
            _ => unreachable!(),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

/// §7.3, §11: a bind is applied once, its receipt in its own slot with the written →
/// sending → ended steps; `save:connector_bind` is traced; then an unbind naming the same
/// Keeper removes it (§7.4), and a second one finds it gone (`unchanged`).
#[tokio::test(flavor = "current_thread")]
async fn s7_3_s7_4_bind_then_unbind_are_applied_once_each() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, false, intent("990001", "rondo"), scope.clone()).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::Applied);
    assert_eq!(rig.server.request_count("POST", BIND), 1);
    let steps: Vec<String> = rig
        .view
        .slot_events::<ConnectorsSlot, ConnectorsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, ConnectorsObservation::Bind(ev))
                if t.slot == ConnectorsSlot::BindWrite(id.clone()) =>
            {
                Some(step_name(&ev.step))
            }
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["written", "sending", "ended:applied"]);
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:connector_bind")
        .iter()
        .map(|r| r.stage.clone())
        .collect();
    assert_eq!(stages, ["dispatch", "worker_enter", "worker_return"]);
    let id = submit(&mut rig, true, intent("990001", "rondo"), scope.clone()).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::Applied);
    let id = submit(&mut rig, true, intent("990001", "rondo"), scope).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::Unchanged);
    assert_eq!(rig.server.request_count("POST", UNBIND), 2);
    rig.finish().await;
}

/// §7.4: an unbind naming a Keeper the channel is no longer bound to is a conflict (409
/// `binding changed`): the binding is kept.
#[tokio::test(flavor = "current_thread")]
async fn s7_4_an_unbind_of_a_rebound_channel_is_a_conflict() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, false, intent("990002", "sangsu"), scope.clone()).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::Applied);
    let id = submit(&mut rig, true, intent("990002", "rondo"), scope).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::Conflict);
    rig.finish().await;
}

/// §11, H-5: a bind whose connection drops after the server applied it is outcome unknown,
/// and it is never resent (one POST).
#[tokio::test(flavor = "current_thread")]
async fn s11_a_dropped_bind_is_outcome_unknown_and_never_resent() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{BIND}"}},"when":{{"every":true}},"fault":{{"drop":"after_apply"}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, false, intent("990003", "rondo"), scope).await;
    assert_eq!(receipt(&mut rig, &id).await.0, SaveClass::OutcomeUnknown);
    assert_eq!(rig.server.request_count("POST", BIND), 1);
    rig.finish().await;
}

/// §7.3, §11: an unknown Keeper is a refusal (404 `unknown keeper`): known not applied.
#[tokio::test(flavor = "current_thread")]
async fn s7_3_an_unknown_keeper_is_refused() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, false, intent("990004", "nobody-here"), scope).await;
    let (class, reason) = receipt(&mut rig, &id).await;
    assert_eq!(class, SaveClass::NotApplied);
    assert!(reason.is_some_and(|r| r.contains("unknown keeper")));
    rig.finish().await;
}
