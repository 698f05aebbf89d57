//! [`InspectorReads`]: the §14.11 readers of the turn-inspector source.
//!
//! - One read per slot (a Keeper's records page, one turn's provider input); a second request
//!   for a slot in flight shares it; a request after it ended reads again (an explicit
//!   re-read: the view keeps the last observation while it runs, G-4). A records request
//!   wider than the page in flight supersedes it (MASC has no cursor on this route: an older
//!   pinned turn is reached by a wider `limit`): the narrower read is cancel-requested and
//!   retired (`superseded`), and its result, should it still arrive, is rejected
//!   (`late_after_retire`) — never forwarded over the wider one.
//! - Identity: withdrawal or a new epoch aborts every worker and retires its ticket. Nothing is
//!   read without a confirmed epoch.
//! - Workers decode off the actor and hand their result back (a cast: a worker never waits); a
//!   result is forwarded to the surface's inbox only while its ticket still owns the slot
//!   (G-7), so a late worker never touches a newer read (K-15).

use super::{InspectorCommand, InspectorObservation, InspectorSlot, TURN_INSPECTOR};
use crate::actors::contract::SourceKey;
use crate::actors::read::SourceMsg;
use crate::actors::read::requests::{RequestState, RequestWorkers, Requests, StepRules, one_step};
use crate::actors::read::shell::{OnCommand, OwnKey};
use crate::protocol::inspector::turn_records::clamp_limit;
use crate::protocol::inspector::{
    ProviderInput, TurnRecordsPage, provider_input_target, turn_records_target,
};
use ractor::ActorRef;

crate::source_commands!(InspectorSlot, InspectorObservation, InspectorCommand);

/// The turn inspector's reads.
pub struct InspectorReads;

/// The turn inspector's state: the read in flight per slot, tagged with its records `limit`
/// (an input read's is 0).
pub type InspectorState = RequestState<InspectorReads>;

type Workers = RequestWorkers<InspectorSlot, InspectorObservation, u32>;
type Myself = ActorRef<SourceMsg<InspectorSlot, InspectorObservation, InspectorCommand>>;

fn read(workers: &mut Workers, myself: &Myself, slot: InspectorSlot, limit: u32) {
    if workers
        .in_flight(&slot)
        .is_some_and(|in_flight| *in_flight >= limit)
    {
        // A read of the same slot at least as wide is in flight: it answers this request
        // too (the newest `limit` rows are within any wider page).
        return;
    }
    // A wider page supersedes the narrower read in flight (its late result is rejected, never
    // forwarded over the wider one).
    workers.dispatch(myself, slot.clone(), limit, move |auth, client, emit| {
        one_step(emit, async move {
            match slot {
                InspectorSlot::Records(keeper) => {
                    let path = turn_records_target(&keeper, limit);
                    InspectorObservation::Records(
                        client
                            .get_with(&auth, &path, move |body: &[u8]| {
                                TurnRecordsPage::decode_with_limit(body, &keeper, limit)
                            })
                            .await,
                    )
                }
                InspectorSlot::Input(target) => {
                    let path = provider_input_target(&target.keeper, &target.turn_ref);
                    let (k, r) = (target.keeper, target.turn_ref);
                    InspectorObservation::Input(
                        client
                            .get_with(&auth, &path, move |body: &[u8]| {
                                ProviderInput::decode_for(body, &k, &r)
                            })
                            .await,
                    )
                }
            }
        })
    });
}

impl Requests for InspectorReads {
    type Slot = InspectorSlot;
    type Payload = InspectorObservation;
    type Command = InspectorCommand;
    type Tag = u32;

    /// Every read is one step; a panicked read is retired.
    const RULES: StepRules<InspectorSlot, InspectorObservation> = StepRules {
        last: |_| true,
        panicked: |_| None,
    };

    /// Reads start from commands only (K-17: tab entry and scrolling issue no HTTP).
    fn command(workers: &mut Workers, myself: &Myself, command: InspectorCommand) {
        match command {
            InspectorCommand::Records { keeper, limit } => read(
                workers,
                myself,
                InspectorSlot::Records(keeper),
                clamp_limit(limit),
            ),
            InspectorCommand::Input(target) => {
                read(workers, myself, InspectorSlot::Input(target), 0)
            }
        }
    }
}

impl OwnKey for InspectorState {
    const KEY: SourceKey = TURN_INSPECTOR;
}

/// Spawns the turn-inspector source under the supervisor.
pub type InspectorSpawner = OnCommand<InspectorState>;
