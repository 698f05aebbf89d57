//! The Runtime pane (surfaces.md "Runtime"; sources.md F-3…F-7, P-1, P-2): the joined load's
//! header (which parts were received, which failed, `partial`, interrupted), the catalogue
//! (default, runtimes, lanes joined by exact `runtime_id` to the reachability probe with its
//! freshness badge, keeper assignments) and provider usage, decoded independently — a bad
//! usage section never hides the catalogue, nor the reverse (F-4).

use super::slot_status_lines;
use crate::actors::runtime::PartOutcome;
use crate::protocol::decode::SinceRelease;
use crate::protocol::runtime::{
    AssignmentSource, ProviderUsage, ResolvedTarget, RuntimeCatalogue, RuntimeProbe, UsageState,
    UsageWindowKind, UtilizationUnit,
};
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::model::Model;
use crate::view::runtime::{LoadState, RuntimeModel};
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

/// The probe's word for one runtime, joined by exact id (F-7): `None` probe = unobserved.
fn reachability(probe: Option<&RuntimeProbe>, runtime_id: &str) -> (String, Tone) {
    let Some(p) = probe else {
        return ("unobserved".into(), Tone::Dim);
    };
    match p.row(runtime_id) {
        None => ("no probe row".into(), Tone::Dim),
        Some(r) => match r.reachable {
            Some(true) => (
                match r.latency_ms {
                    Some(ms) => format!("reachable {ms:.0}ms"),
                    None => "reachable".into(),
                },
                Tone::Good,
            ),
            Some(false) => (format!("✗ {}", sanitize(&r.status)), Tone::Bad),
            None => (format!("not probed ({})", sanitize(&r.status)), Tone::Dim),
        },
    }
}

