//! The System `logs` pane (§15.1): MASC's log ring, newest first, at a minimum
//! level (`l` steps MASC's ladder debug → info → warn → error) and one category (`c` cycles
//! them, then `uncategorized`, then every category). `v` shows each row's source, module, turn
//! and category; `Enter` the selected row whole (its `details` only there, G-10); `Home`/`g`
//! the newest, `End`/`G` the oldest held — at the oldest, `End` again (or `b`) asks the page
//! before it (`before_seq`). The header says `(<returned> of <total>, seq <latest>)` as MASC's
//! TUI does, and an empty page is qualified by `dropped_before` (outside the live window, not
//! "nothing happened").

use super::slot_status_lines;
use crate::actors::system_logs::SystemLogsCommand;
use crate::protocol::system_logs::{CATEGORIES, LogQuery, LogRowSlot};
use crate::view::bindings::{
    DOWN, END, ENTER, ESC, HOME, PAGE_DOWN, PAGE_UP, Press, Table, UP, bind,
};
use crate::view::command::UiCommand;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, sanitize_line, sanitize_lines};
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

/// The logs pane's own keys.
pub const LOGS_PANE: Table = Table {
    title: "System · logs keys",
    bindings: &[
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "select a row",
        )
        .footer("row"),
        bind(
            "Enter",
            &[ENTER],
            "the row whole, its details too (Enter or Esc back)",
        )
        .footer("detail"),
        bind(
            "l",
            &[Press::ch('l')],
            "minimum level: debug → info → warn → error (read again)",
        )
        .footer("level"),
        bind(
            "c",
            &[Press::ch('c')],
            "category: each of MASC's, then uncategorized, then all (read again)",
        )
        .footer("category"),
        bind(
            "v",
            &[Press::ch('v')],
            "verbose: source, module, turn, category",
        )
        .footer("verbose"),
        bind(
            "Home, End / G",
            &[HOME, END, Press::ch('G')],
            "newest / oldest held (at the oldest: the page before it)",
        ),
        bind(
            "b",
            &[Press::ch('b')],
            "read the page before the oldest held (before_seq)",
        ),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page"),
        bind("Esc", &[ESC], "back from the row"),
    ],
};

/// The pane's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogsUi {
    /// Rows from the newest (0) down.
    pub selected: usize,
    pub verbose: bool,
    /// `Enter`: the selected row whole.
    pub detail: bool,
}

fn next_category(current: Option<&str>) -> Option<String> {
    match current {
        None => Some(CATEGORIES[0].to_string()),
        Some(c) => CATEGORIES
            .iter()
            .position(|k| *k == c)
            .and_then(|i| CATEGORIES.get(i + 1))
            .map(|k| (*k).to_string()),
    }
}

/// A key on the logs pane; `None` when it is not the pane's.
pub fn key(ui: &mut LogsUi, model: &Model, key: KeyEvent, page: usize) -> Option<UiCommand> {
    let logs = &model.system_logs;
    let len = logs.len();
    let last = len.saturating_sub(1);
    if ui.detail {
        return match key.code {
            KeyCode::Enter | KeyCode::Esc => {
                ui.detail = false;
                Some(UiCommand::Repaint)
            }
            _ => None,
        };
    }
    let older = |logs: &crate::view::system_logs::SystemLogsModel| {
        logs.oldest_seq()
            .map(|before_seq| UiCommand::send(SystemLogsCommand::Older { before_seq }))
    };
    let cmd = match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            ui.selected = (ui.selected + 1).min(last);
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            ui.selected = ui.selected.saturating_sub(1);
            UiCommand::Repaint
        }
        KeyCode::PageDown => {
            ui.selected = (ui.selected + page).min(last);
            UiCommand::Repaint
        }
        KeyCode::PageUp => {
            ui.selected = ui.selected.saturating_sub(page);
            UiCommand::Repaint
        }
        KeyCode::Home => {
            ui.selected = 0;
            UiCommand::Repaint
        }
        KeyCode::End | KeyCode::Char('G') if len > 0 && ui.selected >= last => {
            older(logs).unwrap_or(UiCommand::None)
        }
        KeyCode::End | KeyCode::Char('G') => {
            ui.selected = last;
            UiCommand::Repaint
        }
        KeyCode::Char('b') => older(logs).unwrap_or(UiCommand::None),
        KeyCode::Enter if len > 0 => {
            ui.detail = true;
            UiCommand::Repaint
        }
        KeyCode::Char('v') => {
            ui.verbose = !ui.verbose;
            UiCommand::Repaint
        }
        KeyCode::Char('l') => {
            ui.selected = 0;
            UiCommand::send(SystemLogsCommand::Filters(LogQuery {
                level: logs.filters.level.next(),
                ..logs.filters.clone()
            }))
        }
        KeyCode::Char('c') => {
            ui.selected = 0;
            UiCommand::send(SystemLogsCommand::Filters(LogQuery {
                category: next_category(logs.filters.category.as_deref()),
                ..logs.filters.clone()
            }))
        }
        _ => return None,
    };
    Some(cmd)
}

fn level_tone(level: &str) -> Tone {
    match level {
        "ERROR" => Tone::Bad,
        "WARN" => Tone::Warn,
        "DEBUG" => Tone::Dim,
        _ => Tone::Normal,
    }
}

fn header(model: &Model) -> String {
    let logs = &model.system_logs;
    let f = &logs.filters;
    let mut text = format!(
        "LOGS  level ≥ {} · category {}",
        f.level.as_str(),
        f.category.as_deref().unwrap_or("all")
    );
    if let Some(total) = logs.total {
        let latest = logs
            .rows
            .keys()
            .next_back()
            .map_or("-".to_string(), |s| s.to_string());
        text.push_str(&format!("  ({} of {total}, seq {latest})", logs.len()));
    }
    text
}

