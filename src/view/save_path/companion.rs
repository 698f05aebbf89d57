//! What the view knows about one save kind ([`SaveCompanion`]) and where its saves are kept
//! ([`SaveLedger`]). The actors define the kind ([`SaveKind`]: intent, request, §11
//! classifier, slot); its companion is the view's half, beside the other kinds in
//! [`super::kinds`].

use super::preview::Preview;
use super::refusal::Refused;
use super::settle::{Confirm, DEFAULT_SETTLE_WITHIN};
use super::undo::Undo;
use crate::actors::saves::{SaveId, SaveKind};
use crate::view::model::Model;
use crate::view::saves::{SaveBook, SaveEntry};
use std::time::Duration;

/// Where a kind's saves are kept from their submit until their receipt (and after, for the
/// session): the book their receipts land in.
pub trait SaveLedger<K: SaveKind> {
    /// The save of this intent still in flight in `workspace`, if any.
    fn in_flight(&self, intent: &K::Intent, workspace: &str) -> Option<SaveId>;
    /// The operator submitted `intent` as `save_id` in `workspace`.
    fn register(&mut self, save_id: &SaveId, intent: &K::Intent, workspace: &str);
    /// It could not be handed to the save hub: settled here as not sent.
    fn refuse_locally(&mut self, save_id: &SaveId, intent: &K::Intent, reason: &str);
}

impl<K: SaveKind> SaveLedger<K> for SaveBook<K> {
    fn in_flight(&self, intent: &K::Intent, workspace: &str) -> Option<SaveId> {
        SaveBook::in_flight(self, &K::intent_key(intent), workspace).map(|e| e.save_id.clone())
    }

    fn register(&mut self, save_id: &SaveId, intent: &K::Intent, workspace: &str) {
        self.submit(save_id.clone(), intent.clone(), workspace.to_string());
    }

    fn refuse_locally(&mut self, save_id: &SaveId, _intent: &K::Intent, reason: &str) {
        SaveBook::refuse_locally(self, save_id, reason);
    }
}

/// The view's half of a save kind: checked by [`super::submit`] in the order its module says.
pub trait SaveCompanion: SaveKind {
    /// The book its saves are kept in.
    type Book: SaveLedger<Self>;

    /// The words when a save of the same intent is still in flight.
    const BUSY: &'static str = "already in flight: shared, not sent again";

    /// The book `intent` belongs in; `None` when the model keeps no place for it now (a chat
    /// send whose chat is not the one open: its receipt lands when that chat opens).
    fn book<'m>(model: &'m Model, intent: &Self::Intent) -> Option<&'m Self::Book>;
    fn book_mut<'m>(model: &'m mut Model, intent: &Self::Intent) -> Option<&'m mut Self::Book>;

    /// Pre-checks and exclusivity beyond the intent key, against what the model shows now:
    /// a refusal before anything is registered or sent.
    fn admit(_model: &Model, _intent: &Self::Intent, _workspace: &str) -> Result<(), Refused> {
        Ok(())
    }

    /// Keeps the save in the model instead of sending it now (it is sent later by the screen
    /// that holds it, through [`super::submit`] again); `Some(notice)` when kept.
    fn hold(
        _model: &mut Model,
        _save_id: &SaveId,
        _intent: &Self::Intent,
        _workspace: &str,
    ) -> Option<String> {
        None
    }

    /// The save's id (a chat send's follows its request id).
    fn save_id(_intent: &Self::Intent) -> SaveId {
        SaveId::fresh()
    }

    /// What the model does after a submit, sent (`sent`) or not; `Some(notice)` replaces the
    /// (empty) notice of a sent save.
    fn after_submit(_model: &mut Model, _intent: &Self::Intent, _sent: bool) -> Option<String> {
        None
    }

    /// What a save of `intent` asked for, in a few words, where the object it was asked on is
    /// already on screen ("vote up", "drop"): the newest save on an object is drawn with it.
    fn asked(_intent: &Self::Intent) -> String {
        Self::KIND.replace('_', " ")
    }

    /// The notice for a refusal.
    fn refusal_words(refused: &Refused, _intent: &Self::Intent) -> String {
        refused.words(Self::BUSY)
    }

    /// What the save will change, old → new from the model's current value, shown in the
    /// confirmation layer before anything is registered or sent. `None`: the kind commits on
    /// its own key (a chat send, an Ask answer and approvals keep their own confirmation
    /// rules).
    fn preview(_model: &Model, _intent: &Self::Intent) -> Option<Preview> {
        None
    }
    // ---- After the receipt: settle, journal, undo (`super::settle`, `super::journal`,
    // `super::undo`, each built once for every kind). ----

    /// Every save of this kind the model keeps this session (a `book_at!` kind's one book);
    /// `None` for a kind whose book comes and goes with its screen (a chat send: its pane).
    fn kept(_model: &Model) -> Option<&SaveBook<Self>> {
        None
    }
    fn kept_mut(_model: &mut Model) -> Option<&mut SaveBook<Self>> {
        None
    }

    /// How long a receipt of `intent` waits for a re-read that shows its change.
    fn settle_within(_intent: &Self::Intent) -> Duration {
        DEFAULT_SETTLE_WITHIN
    }

    /// The re-read that confirms a receipt of this kind and what it shows now (compare only a
    /// value read after the receipt: `Slot::value_since(entry.receipt_mark)`); `None` when
    /// nothing this TUI reads shows the kind's effect.
    fn confirm(_model: &Model, _entry: &SaveEntry<Self>) -> Option<Confirm> {
        None
    }

    /// The undo of a settled save: a new request made from it, or why there is none.
    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("the server keeps no earlier value to put back")
    }
}
