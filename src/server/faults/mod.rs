//! Fault plans (protocol.md §13): which requests get which injected fault.
//!
//! This module is pure: a [`FaultPlan`] is data (the JSON format of `docs/fault-plans.md`) and a
//! [`FaultEngine`] decides, per request, which rules fire. Applying the fired faults to a
//! response is the job of `server::middleware`.

use crate::server::seeded::{SeededRng, seeded_rng};
use serde::{Deserialize, Serialize};

/// A whole plan: rules are checked in order and every rule that fires contributes its fault.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultPlan {
    #[serde(default)]
    pub rules: Vec<FaultRule>,
}

impl FaultPlan {
    /// The empty plan: no faults.
    pub fn none() -> Self {
        Self::default()
    }

    /// A plan with one rule.
    pub fn single(rule: FaultRule) -> Self {
        Self { rules: vec![rule] }
    }

    /// Parse the JSON plan format.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRule {
    #[serde(rename = "match")]
    pub matcher: RuleMatch,
    #[serde(default)]
    pub when: When,
    pub fault: Fault,
}

impl FaultRule {
    /// Convenience for tests: a rule on `method path` firing `when`.
    pub fn new(method: &str, path: &str, when: When, fault: Fault) -> Self {
        Self {
            matcher: RuleMatch {
                method: Some(method.to_string()),
                path: Some(path.to_string()),
                query: None,
            },
            when,
            fault,
        }
    }
}

/// Which requests a rule looks at. Absent fields match anything. `path` is exact, or a prefix
/// when it ends with `*`. `query` is a substring of the raw query string.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleMatch {
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub query: Option<String>,
}

impl RuleMatch {
    pub fn matches(&self, method: &str, path: &str, query: &str) -> bool {
        if let Some(m) = &self.method
            && !m.eq_ignore_ascii_case(method)
        {
            return false;
        }
        if let Some(p) = &self.path {
            let ok = match p.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => p == path,
            };
            if !ok {
                return false;
            }
        }
        if let Some(q) = &self.query
            && !query.contains(q.as_str())
        {
            return false;
        }
        true
    }
}

/// When a matching request is faulted. Matching requests are counted from 1 per rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum When {
    /// Exactly the nth matching request.
    Nth { nth: u64 },
    /// The first N matching requests.
    First { first: u64 },
    /// Every matching request (`{"every": true}`; `false` disables the rule).
    Every { every: bool },
    /// Each matching request with this probability, drawn from a RNG seeded per rule, so a
    /// given plan fires on the same request numbers every run.
    Probability { probability: f64, seed: u64 },
}

impl Default for When {
    fn default() -> Self {
        Self::Every { every: true }
    }
}

/// `drop` variants (§13): before or after the store commit of a write; reads drop after the
/// request arrived, without running the handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropPoint {
    BeforeApply,
    AfterApply,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptFault {
    Missing,
    Duplicate,
    Wrong,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EchoFault {
    Wrong,
}

/// How a scripted chat turn ends instead of replying (chat stream only). Both record
/// the operation `Failed` with `outcome_ref: null`, as MASC's `Keeper_chat_operation.to_json`
/// writes a turn that left no outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatTurnFault {
    /// Partial text, then `RUN_FINISHED` without `KEEPER_REPLY_DETAILS`; the operation is
    /// `Failed` with `failure_kind: Turn_cancelled`.
    Cancelled,
    /// Partial text, then `RUN_ERROR`; the operation is `Failed` with `Turn_exception`.
    RunError,
    /// The turn's call waits for the operator: `KEEPER_TOOL_APPROVAL_REQUESTED`, then
    /// `KEEPER_TOOL_APPROVAL_SETTLED` (`approved`) before its result (§15.9); the turn then
    /// completes.
    HoldsCall,
    /// `KEEPER_TOOL_APPROVAL_SETTLED` for a call never announced (§15.14 fault); the turn
    /// completes.
    SettledUnannounced,
}