fn row_line(
    row: &LogRowSlot,
    selected: bool,
    verbose: bool,
    ctx: &ProjectionCtx,
    width: usize,
) -> Line<'static> {
    let theme = ctx.theme;
    let mark = if selected { "› " } else { "  " };
    let (text, tone) = match row {
        LogRowSlot::Row(r) => {
            let time = r.ts.get(11..19).unwrap_or(&r.ts);
            let mut text = format!(
                "{mark}{:>6} {} {:<5} {:<10} {}",
                r.seq,
                sanitize_line(time),
                sanitize_line(&r.level),
                fit_width(&sanitize_line(&r.keeper_name), 10),
                sanitize_line(&r.message)
            );
            if verbose {
                text.push_str(&format!(
                    "  · {} · {} · turn {} · {}",
                    sanitize_line(&r.source),
                    sanitize_line(&r.module),
                    r.turn_id.map_or("-".to_string(), |t| t.to_string()),
                    r.category
                        .as_deref()
                        .map_or("uncategorized".into(), sanitize_line)
                ));
            }
            (text, level_tone(&r.level))
        }
        LogRowSlot::Undecodable { seq, error } => (
            format!(
                "{mark}{:>6} row not readable: {}",
                seq.map_or("?".to_string(), |s| s.to_string()),
                sanitize_line(error)
            ),
            Tone::Bad,
        ),
    };
    let tone = if selected { Tone::Accent } else { tone };
    Line::from(Span::styled(
        fit_width(&text, width).into_owned(),
        theme.style(tone),
    ))
}

fn detail_lines(row: &LogRowSlot, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let LogRowSlot::Row(r) = row else {
        return vec![Line::styled(
            "this row did not decode; only its seq and the decode error are known",
            theme.style(Tone::Bad),
        )];
    };
    let mut out = vec![Line::styled(
        format!("LOG ROW {}  (Enter or Esc back)", r.seq),
        theme.style(Tone::Strong),
    )];
    let fields = [
        ("time", r.ts.clone()),
        ("level", r.level.clone()),
        ("source", r.source.clone()),
        ("module", r.module.clone()),
        ("keeper", r.keeper_name.clone()),
        ("turn", r.turn_id.map_or("-".into(), |t| t.to_string())),
        (
            "category",
            r.category.clone().unwrap_or_else(|| "uncategorized".into()),
        ),
    ];
    for (name, value) in fields {
        out.push(Line::from(format!(
            "{name:<9}{}",
            fit_width(&sanitize_line(&value), width.saturating_sub(9))
        )));
    }
    out.push(Line::styled("message", theme.style(Tone::Dim)));
    for line in sanitize_lines(&r.message) {
        out.push(Line::from(format!("  {line}")));
    }
    out.push(Line::styled("details", theme.style(Tone::Dim)));
    let details = match &r.details {
        None | Some(serde_json::Value::Null) => "none".to_string(),
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    for line in sanitize_lines(&details) {
        out.push(Line::from(format!("  {line}")));
    }
    out
}

/// The pane's lines, from its header ([`render`] scrolls them).
pub fn lines(model: &Model, ui: &LogsUi, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let logs = &model.system_logs;
    let theme = ctx.theme;
    let mut out = vec![Line::styled(header(model), theme.style(Tone::Strong))];
    out.extend(status_lines(model, ctx, width));
    let selected = ui.selected.min(logs.len().saturating_sub(1));
    if ui.detail
        && let Some(row) = logs.newest_first().nth(selected)
    {
        out.extend(detail_lines(row, ctx, width));
        return out;
    }
    if logs.is_empty() && logs.window.fetched.last().is_some() {
        let words = if logs.ring.is_some_and(|r| r.dropped_before) {
            "no rows at these filters in the live window (older entries were evicted from MASC's ring)"
        } else {
            "no rows at these filters"
        };
        out.push(Line::styled(words, theme.style(Tone::Dim)));
    }
    for (i, row) in logs.newest_first().enumerate() {
        out.push(row_line(row, i == selected, ui.verbose, ctx, width));
    }
    if logs.oldest_reached {
        out.push(Line::styled(
            "— nothing older in MASC's live window —",
            theme.style(Tone::Dim),
        ));
    }
    out
}

/// The window's state and, once one was asked, the page back's.
fn status_lines(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let logs = &model.system_logs;
    let mut out = slot_status_lines("system logs", &logs.window.fetched, ctx, width);
    if !matches!(logs.older.fetched, Fetched::NotRequested) {
        out.extend(slot_status_lines(
            "older page",
            &logs.older.fetched,
            ctx,
            width,
        ));
    }
    out
}

/// Rows above the first log row in [`lines`] (the header and the status lines).
pub fn head_rows(model: &Model, ctx: &ProjectionCtx, width: usize) -> usize {
    1 + status_lines(model, ctx, width).len()
}

/// Paints the pane into `area`, scrolled so the selected row (or the row shown whole) is in it.
pub fn render(
    model: &Model,
    ui: &LogsUi,
    ctx: &ProjectionCtx,
    area: ratatui::layout::Rect,
    buf: &mut ratatui::buffer::Buffer,
) {
    let width = usize::from(area.width);
    let all = lines(model, ui, ctx, width);
    let rows = usize::from(area.height);
    let scroll = if ui.detail {
        0
    } else {
        let head = head_rows(model, ctx, width);
        let selected = head + ui.selected.min(model.system_logs.len().saturating_sub(1));
        (selected + 1).saturating_sub(rows)
    };
    crate::view::terminal::cells::render_lines(all.iter().skip(scroll), area, buf);
}
