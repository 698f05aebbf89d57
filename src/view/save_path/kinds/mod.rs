//! Every save kind's companion, by the surface that keeps its book. A new kind's companion is a
//! few lines in its surface's file here (or a file of its own and one `mod` line); [`ALL`] is
//! expanded from the save hub's one list of kinds.

mod board;
mod chat;
mod connectors;
mod decisions;
mod gate_queue;
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
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use std::any::TypeId;
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
    /// The newest save of this kind asked on `target` in `workspace`, if its receipts land in
    /// a slot of type `surface`.
    fn newest_on(
        &self,
        model: &Model,
        surface: TypeId,
        target: &str,
        workspace: &str,
    ) -> Option<NewestSave>;
}

/// The newest save asked on one object, as its screen draws it beside the object.
#[derive(Debug, Clone, PartialEq)]
pub struct NewestSave {
    pub submitted_at: Instant,
    /// What it asked for ([`super::SaveCompanion::asked`]).
    pub asked: String,
    /// Where it stands, then what its re-read says (unsanitised).
    pub words: String,
    pub class: Option<SaveClass>,
}

/// The newest save of any kind whose receipts land in a `S` slot, asked on `target` in the
/// current workspace: a surface draws it beside the object without naming the kinds.
pub fn newest_on<S: 'static>(model: &Model, target: &str) -> Option<NewestSave> {
    let scope = model.gate().current()?;
    ALL.iter()
        .filter_map(|k| k.newest_on(model, TypeId::of::<S>(), target, &scope.workspace.0))
        .max_by_key(|n| n.submitted_at)
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

    /// A surface draws the newest save asked on an object without naming the kinds: the
    /// newest of any kind whose receipts land in that surface's slot, in the current
    /// workspace only, never another surface's save on an object of the same id.
    #[test]
    fn the_newest_save_on_an_object_is_the_surfaces_newest_in_this_workspace() {
        use crate::actors::board::BoardSlot;
        use crate::actors::board::compose::PostIntent;
        use crate::actors::board::vote::VoteIntent;
        use crate::actors::work::WorkSlot;
        use crate::actors::work::goal_transition::TransitionIntent;
        use crate::protocol::admission::AdmissionMode;
        use crate::protocol::board_vote::VoteDirection;
        use crate::protocol::goal_transition::GoalAction;
        use crate::view::sample;
        let mut m = Model::default();
        assert_eq!(newest_on::<BoardSlot>(&m, "x"), None, "no workspace yet");
        m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
        let here = sample::scope(1).workspace.0;
        let vote = |direction| VoteIntent {
            post_id: "x".into(),
            direction,
        };
        m.board
            .saves
            .votes
            .submit(SaveId::fresh(), vote(VoteDirection::Up), here.clone());
        // A Work save on a goal that happens to share the post's id: not the Board's.
        m.work.saves.transitions.submit(
            SaveId::fresh(),
            TransitionIntent {
                goal_id: "x".into(),
                action: GoalAction::Drop,
                note: None,
            },
            here.clone(),
        );
        // Another workspace's vote, submitted last: never shown here.
        m.board.saves.votes.submit(
            SaveId::fresh(),
            vote(VoteDirection::Down),
            "another-workspace".into(),
        );
        let board = newest_on::<BoardSlot>(&m, "x").expect("the vote");
        assert_eq!(board.asked, "vote up");
        assert_eq!(board.class, None, "not sent yet");
        assert_eq!(
            newest_on::<WorkSlot>(&m, "x").expect("the drop").asked,
            "drop"
        );
        // A newer save of another Board kind on the same target wins.
        m.board.saves.composed.submit(
            SaveId::fresh(),
            PostIntent {
                title: "t".into(),
                hearth: String::new(),
                body: "b".into(),
                draft_id: "x".into(),
            },
            here,
        );
        assert_eq!(
            newest_on::<BoardSlot>(&m, "x").expect("the post").asked,
            "board post"
        );
        assert_eq!(newest_on::<BoardSlot>(&m, "y"), None);
    }

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
