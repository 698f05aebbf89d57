//! The Goal timeline read: `GET /api/v1/dashboard/goals/detail?goal_id=` (protocol.md §5.6,
//! sources.md B-1, B-2).
//!
//! Its own owned read, held to completion by its ticket. `timeline: null` decodes as
//! `Timeline::Unavailable` (never empty); an unknown goal (HTTP 200 `ok:false`) decodes as the
//! typed `GoalDetailRead::NotFound`, which the view shows as a failure of this read only.

use super::{WorkObservation, WorkSlot};
use crate::actors::contract::{GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::QueryString;
use crate::protocol::goals::GoalDetailRead;

pub const GOAL_DETAIL_PATH: &str = "/api/v1/dashboard/goals/detail";

pub fn goal_detail_path(goal_id: &str) -> String {
    QueryString::new()
        .pair("goal_id", goal_id)
        .append_to(GOAL_DETAIL_PATH)
}

/// Trace outcome: "not found" is named, never "ok".
pub fn outcome_class(r: &ReadResult<GoalDetailRead>) -> String {
    match r {
        Ok(a) => match a.value.as_ref() {
            GoalDetailRead::Found(_) => "ok".to_string(),
            GoalDetailRead::NotFound { .. } => "goal_not_found".to_string(),
        },
        Err(e) => e.class().to_string(),
    }
}

pub fn goal_timeline_reader(goal_id: String) -> Reader<WorkObservation> {
    reader(move |auth, client| {
        let goal_id = goal_id.clone();
        async move {
            let path = goal_detail_path(&goal_id);
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    GoalDetailRead::decode_for(b, &goal_id)
                })
                .await;
            WorkObservation::GoalTimeline(result)
        }
    })
}

pub fn goal_timeline_slot(
    goal_id: &str,
    generations: GenerationCounter,
) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::GoalTimeline(goal_id.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: goal_timeline_reader(goal_id.to_string()),
    }
}
