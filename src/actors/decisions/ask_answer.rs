//! The Ask answer save (protocol.md §10.2 `POST /api/v1/keepers/ask-answer`, §11 "Ask
//! answer"; sources.md K-1…K-5): one answer per question of one Ask, in the Ask's order, by
//! ids (chose / wrote / skipped). The first write wins on the server: a second answer is a
//! 409 conflict, never resent. One answer per Ask in flight at a time (the intent key is the
//! Ask, whatever the answers).

use super::{DecisionsObservation, DecisionsSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::asks::{AskAnswerBody, AskAnswerRequest, QuestionAnswer};
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{AskAnswerOutcome, classify_ask_answer, classify_exchange};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub const ASK_ANSWER_PATH: &str = "/api/v1/keepers/ask-answer";

/// What the operator answered: the Ask (Keeper and id) and one answer per question, in the
/// Ask's order, by ids. Stored verbatim in the outbox before the request leaves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerIntent {
    pub keeper: String,
    pub ask_id: String,
    pub answers: Vec<QuestionAnswer>,
}

impl AnswerIntent {
    /// What the §11 classifier checks the answer against.
    pub fn request(&self) -> AskAnswerRequest {
        AskAnswerRequest {
            keeper: self.keeper.clone(),
            ask_id: self.ask_id.clone(),
        }
    }

    /// The POST body (§10.2).
    pub fn body(&self) -> serde_json::Value {
        serde_json::to_value(AskAnswerBody {
            name: &self.keeper,
            ask_id: &self.ask_id,
            answers: &self.answers,
        })
        .unwrap_or(serde_json::Value::Null)
    }

    /// The intent key of an Ask: one answer per Ask in flight.
    pub fn key_of(keeper: &str, ask_id: &str) -> String {
        format!("{keeper}\u{1f}{ask_id}")
    }
}

/// The kind.
#[derive(Debug)]
pub struct AskAnswer;

impl SaveKind for AskAnswer {
    const KIND: &'static str = "ask_answer";
    type Slot = DecisionsSlot;
    type Payload = DecisionsObservation;
    type Intent = AnswerIntent;
    type Receipt = AskAnswerOutcome;

    fn slot(save_id: &SaveId, _intent: &AnswerIntent) -> DecisionsSlot {
        DecisionsSlot::Answer(save_id.clone())
    }

    /// One answer per Ask at a time, whatever it says.
    fn intent_key(intent: &AnswerIntent) -> String {
        AnswerIntent::key_of(&intent.keeper, &intent.ask_id)
    }

    fn target(intent: &AnswerIntent) -> String {
        format!("{}/{}", intent.keeper, intent.ask_id)
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: AnswerIntent,
    ) -> BoxFuture<'static, AskAnswerOutcome> {
        Box::pin(async move {
            let body = intent.body();
            let exchange = client.post_json(&auth, ASK_ANSWER_PATH, &body).await;
            classify_exchange(&exchange, &intent.request(), classify_ask_answer)
        })
    }

    fn payload(event: SaveEvent<Self>) -> DecisionsObservation {
        DecisionsObservation::Answer(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::asks::AnswerResponse;

    /// §10.2: the body names the Keeper, the Ask and one answer per question by ids.
    #[test]
    fn s10_2_body_is_by_ids_in_order() {
        let intent = AnswerIntent {
            keeper: "rondo".into(),
            ask_id: "ask-1".into(),
            answers: vec![
                QuestionAnswer {
                    question_id: "q-1".into(),
                    response: AnswerResponse::Chose {
                        choice_ids: vec!["c-all".into()],
                    },
                },
                QuestionAnswer {
                    question_id: "q-2".into(),
                    response: AnswerResponse::Skipped,
                },
                QuestionAnswer {
                    question_id: "q-3".into(),
                    response: AnswerResponse::Wrote {
                        text: "비고".into(),
                    },
                },
            ],
        };
        assert_eq!(
            intent.body(),
            serde_json::json!({"name":"rondo","ask_id":"ask-1","answers":[
                {"question_id":"q-1","response":{"kind":"chose","choice_ids":["c-all"]}},
                {"question_id":"q-2","response":{"kind":"skipped"}},
                {"question_id":"q-3","response":{"kind":"wrote","text":"비고"}}]})
        );
        let stored = serde_json::to_string(&intent).unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<AnswerIntent>(&stored).ok(),
            Some(intent)
        );
    }
}
