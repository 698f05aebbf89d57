//! The Keeper panes of Tools (surfaces.md "Tools"): `available` (the selected Keeper's
//! effective surface), `receipts` (its Skill activation ledger) and `usage` (cross-Keeper
//! Skill usage). Each draws its own [`PaneState`] — not requested, reading, warming, failed
//! with or without the last data, not served, unavailable with the server's reason, empty —
//! never one for another (G-5).
//!
//! The Keeper is chosen on `available` / `receipts` with `J` / `K` over the roster; without a
//! choice it is the Keepers roster's selected row. While the System tab shows either pane the
//! Tools source reads it (`SelectKeeper`, its own `?keeper=` read); otherwise it reads none.
//! What the source is owed is worked out after every key, delivery and identity change (the
//! System screen's reaction, [`owed`]): a tab switch, a palette jump or a roster read arriving
//! later start or stop the read at once, not on the next System key.

use super::SystemPane;
use super::SystemUi;
use crate::actors::tools::ToolsCommand;
use crate::protocol::tools::{AvailableSurface, SkillReference};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::keepers::KeepersScreen;
use crate::view::screens::keepers::operations::row_name;
use crate::view::screens::widgets::failure_text;
use crate::view::screens::{ProjectionCtx, Tab, Ui};
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::Tone;
use crate::view::tools::panes::{self, ActivationRow, PaneState, Usage};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

fn fit(text: &str, width: usize) -> String {
    fit_width(text, width).into_owned()
}

/// Whether `pane` shows the selected Keeper's surface read.
pub fn reads_keeper(pane: SystemPane) -> bool {
    matches!(pane, SystemPane::Available | SystemPane::Receipts)
}

fn roster_names(model: &Model) -> Vec<String> {
    let len = model
        .keepers
        .roster
        .fetched
        .last()
        .map(|o| o.value.rows.len())
        .unwrap_or(0);
    (0..len).filter_map(|i| row_name(model, i)).collect()
}

/// The Keeper the surface panes are about: the pane's own choice, else the roster's selection.
pub fn chosen_keeper(system: &SystemUi, ui: &Ui, model: &Model) -> Option<String> {
    system.surface_keeper.clone().or_else(|| {
        ui.screen::<KeepersScreen>()
            .and_then(|k| row_name(model, k.roster.selected))
    })
}

/// The Keeper the Tools source should read now: the chosen one while the System tab shows one
/// of the two panes, `None` otherwise (another pane, another tab).
pub fn wanted_keeper(system: &SystemUi, ui: &Ui, model: &Model) -> Option<String> {
    if ui.tab == Tab::System && reads_keeper(system.pane) {
        chosen_keeper(system, ui, model)
    } else {
        None
    }
}

/// The `SelectKeeper` the Tools source is owed after a System key, as the key's command.
pub fn select_command(system: &SystemUi, ui: &Ui, model: &Model) -> Option<UiCommand> {
    owed(system, ui, model).map(UiCommand::send)
}

/// What the Tools source is owed now, whatever changed what is in front: the `SelectKeeper`
/// of the wanted Keeper when it is not the one selected (`None`: nothing to send).
pub fn owed(system: &SystemUi, ui: &Ui, model: &Model) -> Option<ToolsCommand> {
    let wanted = wanted_keeper(system, ui, model);
    (wanted.as_deref() != model.tools.surface_keeper())
        .then_some(ToolsCommand::SelectKeeper { keeper: wanted })
}

/// `J` / `K` on `available` / `receipts`: the next / previous Keeper of the roster.
pub fn handle(
    system: &mut SystemUi,
    ui: &mut Ui,
    model: &Model,
    key: KeyEvent,
) -> Option<UiCommand> {
    if !reads_keeper(system.pane) {
        return None;
    }
    let forward = match key.code {
        KeyCode::Char('J') => true,
        KeyCode::Char('K') => false,
        _ => return None,
    };
    let names = roster_names(model);
    if names.is_empty() {
        ui.notice.text = Some("no Keeper to choose: the roster is not read".into());
        return Some(UiCommand::Repaint);
    }
    let current = chosen_keeper(system, ui, model);
    let at = current
        .as_ref()
        .and_then(|c| names.iter().position(|n| n == c));
    let next = match (at, forward) {
        (Some(i), true) => (i + 1).min(names.len() - 1),
        (Some(i), false) => i.saturating_sub(1),
        (None, _) => 0,
    };
    system.surface_keeper = names.get(next).cloned();
    *system.scroll_mut() = 0;
    Some(select_command(system, ui, model).unwrap_or(UiCommand::Repaint))
}

