//! The chat's status line (C-57, C-58): the chat target — never the roster cursor — with its
//! status, health, mode, gate and context, one row across the full width.
//!
//! It never cuts a value in the middle: when the row is too narrow, parts give way in a fixed
//! order — the context's token counts first (its percentage stays), then the status word
//! (its mark stays), then the health — before anything is cut (at 80 columns the context must
//! not be cut while room goes to a repeated word such as `health healthy`).

use super::context::{context_words, gate_words};
use crate::protocol::client::ErrorClass;
use crate::protocol::keeper_detail::DashboardGate;
use crate::protocol::keeper_ops::{ToolApprovalMode, ToolApprovalModes};
use crate::protocol::keepers::{ActivationMode, KeeperRow};
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::keepers::detail::KeeperDetail;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::{Line, Span};
use std::sync::Arc;

/// The Keeper's tool approval mode (C-57, §14.4): `AUTO` (tool calls pass the approval
/// gate) or `YOLO` (every tool call runs unasked), read from `GET
/// /api/v1/keepers/tool-approval-mode` for this Keeper (absent from the overrides: the
/// default). Never guessed: `mode not loaded` until read, `mode unknown (<class>)` when the read
/// failed with nothing before or MASC reported a mode outside `auto`/`yolo` (the read fails
/// then, §14.4, and no earlier value stands in for it), `mode not served by this MASC` on an
/// older MASC; a kept value after another failed re-read is marked `(last)`.
pub fn mode_words(fetched: &Fetched<Arc<ToolApprovalModes>>, keeper: &str) -> (String, Tone) {
    let word = |modes: &ToolApprovalModes| match modes.mode_of(keeper) {
        ToolApprovalMode::Auto => ("AUTO".to_string(), Tone::Dim),
        // Every tool call runs unasked: said in the warning tone, never hidden.
        ToolApprovalMode::Yolo => ("YOLO".to_string(), Tone::Warn),
    };
    match fetched {
        Fetched::Ready(o) | Fetched::Refreshing { last: o, .. } => word(&o.value),
        Fetched::Warming { last: Some(o) } => word(&o.value),
        Fetched::Failed { error, .. }
            if matches!(error.class, FailureClass::Read(ErrorClass::Decode(_))) =>
        {
            (format!("mode unknown ({})", error.class), Tone::Warn)
        }
        Fetched::Failed { last: Some(o), .. } | Fetched::NotServed { last: Some(o), .. } => {
            (format!("{} (last)", word(&o.value).0), Tone::Warn)
        }
        Fetched::Failed {
            last: None, error, ..
        } if !crate::view::keepers::detail::not_served(error.class) => {
            (format!("mode unknown ({})", error.class), Tone::Warn)
        }
        Fetched::NotServed { last: None, .. } | Fetched::Failed { last: None, .. } => {
            ("mode not served by this MASC".into(), Tone::Dim)
        }
        Fetched::NotRequested | Fetched::Loading | Fetched::Warming { last: None } => {
            ("mode not loaded".into(), Tone::Dim)
        }
    }
}

/// The roster's activation mode in words (the `/context` overlay; not the status line's mode).
pub fn activation_words(row: &KeeperRow) -> &'static str {
    match row.activation_mode {
        Some(ActivationMode::Autonomous) => "activation autonomous",
        Some(ActivationMode::OnDemand) => "activation on-demand",
        Some(ActivationMode::Manual) => "activation manual",
        None => "activation unknown",
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
    modes: &Fetched<Arc<ToolApprovalModes>>,
    theme: Theme,
    width: usize,
) -> Line<'static> {
    let gate = gate_words(gate);
    let mode = mode_words(modes, keeper);
    let context = context_words(detail.map(|d| &d.context.fetched));
    compose(keeper, row, mode, gate, context, theme, width)
}

