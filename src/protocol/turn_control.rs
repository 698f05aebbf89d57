//! Turn control (protocol.md §14.13 interrupt, §14.14 run-next and steer; §11 "Turn interrupt
//! and run-next"): the request bodies, the 200 shapes and their classifiers.
//!
//! masc-tui never sends the name-only interrupt of the August MASC (it stops whichever turn is
//! current, C-43): every interrupt names exactly one target — the chat operation this client
//! sent (`request_id`) or the `interrupt_token` the §4.2 census shows for an observed turn —
//! and is sent only after a §4.2 read of that server succeeded.

use super::decode::{DecodeError, WireDecode, decode_json};
use super::outcome::{
    SaveOutcome, common_case, error_string, quoted_refusal, refusal, server_text, string_field,
    unlisted,
};

/// MASC's 409 for an interrupt whose target is no longer the current turn (§14.13).
const TARGET_NOT_CURRENT: &str = "target is no longer current";
use serde::Deserialize;
use serde_json::{Value, json};

pub const INTERRUPT_PATH: &str = "/api/v1/keepers/turn/interrupt";
pub const RUN_NEXT_PATH: &str = "/api/v1/keepers/turn/run-next";
pub const TURNS_PATH: &str = "/api/v1/keepers/turns";

/// The one turn an interrupt names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptTarget {
    /// A chat operation this client sent (§4.3 `request_id`).
    Request(String),
    /// An observed turn this client did not send (§4.2 `turn.interrupt_token`).
    Token(String),
}

/// `POST /api/v1/keepers/turn/interrupt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptRequest {
    pub keeper: String,
    pub target: InterruptTarget,
    /// The `chat_control_token` last read (§4.2 row), when one is held.
    pub expected_control_token: Option<String>,
}

impl InterruptRequest {
    pub fn body(&self) -> Value {
        let mut body = json!({"name": self.keeper});
        if let Some(obj) = body.as_object_mut() {
            match &self.target {
                InterruptTarget::Request(id) => obj.insert("request_id".into(), json!(id)),
                InterruptTarget::Token(token) => obj.insert("interrupt_token".into(), json!(token)),
            };
            if let Some(token) = &self.expected_control_token {
                obj.insert("expected_control_token".into(), json!(token));
            }
        }
        body
    }
}

/// The 200 of an interrupt (§14.13). `signalled` is required; everything else optional.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct InterruptReply {
    pub signalled: Option<bool>,
    #[serde(default)]
    pub request_id: Option<String>,
    #[serde(default)]
    pub interrupt_token: Option<String>,
    #[serde(default)]
    pub turn_id: Option<i64>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub detail: Option<String>,
    #[serde(default)]
    pub current_request_id: Option<String>,
    #[serde(default)]
    pub paused: Option<bool>,
    #[serde(default)]
    pub chat_control_token: Option<String>,
}

impl WireDecode for InterruptReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

impl InterruptReply {
    /// Whether the reply echoes exactly the target that was asked.
    fn echoes(&self, target: &InterruptTarget) -> bool {
        match target {
            InterruptTarget::Request(id) => {
                self.request_id.as_deref() == Some(id.as_str()) && self.interrupt_token.is_none()
            }
            InterruptTarget::Token(token) => {
                self.interrupt_token.as_deref() == Some(token.as_str()) && self.request_id.is_none()
            }
        }
    }
}

/// A stop was signalled (not: the turn ended — that is read from the stream or §4.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptSignalled {
    pub turn_id: Option<i64>,
    /// The Keeper's queue is held after the stop until resumed (newest MASC).
    pub paused: bool,
    /// The control token that replaces the held one (newest MASC).
    pub chat_control_token: Option<String>,
}

/// Another turn is current now (`operation_not_current`, or 409 target no longer current).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnNotCurrent {
    pub current_request_id: Option<String>,
}

pub type InterruptOutcome = SaveOutcome<InterruptSignalled, TurnNotCurrent>;

