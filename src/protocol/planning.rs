//! `GET /api/v1/dashboard/planning` — the Goals screen rollup (protocol.md §5.7).

use super::decode::{DecodeError, WireDecode, decode_json_object, decode_value};
use super::goals::reject_warming;
use serde::Deserialize;

/// The closed phase set: the August seven (newer servers may lack `blocked` / `paused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalPhase {
    Executing,
    Blocked,
    Paused,
    Verifying,
    Completed,
    Dropped,
    AwaitingConfirmation,
}

impl GoalPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Executing => "executing",
            Self::Blocked => "blocked",
            Self::Paused => "paused",
            Self::Verifying => "verifying",
            Self::Completed => "completed",
            Self::Dropped => "dropped",
            Self::AwaitingConfirmation => "awaiting_confirmation",
        }
    }
}

/// A proof verdict (extra keys ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProofVerdict {
    pub outcome: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub evidence: Option<serde_json::Value>,
}

/// The goal's proof-ledger row, read leniently: absent or any unexpected shape is
/// `Unreadable`, never `Idle`, and never fails the planning read.
#[derive(Debug, Clone, PartialEq)]
pub enum ProofObservation {
    Idle,
    /// `requested_at`: when the proof was asked for; `None` when the row does not say (MASC's
    /// own client reads such a row as pending too).
    Pending {
        requested_at: Option<String>,
    },
    Proven {
        verdict: ProofVerdict,
    },
    Refuted {
        verdict: ProofVerdict,
    },
    LedgerError {
        detail: String,
    },
    Unreadable,
}

#[derive(Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum CompletionWire {
    Idle,
    ProofPending {
        #[serde(default)]
        requested_at: Option<String>,
    },
    ProofProven {
        verdict: ProofVerdict,
    },
    ProofRefuted {
        verdict: ProofVerdict,
    },
}

#[derive(Deserialize)]
struct VerificationWire {
    #[allow(dead_code)]
    goal_id: String,
    completion: CompletionWire,
    #[allow(dead_code)]
    updated_at: serde_json::Value,
}

#[derive(Deserialize)]
struct LedgerErrorWire {
    state: String,
    detail: String,
}

