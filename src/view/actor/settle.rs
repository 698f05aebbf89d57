//! The view actor's side of the settle stage (`save_path::settle`): after each admitted
//! delivery, and when the stage asked to look again, one pass judges the open receipts; its
//! re-read demands are cast to the sources and its next look is armed with `send_after` (never
//! `send_interval`: a timer queued behind slow work must not pile up).

use super::{ViewMsg, ViewState};
use crate::actors::contract::{DemandKind, SourceControl};
use crate::actors::keeper_detail::{KEEPER_DETAIL, KeeperDetailCommand};
use crate::view::save_path::kinds;
use crate::view::save_path::settle::Reread;
use crate::view::terminal::presenter::FrameSink;
use crate::view::terminal::schedule::FrameRequest;
use ractor::ActorRef;
use std::time::Instant;

impl<B: FrameSink> ViewState<B> {
    /// One pass of the settle stage, when some receipt waits on a re-read (no `&mut` access of
    /// the model otherwise: it would make the next frame a whole one).
    pub(super) fn settle(&mut self, myself: &ActorRef<ViewMsg>) {
        if !kinds::any_open(&self.model) {
            return;
        }
        let now = Instant::now();
        let step = kinds::advance(&mut self.model, now);
        for reread in step.demands {
            match reread {
                Reread::Source(source) => {
                    if let Some(handle) = self.sources.get(&source) {
                        handle.send_control(SourceControl::Demand(DemandKind::Explicit));
                    }
                }
                Reread::Keeper(keeper) => {
                    let confirm = KeeperDetailCommand::Confirm { keeper };
                    self.model.keeper_detail.on_command(&confirm);
                    if self.command(KEEPER_DETAIL, confirm).is_err() {
                        tracing::debug!(target: "masc_tui::view", "settle re-read not sent: Keeper detail source not running");
                    }
                }
            }
        }
        if step.changed {
            self.want(myself, FrameRequest::Background);
        }
        if let Some(at) = step.next
            && self
                .settle_at
                .is_none_or(|armed| armed > at || armed <= now)
        {
            self.settle_at = Some(at);
            myself.send_after(at.saturating_duration_since(now), || ViewMsg::SettleDue);
        }
    }

    /// The stage asked to look again.
    pub(super) fn on_settle_due(&mut self, myself: &ActorRef<ViewMsg>) {
        if self.settle_at.is_some_and(|at| at <= Instant::now()) {
            self.settle_at = None;
        }
        self.settle(myself);
    }
}
