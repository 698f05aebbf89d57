//! Goal actions (protocol-15-operator.md §15.4 `POST /api/v1/tools/masc_goal_transition`,
//! newer MASC) and their §15.12 outcomes.
//!
//! The server owns the transition table; the client never pre-guesses it (an invalid
//! transition is the server's `conflict` to return). Both reply envelopes carry the tool's
//! JSON as *text* in `message`: 200 `{ok:true, message:"{status:ok, goal_id, action, goal,
//! verification?}"}` (moved) or with `noop:true, phase` (already there, nothing written); 400
//! `{ok:false, message:"{status:error, error_code, message}"}` or plain text (`Invalid JSON:
//! …`). An older MASC (Aug) has no REST route and answers its unknown-route 404: not served.

use super::board::ToolEnvelope;
use super::client::WriteExchange;
use super::decode::{WireDecode, decode_json};
use super::outcome::{SaveOutcome, classify_transport, common_case, refusal};
use super::planning::GoalPhase;
use super::routes::{NotFoundMeaning, RouteFamily, classify_404};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::convert::Infallible;

pub const GOAL_TRANSITION_PATH: &str = "/api/v1/tools/masc_goal_transition";

/// The actions masc-tui sends (`c`, `x`, `o`). The tool also takes pause/resume/block/unblock,
/// which newer MASC removes or changes; masc-tui never sends them (§15.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalAction {
    RequestComplete,
    Drop,
    Reopen,
}

impl GoalAction {
    pub const ALL: [GoalAction; 3] = [Self::RequestComplete, Self::Drop, Self::Reopen];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::RequestComplete => "request_complete",
            Self::Drop => "drop",
            Self::Reopen => "reopen",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// The request a transition answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalTransitionRequest {
    pub goal_id: String,
    pub action: GoalAction,
    /// Stored by a moving transition as the goal's `last_review_note`; blank is not sent.
    pub note: Option<String>,
}

impl GoalTransitionRequest {
    /// `{"goal_id", "action", "note"?}`: the tool takes no other keys.
    pub fn body(&self) -> Value {
        let mut v = serde_json::json!({"goal_id": self.goal_id, "action": self.action.as_str()});
        if let Some(note) = self
            .note
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            && let Some(obj) = v.as_object_mut()
        {
            obj.insert("note".into(), Value::String(note.to_string()));
        }
        v
    }
}

/// What a 200 said the goal is now. `phase` is the reply's (`goal.phase`, or `phase` of a
/// no-op): shown until the planning re-read, which may trail it (the body is memoised up to
/// 60 s). `None`: the reply named no phase masc-tui knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalTransitioned {
    pub goal_id: String,
    pub action: GoalAction,
    pub phase: Option<GoalPhase>,
    /// A `verification` record came with a `request_complete`: a proof was requested (never
    /// "completed").
    pub proof_requested: bool,
}

/// Why the server refused before any effect (§15.12 "not applied").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalRefusal {
    /// This MASC has no REST route for goal actions (an older server's unknown-route 404).
    NotServed,
    /// `error_code: not_found`.
    NotFound,
    /// `error_code: validation_error`: the server's summary (`<n> field error(s)`) and fields.
    Validation {
        message: String,
        fields: Vec<String>,
    },
    /// The plain-text `Invalid JSON: …`.
    InvalidJson { message: String },
    /// A refusal every write shares (401/403, 429, another workspace) or a 400 without the
    /// tool envelope: the reason as the common rules word it.
    Refused { reason: String },
}

/// §15.12 for a goal action: typed per outcome, with what each one needs on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoalTransitionOutcome {
    /// Refused before anything left the machine.
    NotSent {
        reason: String,
    },
    NotApplied(GoalRefusal),
    /// The goal moved (`message.status:"ok"` echoing `goal_id` and `action`).
    Moved(GoalTransitioned),
    /// `noop:true`: already in that phase; nothing written.
    Already(GoalTransitioned),
    /// `error_code: conflict`: the goal is not where the action starts (it moved since it was
    /// read, or the table refuses it); the server's words. Re-read §5.7.
    Conflict {
        message: String,
    },
    /// The request may have had an effect (`internal_error` after a proof request was
    /// written, a 200 whose `message` is not JSON, a reply for another goal or action, …).
    OutcomeUnknown {
        reason: String,
    },
}

