//! The connectors pane (surfaces.md "Connectors"; sources.md D-5, D-6): one block per
//! transport with its connection badge and bindings, usable as soon as the status arrives;
//! the name chains are a separate stage per scope — reading, complete, or failed after N
//! pages with the earlier pages kept. A binding shows `name (id)` or `id (name unknown)`.
//! Where this MASC does not serve the names route, the pane says so once, every
//! scope reads "not served", and a binding shows `id (name unknown: this MASC does not serve
//! the names route)`.

use super::bindings::{self, BindingRow, ConnectorsUi};
use super::slot_status_lines;
use crate::actors::connectors::SCOPES;
use crate::actors::connectors::chain::scope_name;
use crate::protocol::connectors::{ConnectorRow, ConnectorRowSlot, ConnectorStatus, NameScope};
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::not_served_lines;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::Line;

/// surfaces.md's connection badges from the validated (status, available, connected) triple.
fn badge(row: &ConnectorRow) -> (&'static str, Tone) {
    match (row.status, row.available, row.connected) {
        (ConnectorStatus::Connected, true, true) => ("CONNECTED", Tone::Good),
        (ConnectorStatus::Offline, false, true) => ("CONNECTED / UNAVAILABLE", Tone::Warn),
        (ConnectorStatus::Disconnected, true, false) => ("DISCONNECTED", Tone::Bad),
        (ConnectorStatus::Offline, false, false) => ("UNAVAILABLE", Tone::Bad),
        (ConnectorStatus::Stale, true, false) => ("STALE", Tone::Warn),
        _ => ("INVALID STATE", Tone::Bad),
    }
}

/// One scope's stage (D-5): never "complete" before `has_more: false` was read.
fn stage(model: &Model, connector: &str, scope: NameScope) -> (String, Tone) {
    let name = scope_name(scope);
    let slot = model.connectors.chain(connector, scope);
    // A route this MASC does not serve (this chain's answer, or known from another
    // chain, in which case the source started none here).
    let chain_absent = slot.and_then(|s| s.fetched.not_served());
    let no_chain_absent = slot
        .is_none()
        .then(|| model.connectors.names_not_served())
        .flatten();
    if chain_absent.or(no_chain_absent).is_some() {
        return (format!("{name}: not served"), Tone::Warn);
    }
    let Some(slot) = slot else {
        return (format!("{name}: not read"), Tone::Dim);
    };
    let chain = slot.fetched.last().map(|o| o.value.clone());
    let pages = |n: usize| {
        if n == 1 {
            "1 page".to_string()
        } else {
            format!("{n} pages")
        }
    };
    match (&slot.fetched, chain) {
        (Fetched::Failed { error, .. }, Some(c)) => (
            format!(
                "{name}: {} kept, read failed ({}) after {}",
                c.mappings.len(),
                error.class,
                pages(c.pages_read)
            ),
            Tone::Bad,
        ),
        (Fetched::Failed { error, .. }, None) => {
            (format!("{name}: read failed ({})", error.class), Tone::Bad)
        }
        (_, Some(c)) if c.complete && !slot.in_flight() => (
            format!("{name}: {} ({})", c.mappings.len(), pages(c.pages_read)),
            Tone::Dim,
        ),
        (_, Some(c)) => (
            format!(
                "{name}: reading… {} so far ({})",
                c.mappings.len(),
                pages(c.pages_read)
            ),
            Tone::Busy,
        ),
        (_, None) => (format!("{name}: reading…"), Tone::Busy),
    }
}

fn mark(ui: &ConnectorsUi, row: BindingRow) -> &'static str {
    if ui.selected.as_ref() == Some(&row) {
        "›"
    } else {
        " "
    }
}

