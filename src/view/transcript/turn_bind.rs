//! The operator's row of a turn after a reload (C-50: one projection, live and settled; C-13,
//! C-17). A persisted user row carries no `turn_ref` (protocol.md §4.5; MASC appends the queued
//! user row before the turn has one), so a newest-page reload would leave the operator's row
//! outside the bracket its live twin opened. This client knows, for each of its own sends, the
//! text it sent and the turn its reply was recorded under (`KEEPER_REPLY_DETAILS.turn_ref`, or
//! the §4.4 record's `outcome_ref`). A history row is bound to that turn only when the evidence
//! is exact: the row right before the turn's first persisted row is an operator utterance with
//! no turn of its own whose text is byte-for-byte the send's text (C-37: the body is never
//! normalised). Anything else — the turn not on this page, another row in between, a different
//! text (MASC redacted a secret), two sends claiming one row or one turn — binds nothing: the
//! row keeps no rail rather than a guessed one (M-2's rule, links are never guessed).

use super::model::{EntryKind, Speaker, Transcript};
use std::collections::HashMap;
use std::sync::Arc;

/// One send of this chat whose reply turn is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownTurn<'a> {
    pub request_id: &'a str,
    pub text: &'a str,
    pub turn_ref: &'a str,
}

/// Binds the persisted operator rows of `known` sends to their turns; returns how many.
pub fn bind_operator_rows(t: &mut Transcript, known: &[KnownTurn<'_>]) -> usize {
    let entries = t.entries();
    // turn_ref → the index of its first persisted row.
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(r) = e.turn_ref.as_deref() {
            first.entry(r).or_insert(i);
        }
    }
    let mut claims: Vec<(usize, &str)> = Vec::new();
    let mut turn_claims: HashMap<&str, usize> = HashMap::new();
    for k in known {
        *turn_claims.entry(k.turn_ref).or_insert(0) += 1;
        let Some(at) = first.get(k.turn_ref).and_then(|i| i.checked_sub(1)) else {
            continue;
        };
        let Some(row) = entries.get(at) else {
            continue;
        };
        let operator_utterance =
            row.speaker == Speaker::Operator && row.kind == EntryKind::Utterance;
        if operator_utterance
            && row.turn_ref.is_none()
            && row.origin.request_id.is_none()
            && row.text == k.text
        {
            claims.push((at, k.turn_ref));
        }
    }
    let mut row_claims: HashMap<usize, usize> = HashMap::new();
    for (at, _) in &claims {
        *row_claims.entry(*at).or_insert(0) += 1;
    }
    let chosen: Vec<(usize, Arc<str>)> = claims
        .iter()
        .filter(|(at, turn)| row_claims.get(at) == Some(&1) && turn_claims.get(turn) == Some(&1))
        .map(|(at, turn)| (*at, Arc::from(*turn)))
        .collect();
    for (at, turn) in &chosen {
        t.update_at(*at, |e| e.turn_ref = Some(Arc::clone(turn)));
    }
    chosen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::transcript::model::Entry;

    fn keeper() -> Speaker {
        Speaker::Keeper {
            name: "rondo".into(),
            owner: true,
        }
    }

    fn persisted(id: &str, who: Speaker, text: &str, turn: Option<&str>) -> Entry {
        let mut e = Entry::new(id, who, EntryKind::Utterance, text);
        e.turn_ref = turn.map(Arc::from);
        e
    }

    fn turns(t: &Transcript) -> Vec<Option<String>> {
        t.entries()
            .iter()
            .map(|e| e.turn_ref.as_deref().map(str::to_string))
            .collect()
    }

    #[test]
    fn c50_the_operator_row_right_before_its_turn_with_the_sent_text_is_bound() {
        let mut t = Transcript::new();
        t.push(persisted("u", Speaker::Operator, "status?", None));
        t.push(persisted("k", keeper(), "green", Some("trace-rondo#4")));
        let known = [KnownTurn {
            request_id: "tui-1",
            text: "status?",
            turn_ref: "trace-rondo#4",
        }];
        assert_eq!(bind_operator_rows(&mut t, &known), 1);
        assert_eq!(turns(&t)[0].as_deref(), Some("trace-rondo#4"));
    }

    #[test]
    fn c50_m2_no_binding_is_guessed() {
        let base = || {
            let mut t = Transcript::new();
            t.push(persisted("u", Speaker::Operator, "status?", None));
            t.push(persisted("k", keeper(), "green", Some("trace-rondo#4")));
            t
        };
        // Another text (e.g. MASC redacted a secret): nothing.
        let mut t = base();
        let other = [KnownTurn {
            request_id: "tui-1",
            text: "status? ",
            turn_ref: "trace-rondo#4",
        }];
        assert_eq!(bind_operator_rows(&mut t, &other), 0);
        assert_eq!(turns(&t)[0], None);
        // Two sends claiming one turn: nothing.
        let mut t = base();
        let two = [
            KnownTurn {
                request_id: "tui-1",
                text: "status?",
                turn_ref: "trace-rondo#4",
            },
            KnownTurn {
                request_id: "tui-2",
                text: "status?",
                turn_ref: "trace-rondo#4",
            },
        ];
        assert_eq!(bind_operator_rows(&mut t, &two), 0);
        // A row between the operator row and the turn: nothing.
        let mut t = Transcript::new();
        t.push(persisted("u", Speaker::Operator, "status?", None));
        t.push(persisted("x", keeper(), "autonomous note", None));
        t.push(persisted("k", keeper(), "green", Some("trace-rondo#4")));
        assert_eq!(bind_operator_rows(&mut t, &two[..1]), 0);
        // The turn is not on this page: nothing.
        let mut t = Transcript::new();
        t.push(persisted("u", Speaker::Operator, "status?", None));
        assert_eq!(bind_operator_rows(&mut t, &two[..1]), 0);
    }
}
