//! Keeper detail reads: metadata (§14.7), Live Context launched for a known owner (§14.8,
//! L-2) and the metrics tail (§14.9, N-5). Each decoder checks the Keeper echo inside the
//! admitted read.

use super::{KeeperDetailObservation, KeeperDetailSlot};
use crate::actors::contract::{GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::ClientError;
use crate::protocol::inspector::{TurnRecordsPage, turn_records_target};
use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::keeper_detail::{
    KeeperLogs, KeeperStatus, LOGS_TURN_RECORDS_LIMIT, LiveContext, METRICS_TAIL_LIMIT,
    MetricsTail, context_path, keeper_status_path, metrics_tail_path,
};

/// The owner of a Live Context read: (`meta.trace_id`, `meta.generation`) of the metadata it
/// was launched from (L-2). The read scope and base path are the ticket's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContextOwner {
    pub trace_id: String,
    pub generation: u64,
}

impl ContextOwner {
    pub fn of(status: &KeeperStatus) -> Self {
        let (trace_id, generation) = status.context_owner();
        Self {
            trace_id: trace_id.to_string(),
            generation,
        }
    }
}

/// One Live Context read with the owner captured at launch.
#[derive(Debug, Clone)]
pub struct ContextRead {
    pub owner: ContextOwner,
    pub result: ReadResult<LiveContext>,
}

impl ContextRead {
    /// The server answered for another trace or generation than the owner this read was
    /// launched for: it is retired unshown and a fresh metadata read is demanded (L-2, L-3).
    pub fn owner_changed(&self) -> bool {
        self.result.as_ref().is_ok_and(|a| {
            let (trace, generation) = a.value.owner();
            trace != self.owner.trace_id || generation != self.owner.generation
        })
    }
}

type DetailSlotSpec = SlotSpec<KeeperDetailSlot, KeeperDetailObservation>;

fn meta_reader(keeper: String) -> Reader<KeeperDetailObservation> {
    reader(move |auth, client| {
        let keeper = keeper.clone();
        async move {
            let path = keeper_status_path(&keeper);
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    KeeperStatus::decode_for(b, &keeper)
                })
                .await;
            KeeperDetailObservation::Meta(result)
        }
    })
}

/// The context reader for `owner` (replaced whenever the metadata names another owner).
///
/// Where this MASC does not serve `/context` (no MASC release does; the client's capability
/// table answers later reads without a request), the same read asks `/turn-records?limit=1`
/// and applies MASC's projection to its newest row for the owner's trace
/// ([`LiveContext::from_newest_turn_record`]): what `/context` would have served, marked as
/// read from the record. A failure of that read is the slot's failure.
pub fn context_reader(keeper: String, owner: ContextOwner) -> Reader<KeeperDetailObservation> {
    reader(move |auth, client| {
        let keeper = keeper.clone();
        let owner = owner.clone();
        async move {
            let path = context_path(&keeper);
            let name = keeper.clone();
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    LiveContext::decode_for(b, &name)
                })
                .await;
            let result = match result {
                Err(ClientError::NotServed { .. }) => {
                    let target = turn_records_target(&keeper, 1);
                    let (trace, generation) = (owner.trace_id.clone(), owner.generation);
                    client
                        .get_with(&auth, &target, move |b: &[u8]| {
                            let page = TurnRecordsPage::decode_with_limit(b, &keeper, 1)?;
                            Ok(LiveContext::from_newest_turn_record(
                                &page, &trace, generation,
                            ))
                        })
                        .await
                }
                other => other,
            };
            KeeperDetailObservation::Context(Box::new(ContextRead { owner, result }))
        }
    })
}

/// The logs reader: the metrics tail, or where this MASC does not serve it (no MASC release
/// does) the newest turn records in the same read ([`KeeperLogs::TurnRecords`]): what a real
/// MASC records of each turn, the rest named as missing by the view.
fn metrics_reader(keeper: String) -> Reader<KeeperDetailObservation> {
    reader(move |auth, client| {
        let keeper = keeper.clone();
        async move {
            let path = metrics_tail_path(&keeper, METRICS_TAIL_LIMIT);
            let name = keeper.clone();
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    MetricsTail::decode_for(b, &name).map(KeeperLogs::Metrics)
                })
                .await;
            let result = match result {
                Err(ClientError::NotServed { .. }) => {
                    let target = turn_records_target(&keeper, LOGS_TURN_RECORDS_LIMIT);
                    client
                        .get_with(&auth, &target, move |b: &[u8]| {
                            TurnRecordsPage::decode_with_limit(b, &keeper, LOGS_TURN_RECORDS_LIMIT)
                                .map(KeeperLogs::TurnRecords)
                        })
                        .await
                }
                other => other,
            };
            KeeperDetailObservation::Metrics(result)
        }
    })
}

/// The §9.5 snapshot, refused when it names another Keeper.
fn settings_reader(keeper: String) -> Reader<KeeperDetailObservation> {
    reader(move |auth, client| {
        let keeper = keeper.clone();
        async move {
            let path = crate::protocol::keeper_ops::keeper_config_path(&keeper);
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    KeeperConfigSnapshot::decode_for(b, &keeper)
                })
                .await;
            KeeperDetailObservation::Settings(result)
        }
    })
}

/// The settings slot of `keeper` (§9.5): superseded by an explicit demand, like the metadata.
pub fn settings_slot(keeper: &str, generations: GenerationCounter) -> DetailSlotSpec {
    SlotSpec {
        key: KeeperDetailSlot::Settings(keeper.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: settings_reader(keeper.to_string()),
    }
}

/// The metadata slot of `keeper` (N-1). Explicit demand supersedes: a re-read after a change
/// must not answer with the read that was in flight before it.
pub fn meta_slot(keeper: &str, generations: GenerationCounter) -> DetailSlotSpec {
    SlotSpec {
        key: KeeperDetailSlot::Meta(keeper.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: meta_reader(keeper.to_string()),
    }
}

/// The Live Context slot of `keeper`. Its reader is set once the owner is known; until then
/// a demand reads nothing useful, so the source only demands it after the metadata (L-2).
pub fn context_slot(
    keeper: &str,
    owner: ContextOwner,
    generations: GenerationCounter,
) -> DetailSlotSpec {
    SlotSpec {
        key: KeeperDetailSlot::Context(keeper.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: context_reader(keeper.to_string(), owner),
    }
}

/// The metrics slot of `keeper` (N-5: logs and the activity summary share it).
pub fn metrics_slot(keeper: &str, generations: GenerationCounter) -> DetailSlotSpec {
    SlotSpec {
        key: KeeperDetailSlot::Metrics(keeper.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: metrics_reader(keeper.to_string()),
    }
}
