//! Saves as a surface shows them: one [`SaveEntry`] per save of a kind, its own slot
//! (sources.md H-5, H-6, H-15, H-16, I-5, K-1…K-3, K-5).
//!
//! A save is registered when the operator submits it; its operation's steps and receipt are
//! admitted only from the ticket its dispatch recorded, and only for the workspace it was
//! submitted in. Unlike a read, a receipt is not gated by the current epoch: it is the result
//! of a write already made, and survives withdrawal and workspace switches for the session
//! (it grants no new authority: nothing here sends). The receipt lands once; a later one for
//! the same save is rejected.

use super::admission::{OwnerId, RejectReason, ViewMark};
use crate::actors::contract::Ticket;
use crate::actors::saves::{Receipt, SaveEvent, SaveId, SaveKind, SaveStep};
use crate::protocol::outcome::SaveClass;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant, SystemTime};

pub mod books;
pub mod journal;

/// Where one save stands.
#[derive(Debug, Clone, PartialEq)]
pub enum SavePhase<R> {
    /// Submitted by the operator; no step seen yet.
    Submitted,
    /// In the outbox; nothing has left.
    Written,
    /// May be on the wire.
    Sending,
    /// The receipt.
    Ended(R),
    /// Read back from an earlier run: not sent, or outcome unknown. Never resent.
    Restored(R),
}

impl<R: Receipt> SavePhase<R> {
    pub fn receipt(&self) -> Option<&R> {
        match self {
            Self::Ended(r) | Self::Restored(r) => Some(r),
            _ => None,
        }
    }

    /// Still in flight (no receipt yet).
    pub fn in_flight(&self) -> bool {
        self.receipt().is_none()
    }

    /// The class of the receipt, if any.
    pub fn class(&self) -> Option<SaveClass> {
        self.receipt().map(Receipt::class)
    }

    /// Where it stands in an operator's words, the server's reason quoted (unsanitised: the
    /// caller sanitises before painting). An unknown outcome says it is never resent.
    pub fn words(&self) -> String {
        let Some(r) = self.receipt() else {
            return match self {
                Self::Sending => "sending…".into(),
                _ => "queued…".into(),
            };
        };
        let reason = r.reason().map(|x| format!(": {x}")).unwrap_or_default();
        let restored = if matches!(self, Self::Restored(_)) {
            " (an earlier run)"
        } else {
            ""
        };
        let tail = match r.class() {
            SaveClass::OutcomeUnknown => " · not resent: re-read (r) before asking again",
            _ => "",
        };
        format!("{}{reason}{restored}{tail}", class_words(r.class()))
    }
}

/// A receipt class in an operator's words (the journal's and every receipt line's).
pub fn class_words(class: SaveClass) -> &'static str {
    match class {
        SaveClass::Applied => "applied",
        SaveClass::Unchanged => "unchanged",
        SaveClass::NotSent => "not sent",
        SaveClass::NotApplied => "not applied",
        SaveClass::Conflict => "conflict",
        SaveClass::OutcomeUnknown => "outcome unknown",
    }
}

/// One save of kind `K`.
#[derive(Debug)]
pub struct SaveEntry<K: SaveKind> {
    pub save_id: SaveId,
    pub intent: K::Intent,
    /// The workspace it was submitted in.
    pub workspace: String,
    pub phase: SavePhase<K::Receipt>,
    pub submitted_at: Instant,
    /// When its receipt landed (a re-read observed later can tell whether it is still there).
    pub settled_at: Option<Instant>,
    /// When the view handled its receipt: a read dispatched after it can confirm the save.
    pub receipt_mark: Option<ViewMark>,
    /// Where the receipt stands against a re-read of what it changed.
    pub settle: Settle,
    owner: Option<OwnerId>,
}

impl<K: SaveKind> SaveEntry<K> {
    /// Where the save stands, then what its re-read says (`confirmed …`), in an operator's
    /// words (unsanitised).
    pub fn words(&self) -> String {
        let phase = self.phase.words();
        match self.settle.words(self.phase.class()) {
            Some(settle) => format!("{phase} · {settle}"),
            None => phase,
        }
    }
}

