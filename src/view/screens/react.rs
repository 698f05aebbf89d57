//! The one reaction hook: after each admitted delivery, identity change, key and restarted
//! source the view actor calls [`react`] once (the types it hands out live in `reaction`).

use super::Ui;
pub use super::reaction::{ModelAccess, ReactCx, Reaction, Seen};
use crate::view::model::Model;

/// The one reaction hook: the states closed layers keep, the open layers (bottom up), then
/// every mounted screen (ring order) react to `seen`.
pub fn react(ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
    super::layer::react_kept(ui, cx, seen);
    super::layer::react_open(ui, cx, seen);
    super::screen::react_all(ui, cx, seen);
}

/// [`react`] on a bare model without sources (tests): what the reactions left.
pub fn react_detached(ui: &mut Ui, model: &mut Model, seen: Seen) -> Reaction {
    let mut cx = ReactCx::detached(model);
    react(ui, &mut cx, seen);
    cx.finish()
}
