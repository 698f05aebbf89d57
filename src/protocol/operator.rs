//! Operator approvals: the summary list and the confirm/deny reply (protocol.md §10.5).
//! Any failed check fails the whole read; the list is never shown in part.

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_object, decode_value_at, required_key,
    required_nullable,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionType {
    Broadcast,
    NamespacePause,
    NamespaceResume,
    TaskInject,
    KeeperMessage,
    KeeperProbe,
    KeeperRecover,
}

impl ActionType {
    /// The `delegated_tool` this action fixes.
    pub fn delegated_tool(self) -> &'static str {
        match self {
            Self::Broadcast => "masc_broadcast",
            Self::NamespacePause => "masc_pause",
            Self::NamespaceResume => "masc_resume",
            Self::TaskInject => "masc_add_task",
            Self::KeeperMessage => "masc_keeper_delegate",
            Self::KeeperProbe => "masc_keeper_status",
            Self::KeeperRecover => "masc_keeper_recover",
        }
    }
    /// Keeper actions target a named keeper; the others the workspace with a null id.
    pub fn targets_keeper(self) -> bool {
        matches!(
            self,
            Self::KeeperMessage | Self::KeeperProbe | Self::KeeperRecover
        )
    }
}

/// One pending approval (closed; all ten keys required).
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    pub confirm_token: String,
    pub trace_id: String,
    pub actor: String,
    pub action_type: ActionType,
    pub target_type: String,
    pub target_id: Option<String>,
    /// Opaque; shown as inert text.
    pub payload: Map<String, Value>,
    pub delegated_tool: String,
    pub created_at: OffsetDateTime,
    pub expires_at: Option<OffsetDateTime>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalWire {
    confirm_token: String,
    trace_id: String,
    actor: String,
    action_type: ActionType,
    target_type: String,
    #[serde(deserialize_with = "required_nullable")]
    target_id: Option<String>,
    payload: Map<String, Value>,
    delegated_tool: String,
    created_at: String,
    #[serde(deserialize_with = "required_nullable")]
    expires_at: Option<String>,
}

fn invalid(path: String, detail: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::InvalidValue, path, detail)
}

fn rfc3339(s: &str, path: String) -> Result<OffsetDateTime, DecodeError> {
    OffsetDateTime::parse(s, &Rfc3339).map_err(|_| invalid(path, "not an RFC 3339 timestamp"))
}

impl Approval {
    /// Decode one approval under the list's approval rules, errors rooted at `at`.
    pub fn decode_at(value: &Value, at: &str) -> Result<Self, DecodeError> {
        let w: ApprovalWire = decode_value_at(value, at)?;
        if w.confirm_token.trim().is_empty() {
            return Err(invalid(format!("{at}.confirm_token"), "blank token"));
        }
        if w.trace_id.trim().is_empty() {
            return Err(invalid(format!("{at}.trace_id"), "blank trace id"));
        }
        if w.delegated_tool != w.action_type.delegated_tool() {
            return Err(invalid(
                format!("{at}.delegated_tool"),
                "tool does not fit the action type",
            ));
        }
        let (want_type, target_ok) = if w.action_type.targets_keeper() {
            (
                "keeper",
                w.target_id.as_deref().is_some_and(|t| !t.trim().is_empty()),
            )
        } else {
            ("workspace", w.target_id.is_none())
        };
        if w.target_type != want_type {
            return Err(invalid(
                format!("{at}.target_type"),
                "target type does not fit the action type",
            ));
        }
        if !target_ok {
            return Err(invalid(
                format!("{at}.target_id"),
                "target id does not fit the action type",
            ));
        }
        let created_at = rfc3339(&w.created_at, format!("{at}.created_at"))?;
        let expires_at = match &w.expires_at {
            None => None,
            Some(s) => {
                let e = rfc3339(s, format!("{at}.expires_at"))?;
                if e <= created_at {
                    return Err(invalid(
                        format!("{at}.expires_at"),
                        "expires_at is not after created_at",
                    ));
                }
                Some(e)
            }
        };
        Ok(Self {
            confirm_token: w.confirm_token,
            trace_id: w.trace_id,
            actor: w.actor,
            action_type: w.action_type,
            target_type: w.target_type,
            target_id: w.target_id,
            payload: w.payload,
            delegated_tool: w.delegated_tool,
            created_at,
            expires_at,
        })
    }
}

