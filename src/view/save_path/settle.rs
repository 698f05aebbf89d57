//! The settle stage: after a receipt, the save is confirmed by a re-read of what it changed,
//! or said plainly not to be (every receipt settles; sources.md H-6, K-2, N-3; §11).
//!
//! A receipt that may have changed something — applied, unchanged, or outcome unknown — is
//! "sent" until a read the view dispatched *after* the receipt shows the change (a read in
//! flight when it landed may show the world from before the write: it never counts, see
//! [`crate::view::admission::ViewMark`]). Each kind's companion names the re-read and the
//! comparison ([`super::SaveCompanion::confirm`]); this stage, built once for every kind,
//! demands those re-reads a few times within the kind's bound
//! ([`super::SaveCompanion::settle_within`]) and ends in "confirmed <time>" or "not confirmed
//! after N s — the server still shows …"; when the re-reads within the bound failed, it says so
//! apart ("committed, re-read failed …": nothing confirmed or refuted). A receipt that changed
//! nothing (not sent, not applied, a conflict) is final as it is. An outcome-unknown receipt is never resent; the
//! re-read only says whether the server shows the change.
//!
//! This file holds what the stage says ([`Confirm`], [`SettleStep`]); the stage itself runs
//! per kind in `kinds::listed` and over every kind in `kinds::advance` — pure: it reads and
//! updates the model and returns the sources to re-read and when to look again; the view actor
//! casts the demands and arms the timer.

use crate::actors::contract::SourceKey;
use crate::view::admission::{Slot, ViewMark};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

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
    /// The newest read dispatched after the receipt failed (its class): the change is neither
    /// confirmed nor refuted by it.
    Failed(String),
}

impl Check {
    /// `self`, unless no read since `mark` has shown anything and the newest one failed: then
    /// that failure ([`Check::Failed`]).
    pub fn or_failed<T: Clone>(self, slot: &Slot<T>, mark: ViewMark) -> Self {
        match (self, slot.failed_since(mark)) {
            (Self::NotYet, Some(failure)) => Self::Failed(failure.class.to_string()),
            (check, _) => check,
        }
    }
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
    pub(super) fn wake_at(&mut self, at: Instant) {
        self.next = Some(self.next.map_or(at, |n| n.min(at)));
    }
}