impl ChatTurnFault {
    /// The turn ends without a reply.
    pub fn ends_without_reply(self) -> bool {
        matches!(self, Self::Cancelled | Self::RunError)
    }
}

/// What a newer MASC's `POST /api/v1/keepers/{name}/up` does beyond its plain create or update
/// (protocol-15 §15.11, §15.14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeeperUpFault {
    /// Someone else creates a Keeper of that name between the client's existence read and this
    /// POST: MASC's tool finds it and updates it (the race window no client can close).
    Race,
    /// An update refused while a turn holds the Keeper, after the metadata was written:
    /// `keeper_turn_in_flight`, `metadata_committed: true`.
    TurnInFlight,
    /// The create writes the metadata, then the lane does not start.
    LaneFails,
}

/// A batch binding the newer-MASC chat stream carries although it is wrong (chat stream only;
/// C-37). An older MASC (`--compat`) never sends a binding, faulted or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchBoundFault {
    /// Before `RUN_STARTED`, a `KEEPER_CHAT_BATCH_BOUND` naming an operation id the client
    /// never sent (`<request_id>-unknown`), bound to this turn's execution.
    UnknownRequest,
}

/// One injected fault. The JSON shape is the single key (plus `body` for status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fault {
    Delay {
        delay_ms: u64,
    },
    /// Writes: held this long by a hop that does not cancel upstream requests, then handled
    /// whether or not the client still waits (its answer goes to the client if it does).
    ApplyLate {
        apply_late_ms: u64,
    },
    Status {
        status: u16,
        #[serde(default)]
        body: Option<serde_json::Value>,
    },
    Malformed {
        malformed: bool,
    },
    Truncate {
        truncate_at: usize,
    },
    Receipt {
        receipt: ReceiptFault,
    },
    Echo {
        echo: EchoFault,
    },
    Drop {
        drop: DropPoint,
    },
    SseCut {
        sse_cut_after: usize,
    },
    RepeatCursor {
        repeat_cursor: bool,
    },
    Stale304 {
        stale_304: bool,
    },
    ChatTurn {
        chat_turn: ChatTurnFault,
    },
    /// A resumed chat stream (a re-POST with `since_seq`) replays the turn's journal from its
    /// first event instead of after `since_seq`: events the client already has come again.
    ResumeOverlap {
        resume_overlap: bool,
    },
    BatchBound {
        batch_bound: BatchBoundFault,
    },
    KeeperUp {
        keeper_up: KeeperUpFault,
    },
    /// Writes: run the handler (its effect committed), then answer this instead of its
    /// response — a server that applied a write and then failed in its answer (§15.14:
    /// `internal_error` after the proof request was written, a 200 that is not the envelope).
    AnswerAfterApply {
        answer_after_apply: InjectedAnswer,
    },
}

/// A status and body a fault answers with (`body` as in [`Fault::Status`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectedAnswer {
    pub status: u16,
    #[serde(default)]
    pub body: Option<serde_json::Value>,
}

/// The faults fired for one request, merged. Later rules win for single-valued faults; delays
/// add up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FiredFaults {
    pub delay_ms: u64,
    pub apply_late_ms: u64,
    pub status: Option<(u16, Option<serde_json::Value>)>,
    pub malformed: bool,
    pub truncate_at: Option<usize>,
    pub receipt: Option<ReceiptFault>,
    pub echo_wrong: bool,
    pub drop: Option<DropPoint>,
    pub sse_cut_after: Option<usize>,
    pub repeat_cursor: bool,
    pub stale_304: bool,
    pub chat_turn: Option<ChatTurnFault>,
    pub resume_overlap: bool,
    pub batch_bound: Option<BatchBoundFault>,
    pub keeper_up: Option<KeeperUpFault>,
    pub answer_after_apply: Option<InjectedAnswer>,
}

