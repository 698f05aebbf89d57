//! §15.3 the durable Gate queue: the body of `GET /api/v1/dashboard/gate` beyond the mode the
//! status line reads (§14.4, `keeper_detail::gate`), and the `/retry` body built from a row as it
//! was read.
//!
//! Read as MASC's web client reads it: an unavailable queue (`approval_queue: null` with the
//! closed `reset_required` state) is its own value, never "no approvals"; a queue row that does
//! not decode is kept and shown by whatever identity decoded (id, Keeper, tool) while the other
//! rows stay; history and rules carry their own ready/unavailable state (an unavailable list is
//! not an empty one); `recent_resolved_page.returned` unequal to the rows is said, not hidden.
//! `exact_attempt` and `summary_attempt_disposition` are kept as sent, because `/retry` must
//! copy them exactly (MASC re-checks every field and refuses a row that changed).

use super::decode::{DecodeError, WireDecode, decode_json};
use super::keeper_detail::gate::GateModeStatus;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// `summary_attempt_disposition.code` values `/retry` can re-arm (while the mode is Auto Judge).
pub const BLOCKED: [&str; 3] = [
    "identity_unbound",
    "persistence_uncertain",
    "pre_worker_unavailable",
];

/// One pending approval as read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct QueueItem {
    pub id: String,
    pub keeper_name: String,
    pub tool_name: String,
    pub input_hash: String,
    pub sequence: u64,
    #[serde(default)]
    pub requested_at: Option<f64>,
    /// Seconds waited at the read (the age shown adds local elapsed time).
    #[serde(default)]
    pub waiting_s: Option<f64>,
    #[serde(default)]
    pub turn_id: Option<i64>,
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default)]
    pub goal_id: Option<String>,
    /// The tool's arguments as sent (any JSON): inert text, shown in the detail, never
    /// interpreted.
    #[serde(default)]
    pub input: Value,
    /// Inert text: shown, never interpreted.
    #[serde(default)]
    pub input_preview: String,
    #[serde(default)]
    pub summary_status: Value,
    pub exact_attempt: Value,
    pub summary_attempt_disposition: Value,
}

impl QueueItem {
    /// The disposition's code (`ready`, `in_flight`, `settled`, or a blocked one).
    pub fn disposition(&self) -> Option<&str> {
        self.summary_attempt_disposition
            .get("code")
            .and_then(Value::as_str)
    }

    /// `R` is offered only on a blocked row while the workspace runs Auto Judge.
    pub fn retry_offered(&self, gate_mode: Option<&GateModeStatus>) -> bool {
        self.disposition().is_some_and(|c| BLOCKED.contains(&c))
            && gate_mode.is_some_and(|m| m.mode == "auto_judge")
    }

    /// The `/retry` body: exactly the five fields, copied from the row as read.
    pub fn retry_body(&self) -> Value {
        json!({
            "id": self.id,
            "input_hash": self.input_hash,
            "sequence": self.sequence,
            "exact_attempt": self.exact_attempt,
            "summary_attempt_disposition": self.summary_attempt_disposition,
        })
    }
}

/// A queue row: decoded, or kept by what identity it had.
#[derive(Debug, Clone, PartialEq)]
pub enum QueueRow {
    Item(Box<QueueItem>),
    Undecodable {
        id: Option<String>,
        keeper_name: Option<String>,
        tool_name: Option<String>,
        error: String,
    },
}

/// The queue: its rows, or why there are none to show.
#[derive(Debug, Clone, PartialEq)]
pub enum Queue {
    Ready(Vec<QueueRow>),
    /// `Gate queue unavailable · reset required` — never "no approvals".
    Unavailable {
        code: Option<String>,
        title: Option<String>,
        operator_detail: Option<String>,
    },
}

/// A list with its own state: unavailable is never an empty list.
#[derive(Debug, Clone, PartialEq)]
pub enum Section<T> {
    Ready(Vec<T>),
    Unavailable { error: String },
}

/// One decided approval of the history.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResolvedRow {
    pub id: String,
    pub keeper_name: String,
    pub tool_name: String,
    #[serde(default)]
    pub decision_kind: Option<String>,
    #[serde(default)]
    pub decision_reason: Option<String>,
    #[serde(default)]
    pub resolved_at: Option<f64>,
    #[serde(default)]
    pub actor: Option<String>,
    /// `always_allowed`, `auto_judge`, `human_operator` (kept as sent).
    #[serde(default)]
    pub decision_source: Option<String>,
}

