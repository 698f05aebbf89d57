//! The chat's status line (C-57, C-58): the chat target — never the roster cursor — with its
//! status, health, mode, gate and context, one row across the full width.
//!
//! It never cuts a value in the middle: when the row is too narrow, parts give way in a fixed
//! order — the context's token counts first (its percentage stays), then the status word
//! (its mark stays), then the health — before anything is cut (issue 14: at 80 columns the
//! context was cut while "health" was shown twice, `health healthy`).

use super::context::{context_words, gate_words};
use crate::protocol::keeper_detail::DashboardGate;
use crate::protocol::keepers::{ActivationMode, KeeperRow};
use crate::view::fetched::Fetched;
use crate::view::keeper_detail::KeeperDetail;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::{Line, Span};
use std::sync::Arc;

/// The Keeper's mode (C-57): `AUTO` for an autonomous Keeper, `ON-DEMAND` / `MANUAL` for the
/// others, `mode unknown` when the roster row does not say (never guessed).
pub fn mode_words(row: &KeeperRow) -> String {
    match row.activation_mode {
        Some(ActivationMode::Autonomous) => "AUTO".into(),
        Some(ActivationMode::OnDemand) => "ON-DEMAND".into(),
        Some(ActivationMode::Manual) => "MANUAL".into(),
        None => "mode unknown".into(),
    }
}

/// The health as one fact: the server's word (`healthy`, `degraded`, …), or `health unknown`.
fn health_words(row: &KeeperRow) -> String {
    match row
        .health
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty())
    {
        Some(h) => sanitize(h).into_owned(),
        None => "health unknown".into(),
    }
}

struct Part {
    text: String,
    tone: Tone,
}

/// The status line: chat target, status, health, mode, gate, context (C-57, C-58).
pub fn status_line(
    keeper: &str,
    row: Option<&KeeperRow>,
    detail: Option<&KeeperDetail>,
    gate: &Fetched<Arc<DashboardGate>>,
    theme: Theme,
    width: usize,
) -> Line<'static> {
    let gate = gate_words(gate);
    let context = context_words(detail.map(|d| &d.context.fetched));
    compose(keeper, row, gate, context, theme, width)
}

/// The row from its words, giving way in the fixed order until it fits `width`.
fn compose(
    keeper: &str,
    row: Option<&KeeperRow>,
    (gate_text, gate_tone): (String, Tone),
    (context, context_tone): (String, Tone),
    theme: Theme,
    width: usize,
) -> Line<'static> {
    // The context's counts give way first: `context 50% · 100,887/200,000` → `context 50%`.
    let context_short = context
        .split_once(" · ")
        .map_or_else(|| context.clone(), |(head, _)| head.to_string());
    let status = row.map(|r| {
        let (mark, tone) = crate::view::screens::widgets::status_mark(r.status);
        let word = format!("{:?}", r.status).to_lowercase();
        (mark, word, tone)
    });
    // (status word shown, health shown, context short)
    let variants = [
        (true, true, false),
        (true, true, true),
        (false, true, true),
        (false, false, true),
    ];
    let mut last = Vec::new();
    for (status_word, health, short) in variants {
        let mut parts = Vec::new();
        match (row, &status) {
            (Some(r), Some((mark, word, tone))) => {
                parts.push(Part {
                    text: if status_word {
                        format!("{mark} {word}")
                    } else {
                        (*mark).to_string()
                    },
                    tone: *tone,
                });
                if health {
                    parts.push(Part {
                        text: health_words(r),
                        tone: Tone::Dim,
                    });
                }
                parts.push(Part {
                    text: mode_words(r),
                    tone: Tone::Dim,
                });
            }
            _ => parts.push(Part {
                text: "roster not read".into(),
                tone: Tone::Dim,
            }),
        }
        parts.push(Part {
            text: gate_text.clone(),
            tone: gate_tone,
        });
        parts.push(Part {
            text: if short {
                context_short.clone()
            } else {
                context.clone()
            },
            tone: context_tone,
        });
        let line = assemble(keeper, &parts, theme);
        if line.width() <= width {
            return line;
        }
        last = parts;
    }
    // Still too wide: cut the whole row once, at the end (the name and the first parts stay).
    let plain: String = assemble(keeper, &last, theme)
        .spans
        .iter()
        .map(|s| s.content.as_ref())
        .collect();
    Line::from(Span::styled(
        fit_width(&plain, width).into_owned(),
        theme.style(Tone::Dim),
    ))
}

fn assemble(keeper: &str, parts: &[Part], theme: Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled("› ", theme.style(Tone::Accent)),
        Span::styled(sanitize(keeper).into_owned(), theme.style(Tone::Strong)),
    ];
    for part in parts {
        spans.push(Span::styled(" · ", theme.style(Tone::Dim)));
        spans.push(Span::styled(part.text.clone(), theme.style(part.tone)));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::keepers::KeeperStatus;
    use crate::view::sample::bare_row;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn demo_row(mode: Option<ActivationMode>) -> KeeperRow {
        let mut row = bare_row("rondo", KeeperStatus::Busy);
        row.health = Some("healthy".into());
        row.activation_mode = mode;
        row
    }

    fn line(row: &KeeperRow, width: usize) -> String {
        text(&compose(
            "rondo",
            Some(row),
            ("gate: Auto Judge".into(), Tone::Dim),
            ("context 50% · 100,887/200,000".into(), Tone::Dim),
            Theme { color: false },
            width,
        ))
    }

    /// C-57: every Keeper has a mode on the status line, not only autonomous ones; an absent
    /// mode is said to be unknown, never guessed.
    #[test]
    fn c57_the_status_line_names_the_mode_of_every_keeper() {
        for (mode, words) in [
            (Some(ActivationMode::Autonomous), "AUTO"),
            (Some(ActivationMode::OnDemand), "ON-DEMAND"),
            (Some(ActivationMode::Manual), "MANUAL"),
            (None, "mode unknown"),
        ] {
            let shown = line(&demo_row(mode), 160);
            assert!(shown.contains(&format!(" · {words} · ")), "{shown}");
        }
    }

    /// C-57, C-58: at 80 columns nothing is cut mid-value and health is said once: the
    /// context's counts give way first, its percentage stays.
    #[test]
    fn c57_at_80_columns_no_cut_context_and_no_duplicate_health() {
        let row = demo_row(Some(ActivationMode::Autonomous));
        let wide = line(&row, 160);
        assert!(wide.contains("context 50% · 100,887/200,000"), "{wide}");
        assert_eq!(wide.matches("health").count(), 1, "{wide}");
        assert!(
            wide.contains("healthy") && !wide.contains("health healthy"),
            "{wide}"
        );
        let narrow = line(&row, 80);
        assert!(narrow.chars().count() <= 80, "{narrow}");
        assert!(narrow.ends_with("context 50%"), "{narrow}");
        assert!(!narrow.contains('…'), "cut: {narrow}");
        assert!(
            narrow.contains("healthy") && narrow.contains("AUTO"),
            "{narrow}"
        );
        assert!(narrow.contains("gate: Auto Judge"), "{narrow}");
        // Narrower still: the status word, then the health give way before any cut.
        let tight = line(&row, 60);
        assert!(
            tight.ends_with("context 50%") && !tight.contains('…'),
            "{tight}"
        );
    }
}