impl FiredFaults {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    fn add(&mut self, fault: &Fault) {
        match fault {
            Fault::Delay { delay_ms } => self.delay_ms = self.delay_ms.saturating_add(*delay_ms),
            Fault::ApplyLate { apply_late_ms } => {
                self.apply_late_ms = self.apply_late_ms.saturating_add(*apply_late_ms)
            }
            Fault::Status { status, body } => self.status = Some((*status, body.clone())),
            Fault::Malformed { malformed } => self.malformed |= *malformed,
            Fault::Truncate { truncate_at } => self.truncate_at = Some(*truncate_at),
            Fault::Receipt { receipt } => self.receipt = Some(*receipt),
            Fault::Echo {
                echo: EchoFault::Wrong,
            } => self.echo_wrong = true,
            Fault::Drop { drop } => self.drop = Some(*drop),
            Fault::SseCut { sse_cut_after } => self.sse_cut_after = Some(*sse_cut_after),
            Fault::RepeatCursor { repeat_cursor } => self.repeat_cursor |= *repeat_cursor,
            Fault::Stale304 { stale_304 } => self.stale_304 |= *stale_304,
            Fault::ChatTurn { chat_turn } => self.chat_turn = Some(*chat_turn),
            Fault::ResumeOverlap { resume_overlap } => self.resume_overlap |= *resume_overlap,
            Fault::BatchBound { batch_bound } => self.batch_bound = Some(*batch_bound),
            Fault::KeeperUp { keeper_up } => self.keeper_up = Some(*keeper_up),
            Fault::AnswerAfterApply { answer_after_apply } => {
                self.answer_after_apply = Some(answer_after_apply.clone())
            }
        }
    }
}

/// One fired rule, for the fault log.
#[derive(Debug, Clone, PartialEq)]
pub struct FiredRule {
    pub index: usize,
    pub nth_match: u64,
    pub fault: Fault,
}

/// A plan plus its per-rule state (match counters and seeded RNGs).
#[derive(Debug)]
pub struct FaultEngine {
    plan: FaultPlan,
    matched: Vec<u64>,
    rngs: Vec<Option<SeededRng>>,
}

impl FaultEngine {
    pub fn new(plan: FaultPlan) -> Self {
        let matched = vec![0; plan.rules.len()];
        let rngs = plan
            .rules
            .iter()
            .map(|r| match r.when {
                When::Probability { seed, .. } => Some(seeded_rng(seed)),
                _ => None,
            })
            .collect();
        Self {
            plan,
            matched,
            rngs,
        }
    }

    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// Count this request against every matching rule and return the rules that fire.
    pub fn decide(&mut self, method: &str, path: &str, query: &str) -> Vec<FiredRule> {
        let mut fired = Vec::new();
        for (index, rule) in self.plan.rules.iter().enumerate() {
            if !rule.matcher.matches(method, path, query) {
                continue;
            }
            let Some(count) = self.matched.get_mut(index) else {
                continue;
            };
            *count += 1;
            let n = *count;
            let fires = match &rule.when {
                When::Nth { nth } => n == *nth,
                When::First { first } => n <= *first,
                When::Every { every } => *every,
                When::Probability { probability, .. } => match self.rngs.get_mut(index) {
                    Some(Some(rng)) => rng.gen_f64() < *probability,
                    _ => false,
                },
            };
            if fires {
                fired.push(FiredRule {
                    index,
                    nth_match: n,
                    fault: rule.fault.clone(),
                });
            }
        }
        fired
    }