fn connector_lines(
    model: &Model,
    ui: &ConnectorsUi,
    row: &ConnectorRow,
    width: usize,
    theme: Theme,
    out: &mut Vec<Line<'static>>,
) {
    let (word, tone) = badge(row);
    let here = mark(
        ui,
        BindingRow {
            connector_id: row.connector_id.clone(),
            binding: None,
        },
    );
    let mut head = format!(
        "{here}{}  {word}  {} bindings",
        sanitize(&row.display_name),
        row.configured_bindings.len()
    );
    for (label, value) in [("gateway", &row.gateway_state), ("poll", &row.poll_state)] {
        if let Some(v) = value {
            head.push_str(&format!(" · {label} {}", sanitize(&v.to_string())));
        }
    }
    if let Some(e) = &row.error {
        head.push_str(&format!(" · error {}", sanitize(&e.to_string())));
    }
    out.push(Line::styled(
        fit_width(&head, width).into_owned(),
        theme.style(tone),
    ));
    let stages: Vec<(String, Tone)> = SCOPES
        .iter()
        .map(|s| stage(model, &row.connector_id, *s))
        .collect();
    let worst = stages
        .iter()
        .map(|(_, t)| *t)
        .find(|t| matches!(t, Tone::Bad | Tone::Busy | Tone::Warn))
        .unwrap_or(Tone::Dim);
    let joined: Vec<String> = stages.into_iter().map(|(t, _)| t).collect();
    out.push(Line::styled(
        fit_width(&format!("  names  {}", joined.join(" · ")), width).into_owned(),
        theme.style(worst),
    ));
    let channels = model
        .connectors
        .chain(&row.connector_id, NameScope::Channel)
        .and_then(|s| s.fetched.last().map(|o| o.value.clone()));
    let names_absent = model.connectors.names_not_served().is_some();
    for b in &row.configured_bindings {
        let id = sanitize(&b.channel_id).into_owned();
        let channel = match channels.as_ref().and_then(|c| c.name_of(&b.channel_id)) {
            Some(name) => format!("#{} ({id})", sanitize(name)),
            None if names_absent => {
                format!("{id} (name unknown: this MASC does not serve the names route)")
            }
            None => format!("{id} (name unknown)"),
        };
        let here = mark(
            ui,
            BindingRow {
                connector_id: row.connector_id.clone(),
                binding: Some((b.channel_id.clone(), b.keeper_name.clone())),
            },
        );
        let (write, tone) = bindings::write_words(model, &row.connector_id, &b.channel_id)
            .map(|(w, t)| (format!("  · {w}"), t))
            .unwrap_or((String::new(), Tone::Normal));
        out.push(Line::styled(
            fit_width(
                &format!("{here} {channel} → {}{write}", sanitize(&b.keeper_name)),
                width,
            )
            .into_owned(),
            theme.style(tone),
        ));
    }
    // Binds the last status does not show yet (sent, unknown, refused): their own rows.
    let listed: Vec<&str> = row
        .configured_bindings
        .iter()
        .map(|b| b.channel_id.as_str())
        .collect();
    for e in bindings::unlisted_binds(model, &row.connector_id, &listed) {
        let (write, tone) = bindings::write_words(model, &row.connector_id, &e.intent.channel_id)
            .unwrap_or((String::new(), Tone::Normal));
        out.push(Line::styled(
            fit_width(
                &format!(
                    "  {} (not in the last status) → {} · {write}",
                    sanitize(&e.intent.channel_id),
                    sanitize(&e.intent.keeper_name)
                ),
                width,
            )
            .into_owned(),
            theme.style(tone),
        ));
    }
}

/// D-14: after a binding write, the status read it is owed — reading, pending, or failed with
/// the last good observation still shown.
fn reread_line(model: &Model, theme: Theme) -> Option<Line<'static>> {
    let reread = model.connectors.reread?;
    let slot = &model.connectors.status;
    let (text, tone) = if slot.in_flight() && reread.covering.is_some() {
        (
            "reading the status after the binding write…".to_string(),
            Tone::Busy,
        )
    } else if let Fetched::Failed { error, .. } = &slot.fetched {
        (
            format!(
                "status re-read after the binding write failed ({}); last good observation shown; the next poll or r retries",
                error.class
            ),
            Tone::Bad,
        )
    } else {
        (
            "status re-read pending after the binding write".to_string(),
            Tone::Warn,
        )
    };
    Some(Line::styled(text, theme.style(tone)))
}

pub fn lines(
    model: &Model,
    ui: &ConnectorsUi,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let fetched = &model.connectors.status.fetched;
    let mut out = Vec::new();
    out.extend(slot_status_lines("connectors", fetched, ctx, width));
    out.extend(reread_line(model, theme));
    let Some(observed) = fetched.last() else {
        return out;
    };
    let list = &observed.value;
    out.push(Line::styled(
        format!(
            "CONNECTORS  {} · {} active{}",
            list.total,
            list.active_count,
            list.generated_at
                .as_deref()
                .map(|g| format!(" · generated {}", sanitize(g)))
                .unwrap_or_default()
        ),
        theme.style(Tone::Strong),
    ));
    if let Some(route) = model.connectors.names_not_served() {
        out.extend(not_served_lines("connector names", route, width, theme));
    }
    if list.rows.is_empty() {
        out.push(Line::styled(
            "no connectors configured",
            theme.style(Tone::Dim),
        ));
    }
    for slot in &list.rows {
        match slot {
            ConnectorRowSlot::Row(row) => connector_lines(model, ui, row, width, theme, &mut out),
            ConnectorRowSlot::Undecodable {
                connector_id,
                error,
            } => out.push(Line::styled(
                fit_width(
                    &format!(
                        "{}  refused row: {} at {}",
                        connector_id
                            .as_deref()
                            .map(|c| sanitize(c).into_owned())
                            .unwrap_or_else(|| "(no id)".into()),
                        error.kind.reason(),
                        error.path
                    ),
                    width,
                )
                .into_owned(),
                theme.style(Tone::Bad),
            )),
        }
        out.push(Line::raw(""));
    }
    out
}
