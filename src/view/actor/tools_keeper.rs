//! The view actor's side of the Tools Keeper panes (issue 12 item 2; surfaces.md "Tools"):
//! after every key, delivery and identity change the Tools source is told which Keeper's
//! surface to read — the one the System tab's `available` / `receipts` pane shows, or none —
//! as soon as that changes (a tab switch, a palette jump, a roster read arriving later), not
//! on the next System key. A cast, never awaited.

use super::ViewState;
use crate::view::keys::UiCommand;
use crate::view::presenter::FrameSink;
use crate::view::screens::system::keeper_panes;

impl<B: FrameSink> ViewState<B> {
    pub(super) fn settle_tools_keeper(&mut self, myself: &ractor::ActorRef<super::ViewMsg>) {
        if let Some(cmd) = keeper_panes::settle(&self.ui, &self.model) {
            self.on_command(myself, UiCommand::Tools(cmd));
        }
    }
}
