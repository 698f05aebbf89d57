//! Held tool calls (protocol.md §14.5; newer MASC): the list of tool calls whose turn waits on
//! an operator's answer, and the answer. `GET /api/v1/keepers/tool-approvals` is live memory on
//! the server: a call is listed exactly while its turn waits on it, oldest first. Every listed
//! field is required (`because` may be null); a row failing a check fails the whole read, so
//! the list is never shown in part. The routes were not found in the MASC snapshot fetched for
//! this step (jeong-sik/masc d541eb0750); shapes are protocol.md's.

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object, decode_object};
use super::outcome::{ROUTE_NOT_SERVED, SaveOutcome, common_case, unlisted};
use super::routes::{NotFoundMeaning, RouteFamily, classify_404};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `GET`: every Keeper's held calls.
pub const HELD_CALLS_PATH: &str = "/api/v1/keepers/tool-approvals";
/// `POST`: one answer.
pub const HELD_CALL_DECISION_PATH: &str = "/api/v1/keepers/tool-approval";

/// One held call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct HeldToolCall {
    pub keeper: String,
    pub tool_call_id: String,
    pub tool: String,
    /// The call's arguments as text (shown as inert, sanitised text).
    pub args: String,
    pub question: String,
    /// Why the call is held; `None` when not given — null, or absent on a MASC older than the
    /// field (its own client reads those rows too).
    #[serde(default)]
    pub because: Option<String>,
    /// Server clock (unix seconds): never compared with this machine's clock.
    pub asked_at: f64,
    pub timeout_sec: f64,
}

/// The list (`{"pending":[…]}`), oldest first as the server sent it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeldToolCalls {
    pub pending: Vec<HeldToolCall>,
}

impl HeldToolCalls {
    /// The held calls of `keeper`, oldest first.
    pub fn of_keeper<'a>(&'a self, keeper: &'a str) -> impl Iterator<Item = &'a HeldToolCall> {
        self.pending.iter().filter(move |c| c.keeper == keeper)
    }
}

impl WireDecode for HeldToolCalls {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Wire {
            pending: Vec<HeldToolCall>,
        }
        let w: Wire = decode_json_object(bytes)?;
        for (i, c) in w.pending.iter().enumerate() {
            let blank = [
                ("keeper", &c.keeper),
                ("tool_call_id", &c.tool_call_id),
                ("tool", &c.tool),
            ]
            .into_iter()
            .find(|(_, v)| v.trim().is_empty());
            if let Some((field, _)) = blank {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    format!(".pending[{i}].{field}"),
                    "blank",
                ));
            }
            if !c.asked_at.is_finite() || !c.timeout_sec.is_finite() || c.timeout_sec < 0.0 {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    format!(".pending[{i}].timeout_sec"),
                    "not a finite time or a negative timeout",
                ));
            }
        }
        Ok(Self { pending: w.pending })
    }
}

/// The operator's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallVerdict {
    Approve,
    Deny,
}

impl ToolCallVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Deny => "deny",
        }
    }
}

/// `POST` body: `{"name", "tool_call_id", "decision"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCallDecisionRequest {
    pub keeper: String,
    pub tool_call_id: String,
    pub decision: ToolCallVerdict,
}

impl HeldCallDecisionRequest {
    pub fn body(&self) -> Value {
        json!({
            "name": self.keeper,
            "tool_call_id": self.tool_call_id,
            "decision": self.decision.as_str(),
        })
    }
}

/// What the answer did (the 200 `{settled, remembered, decision}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeldCallEffect {
    /// `settled:true`: the waiting call was released with this answer.
    Released,
    /// `settled:false, remembered:true`: the wait had ended; MASC keeps the answer for the
    /// identical retried call.
    Remembered,
}

/// The 200 of an answer whose call was released or remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldCallDecisionReply {
    pub effect: HeldCallEffect,
    pub decision: ToolCallVerdict,
}

