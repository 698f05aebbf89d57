//! §11 classifiers of the Keeper operations: directive (pause, wake, resume; §14.1),
//! lifecycle (boot, shutdown; §14.2), delete (§14.3) and tool approval mode (§14.4).

use super::{SaveOutcome, common_case, error_string, quoted_refusal, refusal, unlisted};
use crate::protocol::decode::WireDecode;
use crate::protocol::keeper_ops::{
    CommitStatus, DirectiveAction, DirectiveEcho, DirectiveRequest, PowerAction, PowerReply,
    PowerRequest, PurgeReply, PurgeRequest, PurgeTarget, ResumeReply, ToolApprovalModeReply,
    ToolApprovalModeRequest,
};
use crate::protocol::routes::{NotFoundMeaning, RouteFamily, classify_404};
use std::convert::Infallible;

/// The reason token of a boot refused because the Keeper is operator-paused (§14.2): the view
/// offers resume, then boot — never automatically.
pub const OPERATOR_PAUSED: &str = "operator_paused";

/// The reason token of a write to a route this MASC does not serve (an older server).
pub const ROUTE_NOT_SERVED: &str = "route_not_served";

// ---- §14.1 directive ----

/// What an applied directive did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectiveApplied {
    /// Pause or wake: the echo (wake proves only that the signal was sent).
    Signalled,
    /// Resume committed (`projection`: the lifecycle phase reached).
    Resumed { projection: Option<String> },
}

/// A resume that lost to another lifecycle change (409): re-read before any retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeConflict {
    pub reason: String,
}

pub type DirectiveOutcome = SaveOutcome<DirectiveApplied, ResumeConflict>;

fn error_text(reply: &ResumeReply) -> Option<String> {
    match &reply.error {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

pub fn classify_directive(status: u16, body: &[u8], req: &DirectiveRequest) -> DirectiveOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match req.action {
        DirectiveAction::Pause | DirectiveAction::Wakeup => classify_signal(status, body, req),
        DirectiveAction::Resume => classify_resume(status, body, req),
    }
}

fn classify_signal(status: u16, body: &[u8], req: &DirectiveRequest) -> DirectiveOutcome {
    match status {
        200 => match DirectiveEcho::decode(body) {
            Ok(e) if e.action == req.action.as_str() && e.name == req.keeper => {
                SaveOutcome::Applied {
                    detail: DirectiveApplied::Signalled,
                    warning: None,
                }
            }
            Ok(_) => SaveOutcome::unknown("200 echoing another keeper or action"),
            Err(e) => {
                SaveOutcome::unknown(format!("200 not of the applied shape ({})", e.reason()))
            }
        },
        400 => SaveOutcome::not_applied(refusal(status, body)),
        404 if req.action == DirectiveAction::Pause
            && error_string(body).as_deref() == Some("keeper meta not found") =>
        {
            SaveOutcome::not_applied(refusal(status, body))
        }
        500 if error_string(body).is_some_and(|e| e.starts_with("read_meta failed:")) => {
            SaveOutcome::not_applied(refusal(status, body))
        }
        _ => unlisted(status),
    }
}

fn classify_resume(status: u16, body: &[u8], req: &DirectiveRequest) -> DirectiveOutcome {
    let reply = ResumeReply::decode(body).ok();
    let echo_ok = reply
        .as_ref()
        .is_some_and(|r| r.name.as_deref().is_none_or(|n| n == req.keeper));
    let committed = reply.as_ref().and_then(|r| r.committed);
    match (status, reply) {
        (200, Some(r)) if echo_ok && r.ok == Some(true) && r.committed == Some(true) => {
            match r.commit_status {
                Some(CommitStatus::AlreadyCommitted) => SaveOutcome::Unchanged,
                Some(CommitStatus::Committed) => SaveOutcome::Applied {
                    detail: DirectiveApplied::Resumed {
                        projection: r.projection,
                    },
                    warning: None,
                },
                None => SaveOutcome::unknown("200 resume without a commit status"),
            }
        }
        (202, Some(r))
            if echo_ok
                && r.committed == Some(true)
                && r.projection.as_deref() == Some("committed_followup_failed") =>
        {
            SaveOutcome::Applied {
                detail: DirectiveApplied::Resumed {
                    projection: r.projection,
                },
                warning: Some("pause lifted; waking the lane failed".into()),
            }
        }
        (200..=299, _) => SaveOutcome::unknown(format!("{status} resume without committed")),
        (400 | 404, _) => SaveOutcome::not_applied(refusal(status, body)),
        (409, r) => SaveOutcome::Conflict {
            current: ResumeConflict {
                reason: r
                    .as_ref()
                    .and_then(error_text)
                    .unwrap_or_else(|| quoted_refusal(409, body)),
            },
        },
        (500..=599, _) if committed == Some(false) => {
            SaveOutcome::not_applied(refusal(status, body))
        }
        _ => unlisted(status),
    }
}

// ---- §14.2 boot and shutdown ----

/// What an applied boot or shutdown did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PowerApplied {
    Booted,
    ShutDown,
    /// Shutdown 500 `paused-state persist failed after shutdown`: the fiber stopped, the
    /// pause was not latched (applied plus failure).
    ShutDownPauseNotLatched,
}

