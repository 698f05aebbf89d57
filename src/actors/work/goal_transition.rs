//! The Goal action save (protocol-15-operator.md §15.4 `POST /api/v1/tools/masc_goal_transition`,
//! §15.12 "Goal action"): `request_complete`, `drop` or `reopen` on one goal — never the
//! pause/resume/block/unblock the tool also takes. The server owns the transition table; the
//! receipt lands in the Work surface's own slot, and the planning rollup and the goal's
//! timeline are read again after it (the reply's phase is what the screen shows until then).
//! Not resent: an `internal_error` may have written a proof request.

use super::{WorkObservation, WorkSlot};
use crate::actors::saves::{Receipt, SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::goal_transition::{
    GOAL_TRANSITION_PATH, GoalAction, GoalRefusal, GoalTransitionOutcome, GoalTransitionRequest,
    classify_goal_transition_exchange,
};
use crate::protocol::outcome::{ROUTE_NOT_SERVED, SaveClass};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// One action on one goal, with the operator's optional note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitionIntent {
    pub goal_id: String,
    pub action: GoalAction,
    #[serde(default)]
    pub note: Option<String>,
}

impl TransitionIntent {
    fn request(&self) -> GoalTransitionRequest {
        GoalTransitionRequest {
            goal_id: self.goal_id.clone(),
            action: self.action,
            note: self.note.clone(),
        }
    }
}

impl Receipt for GoalTransitionOutcome {
    fn class(&self) -> SaveClass {
        match self {
            Self::NotSent { .. } => SaveClass::NotSent,
            Self::NotApplied(_) => SaveClass::NotApplied,
            Self::Moved(_) => SaveClass::Applied,
            Self::Already(_) => SaveClass::Unchanged,
            Self::Conflict { .. } => SaveClass::Conflict,
            Self::OutcomeUnknown { .. } => SaveClass::OutcomeUnknown,
        }
    }

    /// Tokens and the server's words, as every receipt gives them (sanitised before display).
    fn reason(&self) -> Option<String> {
        match self {
            Self::NotSent { reason } | Self::OutcomeUnknown { reason } => Some(reason.clone()),
            Self::NotApplied(refusal) => Some(match refusal {
                GoalRefusal::NotServed => ROUTE_NOT_SERVED.into(),
                GoalRefusal::NotFound => "not_found".into(),
                GoalRefusal::Validation { message, .. } => format!("validation_error: {message}"),
                GoalRefusal::InvalidJson { message } => message.clone(),
                GoalRefusal::Refused { reason } => reason.clone(),
            }),
            Self::Conflict { message } => Some(message.clone()),
            Self::Moved(_) | Self::Already(_) => None,
        }
    }

    fn not_sent(reason: String) -> Self {
        Self::NotSent { reason }
    }

    fn unknown(reason: String) -> Self {
        Self::OutcomeUnknown { reason }
    }
}

/// The kind.
#[derive(Debug)]
pub struct GoalTransition;

impl SaveKind for GoalTransition {
    const KIND: &'static str = "goal_transition";
    type Slot = WorkSlot;
    type Payload = WorkObservation;
    type Intent = TransitionIntent;
    type Receipt = GoalTransitionOutcome;

    fn slot(save_id: &SaveId, _intent: &TransitionIntent) -> WorkSlot {
        WorkSlot::GoalTransition(save_id.clone())
    }

    /// The same action on the same goal submitted again while one is in flight shares it.
    fn intent_key(intent: &TransitionIntent) -> String {
        format!("{}:{}", intent.goal_id, intent.action.as_str())
    }

    fn target(intent: &TransitionIntent) -> String {
        intent.goal_id.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: TransitionIntent,
    ) -> BoxFuture<'static, GoalTransitionOutcome> {
        Box::pin(async move {
            let request = intent.request();
            let exchange = client
                .post_json(&auth, GOAL_TRANSITION_PATH, &request.body())
                .await;
            classify_goal_transition_exchange(&exchange, &request)
        })
    }

    fn payload(event: SaveEvent<Self>) -> WorkObservation {
        WorkObservation::GoalTransition(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s15_4_the_intent_survives_the_outbox_and_keys_by_goal_and_action() {
        let intent = TransitionIntent {
            goal_id: "goal-1".into(),
            action: GoalAction::RequestComplete,
            note: None,
        };
        let stored = serde_json::to_string(&intent).unwrap();
        assert_eq!(
            serde_json::from_str::<TransitionIntent>(&stored).unwrap(),
            intent
        );
        // A row written without the note key still reads back.
        let older: TransitionIntent =
            serde_json::from_str(r#"{"goal_id":"goal-1","action":"drop"}"#).unwrap();
        assert_eq!(older.note, None);
        assert_eq!(
            GoalTransition::intent_key(&intent),
            "goal-1:request_complete"
        );
    }

    #[test]
    fn s15_12_every_outcome_has_its_class_and_not_served_its_token() {
        let not_served = GoalTransitionOutcome::NotApplied(GoalRefusal::NotServed);
        assert_eq!(not_served.class(), SaveClass::NotApplied);
        assert_eq!(
            Receipt::reason(&not_served).as_deref(),
            Some(ROUTE_NOT_SERVED)
        );
        let conflict = GoalTransitionOutcome::Conflict {
            message: "invalid goal transition: dropped -> request_complete".into(),
        };
        assert_eq!(conflict.class(), SaveClass::Conflict);
        assert_eq!(
            <GoalTransitionOutcome as Receipt>::unknown("x".into()).class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(
            <GoalTransitionOutcome as Receipt>::not_sent("x".into()).class(),
            SaveClass::NotSent
        );
    }
}
