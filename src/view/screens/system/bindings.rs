//! Binding writes from the connectors pane (protocol.md §7.3, §7.4; sources.md D-7, D-14):
//! the selection (a connector, or one of its bindings, held by identity so the final name
//! enrichment never moves it, D-7), the bind form (`b`: channel id and Keeper — one-line fields
//! that open selected on what they hold, so typing replaces it — `Tab` between them, `Enter`
//! previews the bind and `Enter` again sends it, `Esc` keeps the draft), and the armed unbind
//! (`x` previews it in the save path's confirmation layer, naming the binding removed; a
//! second `x` sends; any other key disarms). What each write's save says is drawn beside its
//! row.

use crate::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use crate::actors::saves::{Receipt, SaveKind};
use crate::protocol::connectors::ConnectorRowSlot;
use crate::protocol::outcome::SaveClass;
use crate::view::command::UiCommand;
use crate::view::field::Field;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Span;

/// One selectable row: a connector, or one binding of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingRow {
    pub connector_id: String,
    /// `Some((channel, keeper))` on a binding row.
    pub binding: Option<(String, String)>,
}

/// The bind form's draft.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BindForm {
    pub connector_id: String,
    pub channel_id: Field,
    pub keeper_name: Field,
    /// `false`: the channel field has the cursor; `true`: the Keeper field.
    pub on_keeper: bool,
    pub typing: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorsUi {
    pub selected: Option<BindingRow>,
    pub form: Option<BindForm>,
}

impl ConnectorsUi {
    pub fn typing(&self) -> bool {
        self.form.as_ref().is_some_and(|f| f.typing)
    }
}

/// The selectable rows of the last admitted status, in screen order.
pub fn rows(model: &Model) -> Vec<BindingRow> {
    let mut out = Vec::new();
    let Some(observed) = model.connectors.status.fetched.last() else {
        return out;
    };
    for slot in &observed.value.rows {
        if let ConnectorRowSlot::Row(row) = slot {
            out.push(BindingRow {
                connector_id: row.connector_id.clone(),
                binding: None,
            });
            for b in &row.configured_bindings {
                out.push(BindingRow {
                    connector_id: row.connector_id.clone(),
                    binding: Some((b.channel_id.clone(), b.keeper_name.clone())),
                });
            }
        }
    }
    out
}

fn step(ui: &mut ConnectorsUi, model: &Model, forward: bool) -> UiCommand {
    let rows = rows(model);
    if rows.is_empty() {
        return UiCommand::None;
    }
    let at = ui
        .selected
        .as_ref()
        .and_then(|s| rows.iter().position(|r| r == s));
    let next = match (at, forward) {
        (Some(i), true) => (i + 1).min(rows.len() - 1),
        (Some(i), false) => i.saturating_sub(1),
        (None, true) => 0,
        (None, false) => rows.len() - 1,
    };
    ui.selected = rows.get(next).cloned();
    UiCommand::Repaint
}

/// Keys of the connectors pane; `None`: not this pane's key.
pub fn handle(conn: &mut ConnectorsUi, model: &Model, key: KeyEvent) -> Option<UiCommand> {
    match key.code {
        KeyCode::Char('J') => Some(step(conn, model, true)),
        KeyCode::Char('K') => Some(step(conn, model, false)),
        KeyCode::Char('b') => {
            let connector = conn
                .selected
                .as_ref()
                .map(|s| s.connector_id.clone())
                .or_else(|| rows(model).first().map(|r| r.connector_id.clone()))?;
            let channel = conn
                .selected
                .as_ref()
                .and_then(|s| s.binding.as_ref().map(|(c, _)| c.clone()));
            let keep = conn
                .form
                .as_ref()
                .is_some_and(|f| f.connector_id == connector);
            if !keep {
                conn.form = Some(BindForm {
                    connector_id: connector,
                    channel_id: Field::opened_on(channel.unwrap_or_default()),
                    ..BindForm::default()
                });
            }
            if let Some(form) = conn.form.as_mut() {
                form.typing = true;
                // What the fields hold is selected again: typing replaces it.
                form.channel_id.set(form.channel_id.text().to_string());
                form.keeper_name.set(form.keeper_name.text().to_string());
            }
            Some(UiCommand::Repaint)
        }
        // Previewed first by the save path; `x` again sends.
        KeyCode::Char('x') => {
            let selected = conn.selected.clone()?;
            let (channel, keeper) = selected.binding.clone()?;
            Some(UiCommand::save::<ConnectorUnbind>(BindingIntent {
                connector_id: selected.connector_id,
                channel_id: channel,
                keeper_name: keeper,
            }))
        }
        _ => None,
    }
}