/// An exact "Always allowed" rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AlwaysRule {
    pub id: String,
    pub keeper_name: String,
    pub tool_name: String,
    #[serde(default)]
    pub created_by: Option<String>,
    #[serde(default)]
    pub expires_at: Option<f64>,
}

impl GateQueue {
    /// The decoded pending rows (an unavailable queue has none).
    pub fn items(&self) -> impl Iterator<Item = &QueueItem> {
        let rows: &[QueueRow] = match &self.queue {
            Queue::Ready(rows) => rows,
            Queue::Unavailable { .. } => &[],
        };
        rows.iter().filter_map(|r| match r {
            QueueRow::Item(i) => Some(i.as_ref()),
            QueueRow::Undecodable { .. } => None,
        })
    }

    /// The pending row `id`, if this read lists it.
    pub fn item(&self, id: &str) -> Option<&QueueItem> {
        self.items().find(|i| i.id == id)
    }
}

/// The §15.3 body.
#[derive(Debug, Clone, PartialEq)]
pub struct GateQueue {
    pub queue: Queue,
    pub resolved: Section<ResolvedRow>,
    /// `recent_resolved_page.returned` when it disagrees with the rows sent (said, not hidden).
    pub resolved_count_mismatch: Option<(u64, usize)>,
    pub rules: Section<AlwaysRule>,
    pub gate_mode: Option<GateModeStatus>,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    approval_queue: Option<Vec<Value>>,
    #[serde(default)]
    approval_queue_state: Map<String, Value>,
    #[serde(default)]
    recent_resolved: Option<Vec<Value>>,
    #[serde(default)]
    recent_resolved_page: Option<Map<String, Value>>,
    #[serde(default)]
    recent_resolved_state: Map<String, Value>,
    #[serde(default)]
    approval_rules: Vec<Value>,
    #[serde(default)]
    approval_rules_state: Map<String, Value>,
    #[serde(default)]
    hitl: Option<Map<String, Value>>,
}

fn text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

fn ready(state: &Map<String, Value>) -> bool {
    state.get("state").and_then(Value::as_str) == Some("ready")
}

fn section<T: serde::de::DeserializeOwned>(
    rows: Option<Vec<Value>>,
    state: &Map<String, Value>,
) -> Section<T> {
    match rows {
        Some(rows) if ready(state) || state.is_empty() => Section::Ready(
            rows.into_iter()
                .filter_map(|v| serde_json::from_value(v).ok())
                .collect(),
        ),
        _ => Section::Unavailable {
            error: text(state, "error").unwrap_or_else(|| "unavailable".into()),
        },
    }
}

fn queue_row(v: Value) -> QueueRow {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let (id, keeper_name, tool_name) = (field("id"), field("keeper_name"), field("tool_name"));
    match serde_json::from_value::<QueueItem>(v) {
        Ok(item) => QueueRow::Item(Box::new(item)),
        Err(e) => QueueRow::Undecodable {
            id,
            keeper_name,
            tool_name,
            error: e.to_string(),
        },
    }
}

