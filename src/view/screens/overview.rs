//! The Overview (surfaces.md "Dashboard / Overview"): decisions first, then passive context —
//! Keepers, two active Goals, Task flow, quota coverage, up to two Attention items, Candle.
//! Every panel reads a slot another surface owns and says what that slot knows: not loaded,
//! reading, failed (a failed count reads `0 · data unreliable`, surfaces.md), not served by
//! this MASC (plainly, never `0` or `data unreliable`), or its value.
//! Decisions lists this actor's pending approvals and the open asks as read (up to three of
//! each); it never decides: `Enter` opens Approvals, where approvals are decided and Asks
//! answered.

use super::ProjectionCtx;
use crate::protocol::client::ErrorClass;
use crate::protocol::connectors::ConnectorStatus;
use crate::protocol::decode::SinceRelease;
use crate::protocol::keepers::{Candle, KeeperRoster, KeeperStatus};
use crate::protocol::planning::{GoalPhase, PlanningRead};
use crate::protocol::runtime::UsageState;
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::model::Model;
use crate::view::screens::widgets::{not_served_any_more, not_served_brief};
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use std::sync::Arc;
use std::time::Instant;

/// A read refused before sending for the want of a token: where one comes from (§1.1).
pub const NO_TOKEN: &str = "not read: no token (--token, MASC_TOKEN or the token file)";

/// What a slot knows when it has no value to show (`None`: it has one).
fn no_value<T: Clone>(fetched: &Fetched<T>) -> Option<String> {
    match fetched {
        Fetched::NotRequested => Some("(not loaded yet)".into()),
        Fetched::Loading => Some("reading…".into()),
        Fetched::Warming { last: None } => Some("server warming up".into()),
        // Nothing was asked of the server: not a failed count, a missing credential.
        Fetched::Failed {
            last: None, error, ..
        } if error.class == FailureClass::Read(ErrorClass::NoToken) => Some(NO_TOKEN.into()),
        Fetched::Failed {
            last: None, error, ..
        } => Some(format!(
            "0 · data unreliable (read failed: {})",
            error.class
        )),
        Fetched::NotServed { route, last: None } => Some(not_served_brief(*route)),
        _ => None,
    }
}

/// Beside a shown value: a failed re-read or a visible re-read.
fn suffix<T: Clone>(fetched: &Fetched<T>, now: Instant) -> String {
    match fetched {
        Fetched::Failed { error, .. } => {
            format!(" · data unreliable (read failed: {})", error.class)
        }
        Fetched::NotServed { route, .. } => format!(" · {}", not_served_any_more(*route)),
        Fetched::Refreshing { .. } if fetched.shows_reading(now) => " (reading…)".into(),
        Fetched::Warming { .. } => " · server warming up".into(),
        _ => String::new(),
    }
}