/// Where a receipt stands against a re-read of what it changed (the settle stage,
/// `view::save_path::settle`): a save is "sent" until something the server reports after it
/// shows the change, and says so when nothing does within its bound.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Settle {
    /// No receipt yet, or the settle stage has not looked at it.
    #[default]
    Unjudged,
    /// Nothing to confirm: the receipt says nothing changed (not sent, not applied, a
    /// conflict), or nothing this TUI reads shows the kind's effect.
    Final,
    /// Waiting for a re-read after the receipt that shows the change. `rereads`: how many
    /// the stage demanded; `shown`: what the newest re-read showed instead, if one came.
    Awaiting {
        since: Instant,
        rereads: u8,
        shown: Option<String>,
        /// The newest re-read's failure class, while no later re-read answered.
        failed: Option<String>,
    },
    /// A re-read dispatched after the receipt shows the change.
    Confirmed { at: SystemTime },
    /// The bound passed and no re-read showed it; `shown`: what the server still shows, if a
    /// re-read came.
    NotConfirmed {
        after: Duration,
        shown: Option<String>,
    },
    /// The bound passed and the newest re-read after the receipt failed (`failure`: its class):
    /// the change is neither confirmed nor refuted — apart from "not confirmed", which a re-read
    /// answered.
    RereadFailed { after: Duration, failure: String },
}

impl Settle {
    /// The bound passed with no re-read showing the change (it showed something else, none
    /// came, or the re-reads failed).
    pub fn unconfirmed(&self) -> bool {
        matches!(self, Self::NotConfirmed { .. } | Self::RereadFailed { .. })
    }

    /// Still to be judged by the settle stage.
    pub fn open(&self) -> bool {
        matches!(self, Self::Unjudged | Self::Awaiting { .. })
    }

    /// What it adds to the words of a receipt of class `class`; `None`: nothing.
    pub fn words(&self, class: Option<SaveClass>) -> Option<String> {
        let unknown = class == Some(SaveClass::OutcomeUnknown);
        match self {
            Self::Unjudged | Self::Final => None,
            Self::Awaiting { .. } if unknown => Some("re-reading to see whether it applied".into()),
            Self::Awaiting { .. } => Some("confirming…".into()),
            Self::Confirmed { at } if unknown => {
                Some(format!("the re-read shows it applied ({})", clock(*at)))
            }
            Self::Confirmed { at } => Some(format!("confirmed {}", clock(*at))),
            Self::NotConfirmed { after, shown } => {
                let lead = if unknown {
                    format!("the re-read does not show it after {} s", after.as_secs())
                } else {
                    format!("not confirmed after {} s", after.as_secs())
                };
                Some(match shown {
                    Some(shown) => format!("{lead} — the server still shows {shown}"),
                    None => format!("{lead} — no re-read since the receipt"),
                })
            }
            Self::RereadFailed { after, failure } if unknown => Some(format!(
                "re-read failed ({failure}) for {} s: whether it applied is not known",
                after.as_secs()
            )),
            Self::RereadFailed { after, failure } => Some(format!(
                "committed, re-read failed ({failure}): neither confirmed nor refuted in {} s",
                after.as_secs()
            )),
        }
    }
}

/// `HH:MM:SS UTC` of a time this machine recorded.
pub fn clock(at: SystemTime) -> String {
    let secs = at
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    let day = secs % 86_400;
    format!(
        "{:02}:{:02}:{:02} UTC",
        day / 3600,
        (day % 3600) / 60,
        day % 60
    )
}

/// Every save of kind `K` this session made or restored.
#[derive(Debug)]
pub struct SaveBook<K: SaveKind> {
    entries: BTreeMap<SaveId, SaveEntry<K>>,
    /// Dispatches of saves not registered here yet (restored ones announce themselves first).
    announced: HashMap<SaveId, OwnerId>,
}

impl<K: SaveKind> Default for SaveBook<K> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
            announced: HashMap::new(),
        }
    }
}