/// §11 turn interrupt.
pub fn classify_interrupt(status: u16, body: &[u8], req: &InterruptRequest) -> InterruptOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => {
            let reply = match InterruptReply::decode(body) {
                Ok(r) => r,
                Err(e) => {
                    return SaveOutcome::unknown(format!("undecodable {status} ({})", e.reason()));
                }
            };
            let Some(signalled) = reply.signalled else {
                return SaveOutcome::unknown(format!("{status} without signalled"));
            };
            // An older server may have stopped whichever turn was current: without the
            // echo of exactly this target nothing is known.
            if !reply.echoes(&req.target) {
                return SaveOutcome::unknown(format!("{status} without this target's echo"));
            }
            if signalled {
                return SaveOutcome::Applied {
                    detail: InterruptSignalled {
                        turn_id: reply.turn_id,
                        paused: reply.paused.unwrap_or(false),
                        chat_control_token: reply.chat_control_token,
                    },
                    warning: None,
                };
            }
            match reply.reason.as_deref() {
                Some("no_in_flight_turn") => SaveOutcome::Unchanged,
                Some("operation_not_current") => SaveOutcome::Conflict {
                    current: TurnNotCurrent {
                        current_request_id: reply.current_request_id,
                    },
                },
                Some(reason) => SaveOutcome::not_applied(match reply.detail.as_deref() {
                    Some(detail) if !detail.trim().is_empty() => format!("{reason}: {detail}"),
                    _ => reason.to_string(),
                }),
                None => SaveOutcome::unknown(format!("{status} signalled:false without a reason")),
            }
        }
        // "Another turn is current" only when the body says so (MASC's `target is no longer
        // current`, or the current request named); any other 409 is quoted.
        409 if error_string(body).as_deref() == Some(TARGET_NOT_CURRENT)
            || string_field(body, "current_request_id").is_some() =>
        {
            SaveOutcome::Conflict {
                current: TurnNotCurrent {
                    current_request_id: string_field(body, "current_request_id"),
                },
            }
        }
        409 => SaveOutcome::not_applied(quoted_refusal(status, body)),
        400 | 404 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

/// `POST /api/v1/keepers/turn/run-next` (`/steer` names the running turn's token; `/run-next`
/// sends null).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunNextRequest {
    pub keeper: String,
    /// A queued chat operation this client submitted.
    pub request_id: String,
    pub interrupt_token: Option<String>,
    /// This client's inputs already promoted, kept ahead in their order (sent when any).
    pub priority_predecessors: Vec<String>,
}

impl RunNextRequest {
    pub fn body(&self) -> Value {
        let mut body = json!({
            "name": self.keeper,
            "request_id": self.request_id,
            "interrupt_token": self.interrupt_token,
        });
        if !self.priority_predecessors.is_empty() {
            body["priority_predecessors"] = json!(self.priority_predecessors);
        }
        body
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RunNextReply {
    #[serde(default)]
    pub request_id: Option<String>,
    #[serde(default)]
    pub prioritized: Option<bool>,
    #[serde(default)]
    pub signalled: Option<bool>,
    #[serde(default)]
    pub detail: Option<String>,
}

impl WireDecode for RunNextReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

/// The input runs next; `signalled` says whether the named running turn was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prioritized {
    pub signalled: bool,
}

/// The input already started or settled, or a predecessor is not this client's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunNextConflict {
    pub detail: Option<String>,
}

pub type RunNextOutcome = SaveOutcome<Prioritized, RunNextConflict>;

