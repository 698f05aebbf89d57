//! The Task history read: one page of `GET /api/v1/dashboard/tasks/history/page`
//! (protocol.md §5.3, sources.md A-1… ).
//!
//! Each dispatch captures the immutable prefix it extends and the page demand (limit from the
//! terminal height, A-8). The page is validated against the original request (task id echo,
//! cursor echo, schema, row task ids, page size, repeating cursor) by
//! `TaskHistoryPage::decode_for` at decode time, then appended to the captured prefix only. A
//! failure carries the same prefix back, so the view keeps its rows and the retry cursor.
//! The legacy §5.4 array is never read here.

use super::chain::HistoryChain;
use super::{HistoryPageRead, WorkObservation, WorkSlot};
use crate::actors::contract::GenerationCounter;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::{Admitted, ClientError, QueryString};
use crate::protocol::tasks::{PageRequest, TaskHistoryPage};
use std::sync::Arc;

pub const TASK_HISTORY_PAGE_PATH: &str = "/api/v1/dashboard/tasks/history/page";

pub fn page_path(request: &PageRequest) -> String {
    QueryString::new()
        .pair("task_id", &request.task_id)
        .pair_opt("cursor", request.cursor.as_deref())
        .pair("limit", &request.limit.to_string())
        .append_to(TASK_HISTORY_PAGE_PATH)
}

/// Reads the page `request` and appends it to `base` (the captured prefix).
pub fn page_reader(base: Arc<HistoryChain>, request: PageRequest) -> Reader<WorkObservation> {
    reader(move |auth, client| {
        let base = base.clone();
        let request = request.clone();
        async move {
            let path = page_path(&request);
            let used = base.used_cursors().to_vec();
            let decode_request = request.clone();
            let read = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    TaskHistoryPage::decode_for(b, &decode_request, &used)
                })
                .await;
            let result = read.and_then(|admitted| {
                base.append(&request, admitted.value)
                    .map(|chain| Admitted {
                        value: Arc::new(chain),
                        mode: admitted.mode,
                        from_cache: admitted.from_cache,
                    })
                    .map_err(ClientError::Decode)
            });
            WorkObservation::TaskHistory(Box::new(HistoryPageRead {
                base,
                request,
                result,
            }))
        }
    })
}

/// The history slot of one task, first reading the newest page of `base`. Explicit demand
/// supersedes: `r` during an in-flight page retires it (its late page is rejected).
pub fn task_history_slot(
    base: Arc<HistoryChain>,
    request: PageRequest,
    generations: GenerationCounter,
) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::TaskHistory(base.task_id.clone()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: page_reader(base, request),
    }
}
