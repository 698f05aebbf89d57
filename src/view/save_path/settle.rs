//! The settle stage: after a receipt, the save is confirmed by a re-read of what it changed,
//! or said plainly not to be (issue: every receipt settles; sources.md H-6, K-2, N-3; §11).
//!
//! A receipt that may have changed something — applied, unchanged, or outcome unknown — is
//! "sent" until a read the view dispatched *after* the receipt shows the change (a read in
//! flight when it landed may show the world from before the write: it never counts, see
//! [`crate::view::admission::ViewMark`]). Each kind's companion names the re-read and the
//! comparison ([`super::SaveCompanion::confirm`]); this stage, built once for every kind,
//! demands those re-reads a few times within the kind's bound
//! ([`super::SaveCompanion::settle_within`]) and ends in "confirmed <time>" or "not confirmed
//! after N s — the server still shows …". A receipt that changed nothing (not sent, not
//! applied, a conflict) is final as it is. An outcome-unknown receipt is never resent; the
//! re-read only says whether the server shows the change.
//!
//! Pure: [`advance`] reads and updates the model and returns the sources to re-read and when
//! to look again; the view actor casts the demands and arms the timer.

use super::kinds::{self, Listed};
use crate::actors::contract::SourceKey;
use crate::actors::saves::Receipt;
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, Settle};
use std::collections::BTreeSet;
use std::time::{Duration, Instant, SystemTime};

/// How long a receipt waits for a re-read showing its change, unless its kind says otherwise.
pub const DEFAULT_SETTLE_WITHIN: Duration = Duration::from_secs(10);

/// When, after the receipt, the stage demands a re-read while none shows the change: at once
/// (a source the receipt's own surface already re-reads, N-3, coalesces the two), then twice
/// more within the bound.
pub const REREAD_AFTER: [Duration; 3] = [
    Duration::ZERO,
    Duration::from_secs(2),
    Duration::from_secs(5),
];

/// What a re-read says about a save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// No read dispatched after the receipt has come back yet.
    NotYet,
    /// The re-read shows the change.
    Shown,
    /// The re-read shows something else; the words say what (for "the server still shows …").
    Differs(String),
}

/// A read that can show a save's change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reread {
    /// An explicit demand of this source.
    Source(SourceKey),
    /// The Keeper detail source's metadata and settings snapshot of this Keeper, read once
    /// whether or not a pane watches it (`KeeperDetailCommand::Confirm`).
    Keeper(String),
}

/// The re-read that confirms one save, and what it says now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub check: Check,
    /// The reads that can show the change (demanded while waiting).
    pub reread: Vec<Reread>,
}

impl Confirm {
    pub fn new(check: Check, reread: Vec<Reread>) -> Self {
        Self { check, reread }
    }

    /// Confirmed by demands of these sources.
    pub fn by_sources(check: Check, sources: &[SourceKey]) -> Self {
        Self::new(check, sources.iter().copied().map(Reread::Source).collect())
    }
}

/// What one pass of the stage did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SettleStep {
    /// Reads to demand now.
    pub demands: BTreeSet<Reread>,
    /// Some save's settle state changed: a frame is due.
    pub changed: bool,
    /// When to look again (the next re-read or bound), if any save still waits.
    pub next: Option<Instant>,
}

impl SettleStep {
    fn wake_at(&mut self, at: Instant) {
        self.next = Some(self.next.map_or(at, |n| n.min(at)));
    }
}

/// One pass over every kind's saves at `now`.
pub fn advance(model: &mut Model, now: Instant) -> SettleStep {
    let mut step = SettleStep::default();
    for kind in kinds::ALL {
        kind.settle(model, now, &mut step);
    }
    step
}

/// Whether some receipt of any kind waits on the stage (a cheap look before [`advance`]).
pub fn any_open(model: &Model) -> bool {
    kinds::ALL.iter().any(|kind| kind.open(model))
}

/// Whether `entry`'s receipt waits on the stage: it landed and is not judged final yet.
pub(super) fn waits<K: super::SaveCompanion>(entry: &SaveEntry<K>) -> bool {
    entry.settle.open() && !entry.phase.in_flight()
}

/// Whether a receipt of this class may have changed something a re-read can show.
fn confirmable(class: SaveClass) -> bool {
    matches!(
        class,
        SaveClass::Applied | SaveClass::Unchanged | SaveClass::OutcomeUnknown
    )
}

/// The next settle state of `entry` at `now`, demanding re-reads into `step`.
pub(super) fn judge<K: super::SaveCompanion>(
    model: &Model,
    entry: &SaveEntry<K>,
    now: Instant,
    step: &mut SettleStep,
) -> Settle {
    let Some(receipt) = entry.phase.receipt() else {
        return entry.settle.clone();
    };
    if !confirmable(receipt.class()) {
        return Settle::Final;
    }
    let Some(confirm) = K::confirm(model, entry) else {
        return Settle::Final;
    };
    let (since, rereads, shown) = match &entry.settle {
        Settle::Awaiting {
            since,
            rereads,
            shown,
        } => (*since, *rereads, shown.clone()),
        _ => (entry.settled_at.unwrap_or(now), 0, None),
    };
    let shown = match confirm.check {
        Check::Shown => {
            return Settle::Confirmed {
                at: SystemTime::now(),
            };
        }
        Check::Differs(words) => Some(words),
        Check::NotYet => shown,
    };
    let waited = now.saturating_duration_since(since);
    let within = K::settle_within(&entry.intent);
    if waited >= within {
        return Settle::NotConfirmed {
            after: within,
            shown,
        };
    }
    let mut rereads = rereads;
    while let Some(after) = REREAD_AFTER.get(usize::from(rereads)) {
        if waited < *after {
            step.wake_at(since + *after);
            break;
        }
        step.demands.extend(confirm.reread.iter().cloned());
        rereads += 1;
    }
    step.wake_at(since + within);
    Settle::Awaiting {
        since,
        rereads,
        shown,
    }
}

impl<K: super::SaveCompanion> Listed<K> {
    /// Judges every open entry of the kind's book.
    pub(super) fn settle_book(&self, model: &mut Model, now: Instant, step: &mut SettleStep) {
        let Some(book) = K::kept(model) else {
            return;
        };
        let verdicts: Vec<_> = book
            .entries()
            .filter(|e| waits(e))
            .map(|e| (e.save_id.clone(), judge(model, e, now, step)))
            .collect();
        if verdicts.is_empty() {
            return;
        }
        let Some(book) = K::kept_mut(model) else {
            return;
        };
        for (id, settle) in verdicts {
            if let Some(entry) = book.get_mut(&id)
                && entry.settle != settle
            {
                step.changed |= !matches!(
                    (&entry.settle, &settle),
                    (Settle::Awaiting { shown: a, .. }, Settle::Awaiting { shown: b, .. }) if a == b
                );
                entry.settle = settle;
            }
        }
    }
}

/// The words of `entry`'s settle state ([`Settle::words`]).
pub fn entry_words<K: super::SaveCompanion>(entry: &SaveEntry<K>) -> Option<String> {
    entry.settle.words(entry.phase.class())
}
