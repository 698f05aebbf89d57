//! The entries of one chat ([`Transcript`]): revisions, the index by id, shared names and refs.

use super::{Entry, EntryKind, Speaker, entries_of_row};
use crate::protocol::chat::ChatHistoryRow;
use hashbrown::{HashTable, hash_table};
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;

/// Entry indexes by entry id: the newest entry of each id. The table holds only the index
/// (4 bytes a slot) and hashes the id where the entry keeps it, so no id is stored twice
/// (a copy of every id would cost ≈ 70 bytes an entry).
#[derive(Default)]
pub(super) struct IdIndex {
    table: HashTable<u32>,
    hasher: RandomState,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdIndex")
            .field("len", &self.table.len())
            .finish()
    }
}

impl IdIndex {
    pub(super) fn get(&self, entries: &[Arc<Entry>], id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        self.table
            .find(hash, |&i| {
                entries.get(i as usize).is_some_and(|e| e.id == id)
            })
            .map(|&i| i as usize)
    }

    /// Points `entries[index].id` at `index` (the newest entry of the id wins).
    fn insert(&mut self, entries: &[Arc<Entry>], index: usize) {
        let Some(id) = entries.get(index).map(|e| e.id.as_str()) else {
            return;
        };
        let hasher = &self.hasher;
        let hash = hasher.hash_one(id);
        let rehash = |&i: &u32| {
            entries
                .get(i as usize)
                .map_or(0, |e| hasher.hash_one(e.id.as_str()))
        };
        match self.table.entry(
            hash,
            |&i| entries.get(i as usize).is_some_and(|e| e.id == id),
            rehash,
        ) {
            hash_table::Entry::Occupied(mut slot) => *slot.get_mut() = index as u32,
            hash_table::Entry::Vacant(slot) => {
                slot.insert(index as u32);
            }
        }
    }

    /// Re-indexes every entry (after a prepend or a removal moved them).
    fn rebuild(&mut self, entries: &[Arc<Entry>]) {
        self.table.clear();
        for i in 0..entries.len() {
            self.insert(entries, i);
        }
    }
}

/// The Keeper name, turn reference and request id of the entry added last: an entry added
/// with an equal one points at this copy instead of its own (a turn's entries
/// repeat its reference, every Keeper entry the Keeper's name — one allocation each, 100k
/// times). Only equal text is shared, field by field, so no entry ever reads another Keeper's
/// name or another turn's reference; the entries of a transcript stay its own (one
/// transcript, one Keeper's chat).
#[derive(Debug, Default)]
struct SharedStrings {
    keeper: Option<Arc<str>>,
    turn: Option<Arc<str>>,
    request: Option<Arc<str>>,
}

impl SharedStrings {
    fn share(&mut self, entry: &mut Entry) {
        if let Speaker::Keeper { name, .. } = &mut entry.speaker {
            share_equal(&mut self.keeper, name);
        }
        if let Some(turn) = &mut entry.turn_ref {
            share_equal(&mut self.turn, turn);
        }
        if let Some(request) = &mut entry.origin.request_id {
            share_equal(&mut self.request, request);
        }
    }
}

/// `value` becomes a reference to `last` when their texts are equal; else it is the new
/// `last`.
fn share_equal(last: &mut Option<Arc<str>>, value: &mut Arc<str>) {
    match last {
        Some(kept) if Arc::ptr_eq(kept, value) => {}
        Some(kept) if **kept == **value => *value = Arc::clone(kept),
        _ => *last = Some(Arc::clone(value)),
    }
}

/// The entries of one chat, with a per-entry revision so caches can tell what changed.
///
/// The entries are shared (`Arc`), each entry too: [`Transcript::snapshot`] hands a search
/// off the view actor (`/find`) for the cost of one reference count; a change made
/// while a snapshot is out copies the list of references once and only the entry it changes.
#[derive(Debug, Default)]
pub struct Transcript {
    entries: Arc<Vec<Arc<Entry>>>,
    /// The names and references the last entries brought, shared with the next ones.
    shared: SharedStrings,
    /// Stable per-entry key (survives prepending older pages).
    uids: Vec<u64>,
    revs: Vec<u64>,
    pub(super) by_id: IdIndex,
    next_uid: u64,
    next_rev: u64,
    /// Bumped on every change; the view re-plans when it moves.
    generation: u64,
}

impl Transcript {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn entries(&self) -> &[Arc<Entry>] {
        &self.entries
    }

