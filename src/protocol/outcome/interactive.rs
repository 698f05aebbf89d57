//! §11 classifiers of the operator writes: ask answer (§10.2), board post (§8.4), connector
//! bind and unbind (§7.3, §7.4), approval decision (§10.5).

use super::{
    SaveOutcome, common_case, error_string, quoted_refusal, refusal, string_field, unlisted,
};
use crate::protocol::asks::{AskAlreadyResolved, AskAnswerRequest, AskAnswerResponse};
use crate::protocol::board::{BoardPostRequest, ToolEnvelope};
use crate::protocol::connectors::ConnectorRow;
use crate::protocol::decode::WireDecode;
use crate::protocol::operator::{ApprovalDecisionReply, ApprovalDecisionRequest, DecisionResult};
use std::convert::Infallible;

/// The typed 409 of an Ask answer (§10.2): another answer or a withdrawal stands.
const ASK_ALREADY_RESOLVED: &str = "ask_already_resolved";

// ---- ask answer ----

/// An applied answer: the actor the server recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskAnswered {
    pub actor: String,
    pub open_remaining: Option<u64>,
}

pub type AskAnswerOutcome = SaveOutcome<AskAnswered, AskAlreadyResolved>;

pub fn classify_ask_answer(status: u16, body: &[u8], req: &AskAnswerRequest) -> AskAnswerOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match AskAnswerResponse::decode(body) {
            Ok(r) if r.ask_id.as_deref().is_some_and(|id| id != req.ask_id) => {
                SaveOutcome::unknown("200 for another ask")
            }
            Ok(AskAnswerResponse {
                actor: Some(actor),
                open_remaining,
                ..
            }) if !actor.trim().is_empty() => SaveOutcome::Applied {
                detail: AskAnswered {
                    actor,
                    open_remaining,
                },
                warning: None,
            },
            Ok(_) => SaveOutcome::unknown("200 without the actor"),
            Err(e) => SaveOutcome::unknown(format!("undecodable 200 ({})", e.reason())),
        },
        400 | 404 => SaveOutcome::not_applied(refusal(status, body)),
        // "Already answered or withdrawn" only when the body says so (§10.2); any other 409
        // is quoted, never read as another answer standing.
        409 if error_string(body).as_deref() == Some(ASK_ALREADY_RESOLVED) => {
            SaveOutcome::Conflict {
                current: AskAlreadyResolved::from_body(body),
            }
        }
        409 => SaveOutcome::not_applied(quoted_refusal(status, body)),
        _ => unlisted(status),
    }
}

// ---- board post ----

/// An applied post: the id of the created post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPostCreated {
    pub post_id: String,
}

pub type BoardPostOutcome = SaveOutcome<BoardPostCreated, Infallible>;

pub fn classify_board_post(status: u16, body: &[u8], _req: &BoardPostRequest) -> BoardPostOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match ToolEnvelope::decode(body) {
            Ok(env) if env.ok => match env.created_post_id() {
                Ok(post_id) => SaveOutcome::Applied {
                    detail: BoardPostCreated { post_id },
                    warning: None,
                },
                Err(_) => SaveOutcome::unknown("tool envelope without a created post"),
            },
            _ => SaveOutcome::unknown("2xx that is not the tool envelope (never resent)"),
        },
        400 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

// ---- connector bind / unbind ----

/// The request a bind or unbind answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorBindingRequest {
    pub connector_id: String,
    pub channel_id: String,
    pub keeper_name: String,
}

/// Unbind conflict: the channel was rebound to another keeper and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindingChanged;

pub type ConnectorBindOutcome = SaveOutcome<ConnectorRow, Infallible>;
pub type ConnectorUnbindOutcome = SaveOutcome<ConnectorRow, BindingChanged>;

/// Before sending a bind: an existing identical binding is "unchanged, not sent".
pub fn bind_precheck(
    current: &ConnectorRow,
    req: &ConnectorBindingRequest,
) -> Option<ConnectorBindOutcome> {
    current
        .binding_of(&req.channel_id)
        .is_some_and(|b| b.keeper_name == req.keeper_name)
        .then_some(SaveOutcome::Unchanged)
}

