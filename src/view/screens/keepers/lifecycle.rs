//! Lifecycle keys of the Keepers roster (surfaces.md "Keepers roster"; protocol.md §14.1–§14.4):
//! `p` pause (resume when operator-paused, boot when no fiber runs), `w` wake, `s` `s` shutdown
//! and `x` `x` delete (armed: the first press previews, the second sends, any other key
//! disarms), `g` then `y` / `a` tool gate yolo / auto. Keys only capture the Keeper and the action; the save is the view actor's.

use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use crate::actors::system::binding::BindingIntent;
use crate::actors::system::binding::ConnectorUnbind;
use crate::protocol::keeper_ops::ToolApprovalMode;
use crate::protocol::keepers::KeeperRowSlot;
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::RosterUi;
use crate::view::text::sanitize;
use crossterm::event::{KeyCode, KeyEvent};

/// A lifecycle key waiting for its second press, or the tool-gate choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// `s` or `x` pressed once for this Keeper.
    Armed {
        keeper: String,
        action: LifecycleAction,
    },
    /// `g` pressed: `y` yolo, `a` auto.
    Gate { keeper: String },
    /// A pause or shutdown of a Keeper with connector bindings was just sent: `y` unbinds each
    /// of them too (captured at the key; surfaces.md Keepers row), any other key skips it.
    Unbind {
        keeper: String,
        bindings: Vec<BindingIntent>,
    },
}

/// The connector bindings naming `keeper` in the last connectors status read (§7.1); empty
/// when none, or when the status is unread (nothing is offered then).
pub fn bindings_of(model: &Model, keeper: &str) -> Vec<BindingIntent> {
    let Some(status) = model.system.connectors.fetched.last() else {
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

/// Arms the unbind offer for `keeper` when it has bindings.
fn offer(roster: &mut RosterUi, model: &Model, keeper: &str) {
    let bindings = bindings_of(model, keeper);
    if !bindings.is_empty() {
        roster.pending = Some(Pending::Unbind {
            keeper: keeper.to_string(),
            bindings,
        });
    }
}

/// After the view actor submitted a lifecycle action: the offer's words when one is armed and
/// the action was submitted (`sent`); an offer for an action not sent is withdrawn.
pub fn unbind_offer(roster: &mut RosterUi, sent: bool) -> Option<String> {
    let Some(Pending::Unbind { keeper, bindings }) = &roster.pending else {
        return None;
    };
    if !sent {
        roster.pending = None;
        return None;
    }
    Some(format!(
        "y: unbind {}'s {} connector binding(s) too · any other key skips",
        sanitize(keeper),
        bindings.len()
    ))
}

/// What `x` removes (protocol.md §14.3), named in its preview.
pub const DELETE_REMOVES: &str = "metrics, decision and feedback logs, runtime directory, memory \
snapshots and journal, configuration, chat history, agent files and tokens";

fn request(keeper: String, action: LifecycleAction) -> UiCommand {
    super::KeeperOp::command::<LifecycleSave>(LifecycleIntent::new(keeper, action))
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
        (Some(Pending::Armed { keeper, action }), KeyCode::Char(c))
            if armed_key(action) == Some(c)
                && super::ops::row_name(model, roster.selected).as_deref()
                    == Some(keeper.as_str()) =>
        {
            if action == LifecycleAction::Shutdown {
                offer(roster, model, &keeper);
            }
            return Some(request(keeper, action));
        }
        (Some(Pending::Unbind { keeper, bindings }), KeyCode::Char('y'))
            if super::ops::row_name(model, roster.selected).as_deref() == Some(keeper.as_str()) =>
        {
            return Some(UiCommand::Many(
                bindings
                    .into_iter()
                    .map(UiCommand::save::<ConnectorUnbind>)
                    .collect(),
            ));
        }
        (Some(Pending::Unbind { .. }), _) => {
            // Skipped: the key does what it does.
        }
        (Some(_), _) => {
            // Anything else disarms; the key then does what it does.
            *notice = Some("cancelled".into());
        }
        (None, _) => {}
    }
    let slot = selected_row(model, roster.selected)?;
    let (name, row) = match slot {
        KeeperRowSlot::Row(r) => (r.name.clone(), Some(r)),
        KeeperRowSlot::Undecodable { name, .. } => (name.clone()?, None),
    };
    let shown = sanitize(&name).into_owned();
    match key.code {
        KeyCode::Char('p') => {
            let paused = row.and_then(|r| r.paused);
            let running = row.and_then(|r| r.keepalive_running);
            Some(match (paused, running) {
                // Operator-paused: lift the pause (§14.1 resume; the worker reads the
                // generation). Booting a stopped Keeper is the next `p`, never automatic.
                (Some(true), _) => request(name, LifecycleAction::Resume),
                (_, Some(false)) => request(name, LifecycleAction::Boot),
                _ => {
                    offer(roster, model, &name);
                    request(name, LifecycleAction::Pause)
                }
            })
        }
        KeyCode::Char('w') => Some(request(name, LifecycleAction::Wake)),
        KeyCode::Char('s') => {
            *notice = Some(format!(
                "shut down {shown}? s again to send · any other key cancels"
            ));
            roster.pending = Some(Pending::Armed {
                keeper: name,
                action: LifecycleAction::Shutdown,
            });
            Some(UiCommand::Repaint)
        }
        KeyCode::Char('x') => {
            if row.and_then(|r| r.keepalive_running) != Some(false) {
                *notice = Some(format!(
                    "delete {shown}: only while no fiber runs — shut it down first (s s)"
                ));
                return Some(UiCommand::Repaint);
            }
            *notice = Some(format!(
                "delete {shown}? removes its {DELETE_REMOVES} · x again to send · any other key cancels"
            ));
            roster.pending = Some(Pending::Armed {
                keeper: name,
                action: LifecycleAction::Delete,
            });
            Some(UiCommand::Repaint)
        }
        KeyCode::Char('g') => {
            *notice = Some(format!(
                "tool gate of {shown}: y yolo · a auto · any other key cancels"
            ));
            roster.pending = Some(Pending::Gate { keeper: name });
            Some(UiCommand::Repaint)
        }
        _ => None,
    }
}

fn armed_key(action: LifecycleAction) -> Option<char> {
    match action {
        LifecycleAction::Shutdown => Some('s'),
        LifecycleAction::Delete => Some('x'),
        _ => None,
    }
}
