//! Reading back saves an earlier run left unsettled (H-16: a receipt survives; nothing is
//! resent and no new authority is granted).

use super::env::{SaveEnv, post_once};
use super::refusal::Refusal;
use super::{Receipt, SaveId, SaveKind, SaveStep, SubmitScope};
use crate::outbox::SaveRow;
use crate::protocol::outcome::SaveClass;
use std::marker::PhantomData;

/// One kind as the save registry lists it: its name, whether the hub reads its unsettled rows
/// back, and how to read back one such row.
pub trait RegisteredKind: Sync {
    /// [`SaveKind::KIND`].
    fn kind(&self) -> &'static str;
    /// The Rust type of the kind (the registry's test matches it against the sources).
    fn type_name(&self) -> &'static str;
    /// `false`: its surface reads its rows back itself (the chat send).
    fn restored_by_hub(&self) -> bool;
    /// Posts the row's restored receipt on its slot (`class`: not sent or outcome unknown).
    fn restore(&self, row: &SaveRow, class: SaveClass, env: &SaveEnv, scope: &SubmitScope);
}

/// The [`RegisteredKind`] of kind `K`.
pub struct Listed<K> {
    restored_by_hub: bool,
    kind: PhantomData<fn() -> K>,
}

impl<K> Listed<K> {
    /// The hub reads its unsettled rows back after a crash.
    pub const RESTORED: Self = Self {
        restored_by_hub: true,
        kind: PhantomData,
    };
    /// Its surface reads its rows back itself.
    pub const READ_BACK_BY_SURFACE: Self = Self {
        restored_by_hub: false,
        kind: PhantomData,
    };
}

impl<K: SaveKind> RegisteredKind for Listed<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<K>()
    }

    fn restored_by_hub(&self) -> bool {
        self.restored_by_hub
    }

    fn restore(&self, row: &SaveRow, class: SaveClass, env: &SaveEnv, scope: &SubmitScope) {
        let Ok(intent) = serde_json::from_str::<K::Intent>(&row.intent) else {
            tracing::warn!(target: "masc_tui::saves", kind = K::KIND, "stored inputs unreadable");
            return;
        };
        let save_id = SaveId(row.save_id.clone());
        let receipt = <K::Receipt as Receipt>::refused(Refusal::restored(class));
        let ticket = env.ticket::<K>(&save_id, &intent, scope);
        post_once::<K>(env, ticket, save_id, intent, SaveStep::Restored(receipt));
    }
}