/// The scoped approval list.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorApprovals {
    pub actor_filter: String,
    pub items: Vec<Approval>,
    pub visible_count: u64,
    pub hidden_count: u64,
    pub total_count: u64,
    pub hidden_actors: Vec<String>,
    pub confirm_required_actions: Vec<Map<String, Value>>,
}

#[derive(Deserialize)]
struct SummaryWire {
    #[serde(deserialize_with = "required_nullable")]
    actor_filter: Option<String>,
    filter_active: bool,
    visible_count: u64,
    hidden_count: u64,
    total_count: u64,
    hidden_actors: Vec<String>,
    confirm_required_actions: Vec<Map<String, Value>>,
}

fn count_mismatch(path: &str, detail: String) -> DecodeError {
    DecodeError::new(DecodeErrorKind::CountMismatch, path, detail)
}

impl WireDecode for OperatorApprovals {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let root = decode_object(bytes)?;
        let env_value = required_key(&root, "pending_confirm_envelope", "")?;
        let at = ".pending_confirm_envelope";
        let Some(env) = env_value.as_object() else {
            return Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                at,
                "not an object",
            ));
        };
        let items_value = required_key(env, "items", at)?;
        let summary_value = required_key(env, "summary", at)?;
        let sat = ".pending_confirm_envelope.summary";
        let s: SummaryWire = decode_value_at(summary_value, sat)?;
        let Value::Array(raw_items) = items_value else {
            return Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                format!("{at}.items"),
                "items is not an array",
            ));
        };
        let items = raw_items
            .iter()
            .enumerate()
            .map(|(i, v)| Approval::decode_at(v, &format!("{at}.items[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;

        if !s.filter_active {
            return Err(invalid(
                format!("{sat}.filter_active"),
                "an unscoped approval list is refused",
            ));
        }
        let actor_filter = match s.actor_filter {
            Some(a) if !a.trim().is_empty() && a.trim() == a => a,
            _ => {
                return Err(invalid(
                    format!("{sat}.actor_filter"),
                    "actor_filter must be a non-blank name without surrounding spaces",
                ));
            }
        };
        if let Some(i) = s.hidden_actors.iter().position(|a| a.trim().is_empty()) {
            return Err(invalid(
                format!("{sat}.hidden_actors[{i}]"),
                "blank hidden actor",
            ));
        }
        if let Some(i) = items.iter().position(|a| a.actor != actor_filter) {
            return Err(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                format!("{at}.items[{i}].actor"),
                "an approval of another actor inside this actor's scope",
            ));
        }
        for (i, item) in items.iter().enumerate() {
            if items[..i]
                .iter()
                .any(|p| p.confirm_token == item.confirm_token)
            {
                return Err(DecodeError::new(
                    DecodeErrorKind::Other("duplicate_item"),
                    format!("{at}.items[{i}].confirm_token"),
                    "a repeated confirm_token",
                ));
            }
        }
        if s.visible_count != items.len() as u64 {
            return Err(count_mismatch(
                ".pending_confirm_envelope.summary.visible_count",
                format!(
                    "visible_count {} but {} items",
                    s.visible_count,
                    items.len()
                ),
            ));
        }
        if s.visible_count.checked_add(s.hidden_count) != Some(s.total_count) {
            return Err(count_mismatch(
                ".pending_confirm_envelope.summary.total_count",
                format!(
                    "total_count {} is not visible {} + hidden {}",
                    s.total_count, s.visible_count, s.hidden_count
                ),
            ));
        }
        Ok(Self {
            actor_filter,
            items,
            visible_count: s.visible_count,
            hidden_count: s.hidden_count,
            total_count: s.total_count,
            hidden_actors: s.hidden_actors,
            confirm_required_actions: s.confirm_required_actions,
        })
    }
}

// ---- confirm / deny ----

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Confirm,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Confirm => "confirm",
            Self::Deny => "deny",
        }
    }
}

/// The request a decision reply answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalDecisionRequest {
    pub confirm_token: String,
    pub decision: Decision,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmStatus {
    Ok,
    Deferred,
    Error,
}

