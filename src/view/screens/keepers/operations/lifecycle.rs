//! Lifecycle keys of the Keepers roster (surfaces.md "Keepers roster"; protocol.md §14.1–§14.4):
//! `p` `p` pause (resume when operator-paused, boot when no fiber runs), `w` `w` wake, `s` `s`
//! shutdown, `x` `x` delete, `g` then `y` `y` / `a` `a` tool gate yolo / auto. Every action is
//! armed: the first press previews it in the save path's confirmation layer (what changes,
//! what is removed), the second sends, any other key disarms. Keys only capture the Keeper
//! and the action; the save is the view actor's. A pause or shutdown sent for a Keeper with
//! connector bindings offers to unbind them in a confirmation of its own ([`unbind_offer`]).

use crate::actors::connectors::binding::BindingIntent;
use crate::actors::connectors::binding::ConnectorUnbind;
use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use crate::protocol::keeper_ops::ToolApprovalMode;
use crate::protocol::keepers::KeeperRowSlot;
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::save_path::{Preview, SaveRequest};
use crate::view::screens::RosterUi;
use crate::view::screens::confirm::ConfirmLayer;
use crate::view::text::sanitize;
use crossterm::event::{KeyCode, KeyEvent};

/// The tool-gate choice waiting for its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// `g` pressed: `y` yolo, `a` auto (each then previewed, the same key again sends).
    Gate { keeper: String },
}

/// The connector bindings naming `keeper` in the last connectors status read (§7.1); empty
/// when none, or when the status is unread (nothing is offered then).
pub fn bindings_of(model: &Model, keeper: &str) -> Vec<BindingIntent> {
    let Some(status) = model.connectors.status.fetched.last() else {
        return Vec::new();
    };
    status
        .value
        .connectors()
        .flat_map(|c| {
            c.configured_bindings
                .iter()
                .filter(|b| b.keeper_name == keeper)
                .map(|b| BindingIntent {
                    connector_id: c.connector_id.clone(),
                    channel_id: b.channel_id.clone(),
                    keeper_name: keeper.to_string(),
                })
        })
        .collect()
}

/// After a pause or shutdown of `keeper` was sent: when the Keeper has connector bindings, the
/// offer to unbind them too, as its own confirmation (surfaces.md Keepers row): a layer naming
/// every binding removed, `y` unbinds them all, any other key leaves them.
pub fn unbind_offer(model: &Model, keeper: &str) -> Option<ConfirmLayer> {
    let bindings = bindings_of(model, keeper);
    if bindings.is_empty() {
        return None;
    }
    let mut preview = Preview::titled(format!(
        "also unbind {}'s {} connector binding(s)",
        keeper,
        bindings.len()
    ));
    for b in &bindings {
        preview = preview.removes(format!(
            "{} channel {} → {}",
            b.connector_id, b.channel_id, b.keeper_name
        ));
    }
    let preview =
        preview.note("messages on those channels no longer reach it; nothing is unbound without y");
    let requests = bindings
        .iter()
        .map(|b| SaveRequest::new::<ConnectorUnbind>(b.clone()).confirmed())
        .collect();
    let command = UiCommand::Many(
        bindings
            .into_iter()
            .map(UiCommand::save::<ConnectorUnbind>)
            .collect(),
    );
    let mut layer = ConfirmLayer::new(preview, KeyCode::Char('y'), command).confirming(requests);
    layer.again = false;
    Some(layer)
}

fn request(keeper: String, action: LifecycleAction) -> UiCommand {
    super::super::KeeperOp::command::<LifecycleSave>(LifecycleIntent::new(keeper, action))
}

fn selected_row(model: &Model, index: usize) -> Option<&KeeperRowSlot> {
    model
        .keepers
        .roster
        .fetched
        .last()
        .and_then(|o| o.value.rows.get(index))
}

/// A roster key (detail closed, no field active). `None`: not a lifecycle key; the roster
/// handles it (a pending key is disarmed first).
pub fn key(
    roster: &mut RosterUi,
    notice: &mut Option<String>,
    model: &Model,
    key: KeyEvent,
) -> Option<UiCommand> {
    let pending = roster.pending.take();
    match (pending, key.code) {
        (Some(Pending::Gate { keeper }), KeyCode::Char('y')) => {
            return Some(request(
                keeper,
                LifecycleAction::ToolGate(ToolApprovalMode::Yolo),
            ));
        }
        (Some(Pending::Gate { keeper }), KeyCode::Char('a')) => {
            return Some(request(
                keeper,
                LifecycleAction::ToolGate(ToolApprovalMode::Auto),
            ));
        }
        (Some(_), _) => {
            // Anything else disarms, and does nothing else: a stray key after `g` never acts.
            *notice = Some("tool gate: cancelled, nothing sent".into());
            return Some(UiCommand::Repaint);
        }
        (None, _) => {}
    }
    let slot = selected_row(model, roster.selected)?;
    let (name, row) = match slot {
        KeeperRowSlot::Row(r) => (r.name.clone(), Some(r)),
        KeeperRowSlot::Undecodable { name, .. } => (name.clone()?, None),
    };
    let shown = sanitize(&name).into_owned();
    // Each action is previewed on its first press (the save path's confirmation layer) and
    // sent on the second.
    match key.code {
        KeyCode::Char('p') => {
            let paused = row.and_then(|r| r.paused);
            let running = row.and_then(|r| r.keepalive_running);
            Some(match (paused, running) {
                // Operator-paused: lift the pause (§14.1 resume; the worker reads the
                // generation). Booting a stopped Keeper is the next `p`, never automatic.
                (Some(true), _) => request(name, LifecycleAction::Resume),
                (_, Some(false)) => request(name, LifecycleAction::Boot),
                _ => request(name, LifecycleAction::Pause),
            })
        }
        KeyCode::Char('w') => Some(request(name, LifecycleAction::Wake)),
        KeyCode::Char('s') => Some(request(name, LifecycleAction::Shutdown)),
        KeyCode::Char('x') => {
            if row.and_then(|r| r.keepalive_running) != Some(false) {
                *notice = Some(format!(
                    "delete {shown}: only while no fiber runs — shut it down first (s s)"
                ));
                return Some(UiCommand::Repaint);
            }
            Some(request(name, LifecycleAction::Delete))
        }
        KeyCode::Char('g') => {
            *notice = Some(format!(
                "tool gate of {shown}: y yolo · a auto (each previewed first) · any other key cancels"
            ));
            roster.pending = Some(Pending::Gate { keeper: name });
            Some(UiCommand::Repaint)
        }
        _ => None,
    }
}