/// The Decisions panel (surfaces.md: decisions first): what needs a person, as read.
fn decisions(model: &Model, ctx: &ProjectionCtx, out: &mut Vec<Line<'static>>) {
    let theme = ctx.theme;
    let approvals = &model.decisions.approvals.fetched;
    if let Some(words) = no_value(approvals) {
        out.push(Line::from(vec![
            label("Approvals", theme),
            Span::raw(words),
        ]));
    }
    if let Some(o) = approvals.last() {
        let a = &o.value;
        let tail = suffix(approvals, ctx.now);
        out.push(Line::from(vec![
            label("Approvals", theme),
            Span::styled(
                format!(
                    "{} pending for {}{}{}",
                    a.visible_count,
                    sanitize(&a.actor_filter),
                    if a.hidden_count > 0 {
                        format!(" · {} of other actors not listed", a.hidden_count)
                    } else {
                        String::new()
                    },
                    tail
                ),
                theme.style(if a.items.is_empty() {
                    Tone::Dim
                } else {
                    Tone::Warn
                }),
            ),
        ]));
        for item in a.items.iter().take(3) {
            let target = match item.target_id.as_deref() {
                Some(id) => format!("{} {}", sanitize(&item.target_type), sanitize(id)),
                None => sanitize(&item.target_type).into_owned(),
            };
            // §10.5: MASC may still list an approval after it expired (its cache); say so.
            let (expiry, tone) = match item.expires_at {
                Some(e) if (e.unix_timestamp() as f64) < ctx.now_unix => (
                    format!(" · expired {} (still listed by the server)", minute(e)),
                    Tone::Dim,
                ),
                Some(e) => (format!(" · expires {}", minute(e)), Tone::Normal),
                None => (" · no expiry".to_string(), Tone::Normal),
            };
            out.push(Line::from(vec![
                label("", theme),
                Span::styled(
                    format!("{} → {target}{expiry}", sanitize(&item.delegated_tool)),
                    theme.style(tone),
                ),
            ]));
        }
    }
    let asks = &model.decisions.asks.fetched;
    if let Some(words) = no_value(asks) {
        out.push(Line::from(vec![label("Asks", theme), Span::raw(words)]));
    }
    if let Some(o) = asks.last() {
        let list = &o.value;
        out.push(Line::from(vec![
            label("Asks", theme),
            Span::styled(
                format!("{} open{}", list.open_count, suffix(asks, ctx.now)),
                theme.style(if list.asks.is_empty() {
                    Tone::Dim
                } else {
                    Tone::Warn
                }),
            ),
        ]));
        for ask in list.asks.iter().take(3) {
            let prompt = ask
                .questions
                .first()
                .map(|q| sanitize(&q.prompt).into_owned())
                .unwrap_or_default();
            out.push(Line::from(vec![
                label("", theme),
                Span::raw(format!(
                    "{} asks: {} ({} question{})",
                    sanitize(&ask.keeper),
                    prompt,
                    ask.questions.len(),
                    if ask.questions.len() == 1 { "" } else { "s" }
                )),
            ]));
        }
    }
    out.push(Line::styled(
        "  Enter: Approvals (decide approvals, answer Asks there; this panel never decides)",
        theme.style(Tone::Dim),
    ));
}

fn minute(t: time::OffsetDateTime) -> String {
    super::board::unix_minute(t.unix_timestamp() as f64)
}

fn label(text: &str, theme: Theme) -> Span<'static> {
    Span::styled(format!("{text:<13}"), theme.style(Tone::Dim))
}

fn keepers_line(model: &Model, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let fetched = &model.keepers.roster.fetched;
    let text = match (no_value(fetched), fetched.last()) {
        (Some(words), _) => words,
        (None, Some(o)) => {
            let roster: &Arc<KeeperRoster> = &o.value;
            let count = |s: KeeperStatus| roster.keepers().filter(|k| k.status == s).count();
            format!(
                "{} · busy {} · active {} · error {}{}",
                roster.keepers().count(),
                count(KeeperStatus::Busy),
                count(KeeperStatus::Active),
                count(KeeperStatus::Error),
                suffix(fetched, ctx.now)
            )
        }
        (None, None) => "(not loaded yet)".into(),
    };
    Line::from(vec![label("Keepers", theme), Span::raw(text)])
}

