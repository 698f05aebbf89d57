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

pub const ROSTER_KEYS: &[(&str, &str)] = &[
    ("j / k, Down / Up", "move selection"),
    ("Home / End", "first / last keeper"),
    ("PgUp / PgDn", "page up / down"),
    ("/", "search by name (live jump)"),
    ("n / N", "next / previous match"),
    ("Enter / Right", "detail of the selected row"),
    ("Esc / Left", "close detail"),
];

pub fn keys_for(tab: Tab) -> &'static [(&'static str, &'static str)] {
    match tab {
        Tab::Keepers => ROSTER_KEYS,
        Tab::Work => super::work::keys::WORK_KEYS,
        Tab::Board => super::board::keys::BOARD_KEYS,
        Tab::System => super::system::SYSTEM_KEYS,
        _ => &[],
    }
}

pub fn render(tab: Tab, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let mut lines = vec![Line::styled(
        format!("{} keys", tab.title()),
        theme.style(Tone::Strong),
    )];
    let surface = keys_for(tab);
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