/// The state lines every pane shares; `None` for the states that show data.
fn state_line<T>(what: &str, state: &PaneState<T>, ctx: &ProjectionCtx) -> Option<Line<'static>> {
    let theme = ctx.theme;
    let (text, tone) = match state {
        PaneState::NoKeeper => (
            format!("{what}: no Keeper selected (J / K choose one of the roster)"),
            Tone::Dim,
        ),
        PaneState::NotRequested => (format!("{what}: (not loaded yet)"), Tone::Dim),
        PaneState::Loading => (format!("{what}: reading…"), Tone::Busy),
        PaneState::Warming => (
            format!("{what}: server still computing it (warming) — not empty"),
            Tone::Warn,
        ),
        PaneState::Failed { error, last } => {
            let text = failure_text(what, error, false);
            if last.is_some() {
                (
                    format!("{text} · data unreliable · last observation below"),
                    Tone::Bad,
                )
            } else {
                (text, Tone::Bad)
            }
        }
        PaneState::NotServed { what: missing } => (
            format!(
                "{what}: not served by this MASC — {} (upgrade MASC to read it)",
                sanitize(missing)
            ),
            Tone::Warn,
        ),
        PaneState::Unavailable(u) => (
            format!(
                "{what}: unavailable ({}){}",
                sanitize(&u.reason),
                u.detail
                    .as_deref()
                    .map(|d| format!(" — {}", sanitize(d)))
                    .unwrap_or_default()
            ),
            Tone::Warn,
        ),
        PaneState::Empty => (
            format!("{what}: none (the server answered, empty)"),
            Tone::Dim,
        ),
        PaneState::Shown { reading: true, .. } => (format!("{what}: reading…"), Tone::Busy),
        PaneState::Shown { .. } => return None,
    };
    Some(Line::styled(text, theme.style(tone)))
}

/// The data of a state, current or kept beside a failure.
fn data<T>(state: &PaneState<T>) -> Option<&T> {
    match state {
        PaneState::Shown { value, .. } => Some(value),
        PaneState::Failed { last, .. } => last.as_ref(),
        _ => None,
    }
}

fn keeper_line(system: &SystemUi, ui: &Ui, model: &Model, ctx: &ProjectionCtx) -> Line<'static> {
    let text = match chosen_keeper(system, ui, model) {
        Some(k) => format!("KEEPER  {} · J / K another Keeper", sanitize(&k)),
        None => "KEEPER  (none) · J / K choose one of the roster".into(),
    };
    Line::styled(text, ctx.theme.style(Tone::Strong))
}

