//! One async request's single GET (protocol.md §6.4; sources.md T-6, T-8, T-9, T-11).
//!
//! The read carries the context it was dispatched with: the request id, and — when the request
//! was opened from the list — the row's `submitted_by` and `keeper_name` (T-6). Every echo is
//! checked against that context: on a 200 by the decoder, and again on the value the client
//! hands back (an ETag 304 reuses a value decoded for an earlier read; it must still fit this
//! one). An explicit id lookup (`o`) holds no row: nothing is filled from the current Keeper
//! (T-8), only the id echo is checked.

use super::{ToolsObservation, ToolsSlot};
use crate::actors::contract::{GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::async_requests::AsyncRequestDetail;
use crate::protocol::client::{ClientError, path_segment};

pub const ASYNC_REQUEST_PATH: &str = "/api/v1/async-requests";

/// The list row's requester and target, held with the request (T-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HeldRequest {
    pub submitted_by: String,
    /// The row's `keeper_name`; the detail's `target_keeper` must equal it.
    pub target_keeper: String,
}

impl HeldRequest {
    fn as_pair(&self) -> (&str, &str) {
        (&self.submitted_by, &self.target_keeper)
    }
}

/// One single GET as the worker produced it, with the context fixed at dispatch.
#[derive(Debug, Clone)]
pub struct AsyncDetailRead {
    pub request_id: String,
    pub held: Option<HeldRequest>,
    pub result: ReadResult<AsyncRequestDetail>,
}

pub fn request_path(request_id: &str) -> String {
    format!("{ASYNC_REQUEST_PATH}/{}", path_segment(request_id))
}

pub fn request_reader(request_id: String, held: Option<HeldRequest>) -> Reader<ToolsObservation> {
    reader(move |auth, client| {
        let request_id = request_id.clone();
        let held = held.clone();
        async move {
            let path = request_path(&request_id);
            let (id, h) = (request_id.clone(), held.clone());
            let result = client
                .get_with(&auth, &path, move |b: &[u8]| {
                    AsyncRequestDetail::decode_for(b, &id, h.as_ref().map(HeldRequest::as_pair))
                })
                .await
                .and_then(|admitted| {
                    admitted
                        .value
                        .check_echo(&request_id, held.as_ref().map(HeldRequest::as_pair))
                        .map_err(ClientError::Decode)?;
                    Ok(admitted)
                });
            ToolsObservation::AsyncRequest(Box::new(AsyncDetailRead {
                request_id,
                held,
                result,
            }))
        }
    })
}

/// The slot of the open request: an explicit re-read supersedes, the cadence shares (T-11).
pub fn request_slot(
    request_id: &str,
    held: Option<HeldRequest>,
    generations: GenerationCounter,
) -> SlotSpec<ToolsSlot, ToolsObservation> {
    SlotSpec {
        key: ToolsSlot::AsyncRequest(request_id.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: request_reader(request_id.to_string(), held),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_id_is_one_encoded_path_segment() {
        assert_eq!(
            request_path("kmsg-7f3a"),
            "/api/v1/async-requests/kmsg-7f3a"
        );
        assert_eq!(request_path("a/b c"), "/api/v1/async-requests/a%2Fb%20c");
    }
}
