//! Batch diagnostics of this chat's inputs (chat-screen.md C-37; seed 001 "batch는 실제 실행
//! ID로 인덱싱하고 첫 등장 순서·원래 가장 이른 입력·재확인 수를 보존한다", "membership은 요청
//! ID·Keeper·본문 세 값을 모두 쓰는 동일한 identity로 인덱싱한다. 본문을 정규화·복사·해시하거나
//! ID만으로 합치지 않는다").
//!
//! A newer MASC binds each queued chat operation it runs together to one execution
//! (`KEEPER_CHAT_BATCH_BOUND {operation_id, execution_id}`, protocol.md §4.3). This index is
//! the record of those bindings: executions keyed by the exact execution id, in the order
//! they first appeared; inside one, its members in the order they were first bound, each the
//! triple (request id, Keeper, body). The body is the send's own shared text (`Arc<str>`):
//! compared as it is, never normalised, copied or hashed. Two members are one only when all
//! three are equal — an input edited under the same request id is another member, and a
//! request id alone never merges anything.
//!
//! A binding that names no input of this chat (an unknown request id, or a request of
//! another Keeper) is counted and traced, never attached.

use std::sync::Arc;

/// One member input of an execution: the identity triple and how often it was bound again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchMember {
    pub request_id: String,
    pub keeper: String,
    /// The send's text, shared (never a copy).
    pub body: Arc<str>,
    /// Bindings of this same triple to this execution after the first (`재확인 수`).
    pub reconfirmed: u32,
}

impl BatchMember {
    fn same_input(&self, request_id: &str, keeper: &str, body: &str) -> bool {
        self.request_id == request_id && self.keeper == keeper && *self.body == *body
    }
}

/// One execution and its members in first-binding order; the first member is the original
/// earliest input and never changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    pub execution_id: String,
    pub members: Vec<BatchMember>,
}

impl Execution {
    /// The original earliest input of the execution (seed: "원래 가장 이른 입력").
    pub fn representative(&self) -> Option<&BatchMember> {
        self.members.first()
    }
}

/// Bindings that were not attached to any input, by why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unattached {
    /// The operation id is no request of this chat.
    pub unknown_request: u32,
    /// The operation id is a request of another Keeper.
    pub other_keeper: u32,
}

impl Unattached {
    pub fn total(&self) -> u32 {
        self.unknown_request + self.other_keeper
    }
}

/// What one binding did to the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A new member (of a new or a known execution).
    Joined,
    /// The same triple bound to the same execution again.
    Reconfirmed,
}

/// The batch index of one chat (one Keeper's pane).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchIndex {
    executions: Vec<Execution>,
    pub unattached: Unattached,
}

impl BatchIndex {
    /// Executions in first-appearance order.
    pub fn executions(&self) -> &[Execution] {
        &self.executions
    }

    /// Records that the input (request id, Keeper, body) runs in `execution_id`.
    pub fn bind(
        &mut self,
        execution_id: &str,
        request_id: &str,
        keeper: &str,
        body: &Arc<str>,
    ) -> Bound {
        let at = match self
            .executions
            .iter()
            .position(|e| e.execution_id == execution_id)
        {
            Some(at) => at,
            None => {
                self.executions.push(Execution {
                    execution_id: execution_id.to_string(),
                    members: Vec::new(),
                });
                self.executions.len() - 1
            }
        };
        let execution = &mut self.executions[at];
        if let Some(member) = execution
            .members
            .iter_mut()
            .find(|m| m.same_input(request_id, keeper, body))
        {
            member.reconfirmed = member.reconfirmed.saturating_add(1);
            return Bound::Reconfirmed;
        }
        execution.members.push(BatchMember {
            request_id: request_id.to_string(),
            keeper: keeper.to_string(),
            body: Arc::clone(body),
            reconfirmed: 0,
        });
        Bound::Joined
    }

    /// The execution holding this exact input, the newest binding first when it was bound
    /// to more than one.
    pub fn execution_of(&self, request_id: &str, keeper: &str, body: &str) -> Option<&Execution> {
        self.executions.iter().rev().find(|e| {
            e.members
                .iter()
                .any(|m| m.same_input(request_id, keeper, body))
        })
    }

