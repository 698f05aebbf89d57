//! Every save kind's companion, by the surface that keeps its book. A new kind's companion is a
//! few lines in its surface's file here (or a file of its own and one `mod` line); [`ALL`] is
//! expanded from the save hub's one list of kinds.

mod board;
mod chat;
mod connectors;
mod decisions;
pub mod keepers;
mod keepers_after;
mod listed;
mod runtime;
mod system_after;
mod work;

use super::journal::{self, JournalRow};
use super::settle::SettleStep;
use super::undo::Undo;
use crate::actors::saves::SaveId;
use crate::view::model::Model;
use std::collections::BTreeSet;
use std::marker::PhantomData;
use std::time::Instant;

/// Implements [`super::SaveCompanion`]'s book accessors for a kind kept in a `SaveBook` field
/// of the model (the usual case: the book is always there).
macro_rules! book_at {
    ($($field:ident).+) => {
        type Book = crate::view::saves::SaveBook<Self>;

        fn book<'m>(
            model: &'m crate::view::model::Model,
            _intent: &Self::Intent,
        ) -> Option<&'m Self::Book> {
            Some(&model.$($field).+)
        }

        fn book_mut<'m>(
            model: &'m mut crate::view::model::Model,
            _intent: &Self::Intent,
        ) -> Option<&'m mut Self::Book> {
            Some(&mut model.$($field).+)
        }

        fn kept(
            model: &crate::view::model::Model,
        ) -> Option<&crate::view::saves::SaveBook<Self>> {
            Some(&model.$($field).+)
        }

        fn kept_mut(
            model: &mut crate::view::model::Model,
        ) -> Option<&mut crate::view::saves::SaveBook<Self>> {
            Some(&mut model.$($field).+)
        }
    };
}
use book_at;

/// One kind as the stages after the receipt see it: the settle stage, the journal and undo.
pub trait KindView: Sync {
    /// [`SaveKind::KIND`].
    fn kind(&self) -> &'static str;
    /// Whether some receipt of the kind waits on the settle stage.
    fn open(&self, model: &Model) -> bool;
    /// Judges the kind's open receipts against their re-reads ([`super::settle`]).
    fn settle(&self, model: &mut Model, now: Instant, step: &mut SettleStep);
    /// The kind's saves of this session, as journal rows ([`super::journal`]).
    fn journal(&self, model: &Model, rows: &mut Vec<JournalRow>);
    /// The undo of save `save_id` of this kind, if the model keeps it ([`super::undo`]).
    fn undo(&self, model: &Model, save_id: &SaveId) -> Option<Undo>;
}

/// The [`KindView`] of kind `K`.
pub struct Listed<K>(PhantomData<fn() -> K>);

impl<K> Listed<K> {
    pub const VIEW: Self = Self(PhantomData);
}

macro_rules! view_kinds {
    ($($kind:ty => $treatment:ident),* $(,)?) => {
        &[$(&Listed::<$kind>::VIEW),*]
    };
}

/// Every save kind, as the view's stages after the receipt see it: expanded from the save
/// hub's one list (`actors::saves::registry::with_save_kinds`), so the two cannot differ.
pub static ALL: &[&dyn KindView] = crate::actors::saves::registry::with_save_kinds!(view_kinds);

/// The kind named `kind`, if listed.
pub fn of(kind: &str) -> Option<&'static dyn KindView> {
    ALL.iter().copied().find(|k| k.kind() == kind)
}

/// One pass over every kind's saves at `now`.
pub fn advance(model: &mut Model, now: Instant) -> SettleStep {
    let mut step = SettleStep::default();
    for kind in ALL {
        kind.settle(model, now, &mut step);
    }
    step
}

/// Whether some receipt of any kind waits on the stage (a cheap look before [`advance`]).
pub fn any_open(model: &Model) -> bool {
    ALL.iter().any(|kind| kind.open(model))
}

/// Every save of this session from the books, then every outbox row the journal's read
/// brought back that no book holds (an earlier session's, a chat send), unsettled first, then
/// newest first.
pub fn journal_rows(model: &Model) -> Vec<JournalRow> {
    let mut rows = Vec::new();
    for kind in ALL {
        kind.journal(model, &mut rows);
    }
    let known: BTreeSet<String> = rows.iter().map(|r| r.save_id.clone()).collect();
    let session = model.journal.session();
    rows.extend(
        model
            .journal
            .outbox_rows()
            .iter()
            .filter(|r| !known.contains(&r.save_id))
            .map(|r| journal::outbox_row(r, session)),
    );
    rows.sort_by(|a, b| {
        b.unsettled
            .cmp(&a.unsettled)
            .then(b.at.cmp(&a.at))
            .then(b.save_id.cmp(&a.save_id))
    });
    rows
}

/// The kinds present in `rows`, in the order of [`ALL`] then any other (an
/// earlier version's kind read back from the outbox).
pub fn journal_kinds(rows: &[JournalRow]) -> Vec<String> {
    let present: BTreeSet<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    let mut kinds: Vec<String> = ALL
        .iter()
        .map(|k| k.kind())
        .filter(|k| present.contains(k))
        .map(str::to_string)
        .collect();
    for k in present {
        if !kinds.iter().any(|x| x == k) {
            kinds.push(k.to_string());
        }
    }
    kinds
}

/// The undo of save `save_id` of kind `kind`, if this session's books hold it.
pub fn find_undo(model: &Model, kind: &str, save_id: &SaveId) -> Option<Undo> {
    of(kind)?.undo(model, save_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The view lists every kind the save hub does, each once.
    #[test]
    fn every_registered_save_kind_is_listed_once_in_the_view() {
        let hub: BTreeSet<&str> = crate::actors::saves::registry::KINDS
            .iter()
            .map(|k| k.kind())
            .collect();
        let view: Vec<&str> = ALL.iter().map(|k| k.kind()).collect();
        let unique: BTreeSet<&str> = view.iter().copied().collect();
        assert_eq!(unique.len(), view.len(), "a kind is listed twice");
        assert_eq!(unique, hub);
    }
}