fn connector_404_is_refusal(body: &[u8], also_keeper: bool) -> bool {
    let msg = error_string(body).unwrap_or_default();
    msg.starts_with("unknown connector") || (also_keeper && msg.starts_with("unknown keeper"))
}

pub fn classify_connector_bind(
    status: u16,
    body: &[u8],
    req: &ConnectorBindingRequest,
) -> ConnectorBindOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match ConnectorRow::decode(body) {
            Ok(row)
                if row.connector_id == req.connector_id
                    && row
                        .binding_of(&req.channel_id)
                        .is_some_and(|b| b.keeper_name == req.keeper_name) =>
            {
                SaveOutcome::Applied {
                    detail: row,
                    warning: None,
                }
            }
            Ok(_) => SaveOutcome::unknown("200 that does not show the binding"),
            Err(e) => SaveOutcome::unknown(format!("undecodable 200 ({})", e.reason())),
        },
        400 | 503 => SaveOutcome::not_applied(refusal(status, body)),
        404 if connector_404_is_refusal(body, true) => {
            SaveOutcome::not_applied(refusal(status, body))
        }
        _ => unlisted(status),
    }
}

pub fn classify_connector_unbind(
    status: u16,
    body: &[u8],
    req: &ConnectorBindingRequest,
) -> ConnectorUnbindOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match ConnectorRow::decode(body) {
            Ok(row)
                if row.connector_id == req.connector_id
                    && row.binding_of(&req.channel_id).is_none() =>
            {
                SaveOutcome::Applied {
                    detail: row,
                    warning: None,
                }
            }
            Ok(_) => SaveOutcome::unknown("200 that still shows the binding"),
            Err(e) => SaveOutcome::unknown(format!("undecodable 200 ({})", e.reason())),
        },
        404 if error_string(body).as_deref() == Some("binding not found") => SaveOutcome::Unchanged,
        404 if connector_404_is_refusal(body, false) => {
            SaveOutcome::not_applied(refusal(status, body))
        }
        409 if error_string(body).as_deref() == Some("binding changed") => SaveOutcome::Conflict {
            current: BindingChanged,
        },
        400 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

// ---- approval decision ----

/// Conflict of a decision: the approval is no longer pending; nothing ran for this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoLongerPending;

pub type ApprovalDecisionOutcome = SaveOutcome<ApprovalDecisionReply, NoLongerPending>;

const DECISION_REFUSALS: &[&str] = &[
    "confirm_token is required",
    "operator request actor is required",
    "actor is not allowed to confirm this action",
    "pending confirmation expired",
];

pub fn classify_approval_decision(
    status: u16,
    body: &[u8],
    req: &ApprovalDecisionRequest,
) -> ApprovalDecisionOutcome {
    // The warming body (HTTP 200 from MASC, 503 from the embedded server): not processed.
    if error_string(body).as_deref() == Some("not initialized") && matches!(status, 200 | 503) {
        return SaveOutcome::not_applied("server warming up (request not processed)");
    }
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match ApprovalDecisionReply::decode_for(body, req) {
            Ok(reply) => {
                let warning = match &reply.result {
                    DecisionResult::Failed { .. } => {
                        Some("approval consumed; the action reported failure".to_string())
                    }
                    DecisionResult::Deferred { .. } => Some("delivery pending".to_string()),
                    DecisionResult::Denied | DecisionResult::Ran { .. } => None,
                };
                SaveOutcome::Applied {
                    detail: reply,
                    warning,
                }
            }
            Err(e) => SaveOutcome::unknown(format!("200 failing a reply check ({e})")),
        },
        400 => {
            let message = string_field(body, "message")
                .or_else(|| error_string(body))
                .unwrap_or_default();
            if message == "pending confirmation not found" {
                SaveOutcome::Conflict {
                    current: NoLongerPending,
                }
            } else if DECISION_REFUSALS.contains(&message.as_str())
                || message.starts_with("invalid json:")
            {
                SaveOutcome::not_applied(format!("HTTP 400: {message}"))
            } else {
                // MASC removes the approval before running the action and reports the
                // action's failure with this same 400 envelope.
                SaveOutcome::unknown("400 after the approval may have been removed")
            }
        }
        _ => unlisted(status),
    }
}