#[derive(Deserialize)]
struct ReplyWire {
    status: String,
    goal_id: String,
    action: String,
    #[serde(default)]
    noop: bool,
    #[serde(default)]
    phase: Option<Value>,
    #[serde(default)]
    goal: Option<Value>,
    #[serde(default)]
    verification: Option<Value>,
}

#[derive(Deserialize)]
struct ErrorWire {
    status: String,
    error_code: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    field_errors: Option<Vec<FieldErrorWire>>,
}

#[derive(Deserialize)]
struct FieldErrorWire {
    field: String,
}

fn phase_of(v: Option<&Value>) -> Option<GoalPhase> {
    v.and_then(|p| serde_json::from_value::<GoalPhase>(p.clone()).ok())
}

/// The 200 `message` text: moved or already, or why it cannot be trusted.
fn read_reply(message: &str, req: &GoalTransitionRequest) -> GoalTransitionOutcome {
    let Ok(w) = decode_json::<ReplyWire>(message.as_bytes()) else {
        return GoalTransitionOutcome::unknown("200 whose message is not the tool's JSON");
    };
    if w.status != "ok" {
        return GoalTransitionOutcome::unknown("200 whose message is not status ok");
    }
    if w.goal_id != req.goal_id {
        return GoalTransitionOutcome::unknown("200 for another goal");
    }
    if w.action != req.action.as_str() {
        return GoalTransitionOutcome::unknown("200 for another action");
    }
    let goal_phase = phase_of(w.goal.as_ref().and_then(|g| g.get("phase")));
    let done = GoalTransitioned {
        goal_id: w.goal_id,
        action: req.action,
        phase: if w.noop {
            phase_of(w.phase.as_ref()).or(goal_phase)
        } else {
            goal_phase
        },
        proof_requested: req.action == GoalAction::RequestComplete && w.verification.is_some(),
    };
    if w.noop {
        GoalTransitionOutcome::Already(done)
    } else {
        GoalTransitionOutcome::Moved(done)
    }
}

/// A 400 `message`: the tool's error JSON, or plain text.
fn read_refusal(message: &str) -> GoalTransitionOutcome {
    let Ok(w) = decode_json::<ErrorWire>(message.as_bytes()) else {
        return if message.trim_start().starts_with("Invalid JSON") {
            GoalTransitionOutcome::NotApplied(GoalRefusal::InvalidJson {
                message: message.to_string(),
            })
        } else {
            // An exception's text: nothing says where it was raised.
            GoalTransitionOutcome::unknown("400 with a plain-text error")
        };
    };
    let words = w.message.unwrap_or_default();
    if w.status != "error" {
        return GoalTransitionOutcome::unknown("400 whose message is not status error");
    }
    match w.error_code.as_str() {
        "not_found" => GoalTransitionOutcome::NotApplied(GoalRefusal::NotFound),
        "validation_error" => GoalTransitionOutcome::NotApplied(GoalRefusal::Validation {
            message: words,
            fields: w
                .field_errors
                .unwrap_or_default()
                .into_iter()
                .map(|f| f.field)
                .collect(),
        }),
        "conflict" => GoalTransitionOutcome::Conflict { message: words },
        "internal_error" => GoalTransitionOutcome::unknown(format!("internal_error: {words}")),
        _ => GoalTransitionOutcome::unknown("400 with an unlisted error code"),
    }
}

impl GoalTransitionOutcome {
    fn unknown(reason: impl Into<String>) -> Self {
        Self::OutcomeUnknown {
            reason: reason.into(),
        }
    }