/// The 200 where nothing was waiting (`settled:false, remembered:false`: already answered or
/// expired) — a conflict of the answer with the server's state, not an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NothingWaiting;

/// Decodes the 200 of `req`: `Ok(Ok(reply))` released or remembered, `Ok(Err(NothingWaiting))`
/// nothing was waiting; a `decision` echo other than the request's fails.
pub fn decode_decision_reply(
    bytes: &[u8],
    req: &HeldCallDecisionRequest,
) -> Result<Result<HeldCallDecisionReply, NothingWaiting>, DecodeError> {
    #[derive(Deserialize)]
    struct Wire {
        settled: bool,
        remembered: bool,
        decision: String,
    }
    let w: Wire = decode_json_object(bytes)?;
    if w.decision != req.decision.as_str() {
        return Err(DecodeError::new(
            DecodeErrorKind::EchoMismatch,
            ".decision",
            "another decision than the request's",
        ));
    }
    Ok(match (w.settled, w.remembered) {
        (true, _) => Ok(HeldCallDecisionReply {
            effect: HeldCallEffect::Released,
            decision: req.decision,
        }),
        (false, true) => Ok(HeldCallDecisionReply {
            effect: HeldCallEffect::Remembered,
            decision: req.decision,
        }),
        (false, false) => Err(NothingWaiting),
    })
}

/// How an answer ended (§11): applied = released or remembered; conflict = nothing was
/// waiting (already answered or expired).
pub type HeldCallDecisionOutcome = SaveOutcome<HeldCallDecisionReply, NothingWaiting>;

/// The server's words of a §14.4-style refusal: `error.message`, `error`, or `message`.
fn refusal_words(status: u16, body: &[u8]) -> String {
    let obj = decode_object(body).ok();
    let words = obj.as_ref().and_then(|o| match o.get("error") {
        Some(Value::Object(e)) => e.get("message").and_then(Value::as_str).map(str::to_string),
        Some(Value::String(s)) => Some(s.clone()),
        _ => o.get("message").and_then(Value::as_str).map(str::to_string),
    });
    match words {
        Some(w) => format!("HTTP {status}: {w}"),
        None => format!("HTTP {status}"),
    }
}

