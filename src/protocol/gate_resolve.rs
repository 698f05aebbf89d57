//! §15.3 deciding the durable Gate queue: `POST /api/v1/dashboard/gate/resolve` (approve or
//! reject one pending row) and `POST /api/v1/dashboard/gate/retry` (re-arm a blocked Auto
//! Judge on one row), with their §15.12 outcomes.
//!
//! "Already resolved" is its own outcome, a conflict and never a failure: Auto Judge, a rule or
//! another operator decided the row between the read and the send (MASC's 404 `approval <id>
//! already resolved` / `not found`). A 503 after MASC recorded the decision is unknown (the
//! decision may be durable), as is a reply echoing another id or decision. A retry copies the
//! row's five identity fields exactly as read (`QueueItem::retry_body`); MASC refuses a row that
//! changed since, which is a conflict: re-read, never resend.

use super::outcome::{ROUTE_NOT_SERVED, SaveOutcome, common_case, refusal, server_text, unlisted};
use super::routes::is_route_miss_body;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const GATE_RESOLVE_PATH: &str = "/api/v1/dashboard/gate/resolve";
pub const GATE_RETRY_PATH: &str = "/api/v1/dashboard/gate/retry";

/// What the operator decided on a pending row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateDecision {
    Approve,
    Reject,
}

impl GateDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Reject => "reject",
        }
    }
}

/// One resolve as sent: the row, the decision and, on a reject, the operator's reason (none:
/// MASC records its own default, `dashboard rejected approval`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateResolveRequest {
    pub id: String,
    pub decision: GateDecision,
    pub reason: Option<String>,
}

impl GateResolveRequest {
    /// `{id, decision[, reason]}`: a reason only with a reject, and never `remember_rule`
    /// (MASC's TUI sends no rule either).
    pub fn body(&self) -> Value {
        let mut body = json!({"id": self.id, "decision": self.decision.as_str()});
        if self.decision == GateDecision::Reject
            && let Some(reason) = self.reason.as_ref().filter(|r| !r.trim().is_empty())
        {
            body["reason"] = json!(reason);
        }
        body
    }
}

/// An applied resolve: the rule MASC stored (none from masc-tui, which never asks for one) and
/// the audit receipts MASC could not record (applied, shown as a warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateResolved {
    pub decision: GateDecision,
    pub rule_id: Option<String>,
    /// `stage: detail` of each receipt with `recorded:false`.
    pub unrecorded: Vec<String>,
}

/// Why a resolve or a retry found the row no longer as read: decided elsewhere or gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateRowMoved {
    /// 404 `approval <id> already resolved`: Auto Judge, a rule or another operator decided it.
    AlreadyResolved { words: String },
    /// 404 `approval <id> not found` (resolve) or `pending approval not found` (retry).
    Gone { words: String },
    /// A retry refused because the row changed since the read (no longer blocked, already
    /// active, or an identity field differs).
    Changed { words: String },
}

impl GateRowMoved {
    /// The server's own words.
    pub fn words(&self) -> &str {
        match self {
            Self::AlreadyResolved { words } | Self::Gone { words } | Self::Changed { words } => {
                words
            }
        }
    }
}

/// §15.12 "Resolve".
pub type GateResolveOutcome = SaveOutcome<GateResolved, GateRowMoved>;

/// §15.12 "Retry": applied means judging was re-armed, not that anything was decided.
pub type GateRetryOutcome = SaveOutcome<(), GateRowMoved>;

#[derive(Deserialize)]
struct ResolveReply {
    ok: bool,
    id: String,
    decision: String,
    #[serde(default)]
    rule_id: Option<String>,
    #[serde(default)]
    audit_receipts: Vec<Value>,
}

/// `stage: detail` of every audit receipt MASC did not record.
fn unrecorded(receipts: &[Value]) -> Vec<String> {
    receipts
        .iter()
        .filter(|r| r.get("recorded").and_then(Value::as_bool) == Some(false))
        .map(|r| {
            let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("?");
            format!("{}: {}", field("stage"), field("detail"))
        })
        .collect()
}

