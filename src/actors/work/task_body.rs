//! The Task body read: `GET /api/v1/dashboard/tasks/detail?task_id=` (protocol.md §5.2).
//!
//! Strict: the body must echo the requested `task_id` (and `task.id` must equal it) and carry a
//! canonical goal observation; `TaskDetail::decode_for` checks both at decode time, with
//! the request's id captured when the read is dispatched.

use super::{WorkObservation, WorkSlot};
use crate::actors::contract::GenerationCounter;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::QueryString;
use crate::protocol::tasks::TaskDetail;

pub const TASK_DETAIL_PATH: &str = "/api/v1/dashboard/tasks/detail";

pub fn task_body_path(task_id: &str) -> String {
    QueryString::new()
        .pair("task_id", task_id)
        .append_to(TASK_DETAIL_PATH)
}

pub fn task_body_reader(task_id: String) -> Reader<WorkObservation> {
    reader(move |auth, client| {
        let task_id = task_id.clone();
        async move {
            let path = task_body_path(&task_id);
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    TaskDetail::decode_for(b, &task_id)
                })
                .await;
            WorkObservation::TaskBody(result)
        }
    })
}

/// The body slot of one task: an explicit refresh supersedes, the cadence shares.
pub fn task_body_slot(
    task_id: &str,
    generations: GenerationCounter,
) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::TaskBody(task_id.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: task_body_reader(task_id.to_string()),
    }
}
