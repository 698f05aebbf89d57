//! The view actor's side of the reaction hook (`screens::react`): after each admitted
//! delivery, identity change, key and restarted source, every mounted screen, open layer and
//! kept state reacts; what the reactions leave — commands, a repaint, an editor still opening
//! that is no longer for what is in front (H-2) — runs here.

use super::{ViewMsg, ViewState};
use crate::view::screens::react::{ReactCx, Seen, react};
use crate::view::terminal::presenter::FrameSink;
use crate::view::terminal::schedule::FrameRequest;
use ractor::ActorRef;

impl<B: FrameSink> ViewState<B> {
    pub(super) fn react(&mut self, myself: &ActorRef<ViewMsg>, seen: Seen) {
        let mut cx = ReactCx::new(&mut self.model, &self.sources);
        react(&mut self.ui, &mut cx, seen);
        let reaction = cx.finish();
        let mut repaint = reaction.repaint;
        if reaction.edit_moved && self.cancel_pending_edit_moved() {
            repaint = true;
        }
        for cmd in reaction.commands {
            self.run_command(myself, cmd, None);
        }
        if repaint {
            self.want(myself, FrameRequest::Input);
        }
    }
}
