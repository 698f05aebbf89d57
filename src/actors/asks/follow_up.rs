//! The follow-up stream worker (protocol.md §10.3; sources.md K-9…K-13). It opens the SSE as an
//! admitted workspace read (receipt checked on its 200), validates every event with
//! [`FollowUpValidator`] (start identity, each typed source once, completion order) and hands
//! each accepted step to its owner at once, so a source shows as received the moment it
//! arrives. It never completes the read on EOF: only `ASK_FOLLOW_UP_COMPLETED` after all three
//! sources does. Results are never inferred from body text or tool names (K-12): the five
//! totals and the latest bucket are validated from the wire by the decoder.

use super::{AskRef, FollowUpCut, FollowUpFailure, FollowUpStep};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::asks::{AskFollowUpEvent, FollowUpValidator};
use crate::protocol::client::{QueryString, WorkspaceClient};
use crate::protocol::decode::WireDecode;

pub const FOLLOW_UP_PATH: &str = "/api/v1/keepers/asks/follow-up";

/// The request target of `ask`'s follow-up.
pub fn follow_up_target(ask: &AskRef) -> String {
    QueryString::new()
        .pair("name", &ask.keeper)
        .pair("ask_id", &ask.ask_id)
        .append_to(FOLLOW_UP_PATH)
}

/// Reads `ask`'s follow-up, calling `step` with each step in order; the last step is
/// `Completed`, `Cut` or `Failed`. `step` must not block (it casts to the owner).
pub async fn read_follow_up(
    client: WorkspaceClient,
    auth: ReadAuthority,
    ask: AskRef,
    mut step: impl FnMut(FollowUpStep) + Send,
) {
    let mut stream = match client.get_sse(&auth, &follow_up_target(&ask)).await {
        Ok(stream) => stream,
        Err(e) => return step(FollowUpStep::Failed(FollowUpFailure::Open(e))),
    };
    let mut validator = FollowUpValidator::new(ask.ask_id.clone(), ask.keeper.clone());
    while let Some(next) = stream.next().await {
        let frame = match next {
            Ok(frame) => frame,
            // The stream ended before COMPLETED (a COMPLETED returns below): whatever arrived
            // stays received; the rest is unconfirmed.
            Err(end) => return step(FollowUpStep::Cut(FollowUpCut::of(&end))),
        };
        if frame.data.is_empty() {
            continue;
        }
        let event = match AskFollowUpEvent::decode(frame.data.as_bytes()) {
            Ok(event) => event,
            Err(e) => return step(FollowUpStep::Failed(FollowUpFailure::Rule(e))),
        };
        if let Err(e) = validator.accept(event.clone()) {
            return step(FollowUpStep::Failed(FollowUpFailure::Rule(e)));
        }
        match event {
            AskFollowUpEvent::Started { task_id, .. } => step(FollowUpStep::Started { task_id }),
            AskFollowUpEvent::Source { observation, .. } => step(FollowUpStep::Source(observation)),
            // Complete: the read ends here (anything after it is not read).
            AskFollowUpEvent::Completed { .. } => return step(FollowUpStep::Completed),
        }
    }
    // `next()` reports the end exactly once before `None`; reaching here means it did not.
    step(FollowUpStep::Cut(FollowUpCut::Eof));
}