fn goals_and_flow(model: &Model, ctx: &ProjectionCtx, out: &mut Vec<Line<'static>>) {
    let theme = ctx.theme;
    let fetched = &model.work.planning.fetched;
    if let Some(words) = no_value(fetched) {
        out.push(Line::from(vec![
            label("Goals", theme),
            Span::raw(words.clone()),
        ]));
        out.push(Line::from(vec![
            label("Task flow", theme),
            Span::raw(words),
        ]));
        return;
    }
    let Some(o) = fetched.last() else {
        return;
    };
    let tail = suffix(fetched, ctx.now);
    match o.value.as_ref() {
        PlanningRead::GoalStoreUnavailable { error } => {
            let words = format!("goal store unavailable: {}", sanitize(error));
            out.push(Line::from(vec![
                label("Goals", theme),
                Span::styled(words.clone(), theme.style(Tone::Bad)),
            ]));
            out.push(Line::from(vec![
                label("Task flow", theme),
                Span::styled(words, theme.style(Tone::Bad)),
            ]));
        }
        PlanningRead::Snapshot(p) => {
            let mut active: Vec<_> = p
                .goals
                .iter()
                .filter(|g| g.phase == GoalPhase::Executing)
                .collect();
            active.sort_by_key(|g| g.priority);
            if active.is_empty() {
                out.push(Line::from(vec![
                    label("Goals", theme),
                    Span::raw(format!("no executing goal{tail}")),
                ]));
            }
            for (i, g) in active.iter().take(2).enumerate() {
                out.push(Line::from(vec![
                    label(if i == 0 { "Goals" } else { "" }, theme),
                    Span::raw(format!(
                        "{} {} · P{}{}",
                        sanitize(&g.id),
                        sanitize(&g.title),
                        g.priority,
                        if i == 0 { tail.as_str() } else { "" }
                    )),
                ]));
            }
            let b = &p.task_backlog;
            out.push(Line::from(vec![
                label("Task flow", theme),
                Span::raw(format!(
                    "todo {} · claimed {} · in progress {}{} · done {} · cancelled {}",
                    b.todo,
                    b.claimed,
                    b.in_progress,
                    b.awaiting_verification
                        .map(|a| format!(" · awaiting verification {a}"))
                        .unwrap_or_default(),
                    b.done,
                    b.cancelled
                )),
            ]));
        }
    }
}

fn quota_line(model: &Model, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let fetched = &model.runtime.catalogue.fetched;
    let text = match (no_value(fetched), fetched.last()) {
        (Some(words), _) => words,
        (None, Some(o)) => match &o.value.usage {
            Ok(SinceRelease::NotInRelease) => {
                "not reported by this MASC release (no usage windows)".to_string()
            }
            Ok(SinceRelease::Sent(u)) => {
                let reported = u
                    .provider_usage_windows
                    .iter()
                    .filter(|a| a.state == UsageState::Reported)
                    .count();
                format!(
                    "{reported} of {} provider scopes reported{}",
                    u.provider_usage_windows.len(),
                    suffix(fetched, ctx.now)
                )
            }
            Err(e) => format!("usage unreadable: {}", e.kind.reason()),
        },
        (None, None) => "(not loaded yet)".into(),
    };
    Line::from(vec![label("Quota", theme), Span::raw(text)])
}

/// Up to two things that need a look, from what is already read (never invented).
fn attention(model: &Model) -> Vec<String> {
    let mut items = Vec::new();
    if let Some(o) = model.keepers.roster.fetched.last() {
        items.extend(
            o.value
                .keepers()
                .filter(|k| k.status == KeeperStatus::Error)
                .map(|k| format!("keeper {} is in error", sanitize(&k.name))),
        );
    }
    if let Some(o) = model.connectors.status.fetched.last() {
        items.extend(
            o.value
                .connectors()
                .filter(|c| c.status != ConnectorStatus::Connected)
                .map(|c| format!("connector {} is not connected", sanitize(&c.display_name))),
        );
    }
    if let Some(Ok(c)) = model
        .runtime
        .catalogue
        .fetched
        .last()
        .map(|o| &o.value.catalogue)
    {
        items.extend(
            c.runtimes
                .iter()
                .filter(|r| r.quota_exhausted == Some(true))
                .map(|r| format!("runtime {} has exhausted its quota", sanitize(&r.id))),
        );
    }
    items.truncate(2);
    items
}

fn candle_line(model: &Model, theme: Theme) -> Line<'static> {
    let text = match model.keepers.roster.fetched.last().map(|o| &o.value.candle) {
        None => "(not loaded yet)".to_string(),
        Some(None) => "not reported by this server".to_string(),
        Some(Some(Candle::Off {})) => "off".to_string(),
        Some(Some(Candle::Disabled { reason })) => format!("disabled: {}", sanitize(reason)),
        Some(Some(Candle::Ready {
            issued_milli,
            burned_milli,
            circulating_milli,
        })) => format!(
            "circulating {} · issued {} · burned {} (millicandles)",
            sanitize(circulating_milli),
            sanitize(issued_milli),
            sanitize(burned_milli)
        ),
    };
    Line::from(vec![label("Candle", theme), Span::raw(text)])
}