/// A key while the bind form takes typing.
pub fn typing_key(
    conn: &mut ConnectorsUi,
    notice: &mut Option<String>,
    model: &Model,
    key: KeyEvent,
) -> UiCommand {
    let authority = model.gate().current().is_some();
    let Some(form) = conn.form.as_mut() else {
        return UiCommand::None;
    };
    let field = if form.on_keeper {
        &mut form.keeper_name
    } else {
        &mut form.channel_id
    };
    match key.code {
        KeyCode::Esc => form.typing = false,
        KeyCode::Tab | KeyCode::BackTab => form.on_keeper = !form.on_keeper,
        KeyCode::Enter => {
            let (channel, keeper) = (
                form.channel_id.text().trim(),
                form.keeper_name.text().trim(),
            );
            if channel.is_empty() || keeper.is_empty() {
                *notice = Some("bind needs a channel id and a Keeper".into());
                return UiCommand::Repaint;
            }
            if !authority {
                *notice = Some("not sent: workspace not confirmed".into());
                return UiCommand::Repaint;
            }
            let intent = BindingIntent {
                connector_id: form.connector_id.clone(),
                channel_id: channel.to_string(),
                keeper_name: keeper.to_string(),
            };
            // The bound channel is selected: its row (and then `x`) is where the write shows.
            conn.selected = Some(BindingRow {
                connector_id: intent.connector_id.clone(),
                binding: Some((intent.channel_id.clone(), intent.keeper_name.clone())),
            });
            conn.form = None;
            return UiCommand::save::<ConnectorBind>(intent);
        }
        // T.7: only printable scalars enter the field (`view::field`).
        _ if field.key(key) => {}
        _ => return UiCommand::None,
    }
    UiCommand::Repaint
}

pub fn footer(ui: &ConnectorsUi, theme: Theme) -> Vec<Span<'static>> {
    if let Some(form) = ui.form.as_ref().filter(|f| f.typing) {
        return vec![
            Span::styled(
                format!("bind {} channel: ", sanitize(&form.connector_id)),
                theme.style(Tone::Accent),
            ),
            Span::raw(form.channel_id.shown(!form.on_keeper)),
            Span::styled("  keeper: ", theme.style(Tone::Accent)),
            Span::raw(form.keeper_name.shown(form.on_keeper)),
            Span::styled(
                "  Tab field · Enter bind · Esc keep draft",
                theme.style(Tone::Dim),
            ),
        ];
    }
    Vec::new()
}

/// A binding write's phase in words (`what` names it).
pub fn phase_words<R: Receipt>(what: &str, phase: &SavePhase<R>) -> (String, Tone) {
    let receipt = |r: &R, restored: bool| {
        let from = if restored {
            " (from an earlier run)"
        } else {
            ""
        };
        let reason = r
            .reason()
            .map(|x| format!(": {}", sanitize(&x)))
            .unwrap_or_default();
        match r.class() {
            SaveClass::Applied => (format!("{what} applied{from}"), Tone::Good),
            SaveClass::Unchanged => (format!("{what}: already so, unchanged{from}"), Tone::Dim),
            SaveClass::NotApplied => (format!("{what} refused{reason}{from}"), Tone::Bad),
            SaveClass::Conflict => (
                format!("{what}: binding changed on the server, kept{from}"),
                Tone::Warn,
            ),
            SaveClass::NotSent => (format!("{what} not sent{reason}{from}"), Tone::Warn),
            SaveClass::OutcomeUnknown => (
                format!("{what}: outcome unknown{reason} — not resent{from}"),
                Tone::Bad,
            ),
        }
    };
    match phase {
        SavePhase::Submitted | SavePhase::Written => (format!("{what}: queued"), Tone::Busy),
        SavePhase::Sending => (format!("{what}: sending…"), Tone::Busy),
        SavePhase::Ended(r) => receipt(r, false),
        SavePhase::Restored(r) => receipt(r, true),
    }
}

/// The newest write on (connector, channel) in the current workspace, in words.
pub fn write_words(model: &Model, connector: &str, channel: &str) -> Option<(String, Tone)> {
    let workspace = model.gate().current()?.workspace.0.clone();
    let key = ConnectorBind::intent_key(&BindingIntent {
        connector_id: connector.into(),
        channel_id: channel.into(),
        keeper_name: String::new(),
    });
    let bind = model.connectors.binds.latest(&key, &workspace);
    let unbind = model.connectors.unbinds.latest(&key, &workspace);
    let newer_unbind = match (bind, unbind) {
        (Some(b), Some(u)) => u.save_id > b.save_id,
        (None, Some(_)) => true,
        _ => false,
    };
    if newer_unbind {
        unbind.map(|u: &SaveEntry<ConnectorUnbind>| {
            phase_words(
                &format!("unbind {}", sanitize(&u.intent.keeper_name)),
                &u.phase,
            )
        })
    } else {
        bind.map(|b: &SaveEntry<ConnectorBind>| {
            phase_words(
                &format!("bind {}", sanitize(&b.intent.keeper_name)),
                &b.phase,
            )
        })
    }
}

/// Channels of `connector` with a bind save whose binding the last status does not show.
pub fn unlisted_binds<'m>(
    model: &'m Model,
    connector: &str,
    listed: &[&str],
) -> Vec<&'m SaveEntry<ConnectorBind>> {
    let Some(workspace) = model.gate().current().map(|s| s.workspace.0.clone()) else {
        return Vec::new();
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for e in model.connectors.binds.entries().rev() {
        let channel = e.intent.channel_id.as_str();
        // An unbind after it on the same channel: nothing left to show for this bind.
        let undone = model.connectors.unbinds.entries().any(|u| {
            u.workspace == workspace
                && u.intent.connector_id == connector
                && u.intent.channel_id == channel
                && u.save_id > e.save_id
        });
        if e.workspace == workspace
            && e.intent.connector_id == connector
            && !listed.contains(&channel)
            && !seen.contains(&channel)
        {
            seen.push(channel);
            if !undone {
                out.push(e);
            }
        }
    }
    out
}
