//! Per-row chrome of the transcript: the gutter (rail, clock, mark, label, quote bar) of body
//! rows, origin headings, and the hidden-middle marker (§2.4, C-25, C-67).

use super::gutter::{CHAT_ROLE_LABEL_COLUMN, GutterLayout, INBOUND_INDENT, clock_text, fit_label};
use super::marks::{Role, continued_mark, quote_bar, role_label, speaker_mark};
use super::model::{Entry, Speaker, Transcript};
use super::modes::{OriginMode, ViewModes};
use super::plan::{PlannedBlock, Source};
use super::rail::row_glyph;
use super::style::ChatStyle;
use crate::view::text::{display_width, fit_width, sanitize};
use ratatui::text::{Line, Span};

/// What row chrome reads.
pub(super) struct Painter<'a> {
    pub transcript: &'a Transcript,
    pub modes: ViewModes,
    pub style: ChatStyle,
}

fn label_of(p: &Painter<'_>, block: &PlannedBlock) -> String {
    let entry = p.transcript.entries().get(block.first_entry());
    match (&block.source(), entry) {
        (Source::Report(_), _) => "STATUS".into(),
        (_, Some(e)) => sanitize(&role_label(block.role, e)).into_owned(),
        (_, None) => String::new(),
    }
}

/// The gutter of body row `k` of a block whose body is `body_h` rows.
pub(super) fn gutter(
    p: &Painter<'_>,
    layout: &GutterLayout,
    block: &PlannedBlock,
    k: usize,
    body_h: usize,
) -> Vec<Span<'static>> {
    let style = p.style;
    let origin = p.modes.origin;
    let mut spans = Vec::new();
    match origin {
        OriginMode::Bare | OriginMode::Row => {
            if k == 0 && block.margin_mark && !block.header {
                let mark = speaker_mark(block.role, origin);
                spans.push(Span::styled(mark.to_string(), style.mark(block.role)));
                spans.push(Span::raw("  "));
            } else {
                spans.push(Span::raw("   "));
            }
        }
        OriginMode::Inline => {
            if layout.rail {
                let (siding, glyph) = row_glyph(block.rail, k, body_h);
                spans.push(Span::styled(format!("{siding}{glyph} "), style.recede()));
            }
            if layout.clock {
                let clock = match block.clock() {
                    Some(m) if k == 0 => format!("{} ", clock_text(m)),
                    _ => "      ".to_string(),
                };
                spans.push(Span::styled(clock, style.recede()));
            }
            if k == 0 {
                let label = label_of(p, block);
                if layout.mark {
                    let mark = if block.continued {
                        continued_mark(block.role, origin)
                    } else {
                        speaker_mark(block.role, origin)
                    };
                    spans.push(Span::styled(mark.to_string(), style.mark(block.role)));
                    spans.push(Span::raw(" "));
                    let name = if block.continued {
                        String::new()
                    } else {
                        label
                    };
                    spans.push(Span::styled(
                        fit_label(&name, layout.label_cells()),
                        style.recede(),
                    ));
                } else {
                    spans.push(Span::styled(
                        fit_label(&label, layout.label_cells()),
                        style.recede(),
                    ));
                }
            } else {
                spans.push(Span::raw(" ".repeat(CHAT_ROLE_LABEL_COLUMN)));
            }
            let bar = quote_bar(block.role);
            spans.push(Span::styled(bar, style.dim()));
            if block.role == Role::Inbound {
                spans.push(Span::raw(" ".repeat(INBOUND_INDENT)));
            }
        }
    }
    spans
}

/// The heading row (row mode), or the inbound header (bare).
pub(super) fn header(
    p: &Painter<'_>,
    layout: &GutterLayout,
    block: &PlannedBlock,
) -> Line<'static> {
    let style = p.style;
    let origin = p.modes.origin;
    let entry = p
        .transcript
        .entries()
        .get(block.first_entry())
        .map(|e| &**e);
    let mark = speaker_mark(block.role, origin);
    if origin == OriginMode::Bare {
        let mut spans = vec![
            Span::styled(mark.to_string(), style.mark(block.role)),
            Span::raw("  "),
        ];
        if let Some(Entry {
            speaker: Speaker::Inbound(inbound),
            ..
        }) = entry
        {
            let mut text = sanitize(&inbound.sender).into_owned();
            if let Some(src) = &inbound.source {
                text.push_str(" · ");
                text.push_str(&sanitize(src));
            }
            let room = layout.reading.saturating_sub(3);
            spans.push(Span::styled(
                fit_width(&text, room).into_owned(),
                style.foreground(),
            ));
        }
        return Line::from(spans);
    }
    // Origin_row: name, a rule, a receded clock at the right edge (C-25).
    let owner = matches!(
        entry.map(|e| &e.speaker),
        Some(Speaker::Keeper { owner: true, .. })
    );
    let mut spans = Vec::new();
    let mut used = 0;
    if block.continued {
        spans.push(Span::raw("  "));
        used += 2;
    } else {
        spans.push(Span::styled(mark.to_string(), style.mark(block.role)));
        spans.push(Span::raw(" "));
        used += 2;
        if !owner {
            let name = fit_width(&label_of(p, block), 30).into_owned();
            used += display_width(&name) + 1;
            spans.push(Span::styled(name, style.foreground()));
            spans.push(Span::raw(" "));
        }
    }
    let clock = block.minute().map(clock_text);
    let clock_w = clock.as_ref().map_or(0, |c| display_width(c) + 1);
    let rule = layout.reading.saturating_sub(used + clock_w).max(1);
    spans.push(Span::styled("─".repeat(rule), style.recede()));
    if let Some(c) = clock {
        spans.push(Span::styled(format!(" {c}"), style.recede()));
    }
    Line::from(spans)
}

/// C-24: the date separator row, `── 2026-12-01 ──` across the reading width, receded (C-6).
pub(super) fn date_row(day: i64, width: usize, style: ChatStyle) -> Line<'static> {
    let date = super::gutter::date_text(day);
    let side = width.saturating_sub(display_width(&date) + 2) / 2;
    let rule = "─".repeat(side.max(1));
    Line::from(Span::styled(
        fit_width(&format!("{rule} {date} {rule}"), width).into_owned(),
        style.recede(),
    ))
}

/// C-67 marker, degrading with the width.
/// `hidden` is `None` while the middle is being measured off the view actor: the marker then
/// says rows are hidden without a count it does not have yet (never a guessed number).
pub(super) fn hidden_marker(
    hidden: Option<usize>,
    width: usize,
    style: ChatStyle,
) -> Line<'static> {
    let forms = match hidden {
        Some(hidden) => vec![
            format!("⋯ {hidden} chat rows hidden · PgUp to reveal"),
            format!("⋯ {hidden} hidden · PgUp"),
            format!("⋯ {hidden} hidden"),
            format!("⋯{hidden}"),
            "⋯".to_string(),
        ],
        None => vec![
            "⋯ chat rows hidden · PgUp to reveal".to_string(),
            "⋯ hidden · PgUp".to_string(),
            "⋯ hidden".to_string(),
            "⋯".to_string(),
        ],
    };
    let room = width.saturating_sub(3);
    let text = forms
        .iter()
        .find(|f| display_width(f) <= room)
        .cloned()
        .unwrap_or_else(|| "⋯".into());
    Line::from(vec![Span::raw("   "), Span::styled(text, style.recede())])
}