/// The §15.12 classifier of `POST /api/v1/dashboard/gate/resolve`.
pub fn classify_gate_resolve(
    status: u16,
    body: &[u8],
    req: &GateResolveRequest,
) -> GateResolveOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match serde_json::from_slice::<ResolveReply>(body) {
            Ok(r) if r.ok && r.id == req.id && r.decision == req.decision.as_str() => {
                let unrecorded = unrecorded(&r.audit_receipts);
                let warning = (!unrecorded.is_empty())
                    .then(|| format!("audit not recorded ({})", unrecorded.join("; ")));
                SaveOutcome::Applied {
                    detail: GateResolved {
                        decision: req.decision,
                        rule_id: r.rule_id,
                        unrecorded,
                    },
                    warning,
                }
            }
            Ok(r) if r.ok => SaveOutcome::unknown(format!(
                "{status} echoing {} {} (asked {} {})",
                r.decision,
                r.id,
                req.decision.as_str(),
                req.id
            )),
            _ => SaveOutcome::unknown(format!("{status} that is not the resolve reply")),
        },
        404 if is_route_miss_body(body) => SaveOutcome::not_applied(ROUTE_NOT_SERVED),
        404 => {
            let words = server_text(body).unwrap_or_else(|| "not found".into());
            let current = if words.contains("already resolved") {
                GateRowMoved::AlreadyResolved { words }
            } else {
                GateRowMoved::Gone { words }
            };
            SaveOutcome::Conflict { current }
        }
        400 => SaveOutcome::not_applied(refusal(status, body)),
        503 => SaveOutcome::unknown(format!(
            "{}: the decision may be recorded",
            refusal(status, body)
        )),
        _ => unlisted(status),
    }
}

/// The retry as sent: the row's five identity fields, exactly as read.
#[derive(Debug, Clone, PartialEq)]
pub struct GateRetryRequest {
    pub id: String,
    pub body: Value,
}

/// MASC's 400s that refuse the request before any effect (§15.12 "not applied").
fn retry_refused(message: &str) -> bool {
    message.starts_with("retry request")
        || message.contains("not operator-rearmable")
        || message.contains("requires auto_judge mode")
        || message.starts_with("invalid json")
}

/// MASC's 400s that say the row is no longer as read (§15.12 "conflict").
fn retry_moved(message: &str) -> Option<GateRowMoved> {
    let words = message.to_string();
    if message.contains("pending approval not found") {
        Some(GateRowMoved::Gone { words })
    } else if message.contains("not blocked or is already active")
        || message.contains("mismatch")
        || message.contains("does not match")
        || message.contains("changed")
    {
        Some(GateRowMoved::Changed { words })
    } else {
        None
    }
}

