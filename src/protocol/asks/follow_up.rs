//! `GET /api/v1/keepers/asks/follow-up` SSE events and their ordering rules (protocol.md §10.3).

use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, required_nullable,
};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FollowUpSource {
    Wake,
    ToolResult,
    Task,
}

impl FollowUpSource {
    pub const ALL: [Self; 3] = [Self::Wake, Self::ToolResult, Self::Task];
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WakeTurn {
    pub turn_ref: String,
    pub wake_reason: String,
    pub started_at: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum WakeObservation {
    /// `complete: false` = partial.
    Observed {
        turns: Vec<WakeTurn>,
        complete: bool,
    },
    ObservedEmpty {},
    Unavailable {
        reason: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolResultBucket {
    Success,
    Held,
    Failure,
    Undetermined,
    Malformed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultTotals {
    pub success: u64,
    pub held: u64,
    pub failure: u64,
    pub undetermined: u64,
    pub malformed: u64,
}

impl ToolResultTotals {
    pub fn of(&self, b: ToolResultBucket) -> u64 {
        match b {
            ToolResultBucket::Success => self.success,
            ToolResultBucket::Held => self.held,
            ToolResultBucket::Failure => self.failure,
            ToolResultBucket::Undetermined => self.undetermined,
            ToolResultBucket::Malformed => self.malformed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatestToolResult {
    pub bucket: ToolResultBucket,
    pub tool: String,
    pub at: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolResultObservation {
    Observed {
        totals: ToolResultTotals,
        #[serde(deserialize_with = "required_nullable")]
        latest: Option<LatestToolResult>,
    },
    Unavailable {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaskObservation {
    Observed {
        task_id: String,
        status: String,
        observed_at: f64,
    },
    Unlinked {},
    Unavailable {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum SourceObservation {
    Wake(WakeObservation),
    ToolResult(ToolResultObservation),
    Task(TaskObservation),
}

impl SourceObservation {
    pub fn source(&self) -> FollowUpSource {
        match self {
            Self::Wake(_) => FollowUpSource::Wake,
            Self::ToolResult(_) => FollowUpSource::ToolResult,
            Self::Task(_) => FollowUpSource::Task,
        }
    }
}

/// One follow-up event.
#[derive(Debug, Clone, PartialEq)]
pub enum AskFollowUpEvent {
    Started {
        ask_id: String,
        keeper: String,
        task_id: Option<String>,
    },
    Source {
        ask_id: String,
        keeper: String,
        observation: SourceObservation,
    },
    Completed {
        ask_id: String,
        keeper: String,
    },
}

impl AskFollowUpEvent {
    pub fn identity(&self) -> (&str, &str) {
        match self {
            Self::Started { ask_id, keeper, .. }
            | Self::Source { ask_id, keeper, .. }
            | Self::Completed { ask_id, keeper } => (ask_id, keeper),
        }
    }
}

#[derive(Deserialize)]
enum EventType {
    #[serde(rename = "ASK_FOLLOW_UP_STARTED")]
    Started,
    #[serde(rename = "ASK_FOLLOW_UP_SOURCE")]
    Source,
    #[serde(rename = "ASK_FOLLOW_UP_COMPLETED")]
    Completed,
}

impl WireDecode for AskFollowUpEvent {
    /// Decode one SSE `data` payload.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Head {
            #[serde(rename = "type")]
            kind: EventType,
            ask_id: String,
            keeper: String,
        }
        #[derive(Deserialize)]
        struct StartedWire {
            #[serde(deserialize_with = "required_nullable")]
            task_id: Option<String>,
        }
        #[derive(Deserialize)]
        struct SourceWire {
            source: FollowUpSource,
            observation: Value,
        }
        let head: Head = decode_json(bytes)?;
        Ok(match head.kind {
            EventType::Started => {
                let w: StartedWire = decode_json(bytes)?;
                Self::Started {
                    ask_id: head.ask_id,
                    keeper: head.keeper,
                    task_id: w.task_id,
                }
            }
            EventType::Completed => Self::Completed {
                ask_id: head.ask_id,
                keeper: head.keeper,
            },
            EventType::Source => {
                let w: SourceWire = decode_json(bytes)?;
                let at = ".observation";
                let observation = match w.source {
                    FollowUpSource::Wake => SourceObservation::Wake(
                        crate::protocol::decode::decode_value_at(&w.observation, at)?,
                    ),
                    FollowUpSource::ToolResult => {
                        let o: ToolResultObservation =
                            crate::protocol::decode::decode_value_at(&w.observation, at)?;
                        if let ToolResultObservation::Observed {
                            totals,
                            latest: Some(latest),
                        } = &o
                            && totals.of(latest.bucket) == 0
                        {
                            return Err(DecodeError::new(
                                DecodeErrorKind::CountMismatch,
                                ".observation.latest.bucket",
                                "latest is not counted in its bucket",
                            ));
                        }
                        SourceObservation::ToolResult(o)
                    }
                    FollowUpSource::Task => SourceObservation::Task(
                        crate::protocol::decode::decode_value_at(&w.observation, at)?,
                    ),
                };
                Self::Source {
                    ask_id: head.ask_id,
                    keeper: head.keeper,
                    observation,
                }
            }
        })
    }
}

/// The follow-up read as far as it got.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FollowUpState {
    pub started: bool,
    pub task_id: Option<String>,
    pub wake: Option<WakeObservation>,
    pub tool_result: Option<ToolResultObservation>,
    pub task: Option<TaskObservation>,
    pub completed: bool,
}

impl FollowUpState {
    /// Sources received so far (confirmed).
    pub fn confirmed(&self) -> Vec<FollowUpSource> {
        FollowUpSource::ALL
            .into_iter()
            .filter(|s| self.has(*s))
            .collect()
    }
    /// Sources not received (unconfirmed after EOF).
    pub fn unconfirmed(&self) -> Vec<FollowUpSource> {
        FollowUpSource::ALL
            .into_iter()
            .filter(|s| !self.has(*s))
            .collect()
    }
    fn has(&self, s: FollowUpSource) -> bool {
        match s {
            FollowUpSource::Wake => self.wake.is_some(),
            FollowUpSource::ToolResult => self.tool_result.is_some(),
            FollowUpSource::Task => self.task.is_some(),
        }
    }
}

/// How the stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowUpEnd {
    /// `COMPLETED` after all three sources.
    Completed(FollowUpState),
    /// EOF first: the received sources stay confirmed, the others are unconfirmed.
    Truncated {
        state: FollowUpState,
        unconfirmed: Vec<FollowUpSource>,
    },
}

/// Applies the §10.3 ordering rules event by event.
#[derive(Debug, Clone)]
pub struct FollowUpValidator {
    ask_id: String,
    keeper: String,
    state: FollowUpState,
}

impl FollowUpValidator {
    pub fn new(ask_id: impl Into<String>, keeper: impl Into<String>) -> Self {
        Self {
            ask_id: ask_id.into(),
            keeper: keeper.into(),
            state: FollowUpState::default(),
        }
    }

    pub fn state(&self) -> &FollowUpState {
        &self.state
    }

    /// Accept the next event, or say which rule it breaks (the read then fails).
    pub fn accept(&mut self, event: AskFollowUpEvent) -> Result<(), DecodeError> {
        let violation = |kind, path: &str, detail: &str| Err(DecodeError::new(kind, path, detail));
        if self.state.completed {
            return violation(
                DecodeErrorKind::Other("event_after_completed"),
                ".type",
                "an event after COMPLETED",
            );
        }
        let (ask_id, keeper) = event.identity();
        if ask_id != self.ask_id {
            return violation(DecodeErrorKind::IdentityMismatch, ".ask_id", "another ask");
        }
        if keeper != self.keeper {
            return violation(
                DecodeErrorKind::IdentityMismatch,
                ".keeper",
                "another keeper",
            );
        }
        match event {
            AskFollowUpEvent::Started { task_id, .. } => {
                if self.state.started {
                    return violation(
                        DecodeErrorKind::Other("out_of_order"),
                        ".type",
                        "STARTED twice",
                    );
                }
                self.state.started = true;
                self.state.task_id = task_id;
            }
            AskFollowUpEvent::Source { observation, .. } => {
                if !self.state.started {
                    return violation(
                        DecodeErrorKind::Other("out_of_order"),
                        ".type",
                        "a source before STARTED",
                    );
                }
                if self.state.has(observation.source()) {
                    return violation(
                        DecodeErrorKind::Other("duplicate_item"),
                        ".source",
                        "a source sent twice",
                    );
                }
                match observation {
                    SourceObservation::Wake(o) => self.state.wake = Some(o),
                    SourceObservation::ToolResult(o) => self.state.tool_result = Some(o),
                    SourceObservation::Task(o) => self.state.task = Some(o),
                }
            }
            AskFollowUpEvent::Completed { .. } => {
                if !self.state.started || !self.state.unconfirmed().is_empty() {
                    return violation(
                        DecodeErrorKind::Other("out_of_order"),
                        ".type",
                        "COMPLETED before all three sources",
                    );
                }
                self.state.completed = true;
            }
        }
        Ok(())
    }

    /// The stream ended (EOF or after COMPLETED).
    pub fn finish(self) -> FollowUpEnd {
        if self.state.completed {
            FollowUpEnd::Completed(self.state)
        } else {
            let unconfirmed = self.state.unconfirmed();
            FollowUpEnd::Truncated {
                state: self.state,
                unconfirmed,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> AskFollowUpEvent {
        AskFollowUpEvent::decode(s.as_bytes()).unwrap()
    }
    const STARTED: &str = r#"{"type":"ASK_FOLLOW_UP_STARTED","ask_id":"ask-1","keeper":"alpha","task_id":"task-1013"}"#;
    const TASK: &str = r#"{"type":"ASK_FOLLOW_UP_SOURCE","ask_id":"ask-1","keeper":"alpha","source":"task","observation":{"state":"observed","task_id":"task-1013","status":"in_progress","observed_at":1787557700.0}}"#;
    const WAKE: &str = r#"{"type":"ASK_FOLLOW_UP_SOURCE","ask_id":"ask-1","keeper":"alpha","source":"wake","observation":{"state":"observed_empty"}}"#;
    const TOOLS: &str = r#"{"type":"ASK_FOLLOW_UP_SOURCE","ask_id":"ask-1","keeper":"alpha","source":"tool_result","observation":{"state":"observed","totals":{"success":1,"held":0,"failure":0,"undetermined":0,"malformed":0},"latest":{"bucket":"success","tool":"masc_board_post","at":1.0}}}"#;
    const DONE: &str = r#"{"type":"ASK_FOLLOW_UP_COMPLETED","ask_id":"ask-1","keeper":"alpha"}"#;

    #[test]
    fn full_stream_completes_s10_3() {
        let mut v = FollowUpValidator::new("ask-1", "alpha");
        for e in [STARTED, TASK, WAKE, TOOLS, DONE] {
            v.accept(ev(e)).unwrap();
        }
        assert!(matches!(v.finish(), FollowUpEnd::Completed(_)));
    }

    #[test]
    fn eof_keeps_received_sources_s10_3() {
        let mut v = FollowUpValidator::new("ask-1", "alpha");
        v.accept(ev(STARTED)).unwrap();
        v.accept(ev(TASK)).unwrap();
        let FollowUpEnd::Truncated { state, unconfirmed } = v.finish() else {
            panic!("expected truncated")
        };
        assert_eq!(state.confirmed(), [FollowUpSource::Task]);
        assert_eq!(
            unconfirmed,
            [FollowUpSource::Wake, FollowUpSource::ToolResult]
        );
    }

    #[test]
    fn order_and_identity_rules_s10_3() {
        let mut v = FollowUpValidator::new("ask-1", "alpha");
        assert!(v.accept(ev(TASK)).is_err(), "source before STARTED");
        let mut v = FollowUpValidator::new("ask-1", "beta");
        assert_eq!(
            v.accept(ev(STARTED)).unwrap_err().kind,
            DecodeErrorKind::IdentityMismatch
        );
        let mut v = FollowUpValidator::new("ask-1", "alpha");
        v.accept(ev(STARTED)).unwrap();
        assert!(v.accept(ev(STARTED)).is_err(), "STARTED twice");
        v.accept(ev(TASK)).unwrap();
        assert_eq!(
            v.accept(ev(TASK)).unwrap_err().kind,
            DecodeErrorKind::Other("duplicate_item")
        );
        assert!(v.accept(ev(DONE)).is_err(), "COMPLETED before all sources");
    }

    #[test]
    fn latest_must_be_counted_s10_3() {
        let body = TOOLS.replace(r#""success":1"#, r#""success":0"#);
        assert_eq!(
            AskFollowUpEvent::decode(body.as_bytes()).unwrap_err().kind,
            DecodeErrorKind::CountMismatch
        );
    }
}