/// The §11 classifier of an answer (`POST /api/v1/keepers/tool-approval`). Not idempotent
/// in effect (an answer releases a turn), so anything unlisted is outcome unknown and never
/// resent; 400 and 404 are refusals before any effect (as §14.4), a route this MASC does not
/// serve is not applied.
pub fn classify_held_call_decision(
    status: u16,
    body: &[u8],
    req: &HeldCallDecisionRequest,
) -> HeldCallDecisionOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match decode_decision_reply(body, req) {
            Ok(Ok(reply)) => {
                let warning = (reply.effect == HeldCallEffect::Remembered).then(|| {
                    "the wait had ended; the server keeps the answer for the same call retried"
                        .to_string()
                });
                SaveOutcome::Applied {
                    detail: reply,
                    warning,
                }
            }
            Ok(Err(nothing)) => SaveOutcome::Conflict { current: nothing },
            Err(e) => SaveOutcome::OutcomeUnknown {
                reason: format!("200 failing a reply check ({})", e.reason()),
            },
        },
        404 if classify_404(RouteFamily::HeldCallDecision, body) == NotFoundMeaning::NotServed => {
            SaveOutcome::NotApplied {
                reason: ROUTE_NOT_SERVED.to_string(),
            }
        }
        400 | 404 => SaveOutcome::NotApplied {
            reason: refusal_words(status, body),
        },
        _ => unlisted(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &[u8] = br#"{"pending":[{"keeper":"rondo","tool_call_id":"call-9","tool":"bash","args":"{\"cmd\":\"rm -rf build\"}","question":"Run bash?","because":null,"asked_at":1795165200.5,"timeout_sec":600}]}"#;

    #[test]
    fn s14_5_the_list_decodes_every_field() {
        let list = HeldToolCalls::decode(LIST).unwrap();
        assert_eq!(list.pending.len(), 1);
        let c = &list.pending[0];
        assert_eq!(c.tool_call_id, "call-9");
        assert_eq!(c.because, None);
        assert_eq!(list.of_keeper("rondo").count(), 1);
        assert_eq!(list.of_keeper("mira").count(), 0);
    }

    #[test]
    fn s14_5_a_bad_row_fails_the_whole_read() {
        let missing = String::from_utf8_lossy(LIST).replace(r#""question":"Run bash?","#, "");
        assert!(HeldToolCalls::decode(missing.as_bytes()).is_err());
        let blank = String::from_utf8_lossy(LIST).replace(r#""call-9""#, r#""  ""#);
        assert!(HeldToolCalls::decode(blank.as_bytes()).is_err());
        assert!(HeldToolCalls::decode(b"[]").is_err());
        assert!(HeldToolCalls::decode(br#"{"pending":null}"#).is_err());
    }

    #[test]
    fn s14_5_the_answer_reply_reads_released_remembered_or_nothing_waiting() {
        let req = HeldCallDecisionRequest {
            keeper: "rondo".into(),
            tool_call_id: "call-9".into(),
            decision: ToolCallVerdict::Deny,
        };
        assert_eq!(
            req.body(),
            json!({"name":"rondo","tool_call_id":"call-9","decision":"deny"})
        );
        let r = |b: &str| decode_decision_reply(b.as_bytes(), &req);
        assert_eq!(
            r(r#"{"settled":true,"remembered":false,"decision":"deny"}"#)
                .unwrap()
                .unwrap()
                .effect,
            HeldCallEffect::Released
        );
        assert_eq!(
            r(r#"{"settled":false,"remembered":true,"decision":"deny"}"#)
                .unwrap()
                .unwrap()
                .effect,
            HeldCallEffect::Remembered
        );
        assert_eq!(
            r(r#"{"settled":false,"remembered":false,"decision":"deny"}"#).unwrap(),
            Err(NothingWaiting)
        );
        assert!(r(r#"{"settled":true,"remembered":false,"decision":"approve"}"#).is_err());
    }
    #[test]
    fn s11_s14_5_answer_classes() {
        let req = HeldCallDecisionRequest {
            keeper: "rondo".into(),
            tool_call_id: "call-9".into(),
            decision: ToolCallVerdict::Approve,
        };
        let c = |status, body: &str| classify_held_call_decision(status, body.as_bytes(), &req);
        assert!(matches!(
            c(
                200,
                r#"{"settled":true,"remembered":false,"decision":"approve"}"#
            ),
            SaveOutcome::Applied { warning: None, .. }
        ));
        assert!(matches!(
            c(
                200,
                r#"{"settled":false,"remembered":true,"decision":"approve"}"#
            ),
            SaveOutcome::Applied {
                warning: Some(_),
                ..
            }
        ));
        assert_eq!(
            c(
                200,
                r#"{"settled":false,"remembered":false,"decision":"approve"}"#
            ),
            SaveOutcome::Conflict {
                current: NothingWaiting
            }
        );
        assert!(matches!(
            c(
                200,
                r#"{"settled":true,"remembered":false,"decision":"deny"}"#
            ),
            SaveOutcome::OutcomeUnknown { .. }
        ));
        assert_eq!(
            c(404, r#"{"error":{"message":"keeper not registered"}}"#),
            SaveOutcome::NotApplied {
                reason: "HTTP 404: keeper not registered".into()
            }
        );
        assert!(matches!(
            c(
                400,
                r#"{"error":{"message":"tool_call_id (string) is required"}}"#
            ),
            SaveOutcome::NotApplied { .. }
        ));
        assert!(matches!(c(500, "{}"), SaveOutcome::OutcomeUnknown { .. }));
        assert!(matches!(c(403, "{}"), SaveOutcome::NotApplied { .. }));
    }
}
