//! The Keeper detail pane's fields: every field of one roster row, each labelled, an absent
//! value said as `(absent)` (never an empty or zero value).

use super::super::*;

fn field(label: &str, value: Option<String>, theme: Theme) -> Line<'static> {
    let (text, tone) = match value {
        Some(v) => (v, Tone::Normal),
        None => ("(absent)".to_string(), Tone::Dim),
    };
    Line::from(vec![
        Span::styled(format!("{label:<22}"), theme.style(Tone::Dim)),
        Span::styled(text, theme.style(tone)),
    ])
}

fn text_field(label: &str, value: Option<&str>, theme: Theme) -> Line<'static> {
    field(label, value.map(|v| sanitize(v).into_owned()), theme)
}

fn bool_field(label: &str, value: Option<bool>, theme: Theme) -> Line<'static> {
    field(label, value.map(|b| b.to_string()), theme)
}

/// Every field of one row, for the detail pane.
pub fn detail_lines(slot: &KeeperRowSlot, ctx: &ProjectionCtx) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    match slot {
        KeeperRowSlot::Row(row) => {
            let mut lines = vec![
                text_field("name", Some(&row.name), theme),
                text_field("status", Some(row.status.as_str()), theme),
                text_field("health", row.health.as_deref(), theme),
                bool_field("paused", row.paused, theme),
                text_field("phase", row.phase.as_deref(), theme),
                field(
                    "activation_mode",
                    row.activation_mode.map(|m| m.as_str().to_string()),
                    theme,
                ),
                bool_field("autoboot_enabled", row.autoboot_enabled, theme),
                bool_field("proactive_enabled", row.proactive_enabled, theme),
                bool_field("keepalive_running", row.keepalive_running, theme),
                text_field("sandbox_profile", row.sandbox_profile(), theme),
                text_field("runtime_class", row.runtime_class.as_deref(), theme),
                text_field("runtime_id", row.runtime_id.as_deref(), theme),
                text_field("agent_name", row.agent_name.as_deref(), theme),
                text_field("current_task", row.current_task.as_deref(), theme),
                field(
                    "turn_started_at",
                    row.turn_started_at
                        .map(|t| format!("{t} ({} ago)", turn_age(Some(t), ctx.now_unix))),
                    theme,
                ),
                text_field(
                    "candle_balance_milli",
                    row.candle_balance_milli.as_deref(),
                    theme,
                ),
                text_field("created_at", row.created_at.as_deref(), theme),
                text_field("updated_at", row.updated_at.as_deref(), theme),
            ];
            match &row.effective_meta_error {
                Some(e) => {
                    lines.push(Line::styled("effective_meta_error", theme.style(Tone::Bad)));
                    lines.push(text_field("  message", e.message.as_deref(), theme));
                    lines.push(text_field(
                        "  terminal_reason",
                        e.terminal_reason.as_deref(),
                        theme,
                    ));
                    lines.push(text_field("  severity", e.severity.as_deref(), theme));
                    lines.push(bool_field(
                        "  operator_action",
                        e.operator_action_required,
                        theme,
                    ));
                    lines.push(text_field("  next_action", e.next_action.as_deref(), theme));
                }
                None => lines.push(field("effective_meta_error", None, theme)),
            }
            lines.push(field(
                "meta keys",
                row.meta.as_ref().map(|m| {
                    m.keys()
                        .map(|k| sanitize(k).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                }),
                theme,
            ));
            lines
        }
        KeeperRowSlot::Undecodable { name, error } => vec![
            Line::styled(
                "undecodable row (shown, not hidden)",
                theme.style(Tone::Bad),
            ),
            text_field("name", name.as_deref(), theme),
            text_field("reason", Some(error.reason()), theme),
            text_field("path", Some(&error.path), theme),
            text_field("detail", Some(&error.detail), theme),
        ],
    }
}
