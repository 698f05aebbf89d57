//! The Runtime pane (surfaces.md "Runtime"; sources.md F-3…F-5): the catalogue (default,
//! runtimes, lanes, keeper assignments) and provider usage, decoded independently — a bad usage
//! section never hides the catalogue, nor the reverse (F-4). Read-only.

use super::slot_status;
use crate::protocol::decode::SinceRelease;
use crate::protocol::runtime::{
    AssignmentSource, ProviderUsage, ResolvedTarget, RuntimeCatalogue, UsageState, UsageWindowKind,
    UtilizationUnit,
};
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::Line;

fn flag(on: Option<bool>, word: &str) -> String {
    match on {
        Some(true) => format!(" · {word}"),
        Some(false) => String::new(),
        None => format!(" · {word}: unreported"),
    }
}

fn catalogue_lines(c: &RuntimeCatalogue, width: usize, theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled(
        format!(
            "CATALOGUE  {} runtimes · {} lanes · default {} · config {} · generated {}",
            c.runtimes.len(),
            c.lanes.len(),
            c.default_runtime
                .as_ref()
                .map(|r| sanitize(&r.id).into_owned())
                .unwrap_or_else(|| "none".into()),
            c.config_path
                .as_deref()
                .map(|p| sanitize(p).into_owned())
                .unwrap_or_else(|| "none".into()),
            sanitize(&c.generated_at_iso)
        ),
        theme.style(Tone::Strong),
    ));
    if c.runtimes.is_empty() {
        out.push(Line::styled(
            "no runtimes configured",
            theme.style(Tone::Dim),
        ));
    }
    for r in &c.runtimes {
        let text = format!(
            "  {} {} ctx {}{}{}{}{}{}",
            pad_to(&fit_width(&sanitize(&r.id), 40), 40),
            pad_to(&fit_width(&sanitize(&r.provider), 12), 12),
            r.effective_max_context,
            r.max_output_tokens
                .map(|m| format!(" · out {m}"))
                .unwrap_or_default(),
            if r.is_local { " · local" } else { "" },
            if r.is_default { " · default" } else { "" },
            flag(r.quota_exhausted, "quota exhausted"),
            flag(r.rate_limited, "rate limited"),
        );
        let tone = if r.quota_exhausted == Some(true) || r.rate_limited == Some(true) {
            Tone::Warn
        } else {
            Tone::Normal
        };
        out.push(Line::styled(
            fit_width(&text, width).into_owned(),
            theme.style(tone),
        ));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("LANES", theme.style(Tone::Strong)));
    if c.lanes.is_empty() {
        out.push(Line::styled("no lanes", theme.style(Tone::Dim)));
    }
    for lane in &c.lanes {
        let ids: Vec<String> = lane
            .runtime_ids
            .iter()
            .map(|i| sanitize(i).into_owned())
            .collect();
        out.push(Line::raw(
            fit_width(
                &format!(
                    "  {}{} → {}",
                    sanitize(&lane.id),
                    match lane.declared {
                        SinceRelease::Sent(true) => "",
                        SinceRelease::Sent(false) => " (implicit)",
                        SinceRelease::NotInRelease => " (declared: not sent by this MASC)",
                    },
                    ids.join(" → ")
                ),
                width,
            )
            .into_owned(),
        ));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("ASSIGNMENTS", theme.style(Tone::Strong)));
    if c.assignments.is_empty() {
        out.push(Line::styled(
            "no keeper assignments",
            theme.style(Tone::Dim),
        ));
    }
    for a in &c.assignments {
        let source = match a.assignment_source {
            AssignmentSource::Explicit => "explicit",
            AssignmentSource::Default => "default",
        };
        let (target, tone) = match &a.resolved {
            ResolvedTarget::Lane { id } => (format!("lane {}", sanitize(id)), Tone::Normal),
            ResolvedTarget::Missing => ("missing (no lane resolves)".to_string(), Tone::Bad),
            ResolvedTarget::Unavailable { id, reason } => (
                format!(
                    "unavailable {} — {}",
                    sanitize(id),
                    sanitize(&reason.to_string())
                ),
                Tone::Bad,
            ),
        };
        out.push(Line::styled(
            fit_width(
                &format!("  {} {source} → {target}", pad_to(&sanitize(&a.keeper), 16)),
                width,
            )
            .into_owned(),
            theme.style(tone),
        ));
    }
}

fn usage_lines(u: &ProviderUsage, width: usize, theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled(
        format!("USAGE  {} accounts", u.provider_usage_windows.len()),
        theme.style(Tone::Strong),
    ));
    if u.provider_usage_windows.is_empty() {
        out.push(Line::styled(
            "no provider reported usage since the server started",
            theme.style(Tone::Dim),
        ));
    }
    for acct in &u.provider_usage_windows {
        let providers: Vec<String> = acct
            .providers
            .iter()
            .map(|p| sanitize(&p.display_name).into_owned())
            .collect();
        let state = match acct.state {
            UsageState::Reported => "reported",
            UsageState::NotReportedSinceStart => "not reported since start",
        };
        out.push(Line::raw(
            fit_width(
                &format!(
                    "  {} {} ({}) · {state}",
                    sanitize(&acct.scope),
                    sanitize(&acct.scope_id),
                    providers.join(", ")
                ),
                width,
            )
            .into_owned(),
        ));
        for w in &acct.windows {
            let window = match &w.window {
                UsageWindowKind::FiveHour => "5h".to_string(),
                UsageWindowKind::SevenDay => "7d".to_string(),
                UsageWindowKind::DurationMinutes { minutes } => format!("{minutes}m"),
                UsageWindowKind::ProviderLabel { label } => sanitize(label).into_owned(),
            };
            let pct = match w.utilization.unit {
                UtilizationUnit::Fraction => w.utilization.value * 100.0,
                UtilizationUnit::Percent => w.utilization.value,
            };
            out.push(Line::styled(
                fit_width(
                    &format!(
                        "      {window:<6} {} {pct:.0}%{}",
                        sanitize(&w.role),
                        w.resets_at
                            .map(|r| format!(" · resets {}", super::super::board::unix_minute(r)))
                            .unwrap_or_default()
                    ),
                    width,
                )
                .into_owned(),
                theme.style(if pct >= 90.0 { Tone::Warn } else { Tone::Dim }),
            ));
        }
    }
}

pub fn lines(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let fetched = &model.system.runtime.fetched;
    let mut out = Vec::new();
    if let Some(status) = slot_status("runtime catalogue", fetched, ctx) {
        out.push(status);
    }
    let Some(observed) = fetched.last() else {
        return out;
    };
    let resolved = &observed.value;
    match &resolved.catalogue {
        Ok(c) => catalogue_lines(c, width, theme, &mut out),
        Err(e) => out.push(Line::styled(
            format!("catalogue unreadable: {} at {}", e.kind.reason(), e.path),
            theme.style(Tone::Bad),
        )),
    }
    out.push(Line::raw(""));
    match &resolved.usage {
        Ok(SinceRelease::Sent(u)) => usage_lines(u, width, theme, &mut out),
        Ok(SinceRelease::NotInRelease) => out.push(Line::styled(
            "USAGE  not sent by this MASC release (no usage windows in its catalogue)",
            theme.style(Tone::Dim),
        )),
        Err(e) => out.push(Line::styled(
            format!("usage unreadable: {} at {}", e.kind.reason(), e.path),
            theme.style(Tone::Bad),
        )),
    }
    out
}