/// The §15.12 classifier of `POST /api/v1/dashboard/gate/retry`.
pub fn classify_gate_retry(status: u16, body: &[u8], req: &GateRetryRequest) -> GateRetryOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => {
            let reply: Option<Value> = serde_json::from_slice(body).ok();
            let ok = reply
                .as_ref()
                .and_then(|v| v.get("ok"))
                .and_then(Value::as_bool);
            let id = reply
                .as_ref()
                .and_then(|v| v.get("id"))
                .and_then(Value::as_str);
            match (ok, id) {
                (Some(true), Some(id)) if id == req.id => SaveOutcome::Applied {
                    detail: (),
                    warning: None,
                },
                (Some(true), Some(id)) => {
                    SaveOutcome::unknown(format!("{status} echoing {id} (asked {})", req.id))
                }
                _ => SaveOutcome::unknown(format!("{status} that is not the retry reply")),
            }
        }
        404 if is_route_miss_body(body) => SaveOutcome::not_applied(ROUTE_NOT_SERVED),
        400 => {
            let message = server_text(body).unwrap_or_default();
            // A row that moved is checked first: MASC words an identity mismatch about the
            // request's field too.
            if let Some(current) = retry_moved(&message) {
                SaveOutcome::Conflict { current }
            } else if retry_refused(&message) {
                SaveOutcome::not_applied(refusal(status, body))
            } else {
                SaveOutcome::unknown(format!(
                    "{}: a store error, the retry may be recorded",
                    refusal(status, body)
                ))
            }
        }
        _ => unlisted(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::outcome::SaveClass;

    fn resolve(decision: GateDecision, reason: Option<&str>) -> GateResolveRequest {
        GateResolveRequest {
            id: "gate-2".into(),
            decision,
            reason: reason.map(str::to_string),
        }
    }

    fn classify(status: u16, body: &str) -> GateResolveOutcome {
        classify_gate_resolve(
            status,
            body.as_bytes(),
            &resolve(GateDecision::Approve, None),
        )
    }

    #[test]
    fn s15_3_the_resolve_body_carries_a_reason_only_on_a_reject() {
        assert_eq!(
            resolve(GateDecision::Approve, Some("ignored")).body(),
            json!({"id": "gate-2", "decision": "approve"})
        );
        assert_eq!(
            resolve(GateDecision::Reject, Some("too broad")).body(),
            json!({"id": "gate-2", "decision": "reject", "reason": "too broad"})
        );
        assert_eq!(
            resolve(GateDecision::Reject, Some("  ")).body(),
            json!({"id": "gate-2", "decision": "reject"}),
            "a blank reason is MASC's default"
        );
    }

    #[test]
    fn s15_12_resolve_applied_with_unrecorded_audit_as_a_warning() {
        let o = classify(
            200,
            r#"{"ok":true,"id":"gate-2","decision":"approve","rule_id":null,
                "audit_receipts":[{"recorded":true,"event":"resolved"}]}"#,
        );
        assert_eq!(o.save_class(), SaveClass::Applied);
        assert_eq!(o.reason(), None);
        let o = classify(
            200,
            r#"{"ok":true,"id":"gate-2","decision":"approve","rule_id":null,
                "audit_receipts":[{"recorded":false,"stage":"append","detail":"disk full","event":"resolved"}]}"#,
        );
        assert_eq!(o.save_class(), SaveClass::Applied);
        assert_eq!(o.reason(), Some("audit not recorded (append: disk full)"));
    }

    #[test]
    fn s15_12_already_resolved_is_a_conflict_of_its_own_not_a_failure() {
        let o = classify(
            404,
            r#"{"status":"error","message":"approval gate-2 already resolved"}"#,
        );
        assert_eq!(
            o,
            SaveOutcome::Conflict {
                current: GateRowMoved::AlreadyResolved {
                    words: "approval gate-2 already resolved".into()
                }
            }
        );
        let o = classify(
            404,
            r#"{"status":"error","message":"approval gate-2 not found"}"#,
        );
        assert!(matches!(
            o,
            SaveOutcome::Conflict {
                current: GateRowMoved::Gone { .. }
            }
        ));
        assert_eq!(
            classify(404, "404 Not Found").reason(),
            Some(ROUTE_NOT_SERVED)
        );
    }

    #[test]
    fn s15_12_resolve_503_and_a_mismatched_echo_are_unknown_a_400_not_applied() {
        for (status, body) in [
            (
                503,
                r#"{"status":"error","message":"approval gate-2 resolution delivery failed: x"}"#,
            ),
            (200, r#"{"ok":true,"id":"gate-9","decision":"approve"}"#),
            (200, r#"{"ok":true,"id":"gate-2","decision":"reject"}"#),
            (200, "ok"),
        ] {
            assert_eq!(
                classify(status, body).save_class(),
                SaveClass::OutcomeUnknown,
                "{status} {body}"
            );
        }
        assert_eq!(
            classify(
                400,
                r#"{"status":"error","message":"decision is required"}"#
            )
            .save_class(),
            SaveClass::NotApplied
        );
    }

    #[test]
    fn s15_12_retry_refusals_conflicts_and_store_errors() {
        let req = GateRetryRequest {
            id: "gate-3".into(),
            body: json!({}),
        };
        let c = |status: u16, message: &str| {
            classify_gate_retry(
                status,
                json!({"status": "error", "message": message})
                    .to_string()
                    .as_bytes(),
                &req,
            )
            .save_class()
        };
        assert_eq!(
            c(400, "Auto Judge retry requires auto_judge mode"),
            SaveClass::NotApplied
        );
        assert_eq!(
            c(400, "retry request disposition is not operator-rearmable"),
            SaveClass::NotApplied
        );
        assert_eq!(
            c(400, "pending approval not found: gate-3"),
            SaveClass::Conflict
        );
        assert_eq!(
            c(
                400,
                "approval summary is not blocked or is already active: gate-3"
            ),
            SaveClass::Conflict
        );
        assert_eq!(
            c(
                400,
                "retry request.sequence does not match pending approval gate-3"
            ),
            SaveClass::Conflict
        );
        assert_eq!(c(400, "queue store locked"), SaveClass::OutcomeUnknown);
        let ok = classify_gate_retry(200, br#"{"ok":true,"id":"gate-3"}"#, &req);
        assert_eq!(ok.save_class(), SaveClass::Applied);
        let other = classify_gate_retry(200, br#"{"ok":true,"id":"gate-1"}"#, &req);
        assert_eq!(other.save_class(), SaveClass::OutcomeUnknown);
    }
}
