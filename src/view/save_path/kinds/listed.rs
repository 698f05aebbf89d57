//! One kind as the stages after the receipt see it ([`Listed`] as a [`KindView`]): its open
//! receipts judged against their re-reads (the settle stage), its saves as journal rows, and
//! the undo its companion makes from a settled save.

use super::{KindView, Listed, NewestSave};
use crate::actors::saves::{Receipt, SaveId};
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use crate::view::save_path::companion::SaveCompanion;
use crate::view::save_path::journal::{JournalRow, Stage, cut, wall};
use crate::view::save_path::settle::{Check, REREAD_AFTER, SettleStep};
use crate::view::save_path::undo::Undo;
use crate::view::saves::{SaveEntry, SavePhase, Settle};
use std::any::TypeId;
use std::time::{Instant, SystemTime};

impl<K: SaveCompanion> KindView for Listed<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn open(&self, model: &Model) -> bool {
        K::kept(model).is_some_and(|book| book.entries().any(waits))
    }

    fn settle(&self, model: &mut Model, now: Instant, step: &mut SettleStep) {
        self.settle_book(model, now, step);
    }

    fn journal(&self, model: &Model, rows: &mut Vec<JournalRow>) {
        rows_of::<K>(model, rows);
    }

    fn undo(&self, model: &Model, save_id: &SaveId) -> Option<Undo> {
        let entry = K::kept(model)?.get(save_id)?;
        Some(undo_of::<K>(model, entry))
    }

    fn newest_on(
        &self,
        model: &Model,
        surface: TypeId,
        target: &str,
        workspace: &str,
    ) -> Option<NewestSave> {
        if TypeId::of::<K::Slot>() != surface {
            return None;
        }
        let entry = K::kept(model)?
            .entries()
            .rev()
            .find(|e| e.workspace == workspace && K::target(&e.intent) == target)?;
        Some(NewestSave {
            submitted_at: entry.submitted_at,
            asked: K::asked(&entry.intent),
            words: entry.words(),
            class: entry.phase.class(),
        })
    }
}

/// Whether `entry`'s receipt waits on the stage: it landed and is not judged final yet.
fn waits<K: SaveCompanion>(entry: &SaveEntry<K>) -> bool {
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
fn judge<K: SaveCompanion>(
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
    let (since, rereads, shown, failed) = match &entry.settle {
        Settle::Awaiting {
            since,
            rereads,
            shown,
            failed,
        } => (*since, *rereads, shown.clone(), failed.clone()),
        _ => (entry.settled_at.unwrap_or(now), 0, None, None),
    };
    let (shown, failed) = match confirm.check {
        Check::Shown => {
            return Settle::Confirmed {
                at: SystemTime::now(),
            };
        }
        Check::Differs(words) => (Some(words), None),
        Check::Failed(class) => (shown, Some(class)),
        Check::NotYet => (shown, failed),
    };
    let waited = now.saturating_duration_since(since);
    let within = K::settle_within(&entry.intent);
    if waited >= within {
        return match failed {
            Some(failure) => Settle::RereadFailed {
                after: within,
                failure,
            },
            None => Settle::NotConfirmed {
                after: within,
                shown,
            },
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
        failed,
    }
}

impl<K: SaveCompanion> Listed<K> {
    /// Judges every open entry of the kind's book.
    fn settle_book(&self, model: &mut Model, now: Instant, step: &mut SettleStep) {
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
                    (
                        Settle::Awaiting { shown: a, failed: f, .. },
                        Settle::Awaiting { shown: b, failed: g, .. },
                    ) if a == b && f == g
                );
                entry.settle = settle;
            }
        }
    }
}

/// The words of `entry`'s settle state ([`Settle::words`]).
fn entry_words<K: SaveCompanion>(entry: &SaveEntry<K>) -> Option<String> {
    entry.settle.words(entry.phase.class())
}

/// The rows of kind `K`'s saves this session (none for a kind whose book comes and goes).
fn rows_of<K: SaveCompanion>(model: &Model, rows: &mut Vec<JournalRow>) {
    let Some(book) = K::kept(model) else {
        return;
    };
    for entry in book.entries() {
        let (stage, reason) = match &entry.phase {
            SavePhase::Submitted | SavePhase::Written => (Stage::Queued, None),
            SavePhase::Sending => (Stage::Sending, None),
            SavePhase::Ended(r) => (Stage::Receipt(r.class()), r.reason()),
            SavePhase::Restored(r) => (Stage::Earlier(r.class()), r.reason()),
        };
        let unsettled = entry.phase.in_flight()
            || entry.phase.class() == Some(SaveClass::OutcomeUnknown)
            || matches!(entry.settle, Settle::Awaiting { .. })
            || entry.settle.unconfirmed();
        rows.push(JournalRow {
            save_id: entry.save_id.0.clone(),
            kind: K::KIND.to_string(),
            target: K::target(&entry.intent),
            inputs: cut(serde_json::to_string(&entry.intent).unwrap_or_default()),
            stage,
            reason,
            settle: entry_words(entry),
            at: wall(entry.submitted_at),
            unsettled,
            undo: Some(undo_of::<K>(model, entry)),
        });
    }
}

/// The undo of `entry` (kind `K`): only of a save this session applied; what puts it back is
/// the companion's.
fn undo_of<K: SaveCompanion>(model: &Model, entry: &SaveEntry<K>) -> Undo {
    match K::undo(model, entry) {
        never @ Undo::Never(_) => never,
        undo => match &entry.phase {
            SavePhase::Submitted | SavePhase::Written | SavePhase::Sending => {
                Undo::NotNow("still in flight".into())
            }
            SavePhase::Restored(_) => {
                Undo::NotNow("an earlier session's save: its receipt is not known".into())
            }
            SavePhase::Ended(r) if r.class() == SaveClass::Applied => undo,
            SavePhase::Ended(r) => Undo::NotNow(match r.class() {
                SaveClass::OutcomeUnknown => {
                    "its outcome is unknown: re-read, then decide in its own screen".into()
                }
                SaveClass::Unchanged => "it changed nothing".into(),
                _ => "it was not applied".into(),
            }),
        },
    }
}
