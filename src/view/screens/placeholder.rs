//! The Overview: the one thing it can already say truthfully, the Keepers slot; the other
//! panels (decisions, Goals, Task flow, quota, Candle) say they are not built yet.

use super::ProjectionCtx;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::theme::Tone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

pub fn render_overview(model: &Model, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let keepers = match &model.keepers.fetched {
        Fetched::NotRequested => "(not loaded yet)".to_string(),
        Fetched::Loading => "loading…".to_string(),
        Fetched::Warming { .. } => "server warming up".to_string(),
        Fetched::Failed {
            last: None, error, ..
        } => {
            format!("0 · data unreliable (read failed: {})", error.class)
        }
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => format!(
            "{} · data unreliable (read failed: {})",
            o.value.keepers().count(),
            error.class
        ),
        Fetched::Refreshing { last, .. } if model.keepers.fetched.shows_reading(ctx.now) => {
            format!("{} (reading…)", last.value.keepers().count())
        }
        Fetched::Refreshing { last, .. } => last.value.keepers().count().to_string(),
        Fetched::Ready(o) => o.value.keepers().count().to_string(),
    };
    Paragraph::new(vec![
        Line::styled("OVERVIEW", theme.style(Tone::Strong)),
        Line::raw(format!("Keepers: {keepers}")),
        Line::raw(""),
        Line::styled(
            "Decisions, Goals, Task flow, quota and Candle panels are not built yet in this version.",
            theme.style(Tone::Dim),
        ),
    ])
    .render(area, buf);
}
