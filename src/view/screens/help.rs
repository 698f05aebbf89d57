//! `?` help overlay: every key of what is in front (the surface, or the top layer's own), then
//! the global keys. A layer: `Esc` or `?` closes it, every other key is swallowed.

use super::layer::{Handled, Layer, LayerCx, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub const GLOBAL_KEYS: &[(&str, &str)] = &[
    ("Tab / Shift-Tab", "next / previous surface"),
    ("3", "Keepers"),
    ("r", "refresh this surface's data"),
    (
        "L",
        "saves journal: every save, its receipt and settle state, undo",
    ),
    ("?", "this help (Esc or ? closes)"),
    ("q q", "quit (any other key after q cancels)"),
    ("Ctrl-C", "quit"),
    ("Ctrl-Z", "suspend (fg resumes)"),
];

/// The help overlay, open over what it lists the keys of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpLayer(pub LayerHelp);

impl Layer for HelpLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        if matches!(key.code, KeyCode::Esc | KeyCode::Char('?')) {
            cx.close();
            return Handled::Consumed(UiCommand::Repaint);
        }
        Handled::Consumed(UiCommand::None)
    }

    fn render(
        &self,
        _model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        frame: Rect,
        _body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        render_keys(self.0.title, self.0.keys, ctx, frame, buf);
        None
    }
}

/// Whether the help overlay is open.
pub fn is_open(ui: &Ui) -> bool {
    ui.layer::<HelpLayer>().is_some()
}

/// A wide character (Korean, emoji) in the column left of `pane` spans into the pane's first
/// column: the terminal would draw its right half over the overlay's left border. Such a cell
/// becomes a blank (the overlay covers that half anyway).
pub fn clear_wide_overhang(pane: Rect, buf: &mut Buffer) {
    // A cluster painted at the terminal's width (C-70, `view::terminal::cells`) spans up to 4 cells, so
    // the three columns left of the pane are looked at.
    for k in 1..=3u16 {
        let Some(x) = pane.x.checked_sub(k) else {
            return;
        };
        for y in pane.top()..pane.bottom() {
            if let Some(cell) = buf.cell_mut((x, y))
                && (crate::view::text::grapheme_width(cell.symbol()) > usize::from(k)
                    || unicode_width::UnicodeWidthStr::width(cell.symbol()) > usize::from(k))
            {
                cell.reset();
            }
        }
    }
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
    clear_wide_overhang(pane, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(" help · Esc closes "))
        .render(pane, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::theme::Theme;

    #[test]
    fn issue14_a_wide_character_left_of_the_overlay_never_covers_its_border() {
        let area = Rect::new(0, 0, 80, 12);
        let mut buf = Buffer::empty(area);
        // Korean and emoji under the whole screen, at every column parity.
        for y in 0..12 {
            buf.set_string(
                y % 2,
                y,
                "한국어 🙂 ".repeat(20),
                ratatui::style::Style::default(),
            );
        }
        let ctx = ProjectionCtx::now(Theme { color: false });
        render_keys("Keeper chat", &[("Ctrl-F", "origin")], &ctx, area, &mut buf);
        let width = 60u16;
        let left = (80 - width) / 2;
        let bordered: Vec<u16> = (0..12)
            .filter(|y| {
                let s = buf
                    .cell((left, *y))
                    .map(|c| c.symbol().to_string())
                    .unwrap_or_default();
                s == "│" || s == "┌" || s == "└"
            })
            .collect();
        assert!(!bordered.is_empty());
        for y in bordered {
            let before = buf
                .cell((left - 1, y))
                .map(|c| c.symbol().to_string())
                .unwrap_or_default();
            assert!(
                unicode_width::UnicodeWidthStr::width(before.as_str()) <= 1,
                "row {y}: a wide {before:?} left of the border spans into it"
            );
        }
    }
}