    /// The cases every write shares, in this kind's terms.
    fn common(o: SaveOutcome<Infallible, Infallible>) -> Self {
        match o {
            SaveOutcome::NotSent { reason } => Self::NotSent { reason },
            SaveOutcome::NotApplied { reason } => Self::NotApplied(GoalRefusal::Refused { reason }),
            SaveOutcome::OutcomeUnknown { reason } => Self::OutcomeUnknown { reason },
            SaveOutcome::Unchanged => Self::unknown("unchanged without a reply"),
            SaveOutcome::Applied { detail, .. } => match detail {},
            SaveOutcome::Conflict { current } => match current {},
        }
    }
}

/// The whole exchange: the transport's not sent / unknown, else [`classify_goal_transition`].
pub fn classify_goal_transition_exchange(
    exchange: &WriteExchange,
    req: &GoalTransitionRequest,
) -> GoalTransitionOutcome {
    match classify_transport::<Infallible, Infallible>(exchange) {
        Ok((status, body)) => classify_goal_transition(status, body, req),
        Err(o) => GoalTransitionOutcome::common(o),
    }
}

/// The §15.12 classifier of `POST /api/v1/tools/masc_goal_transition`.
pub fn classify_goal_transition(
    status: u16,
    body: &[u8],
    req: &GoalTransitionRequest,
) -> GoalTransitionOutcome {
    if let Some(o) = common_case(status, body) {
        return GoalTransitionOutcome::common(o);
    }
    match status {
        200 => match ToolEnvelope::decode(body) {
            Ok(env) if env.ok => read_reply(&env.message, req),
            Ok(_) => GoalTransitionOutcome::unknown("200 tool envelope with ok:false"),
            Err(_) => GoalTransitionOutcome::unknown("200 that is not the tool envelope"),
        },
        400 => match ToolEnvelope::decode(body) {
            Ok(env) if !env.ok => read_refusal(&env.message),
            _ => GoalTransitionOutcome::NotApplied(GoalRefusal::Refused {
                reason: refusal(status, body),
            }),
        },
        404 if classify_404(RouteFamily::GoalTransition, body) == NotFoundMeaning::NotServed => {
            GoalTransitionOutcome::NotApplied(GoalRefusal::NotServed)
        }
        s if (200..300).contains(&s) => GoalTransitionOutcome::unknown(format!("unexpected {s}")),
        s => GoalTransitionOutcome::unknown(format!("unlisted HTTP {s}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(action: GoalAction) -> GoalTransitionRequest {
        GoalTransitionRequest {
            goal_id: "goal-1".into(),
            action,
            note: None,
        }
    }

    fn tool(ok: bool, message: &Value) -> String {
        let text = match message {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        serde_json::json!({"ok": ok, "message": text}).to_string()
    }

    fn classify(status: u16, body: &str, action: GoalAction) -> GoalTransitionOutcome {
        classify_goal_transition(status, body.as_bytes(), &req(action))
    }

    #[test]
    fn s15_4_the_body_sends_a_note_only_when_not_blank() {
        let mut r = req(GoalAction::Drop);
        assert_eq!(
            r.body(),
            serde_json::json!({"goal_id": "goal-1", "action": "drop"})
        );
        r.note = Some("  ".into());
        assert_eq!(r.body().get("note"), None);
        r.note = Some("superseded".into());
        assert_eq!(r.body()["note"], "superseded");
        assert_eq!(GoalAction::parse("reopen"), Some(GoalAction::Reopen));
        assert_eq!(GoalAction::parse("pause"), None);
    }

    #[test]
    fn s15_12_moved_and_proof_requested() {
        let msg = serde_json::json!({"status":"ok","goal_id":"goal-1","action":"request_complete",
            "goal":{"id":"goal-1","phase":"verifying"},
            "verification":{"goal_id":"goal-1","completion":{"state":"proof_pending"}}});
        let o = classify(200, &tool(true, &msg), GoalAction::RequestComplete);
        assert_eq!(
            o,
            GoalTransitionOutcome::Moved(GoalTransitioned {
                goal_id: "goal-1".into(),
                action: GoalAction::RequestComplete,
                phase: Some(GoalPhase::Verifying),
                proof_requested: true,
            })
        );
    }

    #[test]
    fn s15_12_noop_is_already_in_that_phase() {
        let msg = serde_json::json!({"status":"ok","goal_id":"goal-1","action":"drop","noop":true,
            "phase":"dropped","goal":{"id":"goal-1","phase":"dropped"}});
        match classify(200, &tool(true, &msg), GoalAction::Drop) {
            GoalTransitionOutcome::Already(t) => {
                assert_eq!(t.phase, Some(GoalPhase::Dropped));
                assert!(!t.proof_requested);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn s15_12_refusals_conflict_and_unknowns_are_apart() {
        let err = |code: &str| {
            tool(
                false,
                &serde_json::json!({"status":"error","error_code":code,"message":"m"}),
            )
        };
        assert_eq!(
            classify(400, &err("not_found"), GoalAction::Drop),
            GoalTransitionOutcome::NotApplied(GoalRefusal::NotFound)
        );
        assert_eq!(
            classify(400, &err("conflict"), GoalAction::Drop),
            GoalTransitionOutcome::Conflict {
                message: "m".into()
            }
        );
        assert!(matches!(
            classify(400, &err("internal_error"), GoalAction::Drop),
            GoalTransitionOutcome::OutcomeUnknown { .. }
        ));
        let validation = tool(
            false,
            &serde_json::json!({"status":"error","error_code":"validation_error",
                "field_errors":[{"field":"action","constraint":"one_of","message":"x"}],
                "message":"1 field error(s)"}),
        );
        assert_eq!(
            classify(400, &validation, GoalAction::Drop),
            GoalTransitionOutcome::NotApplied(GoalRefusal::Validation {
                message: "1 field error(s)".into(),
                fields: vec!["action".into()],
            })
        );
        let plain = tool(false, &Value::String("Invalid JSON: line 1".into()));
        assert!(matches!(
            classify(400, &plain, GoalAction::Drop),
            GoalTransitionOutcome::NotApplied(GoalRefusal::InvalidJson { .. })
        ));
        let exception = tool(false, &Value::String("Not_found".into()));
        assert!(matches!(
            classify(400, &exception, GoalAction::Drop),
            GoalTransitionOutcome::OutcomeUnknown { .. }
        ));
    }

    #[test]
    fn s15_12_a_200_not_json_or_for_another_goal_is_unknown() {
        let unknown = |body: String| {
            matches!(
                classify(200, &body, GoalAction::Reopen),
                GoalTransitionOutcome::OutcomeUnknown { .. }
            )
        };
        assert!(unknown(tool(true, &Value::String("moved".into()))));
        let other =
            serde_json::json!({"status":"ok","goal_id":"goal-2","action":"reopen","goal":{}});
        assert!(unknown(tool(true, &other)));
        let action =
            serde_json::json!({"status":"ok","goal_id":"goal-1","action":"drop","goal":{}});
        assert!(unknown(tool(true, &action)));
        assert!(unknown(r#"{"moved":true}"#.into()));
    }

    #[test]
    fn s15_4_an_older_masc_does_not_serve_the_route() {
        assert_eq!(
            classify(404, "404 Not Found", GoalAction::Reopen),
            GoalTransitionOutcome::NotApplied(GoalRefusal::NotServed)
        );
        assert!(matches!(
            classify(403, "{}", GoalAction::Reopen),
            GoalTransitionOutcome::NotApplied(GoalRefusal::Refused { .. })
        ));
        assert!(matches!(
            classify(502, "", GoalAction::Reopen),
            GoalTransitionOutcome::OutcomeUnknown { .. }
        ));
    }
}