    /// Merge fired rules into one request's faults.
    pub fn merge(fired: &[FiredRule]) -> FiredFaults {
        let mut out = FiredFaults::default();
        for f in fired {
            out.add(&f.fault);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chat_turn_fault_parses_and_merges() {
        let p = FaultPlan::from_json(
            r#"{"rules":[{"match":{"path":"/api/v1/keepers/chat/stream"},"fault":{"chat_turn":"cancelled"}},
            {"match":{"path":"/x"},"fault":{"chat_turn":"run_error"}}]}"#,
        )
        .unwrap();
        let mut engine = FaultEngine::new(p);
        let fired = engine.decide("POST", "/api/v1/keepers/chat/stream", "");
        assert_eq!(
            FaultEngine::merge(&fired).chat_turn,
            Some(ChatTurnFault::Cancelled)
        );
        assert!(FaultPlan::from_json(r#"{"rules":[{"fault":{"chat_turn":"later"}}]}"#).is_err());
    }

    fn plan(json: &str) -> FaultPlan {
        FaultPlan::from_json(json).unwrap()
    }

    #[test]
    fn the_answer_after_apply_fault_parses_and_merges() {
        let p = plan(
            r#"{"rules":[{"match":{"method":"POST","path":"/a"},"fault":{"answer_after_apply":{"status":200,"body":"done"}}}]}"#,
        );
        let mut engine = FaultEngine::new(p);
        let fired = engine.decide("POST", "/a", "");
        assert_eq!(
            FaultEngine::merge(&fired).answer_after_apply,
            Some(InjectedAnswer {
                status: 200,
                body: Some(serde_json::json!("done"))
            })
        );
        assert!(
            FaultPlan::from_json(
                r#"{"rules":[{"fault":{"answer_after_apply":{"status":200,"extra":1}}}]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn parses_every_fault_shape_of_the_documented_format() {
        let p = plan(
            r#"{"rules":[
            {"match":{"method":"GET","path":"/api/v1/gate/keepers","query":"limit"},"when":{"nth":2},"fault":{"delay_ms":50}},
            {"match":{"path":"/a"},"when":{"every":true},"fault":{"status":500,"body":"boom"}},
            {"match":{"path":"/a"},"when":{"probability":0.3,"seed":7},"fault":{"malformed":true}},
            {"match":{"path":"/a"},"fault":{"truncate_at":10}},
            {"match":{"path":"/a"},"fault":{"receipt":"duplicate"}},
            {"match":{"path":"/a"},"fault":{"echo":"wrong"}},
            {"match":{"path":"/a"},"fault":{"drop":"after_apply"}},
            {"match":{"path":"/a"},"fault":{"sse_cut_after":3}},
            {"match":{"path":"/a"},"fault":{"repeat_cursor":true}},
            {"match":{"path":"/a"},"when":{"first":2},"fault":{"stale_304":true}}
        ]}"#,
        );
        assert_eq!(p.rules.len(), 10);
        assert_eq!(p.rules[0].when, When::Nth { nth: 2 });
        assert_eq!(p.rules[3].when, When::Every { every: true });
        assert_eq!(
            p.rules[1].fault,
            Fault::Status {
                status: 500,
                body: Some(serde_json::json!("boom"))
            }
        );
        assert_eq!(
            p.rules[6].fault,
            Fault::Drop {
                drop: DropPoint::AfterApply
            }
        );
        assert_eq!(
            p.rules[4].fault,
            Fault::Receipt {
                receipt: ReceiptFault::Duplicate
            }
        );
        assert_eq!(p.rules[9].when, When::First { first: 2 });
    }

    #[test]
    fn rejects_unknown_keys_and_values() {
        assert!(FaultPlan::from_json(r#"{"rules":[],"extra":1}"#).is_err());
        assert!(
            FaultPlan::from_json(r#"{"rules":[{"match":{"pathx":"/a"},"fault":{"delay_ms":1}}]}"#)
                .is_err()
        );
        assert!(
            FaultPlan::from_json(r#"{"rules":[{"match":{},"fault":{"receipt":"sometimes"}}]}"#)
                .is_err()
        );
        assert!(FaultPlan::from_json(r#"{"rules":[{"match":{},"fault":{"explode":1}}]}"#).is_err());
    }

    #[test]
    fn matching_is_by_method_exact_or_prefix_path_and_query_substring() {
        let m = RuleMatch {
            method: Some("get".into()),
            path: Some("/api/v1/dashboard/*".into()),
            query: Some("task_id=t-1".into()),
        };
        assert!(m.matches("GET", "/api/v1/dashboard/tasks", "task_id=t-1&limit=2"));
        assert!(!m.matches("POST", "/api/v1/dashboard/tasks", "task_id=t-1"));
        assert!(!m.matches("GET", "/api/v1/gate/keepers", "task_id=t-1"));
        assert!(!m.matches("GET", "/api/v1/dashboard/tasks", "task_id=t-2"));
        let exact = RuleMatch {
            method: None,
            path: Some("/health".into()),
            query: None,
        };
        assert!(exact.matches("GET", "/health", ""));
        assert!(!exact.matches("GET", "/healthz", ""));
    }

    #[test]
    fn nth_fires_exactly_once_counting_only_matching_requests() {
        let mut e = FaultEngine::new(FaultPlan::single(FaultRule::new(
            "GET",
            "/x",
            When::Nth { nth: 2 },
            Fault::Delay { delay_ms: 1 },
        )));
        let fired: Vec<usize> = (1..=5)
            .map(|_| {
                // An unrelated request in between must not advance the counter.
                assert!(e.decide("GET", "/other", "").is_empty());
                e.decide("GET", "/x", "").len()
            })
            .collect();
        assert_eq!(fired, vec![0, 1, 0, 0, 0]);
    }

    #[test]
    fn every_and_first_and_disabled() {
        let mut e = FaultEngine::new(FaultPlan {
            rules: vec![
                FaultRule::new(
                    "GET",
                    "/x",
                    When::Every { every: true },
                    Fault::Malformed { malformed: true },
                ),
                FaultRule::new(
                    "GET",
                    "/x",
                    When::First { first: 2 },
                    Fault::Delay { delay_ms: 3 },
                ),
                FaultRule::new(
                    "GET",
                    "/x",
                    When::Every { every: false },
                    Fault::Stale304 { stale_304: true },
                ),
            ],
        });
        let merged: Vec<FiredFaults> = (0..3)
            .map(|_| FaultEngine::merge(&e.decide("GET", "/x", "")))
            .collect();
        assert!(merged.iter().all(|f| f.malformed && !f.stale_304));
        assert_eq!(
            merged.iter().map(|f| f.delay_ms).collect::<Vec<_>>(),
            vec![3, 3, 0]
        );
    }

    #[test]
    fn seeded_probability_is_deterministic_and_roughly_proportional() {
        let rule = FaultRule::new(
            "GET",
            "/x",
            When::Probability {
                probability: 0.3,
                seed: 7,
            },
            Fault::Delay { delay_ms: 1 },
        );
        let run = || {
            let mut e = FaultEngine::new(FaultPlan::single(rule.clone()));
            (0..1000)
                .map(|_| !e.decide("GET", "/x", "").is_empty())
                .collect::<Vec<bool>>()
        };
        let a = run();
        assert_eq!(a, run(), "same seed, same firing pattern");
        let hits = a.iter().filter(|b| **b).count();
        assert!((200..400).contains(&hits), "hits {hits}");
        let mut other = rule.clone();
        other.when = When::Probability {
            probability: 0.3,
            seed: 8,
        };
        let mut e = FaultEngine::new(FaultPlan::single(other));
        let b: Vec<bool> = (0..1000)
            .map(|_| !e.decide("GET", "/x", "").is_empty())
            .collect();
        assert_ne!(a, b, "another seed, another pattern");
    }

    #[test]
    fn merge_adds_delays_and_keeps_the_last_status() {
        let fired = vec![
            FiredRule {
                index: 0,
                nth_match: 1,
                fault: Fault::Delay { delay_ms: 5 },
            },
            FiredRule {
                index: 1,
                nth_match: 1,
                fault: Fault::Delay { delay_ms: 7 },
            },
            FiredRule {
                index: 2,
                nth_match: 1,
                fault: Fault::Status {
                    status: 500,
                    body: None,
                },
            },
            FiredRule {
                index: 3,
                nth_match: 1,
                fault: Fault::Status {
                    status: 502,
                    body: None,
                },
            },
        ];
        let m = FaultEngine::merge(&fired);
        assert_eq!(m.delay_ms, 12);
        assert_eq!(m.status, Some((502, None)));
        assert!(FaultEngine::merge(&[]).is_empty());
    }
}