pub type PowerOutcome = SaveOutcome<PowerApplied, Infallible>;

const BOOT_REFUSALS_500: &[&str] = &[
    "dispatch returned None",
    "keeper boot preflight read failed",
];
/// The boot refusals §14.2 names for an operator-paused Keeper (409).
const BOOT_PAUSED_409: &[&str] = &[
    "keeper is operator-paused",
    "keeper registry lane is paused",
];
const PAUSE_NOT_LATCHED: &str = "paused-state persist failed after shutdown";

pub fn classify_power(status: u16, body: &[u8], req: &PowerRequest) -> PowerOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    let error = error_string(body).unwrap_or_default();
    match status {
        200 => match PowerReply::decode(body) {
            Ok(r) if r.action == req.action.as_str() && r.name == req.keeper => {
                match (req.action, r.already_live) {
                    (PowerAction::Boot, true) => SaveOutcome::Unchanged,
                    (PowerAction::Boot, false) => SaveOutcome::Applied {
                        detail: PowerApplied::Booted,
                        warning: None,
                    },
                    (PowerAction::Shutdown, _) => SaveOutcome::Applied {
                        detail: PowerApplied::ShutDown,
                        warning: None,
                    },
                }
            }
            Ok(_) => SaveOutcome::unknown("200 echoing another keeper or action"),
            Err(e) => SaveOutcome::unknown(format!("200 without ok:true ({})", e.reason())),
        },
        400 => SaveOutcome::not_applied(refusal(status, body)),
        // The typed refusal §14.2 names; any other 409 is quoted, never taken for it.
        409 if req.action == PowerAction::Boot
            && BOOT_PAUSED_409.iter().any(|p| error.starts_with(p)) =>
        {
            SaveOutcome::not_applied(format!("{OPERATOR_PAUSED}: {error}"))
        }
        409 => SaveOutcome::not_applied(quoted_refusal(status, body)),
        500 if req.action == PowerAction::Shutdown && error == PAUSE_NOT_LATCHED => {
            SaveOutcome::Applied {
                detail: PowerApplied::ShutDownPauseNotLatched,
                warning: Some("fiber stopped; pause not latched".into()),
            }
        }
        500 if BOOT_REFUSALS_500.iter().any(|r| error.starts_with(r)) => {
            SaveOutcome::not_applied(refusal(status, body))
        }
        _ => unlisted(status),
    }
}

// ---- §14.3 delete ----

/// An accepted purge: a durable operation exists; the Keeper leaves the roster when it
/// completes ("deletion accepted", not "deleted").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeAccepted {
    pub operation_id: String,
}

pub type PurgeOutcome = SaveOutcome<PurgeAccepted, Infallible>;

pub fn classify_purge(status: u16, body: &[u8], req: &PurgeRequest) -> PurgeOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match PurgeReply::decode(body) {
            Ok(PurgeReply {
                accepted: true,
                target_kind: PurgeTarget::Keeper,
                keeper_name: Some(name),
                operation_id: Some(operation_id),
            }) if status == 202 && name == req.keeper => SaveOutcome::Applied {
                detail: PurgeAccepted { operation_id },
                warning: None,
            },
            Ok(PurgeReply {
                target_kind: PurgeTarget::Agent,
                ..
            }) => SaveOutcome::unknown("plain agent files were removed, not a Keeper"),
            Ok(_) => SaveOutcome::unknown(format!(
                "{status} naming another keeper or lacking operation_id"
            )),
            Err(e) => SaveOutcome::unknown(format!("undecodable {status} ({})", e.reason())),
        },
        404 if error_string(body).as_deref() == Some("agent or keeper not found") => {
            SaveOutcome::Unchanged
        }
        400 | 409 | 503 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

// ---- §14.4 tool approval mode ----

pub type ToolModeOutcome = SaveOutcome<ToolApprovalModeReply, Infallible>;

pub fn classify_tool_mode(
    status: u16,
    body: &[u8],
    req: &ToolApprovalModeRequest,
) -> ToolModeOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match ToolApprovalModeReply::decode(body) {
            Ok(r) if r.keeper == req.keeper && r.mode == req.mode => SaveOutcome::Applied {
                detail: r,
                warning: None,
            },
            Ok(_) => SaveOutcome::unknown(format!("{status} echoing another keeper or mode")),
            Err(e) => SaveOutcome::unknown(format!("undecodable {status} ({})", e.reason())),
        },
        404 if classify_404(RouteFamily::ToolApprovalModeSet, body)
            == NotFoundMeaning::NotServed =>
        {
            SaveOutcome::not_applied(ROUTE_NOT_SERVED)
        }
        400 | 404 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}
