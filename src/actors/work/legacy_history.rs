//! The Task history fallback where MASC has the data: when this MASC does
//! not serve the history page route (§5.3, a masc-tui extension), the legacy recent-events
//! array (`GET /api/v1/dashboard/tasks/history?task_id=&limit=`, §5.4) is read instead.
//!
//! - Chosen only when the *first page of a fresh prefix* came back `not_served` (the Work detail
//!   source decides). A page that failed any other way keeps its prefix and retry cursor and
//!   never borrows the legacy array.
//! - Its own slot (`WorkSlot::TaskHistoryLegacy`) and its own typed value
//!   ([`LegacyTaskEvents`]), never a history chain: it has no cursor and no end signal, so the
//!   view calls it "legacy recent events: not the full history, no older pages".
//! - Every line must name the requested task (`LegacyTaskEvents::decode_for`, A-9's rule).

use super::{WorkObservation, WorkSlot};
use crate::actors::contract::GenerationCounter;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::QueryString;
use crate::protocol::tasks::LegacyTaskEvents;

pub const TASK_HISTORY_LEGACY_PATH: &str = "/api/v1/dashboard/tasks/history";

pub fn legacy_path(task_id: &str, limit: u32) -> String {
    QueryString::new()
        .pair("task_id", task_id)
        .pair("limit", &limit.clamp(1, 200).to_string())
        .append_to(TASK_HISTORY_LEGACY_PATH)
}

pub fn legacy_reader(task_id: String, limit: u32) -> Reader<WorkObservation> {
    reader(move |auth, client| {
        let task_id = task_id.clone();
        async move {
            let path = legacy_path(&task_id, limit);
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    LegacyTaskEvents::decode_for(b, &task_id)
                })
                .await;
            WorkObservation::TaskHistoryLegacy(result)
        }
    })
}

/// The legacy slot of one task; `limit` is the history page demand. An explicit `r`
/// supersedes a read in flight.
pub fn legacy_slot(
    task_id: &str,
    limit: u32,
    generations: GenerationCounter,
) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::TaskHistoryLegacy(task_id.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: legacy_reader(task_id.to_string(), limit),
    }
}