impl<K: SaveKind> SaveBook<K> {
    /// The operator submitted `intent` as `save_id` in `workspace`.
    pub fn submit(&mut self, save_id: SaveId, intent: K::Intent, workspace: String) {
        self.entries.insert(
            save_id.clone(),
            SaveEntry {
                save_id,
                intent,
                workspace,
                phase: SavePhase::Submitted,
                submitted_at: Instant::now(),
                settled_at: None,
                receipt_mark: None,
                settle: Settle::Unjudged,
                owner: None,
            },
        );
    }

    /// The save could not even be handed to its hub: settled here as not sent.
    pub fn refuse_locally(&mut self, save_id: &SaveId, reason: &str) {
        if let Some(entry) = self.entries.get_mut(save_id)
            && entry.phase.in_flight()
        {
            entry.phase = SavePhase::Ended(K::Receipt::not_sent(reason.to_string()));
            entry.settled_at = Some(Instant::now());
            entry.settle = Settle::Final;
        }
    }

    pub fn get(&self, save_id: &SaveId) -> Option<&SaveEntry<K>> {
        self.entries.get(save_id)
    }

    /// Every save, oldest first (save ids sort by time).
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &SaveEntry<K>> {
        self.entries.values()
    }

    /// The save of this intent still in flight in `workspace`, if any: a repeated submit
    /// shares it instead of making a second request.
    pub fn in_flight(&self, intent_key: &str, workspace: &str) -> Option<&SaveEntry<K>> {
        self.entries.values().find(|e| {
            e.phase.in_flight()
                && e.workspace == workspace
                && K::intent_key(&e.intent) == intent_key
        })
    }

    /// The newest save of this intent in `workspace` (for showing its receipt).
    pub fn latest(&self, intent_key: &str, workspace: &str) -> Option<&SaveEntry<K>> {
        self.entries
            .values()
            .rev()
            .find(|e| e.workspace == workspace && K::intent_key(&e.intent) == intent_key)
    }

    /// A save's operation was dispatched: its ticket owns the save from now on.
    pub fn dispatched<S>(&mut self, save_id: &SaveId, ticket: &Ticket<S>) -> bool {
        let owner = OwnerId::of(ticket);
        match self.entries.get_mut(save_id) {
            Some(entry) if entry.workspace == ticket.scope.workspace.0 => {
                entry.owner = Some(owner);
                true
            }
            Some(_) => false,
            None => {
                self.announced.insert(save_id.clone(), owner);
                false
            }
        }
    }

    /// Whether an event of `ticket` may be applied (I-5: another workspace or another ticket
    /// never touches the save; the receipt lands once).
    pub fn judge<S>(&self, ticket: &Ticket<S>, event: &SaveEvent<K>) -> Result<(), RejectReason> {
        if event.workspace != ticket.scope.workspace.0 {
            return Err(RejectReason::OtherTarget);
        }
        let owner = OwnerId::of(ticket);
        match self.entries.get(&event.save_id) {
            Some(entry) => {
                if entry.workspace != event.workspace {
                    return Err(RejectReason::OtherTarget);
                }
                if entry.owner.as_ref() != Some(&owner) {
                    return Err(RejectReason::Superseded);
                }
                if !entry.phase.in_flight() {
                    // The receipt already landed (K-1: stored once).
                    return Err(RejectReason::Withdrawn);
                }
                Ok(())
            }
            None => match (&event.step, self.announced.get(&event.save_id)) {
                (SaveStep::Restored(_) | SaveStep::Ended(_), Some(announced))
                    if *announced == owner =>
                {
                    Ok(())
                }
                _ => Err(RejectReason::UnknownSlot),
            },
        }
    }

    /// Applies a judged event.
    pub fn apply(&mut self, event: SaveEvent<K>) {
        let SaveEvent {
            save_id,
            intent,
            workspace,
            step,
        } = event;
        let entry = match self.entries.get_mut(&save_id) {
            Some(entry) => entry,
            None => {
                let owner = self.announced.remove(&save_id);
                self.entries.entry(save_id.clone()).or_insert(SaveEntry {
                    save_id: save_id.clone(),
                    intent,
                    workspace,
                    phase: SavePhase::Submitted,
                    submitted_at: Instant::now(),
                    settled_at: None,
                    receipt_mark: None,
                    settle: Settle::Unjudged,
                    owner,
                })
            }
        };
        entry.phase = match step {
            SaveStep::Written => SavePhase::Written,
            SaveStep::Sending => SavePhase::Sending,
            SaveStep::Ended(r) => SavePhase::Ended(r),
            SaveStep::Restored(r) => SavePhase::Restored(r),
        };
        if !entry.phase.in_flight() {
            entry.settled_at = Some(Instant::now());
            entry.receipt_mark = Some(ViewMark::next());
            entry.settle = Settle::Unjudged;
        }
    }

