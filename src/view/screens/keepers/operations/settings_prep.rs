//! What a settings preparation remembers, shared by the editor `e` (`settings`) and the
//! conflict's three views (`settings_conflict`): what was in front when it began (any change is
//! a move, H-2), the preparation waiting for its snapshot, and the edit that was sent (a
//! revision conflict re-reads for it, H-6).

use crate::actors::keepers::ops::settings::SettingsIntent;
use crate::protocol::admission::ReadScope;
use crate::view::screens::keepers::detail::DetailTab;
use crate::view::screens::{EditOwner, RosterUi, Tab, Ui, edit_owner};
use serde_json::{Map, Value};

/// What was in front when a preparation began: any change is a move (H-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFront {
    front: EditOwner,
    tab: Tab,
    /// How many layers are open over the surface (opening help or a chat is a move).
    layers: usize,
    selected: usize,
    detail_open: bool,
    detail_keeper: Option<String>,
    detail_tab: DetailTab,
    logs: bool,
    picker: bool,
    armed: bool,
}

/// What is in front now, on the roster `r`.
pub fn in_front(ui: &Ui, r: &RosterUi) -> InFront {
    InFront {
        front: edit_owner(ui),
        tab: ui.tab,
        layers: ui.layers.len(),
        selected: r.selected,
        detail_open: r.detail_open,
        detail_keeper: r.detail.keeper.clone(),
        detail_tab: r.detail.tab,
        logs: r.detail.logs.is_some(),
        picker: r.picker.is_some(),
        armed: r.pending.is_some(),
    }
}

/// A preparation waiting for its snapshot.
#[derive(Debug, Clone)]
pub struct Prep {
    pub keeper: String,
    pub scope: ReadScope,
    /// The first read generation that answers it (an older read never opens the editor).
    pub floor: u64,
    pub in_front: InFront,
    /// The sent edit whose revision conflict this read is for (its three views open on the
    /// answer, not the editor); `None`: the `e` preparation.
    pub conflict: Option<Box<SentEdit>>,
}

/// A settings edit that was sent: what it started from and what the operator made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct SentEdit {
    pub workspace: String,
    /// The intent submitted (it names the save in the Keeper's book).
    pub intent: SettingsIntent,
    /// Every field of the snapshot the edit started from.
    pub base: Map<String, Value>,
}

impl SentEdit {
    pub(super) fn keeper(&self) -> &str {
        &self.intent.keeper
    }

    /// The operator's settings: the base with their changed keys.
    pub(super) fn draft(&self) -> Map<String, Value> {
        let mut draft = self.base.clone();
        draft.extend(self.intent.patch.clone());
        draft
    }
}
