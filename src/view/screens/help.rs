//! `?` help overlay: every key of the current surface, then the global keys.

use super::{ProjectionCtx, Tab};
use crate::view::theme::Tone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub const GLOBAL_KEYS: &[(&str, &str)] = &[
    ("Tab / Shift-Tab", "next / previous surface"),
    ("3", "Keepers"),
    ("r", "refresh this surface's data"),
    ("?", "this help (Esc or ? closes)"),
    ("q q", "quit (any other key after q cancels)"),
    ("Ctrl-C", "quit"),
    ("Ctrl-Z", "suspend (fg resumes)"),
];

/// Every key of `tab`'s screen.
pub fn keys_for(tab: Tab) -> &'static [(&'static str, &'static str)] {
    super::screen_of(tab).help_keys()
}

pub fn render(tab: Tab, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    render_keys(tab.title(), keys_for(tab), ctx, area, buf);
}

/// The help overlay for a view titled `title` with its own `surface` keys.
pub fn render_keys(
    title: &str,
    surface: &[(&str, &str)],
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let mut lines = vec![Line::styled(
        format!("{title} keys"),
        theme.style(Tone::Strong),
    )];
    if surface.is_empty() {
        lines.push(Line::styled(
            "(no keys of its own in this version)",
            theme.style(Tone::Dim),
        ));
    }
    let key_line = |(k, d): &(&str, &str)| {
        Line::from(vec![
            Span::styled(format!("  {k:<18}"), theme.style(Tone::Accent)),
            Span::raw(d.to_string()),
        ])
    };
    lines.extend(surface.iter().map(key_line));
    lines.push(Line::raw(""));
    lines.push(Line::styled("Global keys", theme.style(Tone::Strong)));
    lines.extend(GLOBAL_KEYS.iter().map(key_line));
    let height = (lines.len() as u16 + 2).min(area.height);
    let width = 60.min(area.width);
    let pane = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(pane, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(" help · Esc closes "))
        .render(pane, buf);
}