fn skills_text(skills: &[SkillReference]) -> String {
    if skills.is_empty() {
        return "none".into();
    }
    skills
        .iter()
        .map(|s| sanitize(&s.identity.name).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

fn surface_lines(s: &AvailableSurface, width: usize, out: &mut Vec<Line<'static>>) {
    out.push(Line::raw(fit(
        &format!(
            "runtime {} · {} tools · instruction Skills: {} · composition Skills: {}",
            sanitize(&s.runtime_id),
            s.tools.len(),
            skills_text(&s.instruction_skills),
            skills_text(&s.composition_skills)
        ),
        width,
    )));
    if let Some(d) = &s.tool_delivery {
        out.push(Line::raw(fit(
            &format!(
                "tool delivery: {}{}",
                sanitize(&d.status),
                d.reason
                    .as_deref()
                    .map(|r| format!(" ({})", sanitize(r)))
                    .unwrap_or_default()
            ),
            width,
        )));
    }
    if !s.skills_left_out.is_empty() {
        out.push(Line::raw(fit(
            &format!("{} Skills left out of the surface", s.skills_left_out.len()),
            width,
        )));
    }
    for t in &s.tools {
        out.push(Line::raw(fit(
            &format!(
                "  {} {}",
                pad_to(&fit_width(&sanitize(&t.name), 32), 32),
                sanitize(&t.origin.kind)
            ),
            width,
        )));
    }
}

pub fn available_lines(
    model: &Model,
    system: &SystemUi,
    ui: &Ui,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let state = panes::available(model.tools.surface.as_ref());
    let mut out = vec![keeper_line(system, ui, model, ctx)];
    out.extend(state_line("available surface", &state, ctx));
    if let Some(s) = data(&state) {
        surface_lines(s, width, &mut out);
    }
    out
}

fn activation_text(r: &ActivationRow) -> String {
    if let Some(raw) = &r.raw {
        return format!("  {}", sanitize(raw));
    }
    format!(
        "  {} {} activations · last {}",
        pad_to(
            &fit_width(
                &sanitize(r.skill.as_deref().unwrap_or("(no skill name)")),
                28
            ),
            28
        ),
        r.activations
            .map(|n| n.to_string())
            .unwrap_or_else(|| "?".into()),
        r.last_activated_at
            .as_deref()
            .map(|t| sanitize(t).into_owned())
            .unwrap_or_else(|| "not reported".into())
    )
}

pub fn receipts_lines(
    model: &Model,
    system: &SystemUi,
    ui: &Ui,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let state = panes::receipts(model.tools.surface.as_ref());
    let mut out = vec![keeper_line(system, ui, model, ctx)];
    out.extend(state_line("Skill receipts", &state, ctx));
    if let Some(rows) = data(&state) {
        out.push(Line::styled(
            format!("SKILL RECEIPTS  {} in the activation ledger", rows.len()),
            ctx.theme.style(Tone::Strong),
        ));
        for r in rows {
            out.push(Line::raw(fit(&activation_text(r), width)));
        }
    }
    out
}

fn usage_body(u: &Usage, ctx: &ProjectionCtx, width: usize, out: &mut Vec<Line<'static>>) {
    match &u.coverage {
        Some((loaded, missing)) if missing.is_empty() => out.push(Line::styled(
            format!(
                "USAGE  {} rows · from {loaded} Keeper ledgers",
                u.rows.len()
            ),
            ctx.theme.style(Tone::Strong),
        )),
        Some((loaded, missing)) => out.push(Line::styled(
            fit(
                &format!(
                    "USAGE  {} rows · from {loaded} Keeper ledgers · ledgers unavailable: {}",
                    u.rows.len(),
                    missing
                        .iter()
                        .map(|m| sanitize(m).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                width,
            ),
            ctx.theme.style(Tone::Warn),
        )),
        None => out.push(Line::styled(
            format!("USAGE  {} rows · coverage not reported", u.rows.len()),
            ctx.theme.style(Tone::Strong),
        )),
    }
    if !u.unreported.is_empty() {
        out.push(Line::styled(
            fit(
                &format!(
                    "  usage not reported yet (its ledger unread) for: {}",
                    u.unreported
                        .iter()
                        .map(|m| sanitize(m).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                width,
            ),
            ctx.theme.style(Tone::Warn),
        ));
    }
    out.push(Line::styled(
        "  KEEPER           SKILL                        INVOKED DELIVERED ACTIONS  LAST USED",
        ctx.theme.style(Tone::Dim),
    ));
    for r in &u.rows {
        out.push(Line::raw(fit(
            &format!(
                "  {} {} {:>7} {:>9} {:>7}  {}",
                pad_to(&fit_width(&sanitize(&r.keeper), 16), 16),
                pad_to(&fit_width(&sanitize(&r.skill), 28), 28),
                r.invocations,
                r.deliveries,
                r.actions,
                r.last_used_at
                    .as_deref()
                    .map(|t| sanitize(t).into_owned())
                    .unwrap_or_else(|| "never".into())
            ),
            width,
        )));
    }
}

pub fn usage_lines(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let state = panes::usage(&model.tools.skills.fetched);
    let mut out = Vec::new();
    out.extend(state_line("Skill usage", &state, ctx));
    if let Some(u) = data(&state) {
        usage_body(u, ctx, width, &mut out);
    }
    out
}