    /// The entry of `save_id`, to record where its receipt stands (the settle stage).
    pub fn get_mut(&mut self, save_id: &SaveId) -> Option<&mut SaveEntry<K>> {
        self.entries.get_mut(save_id)
    }

    /// A save's ticket ended without a receipt (its actor is gone; the hub reports it as
    /// outcome unknown with a new ticket).
    pub fn retired<S>(&mut self, save_id: &SaveId, ticket: &Ticket<S>) -> bool {
        let owner = OwnerId::of(ticket);
        match self.entries.get_mut(save_id) {
            Some(entry) if entry.owner.as_ref() == Some(&owner) => {
                entry.owner = None;
                true
            }
            _ => false,
        }
    }
}

/// Whether a surface's list was re-read after a save's receipt landed (§11: an unknown outcome
/// requires a re-read before any retry; K-2: the re-read is observed apart from the receipt and
/// never replaces it). Reads are told apart by their tickets' generations (one counter per
/// slot, never reused), not by when they arrived: a read already in flight when the receipt
/// landed may show the list from before the write, so it never counts.
#[derive(Debug, Default)]
pub struct Rereads {
    /// The newest generation dispatched for the list.
    dispatched: u64,
    /// The generation of the read whose value is shown.
    shown: Option<u64>,
    /// Per save: the newest generation dispatched when its receipt landed.
    receipts: HashMap<SaveId, u64>,
}

impl Rereads {
    /// A read of the list was dispatched (and taken by its slot).
    pub fn dispatched(&mut self, generation: u64) {
        self.dispatched = self.dispatched.max(generation);
    }

    /// The value of the read `generation` is now the one shown.
    pub fn shown(&mut self, generation: u64) {
        self.shown = Some(generation);
    }

    /// The receipt of `save_id` landed (the first one counts: it lands once).
    pub fn receipt(&mut self, save_id: &SaveId) {
        let dispatched = self.dispatched;
        self.receipts.entry(save_id.clone()).or_insert(dispatched);
    }

    /// The newest generation dispatched so far (a mark: only a later read is "new").
    pub fn newest_dispatched(&self) -> u64 {
        self.dispatched
    }

    /// The generation of the read whose value is shown, if any.
    pub fn shown_generation(&self) -> Option<u64> {
        self.shown
    }

    /// Whether the list shown comes from a read dispatched after `save_id`'s receipt landed.
    pub fn since_receipt(&self, save_id: &SaveId) -> bool {
        matches!((self.shown, self.receipts.get(save_id)), (Some(shown), Some(at)) if shown > *at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed re-read says so, apart from "not confirmed" (which a re-read answered), and an
    /// outcome-unknown receipt says whether it applied is not known.
    #[test]
    fn a_failed_re_read_is_worded_apart_from_not_confirmed() {
        let failed = Settle::RereadFailed {
            after: Duration::from_secs(10),
            failure: "timeout".into(),
        };
        let applied = failed.words(Some(SaveClass::Applied)).unwrap_or_default();
        assert_eq!(
            applied,
            "committed, re-read failed (timeout): neither confirmed nor refuted in 10 s"
        );
        let unknown = failed
            .words(Some(SaveClass::OutcomeUnknown))
            .unwrap_or_default();
        assert_eq!(
            unknown,
            "re-read failed (timeout) for 10 s: whether it applied is not known"
        );
        assert!(failed.unconfirmed() && !failed.open());
        let answered = Settle::NotConfirmed {
            after: Duration::from_secs(10),
            shown: Some("sangsu stopped".into()),
        };
        assert!(answered.unconfirmed());
        assert!(
            !answered
                .words(Some(SaveClass::Applied))
                .unwrap_or_default()
                .contains("re-read failed")
        );
    }
}