    /// The entries as they are now, shared (O(1)); later changes do not reach it.
    pub fn snapshot(&self) -> Arc<Vec<Arc<Entry>>> {
        Arc::clone(&self.entries)
    }

    /// The entry at `index`, to change (copied first when a snapshot shares it).
    fn entry_mut(&mut self, index: usize) -> Option<&mut Entry> {
        Arc::make_mut(&mut self.entries)
            .get_mut(index)
            .map(Arc::make_mut)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn uid(&self, index: usize) -> u64 {
        self.uids.get(index).copied().unwrap_or(0)
    }

    pub(crate) fn rev(&self, index: usize) -> u64 {
        self.revs.get(index).copied().unwrap_or(0)
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id
            .get(&self.entries, id)
            .and_then(|i| self.entries.get(i))
            .map(|e| &**e)
    }

    fn bump(&mut self) -> u64 {
        self.next_rev += 1;
        self.generation += 1;
        self.next_rev
    }

    /// Appends an entry, or replaces the entry with the same id in place.
    pub fn upsert(&mut self, mut entry: Entry) -> usize {
        self.shared.share(&mut entry);
        let rev = self.bump();
        if let Some(i) = self.by_id.get(&self.entries, &entry.id) {
            if let Some(slot) = Arc::make_mut(&mut self.entries).get_mut(i) {
                *slot = Arc::new(entry);
            }
            if let Some(r) = self.revs.get_mut(i) {
                *r = rev;
            }
            return i;
        }
        self.push_with_rev(entry, rev)
    }

    /// Appends `entry` (its shared strings already shared).
    fn push_with_rev(&mut self, entry: Entry, rev: u64) -> usize {
        self.next_uid += 1;
        let index = self.entries.len();
        Arc::make_mut(&mut self.entries).push(Arc::new(entry));
        self.by_id.insert(&self.entries, index);
        self.uids.push(self.next_uid);
        self.revs.push(rev);
        index
    }

    /// Changes one entry in place; false when the id is unknown.
    pub fn update(&mut self, id: &str, change: impl FnOnce(&mut Entry)) -> bool {
        let Some(i) = self.by_id.get(&self.entries, id) else {
            return false;
        };
        let rev = self.bump();
        if let Some(entry) = self.entry_mut(i) {
            change(entry);
        }
        if let Some(r) = self.revs.get_mut(i) {
            *r = rev;
        }
        true
    }

    /// Changes the entry at `index` in place (history ids may repeat); false when out of range.
    pub fn update_at(&mut self, index: usize, change: impl FnOnce(&mut Entry)) -> bool {
        if index >= self.entries.len() {
            return false;
        }
        let rev = self.bump();
        if let Some(entry) = self.entry_mut(index) {
            change(entry);
        }
        if let Some(r) = self.revs.get_mut(index) {
            *r = rev;
        }
        true
    }

    /// Inserts an older history page before everything (rows oldest first). Rows whose id is
    /// already present are skipped (a page boundary may repeat a row); Gate steps of an
    /// approval already shown fold into its row (§15.9).
    pub fn prepend_history(&mut self, rows: &[ChatHistoryRow], keeper: &str) {
        let keeper: Arc<str> = Arc::from(keeper);
        let mut fresh: Vec<Entry> = Vec::new();
        for row in rows {
            if self.by_id.get(&self.entries, &row.id).is_some() {
                continue;
            }
            for entry in entries_of_row(row, &keeper) {
                if self.fold_gate(&entry, true) {
                    continue;
                }
                match fresh.iter_mut().find(|e| e.id == entry.id) {
                    Some(kept) if matches!(entry.kind, EntryKind::Gate(_)) => {
                        fold_into(kept, entry, false)
                    }
                    _ => fresh.push(entry),
                }
            }
        }
        self.insert_at(0, fresh);
    }

    /// Inserts `fresh` before index `at` (clamped), in order.
    fn insert_at(&mut self, at: usize, mut fresh: Vec<Entry>) {
        for entry in &mut fresh {
            self.shared.share(entry);
        }
        if fresh.is_empty() {
            return;
        }
        let at = at.min(self.entries.len());
        let rev = self.bump();
        let mut uids = Vec::with_capacity(fresh.len());
        for _ in &fresh {
            self.next_uid += 1;
            uids.push(self.next_uid);
        }
        let count = fresh.len();
        self.revs.splice(at..at, std::iter::repeat_n(rev, count));
        self.uids.splice(at..at, uids);
        Arc::make_mut(&mut self.entries).splice(at..at, fresh.into_iter().map(Arc::new));
        self.by_id.rebuild(&self.entries);
    }

    /// A Gate step of an approval that already has its row: folded into that row (kept in
    /// place), `true`. Anything else: `false`.
    fn fold_gate(&mut self, entry: &Entry, older: bool) -> bool {
        if !matches!(entry.kind, EntryKind::Gate(_)) || self.get(&entry.id).is_none() {
            return false;
        }
        let step = entry.clone();
        self.update(&entry.id, |kept| fold_into(kept, step, older))
    }

    /// Places the entries of history `rows` by time: before the first entry that is newer than
    /// the row (entries without a time keep their place). Rows already shown are skipped.
    /// Used for the autonomous turns of the bare-array history (§15.9), which the pages do not
    /// carry.
    pub fn place_by_time(&mut self, rows: &[&ChatHistoryRow], keeper: &str) {
        let keeper: Arc<str> = Arc::from(keeper);
        for row in rows {
            if self.by_id.get(&self.entries, &row.id).is_some() {
                continue;
            }
            let at = match row.ts {
                Some(ts) => self
                    .entries
                    .iter()
                    .position(|e| e.ts.is_some_and(|t| t > ts))
                    .unwrap_or(self.entries.len()),
                None => self.entries.len(),
            };
            self.insert_at(at, entries_of_row(row, &keeper));
        }
    }

    /// Adds a row this client made (not server history) where its own time puts it — before
    /// the first entry newer than it — or replaces the row with its id in place (C-31: a
    /// reload or a reopen never moves a local row to the end). A row without a time is
    /// appended.
    pub fn upsert_by_time(&mut self, entry: Entry) {
        let Some(ts) = entry
            .ts
            .filter(|_| self.by_id.get(&self.entries, &entry.id).is_none())
        else {
            self.upsert(entry);
            return;
        };
        let at = self
            .entries
            .iter()
            .position(|e| e.ts.is_some_and(|t| t > ts))
            .unwrap_or(self.entries.len());
        self.insert_at(at, vec![entry]);
    }

    /// Adds `entry` right after the entry at `index` (a row that belongs to a turn already
    /// shown, placed with it), unless its id is already present.
    pub fn insert_after(&mut self, index: usize, entry: Entry) {
        if self.by_id.get(&self.entries, &entry.id).is_none() {
            self.insert_at(index + 1, vec![entry]);
        }
    }

    /// The time of the oldest entry that has one.
    pub fn oldest_ts(&self) -> Option<f64> {
        self.entries.iter().find_map(|e| e.ts)
    }

    /// Appends an entry even when its id is already present (history pages may repeat an
    /// id for distinct rows; each row stays its own entry, the id lookup finds the newest).
    pub fn push(&mut self, mut entry: Entry) -> usize {
        self.shared.share(&mut entry);
        let rev = self.bump();
        self.push_with_rev(entry, rev)
    }

    /// Appends history rows (newest window, oldest first); Gate steps of one approval fold
    /// into its first row (§15.9).
    pub fn extend_history(&mut self, rows: &[ChatHistoryRow], keeper: &str) {
        let keeper: Arc<str> = Arc::from(keeper);
        for row in rows {
            for entry in entries_of_row(row, &keeper) {
                if !self.fold_gate(&entry, false) {
                    self.push(entry);
                }
            }
        }
    }

    /// Removes an entry (a pending input that became a persisted row, C-34).
    pub fn remove(&mut self, id: &str) -> Option<Entry> {
        let i = self.by_id.get(&self.entries, id)?;
        self.bump();
        self.uids.remove(i);
        self.revs.remove(i);
        let entry = Arc::make_mut(&mut self.entries).remove(i);
        let entry = Arc::try_unwrap(entry).unwrap_or_else(|shared| (*shared).clone());
        self.by_id.rebuild(&self.entries);
        Some(entry)
    }
}

/// Folds the Gate step `step` into `kept` (both the rows of one approval) and rewrites its
/// words and kind (a failed step makes it a failure row, C-8).
fn fold_into(kept: &mut Entry, step: Entry, older: bool) {
    if let (EntryKind::Gate(record), EntryKind::Gate(more)) = (&mut kept.kind, step.kind) {
        record.fold(*more, older);
        kept.text = record.words();
        if older && step.ts.is_some() {
            kept.ts = step.ts;
        }
    }
}
