//! The lifecycle save (protocol.md §14.1–§14.4, §11; surfaces.md Keepers roster keys; sources.md
//! H-5, H-6, H-13, N-3): `p` pause (resume on an operator-paused Keeper, boot when no fiber
//! runs), `w` wake, `s` `s` shutdown, `x` `x` delete, `g` tool gate. One kind over four
//! routes: each action is sent to its route and classified by that route's §11 classifier; the
//! receipt says which action it answers. One lifecycle operation per Keeper in flight; never
//! resent; the roster is re-read after any receipt (N-3).
//!
//! Resume (§14.1) needs the Keeper generation as `owner_nonce`: the worker reads it itself
//! from a fresh §14.7 metadata read (never one cached by a pane, as H-8 for the settings
//! revision), sends nothing when that read says the Keeper is not paused (unchanged), and
//! reconfirms the workspace before the POST. The `operator_operation_id` is minted once per
//! press, at the key, and kept in the intent (the outbox row).

use super::{KeeperOpEvent, KeeperOpSlot, STATUS_UNREAD, reconfirm};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_detail::{KeeperStatus, keeper_status_path};
use crate::protocol::keeper_ops::{
    DirectiveAction, DirectiveRequest, PURGE_PATH, PowerAction, PowerRequest, PurgeRequest,
    ResumeArgs, TOOL_APPROVAL_MODE_PATH, ToolApprovalMode, ToolApprovalModeRequest, directive_path,
    power_path,
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
    /// Lift an operator pause (§14.1 resume).
    Resume,
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
            Self::Resume => "resume",
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
    /// A resume's `operator_operation_id` (`tui-resume-<uuidv7>`), minted once per press;
    /// `None` for every other action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
}

impl LifecycleIntent {
    /// `action` on `keeper`; a resume gets its operation id minted here, once per press.
    pub fn new(keeper: impl Into<String>, action: LifecycleAction) -> Self {
        Self {
            keeper: keeper.into(),
            action,
            operation_id: (action == LifecycleAction::Resume)
                .then(|| format!("tui-resume-{}", uuid::Uuid::now_v7())),
        }
    }
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
                LifecycleAction::Resume => {
                    let operation = intent
                        .operation_id
                        .clone()
                        .unwrap_or_else(|| format!("tui-resume-{}", uuid::Uuid::now_v7()));
                    resume(&client, &auth, &keeper, operation).await
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

/// §14.1 resume: a fresh §14.7 read for the generation (and whether the pause still holds),
/// the workspace reconfirmed, then one POST with `owner_nonce` and the press's operation id.
async fn resume(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    keeper: &str,
    operation: String,
) -> LifecycleOutcome {
    let name = keeper.to_string();
    let status = match client
        .get_with(auth, &keeper_status_path(keeper), move |b: &[u8]| {
            KeeperStatus::decode_for(b, &name)
        })
        .await
    {
        Ok(read) => read.value,
        Err(e) => {
            return SaveOutcome::NotSent {
                reason: format!("{STATUS_UNREAD}: {}", e.class()),
            };
        }
    };
    if status.paused == Some(false) {
        // Verified on the fresh read: no operator pause to lift, nothing is sent.
        return SaveOutcome::Unchanged;
    }
    if let Err(reason) = reconfirm(client, auth).await {
        return SaveOutcome::NotSent { reason };
    }
    let request = DirectiveRequest {
        keeper: keeper.to_string(),
        action: DirectiveAction::Resume,
        resume: Some(ResumeArgs {
            owner_nonce: status.meta.generation,
            operator_operation_id: operation,
        }),
    };
    let exchange = client
        .post_json(auth, &directive_path(keeper), &request.body())
        .await;
    retype(
        classify_exchange(&exchange, &request, classify_directive),
        LifecycleApplied::Directive,
        |c| c,
    )
}
