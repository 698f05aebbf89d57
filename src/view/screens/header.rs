//! The header on every surface: the tab ring, then connection state · workspace identity ·
//! admission mode (surfaces.md header states; protocol.md §2.2/§2.3 modes) · the capabilities
//! this MASC does not serve, compactly (absent routes are listed, never called a degraded
//! connection).

use super::{ProjectionCtx, Tab, Ui};
use crate::actors::contract::IdentityState;
use crate::protocol::admission::AdmissionMode;
use crate::view::model::{ConnectionState, Model};
use crate::view::text::{display_width, fit_middle, sanitize};
use crate::view::theme::Tone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// What the tab ring starts with.
const BRAND: &str = "masc-tui ";

/// The tab whose label covers column `x` of the ring (a click there selects it). Every label
/// is one space apart and as wide painted active (`[Work]`) as not (` Work `).
pub fn tab_at(x: u16) -> Option<Tab> {
    let mut at = display_width(BRAND);
    let x = usize::from(x);
    for &tab in <Tab as super::widgets::Ring>::RING {
        at += 1;
        let width = display_width(tab.title()) + 2;
        if (at..at + width).contains(&x) {
            return Some(tab);
        }
        at += width;
    }
    None
}

pub fn render(model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let mut tabs = vec![Span::styled(BRAND, theme.style(Tone::Strong))];
    for &tab in <Tab as super::widgets::Ring>::RING {
        tabs.push(Span::raw(" "));
        if tab == ui.tab {
            // Brackets keep the active tab visible without colour or reverse video.
            tabs.push(Span::styled(
                format!("[{}]", tab.title()),
                theme.selected().patch(theme.style(Tone::Strong)),
            ));
        } else {
            tabs.push(Span::styled(
                format!(" {} ", tab.title()),
                theme.style(Tone::Dim),
            ));
        }
    }
    Line::from(tabs).render(Rect::new(area.x, area.y, area.width, 1), buf);
    if area.height > 1 {
        status_line(model, ctx, area.width as usize)
            .render(Rect::new(area.x, area.y + 1, area.width, 1), buf);
    }
}

/// Mark and tone of a connection state (the word carries the meaning; the mark repeats it).
pub fn connection_mark(state: ConnectionState) -> (&'static str, Tone) {
    match state {
        ConnectionState::Connected => ("●", Tone::Good),
        ConnectionState::Degraded => ("◐", Tone::Warn),
        ConnectionState::Connecting | ConnectionState::Booting => ("○", Tone::Busy),
        ConnectionState::Disconnected => ("✗", Tone::Bad),
    }
}

pub fn status_line(model: &Model, ctx: &ProjectionCtx, width: usize) -> Line<'static> {
    let theme = ctx.theme;
    let state = model.connection();
    let (mark, tone) = connection_mark(state);
    let mut spans = vec![Span::styled(
        format!("{mark} {}", state.label()),
        theme.style(tone),
    )];
    let sep = || Span::styled(" · ", theme.style(Tone::Dim));
    if let Some(member) = model.fleet.roster.active_member() {
        // The configured workspace this session reads, in its colour: which one is in front
        // is never a guess when several are configured.
        let name = fit_middle(&sanitize(&member.name.0), width / 4).into_owned();
        let style = member
            .colour
            .map_or(theme.style(Tone::Strong), |c| theme.accent(c));
        spans.insert(0, Span::styled(format!("■ {name}"), style));
        spans.insert(1, sep());
    }
    if let Some(banner) = &model.read_only {
        // First, before anything that could push it off the line: no save leaves this session.
        spans.insert(
            0,
            Span::styled(
                format!("{} · ", fit_middle(&sanitize(banner), width * 2 / 3)),
                theme.style(Tone::Bad),
            ),
        );
    }
    match &model.identity {
        Some(IdentityState::Mismatch { expected, served }) => {
            spans.push(sep());
            spans.push(Span::styled(
                format!(
                    "server serves {} (expected {})",
                    fit_middle(&sanitize(served), width / 3),
                    fit_middle(&sanitize(expected), width / 3)
                ),
                theme.style(Tone::Bad),
            ));
        }
        Some(IdentityState::Unconfirmed { reason }) => {
            spans.push(sep());
            spans.push(Span::styled(
                fit_middle(&sanitize(reason), width / 2).into_owned(),
                theme.style(Tone::Dim),
            ));
        }
        _ => {}
    }
    let absent = match model.identity {
        Some(IdentityState::Confirmed { .. }) => model.not_served(),
        _ => Vec::new(),
    };
    if let Some(base) = model.base_path()
        && !matches!(model.identity, Some(IdentityState::Mismatch { .. }))
    {
        // The absent capabilities need room too: the base path yields some (middle-folded).
        let base_room = if absent.is_empty() {
            width / 2
        } else {
            width / 3
        };
        spans.push(sep());
        spans.push(Span::raw(
            fit_middle(&sanitize(base), base_room).into_owned(),
        ));
    }
    match model.admission_mode() {
        Some(AdmissionMode::Receipt) => {
            spans.push(sep());
            spans.push(Span::styled("receipts", theme.style(Tone::Good)));
        }
        Some(AdmissionMode::Health) => {
            spans.push(sep());
            spans.push(Span::styled(
                "health-admitted (no receipts)",
                theme.style(Tone::Warn),
            ));
        }
        None => {}
    }
    if !absent.is_empty() {
        let used: usize = spans.iter().map(|s| display_width(&s.content)).sum();
        let room = width.saturating_sub(used + 3);
        let names: Vec<&str> = absent
            .iter()
            .map(|r| super::widgets::absent(*r).short)
            .collect();
        // The names when they fit, else the count; never a name cut in the middle.
        let text = [
            format!("not served: {}", names.join(", ")),
            format!("not served: {} routes", absent.len()),
            format!("{} not served", absent.len()),
        ]
        .into_iter()
        .find(|t| display_width(t) <= room)
        .unwrap_or_default();
        if !text.is_empty() {
            spans.push(sep());
            spans.push(Span::styled(text, theme.style(Tone::Warn)));
        }
    }
    Line::from(spans)
}