/// §11 run-next / steer.
pub fn classify_run_next(status: u16, body: &[u8], req: &RunNextRequest) -> RunNextOutcome {
    // 403 here is "another producer's input" (not applied), as in the common cases.
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match RunNextReply::decode(body) {
            Ok(r)
                if r.request_id.as_deref() == Some(req.request_id.as_str())
                    && r.prioritized == Some(true) =>
            {
                SaveOutcome::Applied {
                    detail: Prioritized {
                        signalled: r.signalled.unwrap_or(false),
                    },
                    warning: None,
                }
            }
            Ok(_) => SaveOutcome::unknown(format!(
                "{status} without this request's echo and prioritized:true"
            )),
            Err(e) => SaveOutcome::unknown(format!("undecodable {status} ({})", e.reason())),
        },
        409 => SaveOutcome::Conflict {
            // §14.14 names no typed reason in the body: the server's words are the receipt.
            current: RunNextConflict {
                detail: server_text(body),
            },
        },
        400 | 404 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::outcome::SaveClass;

    fn req() -> InterruptRequest {
        InterruptRequest {
            keeper: "alpha".into(),
            target: InterruptTarget::Request("tui-01".into()),
            expected_control_token: Some("control-alpha".into()),
        }
    }

    #[test]
    fn s14_13_body_names_exactly_one_target() {
        let body = req().body();
        assert_eq!(
            body,
            json!({"name":"alpha","request_id":"tui-01","expected_control_token":"control-alpha"})
        );
        let token = InterruptRequest {
            keeper: "alpha".into(),
            target: InterruptTarget::Token("i-1".into()),
            expected_control_token: None,
        };
        assert_eq!(
            token.body(),
            json!({"name":"alpha","interrupt_token":"i-1"})
        );
    }

    #[test]
    fn s11_interrupt_classes() {
        let r = req();
        let c = |status: u16, body: &str| classify_interrupt(status, body.as_bytes(), &r);
        assert!(matches!(
            c(
                200,
                r#"{"signalled":true,"paused":true,"request_id":"tui-01","chat_control_token":"c2"}"#
            ),
            SaveOutcome::Applied {
                detail: InterruptSignalled { paused: true, .. },
                ..
            }
        ));
        assert_eq!(
            c(
                200,
                r#"{"signalled":false,"reason":"no_in_flight_turn","request_id":"tui-01"}"#
            ),
            SaveOutcome::Unchanged
        );
        assert_eq!(
            c(
                200,
                r#"{"signalled":false,"reason":"operation_not_current","current_request_id":"tui-02","request_id":"tui-01"}"#
            ),
            SaveOutcome::Conflict {
                current: TurnNotCurrent {
                    current_request_id: Some("tui-02".into())
                }
            }
        );
        // C-44: a failure to stop is not applied, with the server's words.
        assert_eq!(
            c(
                200,
                r#"{"signalled":false,"reason":"cancel_failed","detail":"fiber busy","request_id":"tui-01"}"#
            ),
            SaveOutcome::NotApplied {
                reason: "cancel_failed: fiber busy".into()
            }
        );
        // Without the echo (an older server stops whatever is current): unknown.
        assert_eq!(
            c(200, r#"{"signalled":true,"turn_id":3}"#).save_class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(
            c(200, r#"{"signalled":true,"request_id":"tui-09"}"#).save_class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(
            c(200, r#"{"request_id":"tui-01"}"#).save_class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(
            c(
                409,
                r#"{"error":"target is no longer current","signalled":false}"#
            )
            .save_class(),
            SaveClass::Conflict
        );
        assert_eq!(
            c(409, r#"{"current_request_id":"tui-02"}"#).save_class(),
            SaveClass::Conflict
        );
        // A 409 without the typed reason is quoted, never "another turn is current".
        assert_eq!(
            c(409, r#"{"error":"queue frozen by operator"}"#),
            SaveOutcome::NotApplied {
                reason: "refused (HTTP 409): queue frozen by operator".into()
            }
        );
        assert_eq!(
            c(409, "<html>busy</html>"),
            SaveOutcome::NotApplied {
                reason: "refused (HTTP 409): <html>busy</html>".into()
            }
        );
        assert_eq!(
            c(404, r#"{"error":{"message":"keeper not registered"}}"#).save_class(),
            SaveClass::NotApplied
        );
        assert_eq!(c(400, "{}").save_class(), SaveClass::NotApplied);
        assert_eq!(c(502, "").save_class(), SaveClass::OutcomeUnknown);
    }

    #[test]
    fn s11_run_next_classes() {
        let r = RunNextRequest {
            keeper: "alpha".into(),
            request_id: "tui-02".into(),
            interrupt_token: Some("i-1".into()),
            priority_predecessors: Vec::new(),
        };
        assert_eq!(
            r.body(),
            json!({"name":"alpha","request_id":"tui-02","interrupt_token":"i-1"})
        );
        let run_next = RunNextRequest {
            interrupt_token: None,
            priority_predecessors: vec!["tui-01".into()],
            ..r.clone()
        };
        assert_eq!(
            run_next.body(),
            json!({"name":"alpha","request_id":"tui-02","interrupt_token":null,
                   "priority_predecessors":["tui-01"]})
        );
        let c = |status: u16, body: &str| classify_run_next(status, body.as_bytes(), &r);
        assert_eq!(
            c(
                200,
                r#"{"request_id":"tui-02","prioritized":true,"signalled":true,"detail":""}"#
            ),
            SaveOutcome::Applied {
                detail: Prioritized { signalled: true },
                warning: None
            }
        );
        assert_eq!(
            c(200, r#"{"request_id":"tui-03","prioritized":true}"#).save_class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(c(403, "{}").save_class(), SaveClass::NotApplied);
        assert_eq!(
            c(409, r#"{"error":"already started"}"#).save_class(),
            SaveClass::Conflict
        );
        assert_eq!(c(500, "").save_class(), SaveClass::OutcomeUnknown);
    }
}
