//! Every save kind's companion, by the surface that keeps its book. A new kind's companion is a
//! few lines in its surface's file here (or a file of its own and one `mod` line), plus one line
//! in [`ALL`] (a test holds it in step with the save hub's registry).

mod board;
mod chat;
mod decisions;
pub mod keepers;
mod keepers_after;
mod system;
mod system_after;
mod work;

use super::journal::JournalRow;
use super::settle::SettleStep;
use super::undo::Undo;
use crate::actors::board::compose::BoardPost;
use crate::actors::board::vote::BoardVote;
use crate::actors::chat::{ChatSend, TurnInterrupt, TurnSteer};
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::actors::keepers::ops::{
    assignment::AssignmentSave, create::CreateSave, lifecycle::LifecycleSave, sandbox::SandboxSave,
    settings::SettingsSave,
};
use crate::actors::saves::SaveId;
use crate::actors::system::binding::{ConnectorBind, ConnectorUnbind};
use crate::actors::system::runtime_form::RuntimeForm;
use crate::actors::system::runtime_raw::RuntimeRaw;
use crate::actors::work::goal_transition::GoalTransition;
use crate::view::model::Model;
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

impl<K: super::SaveCompanion> KindView for Listed<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn open(&self, model: &Model) -> bool {
        K::kept(model).is_some_and(|book| book.entries().any(super::settle::waits))
    }

    fn settle(&self, model: &mut Model, now: Instant, step: &mut SettleStep) {
        self.settle_book(model, now, step);
    }

    fn journal(&self, model: &Model, rows: &mut Vec<JournalRow>) {
        super::journal::rows_of::<K>(model, rows);
    }

    fn undo(&self, model: &Model, save_id: &SaveId) -> Option<Undo> {
        let entry = K::kept(model)?.get(save_id)?;
        Some(super::undo::of::<K>(model, entry))
    }
}

/// Every save kind, as the view's stages after the receipt see it (the save hub's list is
/// `actors::saves::registry::KINDS`; a test holds the two in step).
pub static ALL: &[&dyn KindView] = &[
    &Listed::<ApprovalDecision>::VIEW,
    &Listed::<ChatSend>::VIEW,
    &Listed::<RuntimeForm>::VIEW,
    &Listed::<RuntimeRaw>::VIEW,
    &Listed::<AskAnswer>::VIEW,
    &Listed::<SandboxSave>::VIEW,
    &Listed::<AssignmentSave>::VIEW,
    &Listed::<LifecycleSave>::VIEW,
    &Listed::<ConnectorBind>::VIEW,
    &Listed::<ConnectorUnbind>::VIEW,
    &Listed::<BoardPost>::VIEW,
    &Listed::<SettingsSave>::VIEW,
    &Listed::<TurnInterrupt>::VIEW,
    &Listed::<TurnSteer>::VIEW,
    &Listed::<CreateSave>::VIEW,
    &Listed::<HeldCallDecision>::VIEW,
    &Listed::<BoardVote>::VIEW,
    &Listed::<GoalTransition>::VIEW,
];

/// The kind named `kind`, if listed.
pub fn of(kind: &str) -> Option<&'static dyn KindView> {
    ALL.iter().copied().find(|k| k.kind() == kind)
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