    /// Counts (and traces) a binding that names no input of this chat.
    pub fn refuse(&mut self, why: Refused, execution_id: &str, operation_id: &str) {
        match why {
            Refused::UnknownRequest => {
                self.unattached.unknown_request = self.unattached.unknown_request.saturating_add(1);
            }
            Refused::OtherKeeper => {
                self.unattached.other_keeper = self.unattached.other_keeper.saturating_add(1);
            }
        }
        tracing::warn!(
            target: "masc_tui::chat::batch",
            reason = why.reason(),
            execution_id,
            operation_id,
            "batch binding not attached to any input"
        );
    }
}

/// Why a binding was not attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    UnknownRequest,
    OtherKeeper,
}

impl Refused {
    pub fn reason(self) -> &'static str {
        match self {
            Self::UnknownRequest => "unknown_request",
            Self::OtherKeeper => "other_keeper",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(s: &str) -> Arc<str> {
        Arc::from(s)
    }

    /// C-37: executions keep their first-appearance order and members their first-binding
    /// order; the first member (the original earliest input) never changes; a repeat of the
    /// same triple is a re-confirmation, not a second member.
    #[test]
    fn c37_first_appearance_order_the_earliest_input_and_reconfirmations_are_kept() {
        let mut index = BatchIndex::default();
        let (a, b, c) = (body("first"), body("second"), body("third"));
        assert_eq!(index.bind("exec-2", "tui-b", "alpha", &b), Bound::Joined);
        assert_eq!(index.bind("exec-1", "tui-a", "alpha", &a), Bound::Joined);
        assert_eq!(index.bind("exec-2", "tui-c", "alpha", &c), Bound::Joined);
        assert_eq!(
            index.bind("exec-2", "tui-b", "alpha", &b),
            Bound::Reconfirmed
        );
        assert_eq!(
            index.bind("exec-2", "tui-b", "alpha", &b),
            Bound::Reconfirmed
        );
        let ids: Vec<_> = index
            .executions()
            .iter()
            .map(|e| e.execution_id.as_str())
            .collect();
        assert_eq!(ids, ["exec-2", "exec-1"]);
        let exec2 = &index.executions()[0];
        let members: Vec<_> = exec2
            .members
            .iter()
            .map(|m| m.request_id.as_str())
            .collect();
        assert_eq!(members, ["tui-b", "tui-c"]);
        assert_eq!(
            exec2.representative().map(|m| m.request_id.as_str()),
            Some("tui-b")
        );
        assert_eq!(exec2.members[0].reconfirmed, 2);
        // The body is shared, not copied.
        assert!(Arc::ptr_eq(&exec2.members[0].body, &b));
    }

    /// C-37: membership is the triple — the same request id with another body (an edited
    /// input) or under another Keeper is another member; ids alone never merge.
    #[test]
    fn c37_membership_is_the_triple_never_the_id_alone() {
        let mut index = BatchIndex::default();
        let (one, edited) = (body("fix the decoder"), body("fix the decoder "));
        index.bind("exec", "tui-a", "alpha", &one);
        assert_eq!(index.bind("exec", "tui-a", "alpha", &edited), Bound::Joined);
        assert_eq!(index.bind("exec", "tui-a", "beta", &one), Bound::Joined);
        assert_eq!(index.executions()[0].members.len(), 3);
        assert!(
            index
                .execution_of("tui-a", "alpha", "fix the decoder")
                .is_some()
        );
        assert!(
            index
                .execution_of("tui-a", "alpha", "Fix the decoder")
                .is_none()
        );
        assert!(
            index
                .execution_of("tui-a", "gamma", "fix the decoder")
                .is_none()
        );
        // Execution ids are exact too.
        index.bind("EXEC", "tui-a", "alpha", &one);
        assert_eq!(index.executions().len(), 2);
    }

    /// C-37: a binding that names no input is counted by why, never attached.
    #[test]
    fn c37_a_binding_for_no_input_is_counted_never_attached() {
        let mut index = BatchIndex::default();
        index.refuse(Refused::UnknownRequest, "exec", "tui-nobody");
        index.refuse(Refused::OtherKeeper, "exec", "tui-beta-1");
        assert_eq!(
            index.unattached,
            Unattached {
                unknown_request: 1,
                other_keeper: 1
            }
        );
        assert_eq!(index.unattached.total(), 2);
        assert!(index.executions().is_empty());
    }
}