/// The row from its words, giving way in the fixed order until it fits `width`.
fn compose(
    keeper: &str,
    row: Option<&KeeperRow>,
    (mode_text, mode_tone): (String, Tone),
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
            }
            _ => parts.push(Part {
                text: "roster not read".into(),
                tone: Tone::Dim,
            }),
        }
        parts.push(Part {
            text: mode_text.clone(),
            tone: mode_tone,
        });
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
            ("AUTO".into(), Tone::Dim),
            ("gate: Auto Judge".into(), Tone::Dim),
            ("context 50% · 100,887/200,000".into(), Tone::Dim),
            Theme::plain(),
            width,
        ))
    }

    fn modes(body: &str) -> Fetched<Arc<ToolApprovalModes>> {
        use crate::protocol::decode::WireDecode;
        Fetched::Ready(crate::view::fetched::Observed {
            value: Arc::new(ToolApprovalModes::decode(body.as_bytes()).unwrap()),
            observed_at: std::time::Instant::now(),
            health_admitted: false,
        })
    }

    fn shown(row: &KeeperRow, modes: &Fetched<Arc<ToolApprovalModes>>) -> String {
        text(&status_line(
            "rondo",
            Some(row),
            None,
            &Fetched::NotRequested,
            modes,
            Theme::plain(),
            160,
        ))
    }

    /// C-57, §14.4: the status line's mode is the chat target's tool approval mode, for
    /// every Keeper whatever its activation (on-demand and manual Keepers included): `AUTO`,
    /// `YOLO` (an override; the default for the others), never the roster's activation.
    #[test]
    fn c57_the_status_line_names_the_mode_of_every_keeper() {
        let body = r#"{"overrides":[{"keeper":"rondo","mode":"yolo"}],"default":"auto"}"#;
        for activation in [
            Some(ActivationMode::Autonomous),
            Some(ActivationMode::OnDemand),
            Some(ActivationMode::Manual),
            None,
        ] {
            let row = demo_row(activation);
            let yolo = shown(&row, &modes(body));
            assert!(yolo.contains(" · YOLO · "), "{yolo}");
            assert!(
                !yolo.contains("AUTO") && !yolo.contains("ON-DEMAND"),
                "{yolo}"
            );
            let auto = shown(&row, &modes(r#"{"overrides":[]}"#));
            assert!(auto.contains(" · AUTO · "), "{auto}");
        }
        // Another Keeper's override is not this Keeper's mode; the default decides.
        let other = r#"{"overrides":[{"keeper":"mira","mode":"yolo"}],"default":"auto"}"#;
        let row = demo_row(Some(ActivationMode::OnDemand));
        assert!(shown(&row, &modes(other)).contains(" · AUTO · "));
        let all_yolo = r#"{"overrides":[],"default":"yolo"}"#;
        assert!(shown(&row, &modes(all_yolo)).contains(" · YOLO · "));
    }

    /// C-57, §14.4: a mode is never guessed — unread, a mode outside `auto`/`yolo` (the read
    /// fails: the earlier value does not stand in), a failure, an older MASC: each its words,
    /// never `AUTO`.
    #[test]
    fn c57_an_unknown_or_unread_mode_is_never_auto() {
        use crate::protocol::client::ClientError;
        use crate::protocol::decode::WireDecode;
        use crate::protocol::routes::RouteFamily;
        use crate::view::fetched::SlotFailure;
        let words = |f: &Fetched<Arc<ToolApprovalModes>>| mode_words(f, "rondo").0;
        assert_eq!(words(&Fetched::NotRequested), "mode not loaded");
        assert_eq!(words(&Fetched::Loading), "mode not loaded");
        let unknown = ToolApprovalModes::decode(
            br#"{"overrides":[{"keeper":"rondo","mode":"ask_everything"}]}"#,
        )
        .unwrap_err();
        let decode = SlotFailure::of_client(&ClientError::Decode(unknown));
        let Fetched::Ready(last) = modes(r#"{"overrides":[]}"#) else {
            unreachable!()
        };
        let failed_decode = Fetched::Failed {
            last: Some(last.clone()),
            error: decode,
            retrying: false,
        };
        let w = words(&failed_decode);
        assert!(w.starts_with("mode unknown (decode_"), "{w}");
        let timeout = Fetched::Failed {
            last: None,
            error: SlotFailure::of_client(&ClientError::Timeout),
            retrying: false,
        };
        assert_eq!(words(&timeout), "mode unknown (timeout)");
        let kept = Fetched::Failed {
            last: Some(last),
            error: SlotFailure::of_client(&ClientError::Timeout),
            retrying: false,
        };
        assert_eq!(words(&kept), "AUTO (last)");
        let older = Fetched::NotServed {
            route: RouteFamily::ToolApprovalMode,
            last: None,
        };
        assert_eq!(words(&older), "mode not served by this MASC");
        for f in [&Fetched::NotRequested, &failed_decode, &timeout, &older] {
            let row = demo_row(Some(ActivationMode::Autonomous));
            let line = shown(&row, f);
            assert!(!line.contains("AUTO"), "{line}");
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
