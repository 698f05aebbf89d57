//! The Board vote save (protocol-15-operator.md §15.6 `POST /api/v1/tools/masc_board_vote`,
//! §15.12 "Board"): one vote, up or down, on one post. Its receipt lands in the Board surface's
//! own slot; the score a screen shows comes from the post detail read again after it (with
//! `voter=masc-tui`, which also says how masc-tui voted). A vote is idempotent per direction,
//! but the save machinery still never resends it: an unknown outcome waits for the operator.

use super::{BoardObservation, BoardSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::board_vote::{
    BOARD_VOTE_PATH, BoardVoteOutcome, BoardVoteRequest, VoteDirection, classify_board_vote,
};
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::classify_exchange;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// One vote: the post and the direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteIntent {
    pub post_id: String,
    pub direction: VoteDirection,
}

impl VoteIntent {
    fn request(&self) -> BoardVoteRequest {
        BoardVoteRequest {
            post_id: self.post_id.clone(),
            direction: self.direction,
        }
    }
}

/// The kind.
#[derive(Debug)]
pub struct BoardVote;

impl SaveKind for BoardVote {
    const KIND: &'static str = "board_vote";
    type Slot = BoardSlot;
    type Payload = BoardObservation;
    type Intent = VoteIntent;
    type Receipt = BoardVoteOutcome;

    fn slot(save_id: &SaveId, _intent: &VoteIntent) -> BoardSlot {
        BoardSlot::Vote(save_id.clone())
    }

    /// The same vote submitted again while one is in flight shares it.
    fn intent_key(intent: &VoteIntent) -> String {
        format!("{}:{}", intent.post_id, intent.direction.as_str())
    }

    fn target(intent: &VoteIntent) -> String {
        intent.post_id.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: VoteIntent,
    ) -> BoxFuture<'static, BoardVoteOutcome> {
        Box::pin(async move {
            let request = intent.request();
            let exchange = client
                .post_json(&auth, BOARD_VOTE_PATH, &request.body())
                .await;
            classify_exchange(&exchange, &request, classify_board_vote)
        })
    }

    fn payload(event: SaveEvent<Self>) -> BoardObservation {
        BoardObservation::Vote(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s15_6_the_intent_keeps_post_and_direction_through_the_outbox() {
        let intent = VoteIntent {
            post_id: "post-1001".into(),
            direction: VoteDirection::Down,
        };
        let stored = serde_json::to_string(&intent).unwrap();
        assert_eq!(stored, r#"{"post_id":"post-1001","direction":"down"}"#);
        assert_eq!(serde_json::from_str::<VoteIntent>(&stored).unwrap(), intent);
        assert_eq!(BoardVote::intent_key(&intent), "post-1001:down");
        assert_eq!(
            BoardVote::slot(&SaveId("save-1".into()), &intent),
            BoardSlot::Vote(SaveId("save-1".into()))
        );
    }
}
