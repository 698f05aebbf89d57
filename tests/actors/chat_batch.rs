#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Batch diagnostics against the embedded server (chat-screen.md C-37,
//! protocol.md §4.3): the real chat and save hubs, every view message fed into a real view
//! `Model`. A newer MASC batches the inputs waiting behind a run into one execution and binds
//! each member (`KEEPER_CHAT_BATCH_BOUND`); an older one (`--compat v0.24.0`) never does.

use crate::chat_support::{Rig, STREAM};
use masc_tui::actors::chat::SendOutcome;
use masc_tui::server::RunningServer;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::screens::chat::SendPhase;
use std::sync::Arc;

const KEEPER: &str = "rondo";

async fn setup(
    faults: FaultPlan,
    compat: Option<MascRelease>,
) -> (RunningServer, Rig, tempfile::TempDir) {
    let (server, mut rig, dir) = crate::chat_support::served_rig(faults, compat).await;
    rig.open_ready(KEEPER).await;
    (server, rig, dir)
}

fn phase(rig: &Rig, id: &str) -> SendPhase {
    rig.pane().send(id).unwrap().phase.clone()
}

async fn until_ended(rig: &mut Rig, id: &str) -> SendOutcome {
    loop {
        if let SendPhase::Ended(o) = phase(rig, id) {
            return o;
        }
        rig.pump_one().await;
    }
}

/// One run, then two inputs sent while it runs (both accepted as queued before it ends).
async fn two_behind_one(rig: &mut Rig) -> (String, String, String) {
    let first = rig.send(KEEPER, "first: a long reply on the decoder, please");
    rig.pump_until(|m| {
        m.chat.pane.as_ref().is_some_and(|p| {
            p.send(&first)
                .is_some_and(|s| s.phase == SendPhase::Running)
        })
    })
    .await;
    let second = rig.send(KEEPER, "second: and the tests?");
    let third = rig.send(KEEPER, "third:   keep   my spacing ");
    // Each ends (how is not this test's point: a played release may cut the long reply).
    for id in [&first, &second, &third] {
        until_ended(rig, id).await;
    }
    (first, second, third)
}

/// C-37 (newer MASC): the two inputs waiting behind a run are batched into one execution —
/// the earlier one's request id — and the pane indexes both members by the triple (request
/// id, Keeper, the send's own body, shared not copied), earliest first; the run before them
/// is in no batch; nothing is left unattached.
#[tokio::test]
async fn c37_two_waiting_inputs_run_in_one_execution_with_both_members() {
    let (_server, mut rig, _dir) = setup(FaultPlan::default(), None).await;
    let (first, second, third) = two_behind_one(&mut rig).await;
    let pane = rig.pane();
    let executions = pane.batches.executions();
    assert_eq!(executions.len(), 1, "{executions:?}");
    let execution = &executions[0];
    assert!(
        [&second, &third].contains(&&execution.execution_id),
        "a member's request id (the sends race to the server): {execution:?}"
    );
    let mut members: Vec<_> = execution
        .members
        .iter()
        .map(|m| (m.request_id.clone(), m.keeper.clone()))
        .collect();
    members.sort();
    let mut expected = [
        (second.clone(), KEEPER.to_string()),
        (third.clone(), KEEPER.to_string()),
    ];
    expected.sort();
    assert_eq!(members, expected);
    for member in &execution.members {
        let send = pane.send(&member.request_id).unwrap();
        assert!(
            Arc::ptr_eq(&member.body, &send.text),
            "the body is the send's own"
        );
    }
    assert!(
        execution
            .members
            .iter()
            .any(|m| m.request_id == third && &*m.body == "third:   keep   my spacing ")
    );
    assert!(
        pane.batches
            .execution_of(&first, KEEPER, &pane.send(&first).unwrap().text)
            .is_none()
    );
    assert_eq!(pane.batches.unattached.total(), 0);
}

/// C-37: a binding for a request this client never sent is counted (and traced), never
/// attached to any input; the turn itself completes.
#[tokio::test]
async fn c37_a_binding_for_an_unknown_request_is_counted_never_attached() {
    let plan = FaultPlan::from_json(&format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"batch_bound":"unknown_request"}}}}]}}"#
    ))
    .unwrap();
    let (_server, mut rig, _dir) = setup(plan, None).await;
    let id = rig.send(KEEPER, "status?");
    assert!(matches!(
        until_ended(&mut rig, &id).await,
        SendOutcome::Completed { .. }
    ));
    let batches = &rig.pane().batches;
    assert_eq!(batches.unattached.unknown_request, 1);
    assert_eq!(batches.unattached.other_keeper, 0);
    assert!(
        batches.executions().is_empty(),
        "{:?}",
        batches.executions()
    );
}

/// C-37, §4.3: MASC v0.24.0 has no batch binding — its inputs run one per turn and its
/// streams carry none, even with the binding fault armed.
#[tokio::test]
async fn c37_v0_24_0_compat_sends_no_binding() {
    let plan = FaultPlan::from_json(&format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"batch_bound":"unknown_request"}}}}]}}"#
    ))
    .unwrap();
    let (_server, mut rig, _dir) = setup(plan, Some(MascRelease::V0_24_0)).await;
    two_behind_one(&mut rig).await;
    let batches = &rig.pane().batches;
    assert!(
        batches.executions().is_empty(),
        "{:?}",
        batches.executions()
    );
    assert_eq!(batches.unattached.total(), 0);
}