fn catalogue_lines(
    c: &RuntimeCatalogue,
    probe: Option<&RuntimeProbe>,
    selected: usize,
    width: usize,
    theme: Theme,
    out: &mut Vec<Line<'static>>,
) {
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
    for finding in &c.findings {
        out.push(Line::styled(
            fit_width(&format!("  ! {}", sanitize(&finding.to_string())), width).into_owned(),
            theme.style(Tone::Warn),
        ));
    }
    if c.runtimes.is_empty() {
        out.push(Line::styled(
            "no runtimes configured",
            theme.style(Tone::Dim),
        ));
    }
    for (i, r) in c.runtimes.iter().enumerate() {
        let text = format!(
            "{} {} {} ctx {}{}{}{}{}{}",
            if i == selected { "›" } else { " " },
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
        out.push(Line::raw(
            fit_width(
                &format!(
                    "  {}{}",
                    sanitize(&lane.id),
                    match lane.declared {
                        SinceRelease::Sent(true) => "",
                        SinceRelease::Sent(false) => " (implicit)",
                        SinceRelease::NotInRelease => " (declared: not sent by this MASC)",
                    },
                ),
                width,
            )
            .into_owned(),
        ));
        // Candidate order, each joined to the probe by exact runtime id (F-7).
        for (n, id) in lane.runtime_ids.iter().enumerate() {
            let (word, tone) = reachability(probe, id);
            out.push(Line::styled(
                fit_width(
                    &format!(
                        "    {}. {} {word}",
                        n + 1,
                        pad_to(&fit_width(&sanitize(id), 40), 40)
                    ),
                    width,
                )
                .into_owned(),
                theme.style(tone),
            ));
        }
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

/// The joined load's header (P-1, P-2): received and failed parts together, `partial` for a
/// mix, and a cancelled load told apart from one that never finished.
pub fn load_line(runtime: &RuntimeModel, theme: Theme) -> Option<Line<'static>> {
    let unfinished = matches!(
        &runtime.catalogue.fetched,
        Fetched::Failed { error, .. }
            if matches!(error.class, FailureClass::SourceRestarted | FailureClass::SourceStopped)
    );
    if unfinished {
        return Some(Line::styled(
            "LOAD  unfinished: the source stopped before the load returned; parts shown are the last received",
            theme.style(Tone::Warn),
        ));
    }
    let state = runtime.loads.state(runtime.catalogue.in_flight());
    let settled = runtime.loads.settled.as_ref();
    match state {
        LoadState::NotRequested => None,
        LoadState::Interrupted => Some(Line::styled(
            "LOAD  interrupted: the newest load was cancelled; parts shown are from the previous load",
            theme.style(Tone::Warn),
        )),
        LoadState::Reading if settled.is_none() => None,
        LoadState::Reading | LoadState::Settled => {
            let s = settled?;
            let names = |want: fn(&PartOutcome) -> bool| -> Vec<String> {
                s.parts
                    .iter()
                    .filter(|(_, o)| want(o))
                    .map(|(p, o)| match o {
                        PartOutcome::Failed(class) => format!("{} ({class})", p.as_str()),
                        _ => p.as_str().to_string(),
                    })
                    .collect()
            };
            let received = names(|o| *o == PartOutcome::Received);
            let failed = names(|o| matches!(o, PartOutcome::Failed(_)));
            let not_served = names(|o| *o == PartOutcome::NotServed);
            let word = match (received.is_empty(), failed.is_empty()) {
                (_, true) => "received",
                (true, false) => "failed",
                (false, false) => "partial",
            };
            let mut text = format!("LOAD  {word}");
            if !received.is_empty() {
                text.push_str(&format!(" · received: {}", received.join(", ")));
            }
            if !failed.is_empty() {
                text.push_str(&format!(" · failed: {}", failed.join(", ")));
            }
            if !not_served.is_empty() {
                text.push_str(&format!(
                    " · not served by this MASC: {}",
                    not_served.join(", ")
                ));
            }
            if s.forced {
                text.push_str(" · forced probe");
            }
            if state == LoadState::Reading {
                text.push_str(" · re-reading");
            }
            let tone = if failed.is_empty() {
                Tone::Dim
            } else {
                Tone::Warn
            };
            Some(Line::styled(text, theme.style(tone)))
        }
    }
}

/// The probe's freshness badge (`fresh` / `recent` / `stale` / `warming`) and state (F-7).
fn probe_line(runtime: &RuntimeModel, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    if runtime.probe_not_served() {
        return Line::styled(
            "PROBE  not served by this MASC (no reachability to join)",
            theme.style(Tone::Dim),
        );
    }
    let Some(p) = runtime.probe.fetched.last() else {
        let word = match &runtime.probe.fetched {
            Fetched::Failed { error, .. } => format!("unobserved · failed: {}", error.class),
            _ => "unobserved".to_string(),
        };
        return Line::styled(format!("PROBE  {word}"), theme.style(Tone::Dim));
    };
    let probe = &p.value;
    let badge = probe.badge().unwrap_or("freshness not sent");
    let mut text = format!(
        "PROBE  [{badge}] {}{}",
        sanitize(&probe.body.status),
        probe
            .cache_age_sec
            .map(|a| format!(" · age {a:.0}s"))
            .unwrap_or_default()
    );
    if let Fetched::Failed { error, .. } = &runtime.probe.fetched {
        text.push_str(&format!(
            " · last probe kept, re-read failed: {}",
            error.class
        ));
    }
    let tone = match probe.badge() {
        Some("fresh") | Some("recent") => Tone::Normal,
        _ => Tone::Warn,
    };
    Line::styled(text, theme.style(tone))
}

pub fn lines(
    model: &Model,
    ui: &super::SystemUi,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let runtime = &model.runtime;
    let fetched = &runtime.catalogue.fetched;
    let mut out = Vec::new();
    if let Some(form) = &ui.forms.open {
        out.extend(super::form::lines(model, form, width, theme));
    }
    out.extend(super::raw::lines(model, &ui.raw, width, theme));
    if let Some(load) = load_line(runtime, theme) {
        out.push(load);
    }
    out.extend(slot_status_lines("runtime catalogue", fetched, ctx, width));
    let Some(observed) = fetched.last() else {
        return out;
    };
    out.push(probe_line(runtime, ctx));
    let probe = runtime.probe.fetched.last().map(|p| &*p.value);
    let resolved = &observed.value;
    match &resolved.catalogue {
        Ok(c) => catalogue_lines(c, probe, ui.runtime_selected, width, theme, &mut out),
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
