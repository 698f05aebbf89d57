//! Reading back saves an earlier run left unsettled (H-16: a receipt survives; nothing is
//! resent and no new authority is granted).

use super::env::{SaveEnv, post_once};
use super::{Receipt, SaveId, SaveKind, SaveStep, SubmitScope};
use crate::outbox::SaveRow;
use crate::protocol::outcome::SaveClass;
use std::marker::PhantomData;

/// Reads back, for one kind, a row an earlier run left unsettled.
pub trait RestoreSave: Sync {
    fn kind(&self) -> &'static str;
    /// Posts the row's restored receipt on its slot (`class`: not sent or outcome unknown).
    fn restore(&self, row: &SaveRow, class: SaveClass, env: &SaveEnv, scope: &SubmitScope);
}

/// The [`RestoreSave`] of kind `K`.
pub struct Restorer<K>(PhantomData<fn() -> K>);

impl<K> Restorer<K> {
    pub const NEW: Self = Self(PhantomData);
}

impl<K: SaveKind> RestoreSave for Restorer<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn restore(&self, row: &SaveRow, class: SaveClass, env: &SaveEnv, scope: &SubmitScope) {
        let Ok(intent) = serde_json::from_str::<K::Intent>(&row.intent) else {
            tracing::warn!(target: "masc_tui::saves", kind = K::KIND, "stored inputs unreadable");
            return;
        };
        let save_id = SaveId(row.save_id.clone());
        let reason = match class {
            SaveClass::NotSent => super::refusal::RESTORED_UNSENT.to_string(),
            _ => super::refusal::RESTORED_UNKNOWN.to_string(),
        };
        let receipt = match class {
            SaveClass::NotSent => <K::Receipt as Receipt>::not_sent(reason),
            _ => <K::Receipt as Receipt>::unknown(reason),
        };
        let ticket = env.ticket::<K>(&save_id, &intent, scope);
        post_once::<K>(env, ticket, save_id, intent, SaveStep::Restored(receipt));
    }
}