/// The Fleet panel (first, when workspaces are configured): one line per workspace from its
/// background watch; `W` opens the picker.
fn fleet_panel(model: &Model, ctx: &ProjectionCtx, out: &mut Vec<Line<'static>>) {
    if model.fleet.roster.members.is_empty() {
        return;
    }
    out.push(Line::from(vec![
        Span::styled("FLEET", ctx.theme.style(Tone::Strong)),
        Span::styled("  (W: the picker)", ctx.theme.style(Tone::Dim)),
    ]));
    let active = model.fleet.roster.active.as_ref();
    for (member, entry) in model.fleet.lines() {
        out.push(Line::from(super::workspaces::line::fleet_spans(
            member,
            entry,
            active == Some(&member.name),
            ctx.theme,
            ctx.now,
        )));
    }
    out.push(Line::raw(""));
}

pub fn render_overview(model: &Model, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let mut lines = vec![Line::styled("OVERVIEW", theme.style(Tone::Strong))];
    fleet_panel(model, ctx, &mut lines);
    lines.push(Line::styled("DECISIONS", theme.style(Tone::Strong)));
    decisions(model, ctx, &mut lines);
    lines.push(Line::raw(""));
    lines.push(Line::styled("CONTEXT", theme.style(Tone::Strong)));
    lines.push(keepers_line(model, ctx));
    goals_and_flow(model, ctx, &mut lines);
    lines.push(quota_line(model, ctx));
    let items = attention(model);
    if items.is_empty() {
        lines.push(Line::from(vec![
            label("Attention", theme),
            Span::styled("nothing in what has been read", theme.style(Tone::Dim)),
        ]));
    }
    for (i, item) in items.into_iter().enumerate() {
        lines.push(Line::from(vec![
            label(if i == 0 { "Attention" } else { "" }, theme),
            Span::styled(item, theme.style(Tone::Warn)),
        ]));
    }
    lines.push(candle_line(model, theme));
    Paragraph::new(lines).render(area, buf);
}

/// The Overview as a [`Screen`](super::screen::Screen): read-only, `r` re-reads the roster.
#[derive(Debug)]
pub struct OverviewScreen;

/// The Overview's keys.
pub const OVERVIEW_KEYS: crate::view::bindings::Table = crate::view::bindings::Table {
    title: "Overview keys",
    bindings: &[crate::view::bindings::bind(
        "Enter",
        &[crate::view::bindings::ENTER],
        "Approvals: decide this actor's pending approvals",
    )
    .footer("approvals")],
};

impl super::screen::Screen for OverviewScreen {
    fn tab(&self) -> super::Tab {
        super::Tab::Overview
    }

    fn shown_sources(&self) -> &'static [crate::actors::contract::SourceKey] {
        use crate::actors::{
            connectors::CONNECTORS, decisions::DECISIONS, keepers::ROSTER, runtime::RUNTIME,
            work::PLANNING,
        };
        &[ROSTER, DECISIONS, PLANNING, RUNTIME, CONNECTORS]
    }

    fn render(
        &self,
        model: &Model,
        _ui: &super::Ui,
        ctx: &ProjectionCtx,
        area: Rect,
        buf: &mut Buffer,
    ) {
        render_overview(model, ctx, area, buf);
    }

    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table> {
        vec![&OVERVIEW_KEYS]
    }

    /// `Enter` opens the Approvals view (it never decides anything itself).
    fn handle_key(
        &mut self,
        ui: &mut super::Ui,
        model: &Model,
        key: crossterm::event::KeyEvent,
    ) -> crate::view::command::UiCommand {
        match key.code {
            crossterm::event::KeyCode::Enter => {
                ui.layers.push(super::approvals::ApprovalsUi::opened(
                    super::Tab::Overview,
                    model,
                ));
                crate::view::command::UiCommand::Repaint
            }
            _ => crate::view::command::UiCommand::None,
        }
    }

    fn refresh(&mut self, _ui: &mut super::Ui) -> crate::view::command::UiCommand {
        crate::view::command::UiCommand::Refresh(crate::actors::keepers::ROSTER)
    }
}
