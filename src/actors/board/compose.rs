//! The Board post save (protocol.md §8.4 `POST /api/v1/tools/masc_board_post`, §11 "Board
//! post"; sources.md E-7, H-5): one composed post — title, optional hearth, body. Not
//! idempotent: sent once, never resent; an outcome unknown keeps the draft for the operator.

use super::{BoardObservation, BoardSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::board::BoardPostRequest;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{BoardPostOutcome, classify_board_post, classify_exchange};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub const BOARD_POST_PATH: &str = "/api/v1/tools/masc_board_post";

/// One composed post.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostIntent {
    pub title: String,
    /// Blank: no hearth (the key is not sent).
    pub hearth: String,
    pub body: String,
    /// Distinguishes two composes with the same text (each is its own post: not idempotent).
    pub draft_id: String,
}

impl PostIntent {
    fn body_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"title": self.title, "body": self.body});
        if !self.hearth.trim().is_empty()
            && let Some(obj) = v.as_object_mut()
        {
            obj.insert("hearth".into(), serde_json::json!(self.hearth.trim()));
        }
        v
    }
}

/// The kind.
#[derive(Debug)]
pub struct BoardPost;

impl SaveKind for BoardPost {
    const KIND: &'static str = "board_post";
    type Slot = BoardSlot;
    type Payload = BoardObservation;
    type Intent = PostIntent;
    type Receipt = BoardPostOutcome;

    fn slot(save_id: &SaveId, _intent: &PostIntent) -> BoardSlot {
        BoardSlot::Compose(save_id.clone())
    }

    /// One send per draft: a repeated submit of the same draft shares it.
    fn intent_key(intent: &PostIntent) -> String {
        intent.draft_id.clone()
    }

    fn target(intent: &PostIntent) -> String {
        intent.draft_id.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: PostIntent,
    ) -> BoxFuture<'static, BoardPostOutcome> {
        Box::pin(async move {
            let exchange = client
                .post_json(&auth, BOARD_POST_PATH, &intent.body_json())
                .await;
            let request = BoardPostRequest {
                title: intent.title.clone(),
            };
            classify_exchange(&exchange, &request, classify_board_post)
        })
    }

    fn payload(event: SaveEvent<Self>) -> BoardObservation {
        BoardObservation::Compose(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hearth_is_sent_only_when_not_blank_s8_4() {
        let mut i = PostIntent {
            title: "Nightly".into(),
            hearth: "  ".into(),
            body: "All green.".into(),
            draft_id: "d-1".into(),
        };
        assert_eq!(
            i.body_json(),
            serde_json::json!({"title": "Nightly", "body": "All green."})
        );
        i.hearth = "verification".into();
        assert_eq!(i.body_json()["hearth"], "verification");
    }
}
