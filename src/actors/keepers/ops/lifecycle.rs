//! The lifecycle save (protocol.md §14.1–§14.4, §11; surfaces.md Keepers roster keys; sources.md
//! H-5, H-6, H-13, N-3): `p` pause (boot when no fiber runs), `w` wake, `s` `s` shutdown,
//! `x` `x` delete, `g` tool gate. One kind over four routes: each action is sent to its route
//! and classified by that route's §11 classifier; the receipt says which action it answers.
//! One lifecycle operation per Keeper in flight; never resent; the roster is re-read after
//! any receipt (N-3).

use super::{KeeperOpEvent, KeeperOpSlot};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_ops::{
    DirectiveAction, DirectiveRequest, PURGE_PATH, PowerAction, PowerRequest, PurgeRequest,
    TOOL_APPROVAL_MODE_PATH, ToolApprovalMode, ToolApprovalModeRequest, directive_path, power_path,
};
use crate::protocol::outcome::{
    DirectiveApplied, PowerApplied, PurgeAccepted, ResumeConflict, SaveOutcome, classify_directive,
    classify_exchange, classify_power, classify_purge, classify_tool_mode,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// What a lifecycle key asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action", content = "mode")]
pub enum LifecycleAction {
    Pause,
    Wake,
    Boot,
    Shutdown,
    Delete,
    ToolGate(ToolApprovalMode),
}

impl LifecycleAction {
    /// The action's words on screen.
    pub fn words(self) -> &'static str {
        match self {
            Self::Pause => "pause",
            Self::Wake => "wake",
            Self::Boot => "boot",
            Self::Shutdown => "shutdown",
            Self::Delete => "delete",
            Self::ToolGate(ToolApprovalMode::Yolo) => "tool gate yolo",
            Self::ToolGate(ToolApprovalMode::Auto) => "tool gate auto",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LifecycleIntent {
    pub keeper: String,
    pub action: LifecycleAction,
}

/// What an applied lifecycle action did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LifecycleApplied {
    /// Pause latched, or wake signalled (a wake proves only that the signal was sent).
    Directive(DirectiveApplied),
    Power(PowerApplied),
    /// Deletion accepted: a durable operation exists; "deleted" only once a roster read no
    /// longer lists the Keeper.
    DeleteAccepted(PurgeAccepted),
    ToolGate(ToolApprovalMode),
}

pub type LifecycleOutcome = SaveOutcome<LifecycleApplied, ResumeConflict>;

/// Re-types one route's outcome as the lifecycle's.
fn retype<A, C>(
    outcome: SaveOutcome<A, C>,
    applied: impl FnOnce(A) -> LifecycleApplied,
    conflict: impl FnOnce(C) -> ResumeConflict,
) -> LifecycleOutcome {
    match outcome {
        SaveOutcome::NotSent { reason } => SaveOutcome::NotSent { reason },
        SaveOutcome::NotApplied { reason } => SaveOutcome::NotApplied { reason },
        SaveOutcome::Applied { detail, warning } => SaveOutcome::Applied {
            detail: applied(detail),
            warning,
        },
        SaveOutcome::Unchanged => SaveOutcome::Unchanged,
        SaveOutcome::Conflict { current } => SaveOutcome::Conflict {
            current: conflict(current),
        },
        SaveOutcome::OutcomeUnknown { reason } => SaveOutcome::OutcomeUnknown { reason },
    }
}

fn never<T>(n: std::convert::Infallible) -> T {
    match n {}
}

/// The kind.
#[derive(Debug)]
pub struct LifecycleSave;

impl SaveKind for LifecycleSave {
    const KIND: &'static str = "keeper_lifecycle";
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Intent = LifecycleIntent;
    type Receipt = LifecycleOutcome;

    fn slot(save_id: &SaveId, _intent: &LifecycleIntent) -> KeepersSlot {
        KeepersSlot::Op(KeeperOpSlot::Lifecycle(save_id.clone()))
    }

    /// One lifecycle operation per Keeper in flight, whatever the action.
    fn intent_key(intent: &LifecycleIntent) -> String {
        intent.keeper.clone()
    }

    fn target(intent: &LifecycleIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: LifecycleIntent,
    ) -> BoxFuture<'static, LifecycleOutcome> {
        Box::pin(async move {
            let keeper = intent.keeper.clone();
            match intent.action {
                LifecycleAction::Pause | LifecycleAction::Wake => {
                    let action = if intent.action == LifecycleAction::Pause {
                        DirectiveAction::Pause
                    } else {
                        DirectiveAction::Wakeup
                    };
                    let request = DirectiveRequest {
                        keeper: keeper.clone(),
                        action,
                        resume: None,
                    };
                    let exchange = client
                        .post_json(&auth, &directive_path(&keeper), &request.body())
                        .await;
                    retype(
                        classify_exchange(&exchange, &request, classify_directive),
                        LifecycleApplied::Directive,
                        |c| c,
                    )
                }
                LifecycleAction::Boot | LifecycleAction::Shutdown => {
                    let action = if intent.action == LifecycleAction::Boot {
                        PowerAction::Boot
                    } else {
                        PowerAction::Shutdown
                    };
                    let request = PowerRequest {
                        keeper: keeper.clone(),
                        action,
                    };
                    let exchange = client
                        .post_json(&auth, &power_path(&keeper, action), &serde_json::json!({}))
                        .await;
                    retype(
                        classify_exchange(&exchange, &request, classify_power),
                        LifecycleApplied::Power,
                        never,
                    )
                }
                LifecycleAction::Delete => {
                    let request = PurgeRequest { keeper };
                    let exchange = client.post_json(&auth, PURGE_PATH, &request.body()).await;
                    retype(
                        classify_exchange(&exchange, &request, classify_purge),
                        LifecycleApplied::DeleteAccepted,
                        never,
                    )
                }
                LifecycleAction::ToolGate(mode) => {
                    let request = ToolApprovalModeRequest { keeper, mode };
                    let exchange = client
                        .post_json(&auth, TOOL_APPROVAL_MODE_PATH, &request.body())
                        .await;
                    retype(
                        classify_exchange(&exchange, &request, classify_tool_mode),
                        |r| LifecycleApplied::ToolGate(r.mode),
                        never,
                    )
                }
            }
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Lifecycle(event)))
    }
}