/// What the reply says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionResult {
    /// Deny: the approval was removed and nothing ran.
    Denied,
    /// Confirm `ok`: the action ran.
    Ran { result: Value },
    /// Confirm `deferred`: accepted, delivery pending.
    Deferred { result: Value },
    /// Confirm `error`: the approval was consumed and the action failed.
    Failed { detail: String },
}

/// A 200 reply that passed every §10.5 check.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalDecisionReply {
    pub trace_id: String,
    pub tool_name: String,
    pub executed_action: Approval,
    pub result: DecisionResult,
}

#[derive(Deserialize)]
struct ReplyWire {
    status: ConfirmStatus,
    trace_id: String,
    decision: String,
    tool_name: String,
    executed_action: Value,
    #[serde(default)]
    result_status: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

impl ApprovalDecisionReply {
    /// Decode a 200 reply and check it against the request that was sent.
    pub fn decode_for(bytes: &[u8], req: &ApprovalDecisionRequest) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        let w: ReplyWire = decode_value_at(&Value::Object(obj.clone()), "")?;
        let action = Approval::decode_at(&w.executed_action, ".executed_action")?;
        let echo = |path: &str, detail: &str| {
            Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                path,
                detail,
            ))
        };
        if w.trace_id.trim().is_empty() {
            return Err(invalid(".trace_id".into(), "blank trace id"));
        }
        if w.trace_id != action.trace_id {
            return echo(
                ".trace_id",
                "trace_id differs from executed_action.trace_id",
            );
        }
        if w.decision != req.decision.as_str() {
            return echo(".decision", "decision differs from the one sent");
        }
        if w.tool_name != action.delegated_tool {
            return echo(".tool_name", "tool_name differs from executed_action");
        }
        if action.confirm_token != req.confirm_token {
            return echo(
                ".executed_action.confirm_token",
                "confirm_token differs from the one sent",
            );
        }
        let result = match req.decision {
            Decision::Deny => {
                if w.status != ConfirmStatus::Ok {
                    return Err(invalid(".status".into(), "a deny reply must be ok"));
                }
                if w.result_status.as_deref() != Some("not_executed") {
                    return Err(invalid(
                        ".result_status".into(),
                        "a deny reply must say not_executed",
                    ));
                }
                DecisionResult::Denied
            }
            Decision::Confirm => {
                let result = obj.get("result").cloned().ok_or_else(|| {
                    DecodeError::new(
                        DecodeErrorKind::MissingField,
                        ".result",
                        "a confirm reply carries result",
                    )
                })?;
                match w.status {
                    ConfirmStatus::Ok => DecisionResult::Ran { result },
                    ConfirmStatus::Deferred => DecisionResult::Deferred { result },
                    ConfirmStatus::Error => DecisionResult::Failed {
                        detail: w.message.unwrap_or_else(|| result.to_string()),
                    },
                }
            }
        };
        Ok(Self {
            trace_id: w.trace_id,
            tool_name: w.tool_name,
            executed_action: action,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"pending_confirm_envelope":{"items":[{"confirm_token":"opc_5b0e8f2a","trace_id":"ops_3f2a9c0d1e4b5a67","actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,
 "payload":{"reason":"operator requested"},"delegated_tool":"masc_pause","created_at":"2026-08-21T12:00:00Z","expires_at":"2026-08-21T12:15:00Z"}],
 "summary":{"actor_filter":"masc-tui","filter_active":true,"visible_count":1,"total_count":2,"hidden_count":1,"hidden_actors":["other-agent"],"confirm_required_actions":[]}}}"#;

    fn reason(body: &str) -> (DecodeErrorKind, String) {
        let e = OperatorApprovals::decode(body.as_bytes()).unwrap_err();
        (e.kind, e.path)
    }

    #[test]
    fn example_list_decodes_s10_5() {
        let l = OperatorApprovals::decode(LIST.as_bytes()).unwrap();
        assert_eq!(l.items.len(), 1);
        assert_eq!(l.actor_filter, "masc-tui");
    }

    #[test]
    fn unscoped_list_is_refused_s10_5() {
        let body = LIST
            .replace(r#""filter_active":true"#, r#""filter_active":false"#)
            .replace(r#""actor_filter":"masc-tui""#, r#""actor_filter":null"#);
        assert_eq!(reason(&body).0, DecodeErrorKind::InvalidValue);
        let body = LIST.replace(
            r#""actor_filter":"masc-tui""#,
            r#""actor_filter":" masc-tui""#,
        );
        assert_eq!(reason(&body).0, DecodeErrorKind::InvalidValue);
    }

    #[test]
    fn approval_rules_s10_5() {
        let cases = [
            (
                LIST.replace(
                    r#""delegated_tool":"masc_pause""#,
                    r#""delegated_tool":"masc_resume""#,
                ),
                DecodeErrorKind::InvalidValue,
            ),
            (
                LIST.replace(r#""target_id":null"#, r#""target_id":"alpha""#),
                DecodeErrorKind::InvalidValue,
            ),
            (
                LIST.replace(
                    r#""expires_at":"2026-08-21T12:15:00Z""#,
                    r#""expires_at":"2026-08-21T11:00:00Z""#,
                ),
                DecodeErrorKind::InvalidValue,
            ),
            (
                LIST.replace(
                    r#""action_type":"namespace_pause""#,
                    r#""action_type":"nuke""#,
                ),
                DecodeErrorKind::UnknownVariant,
            ),
            (
                LIST.replace(r#""payload":"#, r#""extra":1,"payload":"#),
                DecodeErrorKind::UnknownField,
            ),
            (
                LIST.replace(r#""total_count":2"#, r#""total_count":3"#),
                DecodeErrorKind::CountMismatch,
            ),
        ];
        for (body, kind) in cases {
            assert_eq!(reason(&body).0, kind, "{body}");
        }
    }

    #[test]
    fn repeated_token_is_duplicate_item_s10_5() {
        let item = r#"{"confirm_token":"t1","trace_id":"x","actor":"masc-tui","action_type":"broadcast","target_type":"workspace","target_id":null,"payload":{},"delegated_tool":"masc_broadcast","created_at":"2026-08-21T12:00:00Z","expires_at":null}"#;
        let body = format!(
            r#"{{"pending_confirm_envelope":{{"items":[{item},{item}],"summary":{{"actor_filter":"masc-tui","filter_active":true,"visible_count":2,"total_count":2,"hidden_count":0,"hidden_actors":[],"confirm_required_actions":[]}}}}}}"#
        );
        assert_eq!(reason(&body).0, DecodeErrorKind::Other("duplicate_item"));
    }

    const DENY_REPLY: &str = r#"{"status":"ok","trace_id":"ops_3f2a9c0d1e4b5a67","decision":"deny","tool_name":"masc_pause","result_status":"not_executed","executed_action":{"confirm_token":"opc_5b0e8f2a","trace_id":"ops_3f2a9c0d1e4b5a67",
 "actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,"payload":{"reason":"operator requested"},"delegated_tool":"masc_pause","created_at":"2026-08-21T12:00:00Z","expires_at":"2026-08-21T12:15:00Z"}}"#;

    fn deny() -> ApprovalDecisionRequest {
        ApprovalDecisionRequest {
            confirm_token: "opc_5b0e8f2a".into(),
            decision: Decision::Deny,
        }
    }

    #[test]
    fn deny_reply_checks_s10_5() {
        let r = ApprovalDecisionReply::decode_for(DENY_REPLY.as_bytes(), &deny()).unwrap();
        assert_eq!(r.result, DecisionResult::Denied);
        let other_token = ApprovalDecisionRequest {
            confirm_token: "opc_other".into(),
            decision: Decision::Deny,
        };
        assert!(ApprovalDecisionReply::decode_for(DENY_REPLY.as_bytes(), &other_token).is_err());
        let no_marker = DENY_REPLY.replace(r#""result_status":"not_executed","#, "");
        assert!(ApprovalDecisionReply::decode_for(no_marker.as_bytes(), &deny()).is_err());
        let confirm = ApprovalDecisionRequest {
            confirm_token: "opc_5b0e8f2a".into(),
            decision: Decision::Confirm,
        };
        assert!(ApprovalDecisionReply::decode_for(DENY_REPLY.as_bytes(), &confirm).is_err());
    }
}