impl ProofObservation {
    fn read(value: Option<&serde_json::Value>) -> Self {
        let Some(value) = value else {
            return Self::Unreadable;
        };
        if let Ok(w) = decode_value::<LedgerErrorWire>(value)
            && w.state == "ledger_error"
        {
            return Self::LedgerError { detail: w.detail };
        }
        match decode_value::<VerificationWire>(value).map(|w| w.completion) {
            Ok(CompletionWire::Idle) => Self::Idle,
            Ok(CompletionWire::ProofPending { requested_at }) => Self::Pending { requested_at },
            Ok(CompletionWire::ProofProven { verdict }) => Self::Proven { verdict },
            Ok(CompletionWire::ProofRefuted { verdict }) => Self::Refuted { verdict },
            Err(_) => Self::Unreadable,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlanningGoal {
    pub id: String,
    pub title: String,
    pub phase: GoalPhase,
    pub priority: i64,
    pub metric: Option<String>,
    pub target_value: Option<String>,
    pub due_date: Option<String>,
    pub last_review_note: Option<String>,
    pub last_review_at: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub verification: ProofObservation,
}

#[derive(Deserialize)]
struct GoalWire {
    id: String,
    title: String,
    phase: GoalPhase,
    priority: i64,
    #[serde(default)]
    metric: Option<String>,
    #[serde(default)]
    target_value: Option<String>,
    #[serde(default)]
    due_date: Option<String>,
    #[serde(default)]
    last_review_note: Option<String>,
    #[serde(default)]
    last_review_at: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    verification: Option<serde_json::Value>,
}

/// Goal counts by phase. Server aggregates: never checked against the rows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Rollup {
    pub active_count: u64,
    pub verifying_count: u64,
    pub done_count: u64,
    pub dropped_count: u64,
    /// August shape: `paused` and `blocked` together. Absent on some newer servers.
    #[serde(default)]
    pub paused_count: Option<u64>,
    #[serde(default)]
    pub awaiting_confirmation_count: Option<u64>,
    #[serde(default)]
    pub blocked_count: Option<u64>,
}

/// Task counts by status, shown as sent (`in_progress` may include awaiting verification on
/// August servers; the client never derives one from the other).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TaskBacklog {
    pub todo: u64,
    pub claimed: u64,
    pub in_progress: u64,
    pub done: u64,
    pub cancelled: u64,
    #[serde(default)]
    pub awaiting_verification: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UnlistedGoal {
    pub goal_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub opened_at: Option<String>,
    #[serde(default)]
    pub closed_at: Option<String>,
    #[serde(default)]
    pub final_phase: Option<String>,
    #[serde(default)]
    pub lifetime_hours: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GoalHistoryCoverage {
    pub malformed_event_lines: u64,
    pub rows_without_goal_id: u64,
    pub unrecognised_event_types: Vec<String>,
}

/// Newer MASC only; absent means an older server, not "no history".
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoalHistory {
    pub unlisted: Vec<UnlistedGoal>,
    #[serde(default)]
    pub coverage: Option<GoalHistoryCoverage>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Planning {
    pub generated_at: String,
    /// `[]` here is a real "no goals".
    pub goals: Vec<PlanningGoal>,
    pub rollup: Rollup,
    pub task_backlog: TaskBacklog,
    pub goal_history: Option<GoalHistory>,
}

/// A planning read: the snapshot, or the typed "goal store unavailable" answer (never "no
/// goals").
#[derive(Debug, Clone, PartialEq)]
pub enum PlanningRead {
    Snapshot(Box<Planning>),
    GoalStoreUnavailable { error: String },
}

#[derive(Deserialize)]
struct PlanningWire {
    generated_at: String,
    goals: Vec<GoalWire>,
    rollup: Rollup,
    task_backlog: TaskBacklog,
    #[serde(default)]
    goal_history: Option<GoalHistory>,
}

#[derive(Deserialize)]
struct StoreUnavailableWire {
    error_code: String,
    error: String,
}

impl WireDecode for PlanningRead {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        reject_warming(bytes)?;
        let value: serde_json::Value = decode_json_object(bytes)?;
        if value.get("ok").and_then(|v| v.as_bool()) == Some(false)
            && let Ok(w) = decode_value::<StoreUnavailableWire>(&value)
            && w.error_code == "goal_store_unavailable"
        {
            return Ok(Self::GoalStoreUnavailable { error: w.error });
        }
        let w: PlanningWire = decode_value(&value)?;
        let goals = w
            .goals
            .into_iter()
            .map(|g| PlanningGoal {
                verification: ProofObservation::read(g.verification.as_ref()),
                id: g.id,
                title: g.title,
                phase: g.phase,
                priority: g.priority,
                metric: g.metric,
                target_value: g.target_value,
                due_date: g.due_date,
                last_review_note: g.last_review_note,
                last_review_at: g.last_review_at,
                created_at: g.created_at,
                updated_at: g.updated_at,
            })
            .collect();
        Ok(Self::Snapshot(Box::new(Planning {
            generated_at: w.generated_at,
            goals,
            rollup: w.rollup,
            task_backlog: w.task_backlog,
            goal_history: w.goal_history,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode::DecodeErrorKind;

    const BASE: &str = r#"{"generated_at":"2026-08-21T05:06:07Z","goals":[GOALS],
        "rollup":{"active_count":1,"paused_count":0,"verifying_count":0,"done_count":0,"dropped_count":0},
        "task_backlog":{"todo":3,"claimed":0,"in_progress":1,"done":5,"cancelled":0}}"#;

    fn with_goals(goals: &str) -> Vec<u8> {
        BASE.replace("GOALS", goals).into_bytes()
    }

    fn snapshot(bytes: &[u8]) -> Planning {
        match PlanningRead::decode(bytes).unwrap() {
            PlanningRead::Snapshot(p) => *p,
            PlanningRead::GoalStoreUnavailable { .. } => unreachable!(),
        }
    }

    #[test]
    fn unknown_phase_fails_the_whole_read_5_7() {
        let e = PlanningRead::decode(&with_goals(
            r#"{"id":"g","title":"G","phase":"archived","priority":1}"#,
        ))
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
        assert_eq!(e.path, ".goals[0].phase");
    }

    #[test]
    fn missing_required_count_is_an_error_not_zero_5_7() {
        let body = BASE.replace(r#""done":5,"#, "").replace("GOALS", "");
        let e = PlanningRead::decode(body.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
        assert_eq!(e.path, ".task_backlog");
    }

    #[test]
    fn optional_string_fields_refuse_other_types_5_7() {
        let e = PlanningRead::decode(&with_goals(
            r#"{"id":"g","title":"G","phase":"paused","priority":1,"due_date":5}"#,
        ))
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::WrongType);
    }

    #[test]
    fn verification_is_lenient_and_never_idle_by_default_5_7() {
        let goal =
            |v: &str| format!(r#"{{"id":"g","title":"G","phase":"verifying","priority":1{v}}}"#);
        let read = |v: &str| {
            snapshot(&with_goals(&goal(v))).goals[0]
                .verification
                .clone()
        };
        assert_eq!(read(""), ProofObservation::Unreadable);
        assert_eq!(read(r#","verification":7"#), ProofObservation::Unreadable);
        assert_eq!(
            read(
                r#","verification":{"goal_id":"g","completion":{"state":"weird"},"updated_at":"x"}"#
            ),
            ProofObservation::Unreadable
        );
        assert_eq!(
            read(
                r#","verification":{"goal_id":"g","completion":{"state":"idle"},"updated_at":"x"}"#
            ),
            ProofObservation::Idle
        );
        assert_eq!(
            read(r#","verification":{"state":"ledger_error","detail":"bad row"}"#),
            ProofObservation::LedgerError {
                detail: "bad row".into()
            }
        );
        assert!(matches!(
            read(
                r#","verification":{"goal_id":"g","completion":{"state":"proof_refuted","verdict":{"outcome":"refuted","reason":"r","evidence":[]}},"updated_at":"x"}"#
            ),
            ProofObservation::Refuted { .. }
        ));
    }

    #[test]
    fn goal_store_unavailable_is_typed_5_7() {
        let body = br#"{"ok":false,"error_code":"goal_store_unavailable","error":"store locked"}"#;
        assert_eq!(
            PlanningRead::decode(body).unwrap(),
            PlanningRead::GoalStoreUnavailable {
                error: "store locked".into()
            }
        );
    }

    #[test]
    fn both_warming_bodies_are_server_initializing_1_4() {
        for body in [
            &br#"{"status":"initializing","message":"Server is warming up"}"#[..],
            &br#"{"error":"not initialized"}"#[..],
        ] {
            assert_eq!(
                PlanningRead::decode(body).unwrap_err().kind,
                DecodeErrorKind::ServerInitializing
            );
        }
    }
}
