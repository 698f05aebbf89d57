//! [`AsksReads`]: the follow-up stream worker and the transcript readers of the Asks source.
//!
//! - One follow-up read at a time: a `Follow` for any answer cancels the worker in flight and
//!   retires its ticket (K-13: a new answer cancels the worker), then dispatches a new
//!   generation. A `Follow` for another workspace than the confirmed one is refused (K-5).
//! - One transcript read per pinned turn; a second request for the same turn shares it.
//! - Identity: withdrawal or a new epoch aborts every worker and retires its ticket (K-13:
//!   authority withdrawal cancels the worker). Nothing is read without a confirmed epoch.
//! - Workers hand their steps to this actor (a cast: a worker never waits); a step is
//!   forwarded to the surface's inbox only while its ticket still owns the slot (G-7), so a
//!   late worker never touches a newer read.

use super::follow_up::read_follow_up;
use super::{
    ASKS, AsksCommand, AsksObservation, AsksSlot, FollowUpFailure, FollowUpStep, TurnTarget,
};
use crate::actors::contract::{SlotKey, SourceKey};
use crate::actors::read::SourceMsg;
use crate::actors::read::requests::{RequestState, RequestWorkers, Requests, StepRules, one_step};
use crate::actors::read::shell::{OnCommand, OwnKey};
use crate::protocol::client::{QueryString, path_segment};
use crate::protocol::transcript::TurnTranscript;
use crate::timeline::stage;
use ractor::ActorRef;

/// The request target of a pinned turn's v2 transcript (§10.4).
pub fn transcript_target(target: &TurnTarget) -> String {
    QueryString::new()
        .pair("turn_ref", &target.turn_ref)
        .pair("version", "2")
        .append_to(&format!(
            "/api/v1/keepers/{}/turn-transcript",
            path_segment(&target.keeper)
        ))
}

crate::source_commands!(AsksSlot, AsksObservation, AsksCommand);

/// The Asks source's reads.
pub struct AsksReads;

/// The Asks source's state: its follow-up and transcript workers.
pub type AsksState = RequestState<AsksReads>;

type Workers = RequestWorkers<AsksSlot, AsksObservation>;
type Myself = ActorRef<SourceMsg<AsksSlot, AsksObservation, AsksCommand>>;

fn follow(workers: &mut Workers, myself: &Myself, ask: super::AskRef, workspace: String) {
    let slot = AsksSlot::FollowUp(ask.clone());
    if let Some(auth) = workers.authority() {
        if auth.scope.workspace.0 != workspace {
            // K-5: the answer's workspace is not the confirmed one; never back-filled.
            stage::refused(&slot.trace_name(), "other_workspace");
            return;
        }
        // One follow-up at a time: a new answer cancels the one in flight (K-13).
        workers.cancel_where(|s| matches!(s, AsksSlot::FollowUp(_)), "new_answer");
    }
    workers.dispatch(myself, slot, (), move |auth, client, emit| {
        read_follow_up(client, auth, ask, move |step| {
            emit(AsksObservation::FollowUp(step))
        })
    });
}

fn transcript(workers: &mut Workers, myself: &Myself, target: TurnTarget) {
    let slot = AsksSlot::Transcript(target.clone());
    if workers.in_flight(&slot).is_some() {
        // A read of the same turn is in flight: it answers this request too.
        return;
    }
    workers.dispatch(myself, slot, (), move |auth, client, emit| {
        let path = transcript_target(&target);
        one_step(emit, async move {
            let (keeper, turn_ref) = (target.keeper, target.turn_ref);
            AsksObservation::Transcript(
                client
                    .get_with(&auth, &path, move |body: &[u8]| {
                        TurnTranscript::decode_for(body, &keeper, &turn_ref)
                    })
                    .await,
            )
        })
    });
}

impl Requests for AsksReads {
    type Slot = AsksSlot;
    type Payload = AsksObservation;
    type Command = AsksCommand;
    type Tag = ();

    /// The follow-up's last step ends its read; a transcript is one step. A panicked
    /// follow-up worker ends as a failed step (the view says so); a panicked transcript read
    /// is retired.
    const RULES: StepRules<AsksSlot, AsksObservation> = StepRules {
        last: |obs| match obs {
            AsksObservation::FollowUp(step) => step.is_last(),
            AsksObservation::Transcript(_) => true,
        },
        panicked: |slot| match slot {
            AsksSlot::FollowUp(_) => Some(AsksObservation::FollowUp(FollowUpStep::Failed(
                FollowUpFailure::Panicked,
            ))),
            AsksSlot::Transcript(_) => None,
        },
    };

    fn command(workers: &mut Workers, myself: &Myself, command: AsksCommand) {
        match command {
            AsksCommand::Follow { ask, workspace } => follow(workers, myself, ask, workspace),
            AsksCommand::Transcript(target) => transcript(workers, myself, target),
        }
    }
}

impl OwnKey for AsksState {
    const KEY: SourceKey = ASKS;
}

/// Spawns the Asks source under the supervisor.
pub type AsksSpawner = OnCommand<AsksState>;