impl WireDecode for GateQueue {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let wire: Wire = decode_json(bytes)?;
        let queue = match wire.approval_queue {
            Some(rows) if !wire.approval_queue_state.contains_key("code") => {
                let mut rows: Vec<QueueRow> = rows.into_iter().map(queue_row).collect();
                rows.sort_by_key(|r| match r {
                    QueueRow::Item(i) => i.sequence,
                    QueueRow::Undecodable { .. } => u64::MAX,
                });
                Queue::Ready(rows)
            }
            _ => Queue::Unavailable {
                code: text(&wire.approval_queue_state, "code"),
                title: text(&wire.approval_queue_state, "title"),
                operator_detail: text(&wire.approval_queue_state, "operator_detail"),
            },
        };
        let sent = wire.recent_resolved.as_ref().map_or(0, Vec::len);
        let returned = wire
            .recent_resolved_page
            .as_ref()
            .and_then(|p| p.get("returned"))
            .and_then(Value::as_u64);
        let resolved_count_mismatch = returned
            .filter(|r| wire.recent_resolved.is_some() && *r != sent as u64)
            .map(|r| (r, sent));
        let gate_mode = wire
            .hitl
            .as_ref()
            .and_then(|h| h.get("gate_mode"))
            .and_then(|g| serde_json::from_value(g.clone()).ok());
        Ok(Self {
            queue,
            resolved: section(wire.recent_resolved, &wire.recent_resolved_state),
            resolved_count_mismatch,
            rules: section(Some(wire.approval_rules), &wire.approval_rules_state),
            gate_mode,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn item(id: &str, seq: u64, code: &str) -> Value {
        json!({"id": id, "keeper_name": "rondo", "tool_name": "shell_exec", "input_hash": HASH,
               "sequence": seq, "requested_at": 1.0, "waiting_s": 30.5, "turn_id": 3,
               "task_id": null, "goal_id": null, "input": {"cmd": "ls"}, "input_preview": "ls",
               "summary_status": "pending", "exact_attempt": {"state": "unbound"},
               "summary_attempt_disposition": {"code": code, "reason_code": "auto_judge_unavailable",
                                                "operator_detail": "judge lane down"}})
    }

    fn body(queue: Value, state: Value, mode: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "generated_at": "2026-08-22T19:48:44Z", "note": "",
            "approval_queue": queue, "approval_queue_state": state,
            "recent_resolved": [{"id": "a-0", "event": "resolved", "keeper_name": "sangsu",
                "tool_name": "web_fetch", "decision": "reject:too broad", "decision_kind": "reject",
                "decision_reason": "too broad", "resolved_at": 2.0, "actor": "op",
                "decision_source": "human_operator"}],
            "recent_resolved_page": {"returned": 2, "matched": 2, "limit": 20, "window_minutes": 1440,
                "truncated": false, "scan_exhausted": true},
            "recent_resolved_state": {"state": "ready"},
            "approval_rules": [], "approval_rules_state": {"state": "unavailable", "error": "rules store locked"},
            "hitl": {"gate_mode": {"mode": mode, "configured": true, "state": "ready"}},
        }))
        .unwrap()
    }

    #[test]
    fn s15_3_rows_in_sequence_order_and_a_bad_row_kept_by_its_identity() {
        let mut bad = item("a-3", 3, "ready");
        bad.as_object_mut().unwrap().remove("input_hash");
        let q = GateQueue::decode(&body(
            json!([
                item("a-2", 2, "ready"),
                bad,
                item("a-1", 1, "pre_worker_unavailable")
            ]),
            json!({"state": "ready"}),
            "auto_judge",
        ))
        .unwrap();
        let Queue::Ready(rows) = &q.queue else {
            panic!("{:?}", q.queue)
        };
        let ids: Vec<String> = rows
            .iter()
            .map(|r| match r {
                QueueRow::Item(i) => i.id.clone(),
                QueueRow::Undecodable { id, .. } => format!("bad {}", id.clone().unwrap()),
            })
            .collect();
        assert_eq!(ids, vec!["a-1", "a-2", "bad a-3"]);
        assert_eq!(q.resolved_count_mismatch, Some((2, 1)), "said, not hidden");
        assert_eq!(
            q.rules,
            Section::Unavailable {
                error: "rules store locked".into()
            },
            "unavailable is not an empty list"
        );
    }

    #[test]
    fn s15_3_an_unavailable_queue_is_never_no_approvals() {
        let q = GateQueue::decode(&body(
            Value::Null,
            json!({"state": "reset_required", "code": "reset_required", "title": "Approval queue needs a reset",
                   "operator_detail": "run masc gate reset", "severity": "bad", "icon": "!"}),
            "manual",
        ))
        .unwrap();
        assert_eq!(
            q.queue,
            Queue::Unavailable {
                code: Some("reset_required".into()),
                title: Some("Approval queue needs a reset".into()),
                operator_detail: Some("run masc gate reset".into()),
            }
        );
    }

    #[test]
    fn s15_3_retry_is_offered_on_blocked_rows_under_auto_judge_and_copies_the_row() {
        let read = |mode: &str| {
            GateQueue::decode(&body(
                json!([
                    item("a-1", 1, "pre_worker_unavailable"),
                    item("a-2", 2, "in_flight")
                ]),
                json!({"state": "ready"}),
                mode,
            ))
            .unwrap()
        };
        let q = read("auto_judge");
        let Queue::Ready(rows) = &q.queue else {
            panic!()
        };
        let QueueRow::Item(blocked) = &rows[0] else {
            panic!()
        };
        let QueueRow::Item(busy) = &rows[1] else {
            panic!()
        };
        assert!(blocked.retry_offered(q.gate_mode.as_ref()));
        assert!(!busy.retry_offered(q.gate_mode.as_ref()));
        let manual = read("manual");
        assert!(!blocked.retry_offered(manual.gate_mode.as_ref()));
        let body = blocked.retry_body();
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 5);
        assert_eq!(body["exact_attempt"], json!({"state": "unbound"}));
        assert_eq!(
            body["summary_attempt_disposition"]["operator_detail"], "judge lane down",
            "copied as read"
        );
    }
}
