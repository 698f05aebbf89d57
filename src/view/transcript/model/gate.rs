//! One approval's Gate steps as the transcript records them (§15.9: `system` rows with
//! `approval_lifecycle`), folded into one row by approval id.
//!
//! Wording (seed 000, C-53, C-54): news first, then the target, joined by `·`; two facts of
//! one state joined by a comma. The news is what happened to the approval — `승인 대기`,
//! `승인됨`, `거부됨`, then what became of the held call (`적용됨`, `적용 실패`, …); the target
//! is the tool and what the held call asked for. A step whose phase says a failure makes the
//! row a failure (C-8, C-9: the type decides, never the text).

use crate::protocol::chat::rows::{ApprovalLifecycle, ApprovalPhase};
use compact_str::CompactString;

/// The steps of one approval seen in the transcript, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRecord {
    pub approval_id: String,
    pub tool: Option<String>,
    /// What the held call asked for (every phase carries it; the newest non-blank one wins).
    pub call_summary: Option<String>,
    /// (history row id, phase) of each folded step, oldest first.
    pub steps: Vec<(CompactString, ApprovalPhase)>,
}

impl GateRecord {
    /// The record of one step. `None` when the lifecycle names no approval (that row is not a
    /// step that can be placed).
    pub fn of_step(row_id: &str, step: &ApprovalLifecycle) -> Option<Self> {
        Some(Self {
            approval_id: step.approval_id.clone()?,
            tool: step.tool_name.clone(),
            call_summary: step.call_summary.clone(),
            steps: vec![(row_id.into(), step.phase.clone())],
        })
    }

    /// The entry id the steps of `approval_id` fold into.
    pub fn entry_id(approval_id: &str) -> String {
        format!("gate:{approval_id}")
    }

    /// Folds `other`'s steps in: before this record's when they are older (an older history
    /// page), after otherwise. A step already folded (same row id) is not counted twice.
    pub fn fold(&mut self, other: GateRecord, older: bool) {
        let fresh: Vec<(CompactString, ApprovalPhase)> = other
            .steps
            .into_iter()
            .filter(|(id, _)| !self.steps.iter().any(|(seen, _)| seen == id))
            .collect();
        if older {
            self.steps.splice(0..0, fresh);
            self.tool = self.tool.take().or(other.tool);
            self.call_summary = self.call_summary.take().or(other.call_summary);
        } else {
            self.steps.extend(fresh);
            self.tool = other.tool.or(self.tool.take());
            self.call_summary = other
                .call_summary
                .filter(|s| !s.trim().is_empty())
                .or(self.call_summary.take());
        }
    }

    /// A step says the held call or its continuation failed.
    pub fn failed(&self) -> bool {
        self.steps.iter().any(|(_, p)| {
            matches!(
                p,
                ApprovalPhase::ReplayFailed | ApprovalPhase::ContinuationFailed
            )
        })
    }

    /// The row's text: news, then the tool, then what the call asked for.
    pub fn words(&self) -> String {
        let later = self
            .steps
            .iter()
            .any(|(_, p)| *p != ApprovalPhase::Requested);
        let mut news: Vec<String> = Vec::new();
        for (_, phase) in &self.steps {
            // Once the approval moved on, "waiting" is no longer news.
            if later && *phase == ApprovalPhase::Requested {
                continue;
            }
            let word = phase_words(phase);
            if !news.contains(&word) {
                news.push(word);
            }
        }
        let mut text = news.join(", ");
        text.push_str(" · ");
        text.push_str(self.tool.as_deref().unwrap_or("도구 이름 없음"));
        if let Some(summary) = self
            .call_summary
            .as_deref()
            .filter(|s| !s.trim().is_empty())
        {
            text.push_str(" · ");
            text.push_str(summary.trim());
        }
        text
    }
}

/// What one phase says happened, in the Gate rows' words (seed 000 `masc_tui_gate_text.ml`).
pub fn phase_words(phase: &ApprovalPhase) -> String {
    match phase {
        ApprovalPhase::Requested => "승인 대기".into(),
        ApprovalPhase::ResolvedApproved => "승인됨".into(),
        ApprovalPhase::ResolvedRejected => "거부됨".into(),
        ApprovalPhase::ReplayApplied => "적용됨".into(),
        ApprovalPhase::ReplayAppliedWithWarning => "적용됨, 경고 있음".into(),
        ApprovalPhase::ReplayFailed => "적용 실패".into(),
        ApprovalPhase::ReplayIndeterminate => "적용 결과 모름".into(),
        ApprovalPhase::ContinuationRecorded => "이어서 진행됨".into(),
        ApprovalPhase::ContinuationFailed => "이어가기 실패".into(),
        ApprovalPhase::Other(label) => format!("알 수 없는 단계 {label}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str, phase: &str) -> GateRecord {
        GateRecord::of_step(
            id,
            &ApprovalLifecycle {
                approval_id: Some("appr_01".into()),
                phase: ApprovalPhase::from_label(phase),
                tool_name: Some("Execute".into()),
                call_summary: Some("git reflog | head -30".into()),
            },
        )
        .unwrap()
    }

    /// C-53, C-54, §15.9: requested → approved → replayed fold into one row, news first; the
    /// waiting word leaves once the approval moved on; a repeated row is not folded twice.
    #[test]
    fn c53_c54_steps_of_one_approval_fold_news_first() {
        let mut g = step("r1", "requested");
        assert_eq!(g.words(), "승인 대기 · Execute · git reflog | head -30");
        g.fold(step("r2", "resolved_approved"), false);
        g.fold(step("r3", "replay_applied"), false);
        g.fold(step("r3", "replay_applied"), false);
        assert_eq!(g.steps.len(), 3);
        assert_eq!(
            g.words(),
            "승인됨, 적용됨 · Execute · git reflog | head -30"
        );
        assert!(!g.failed());
        let mut older = step("r5", "replay_failed");
        older.fold(step("r4", "resolved_approved"), true);
        assert_eq!(older.steps[0].0, "r4");
        assert!(older.failed(), "C-8: a failed replay is a failure row");
        assert_eq!(
            older.words(),
            "승인됨, 적용 실패 · Execute · git reflog | head -30"
        );
    }

    #[test]
    fn s15_9_a_step_without_approval_id_is_no_record_and_unknown_phases_are_named() {
        let none = ApprovalLifecycle {
            approval_id: None,
            phase: ApprovalPhase::ReplayApplied,
            tool_name: None,
            call_summary: None,
        };
        assert!(GateRecord::of_step("r", &none).is_none());
        let g = step("r", "sleeping");
        assert_eq!(
            g.words(),
            "알 수 없는 단계 sleeping · Execute · git reflog | head -30"
        );
    }
}
