//! Painting the composer: pending inputs (C-32…C-35), the slash menu (C-59…C-62), the input
//! rows (at most `composer_max_rows`, scrolling within, C-19, C-71) and the footer (C-63,
//! C-64). Pure functions of the composer, the view inputs and a buffer; the terminal cursor
//! position is returned, not set.
//!
//! `NO_COLOR` keeps meaning (C-73): the prompt `›`, the `~` of hidden rows, reverse video on
//! the selected candidate, the pending labels as words and `✗` on a failure notice.

use super::paste::COMPOSER_MAX_ROWS;
use super::pending::{PendingInput, PendingState, pending_header};
use super::slash::CommandSpec;
use super::state::{Composer, KeyContext, NoticeKind, visible_top};
use crate::view::text::{display_width, fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use std::time::Instant;

/// The composer prompt; the same glyph as the `Local` mark (§2.1).
pub const PROMPT: &str = "› ";
/// Cells of the prompt column.
pub const PROMPT_CELLS: u16 = 2;
/// At most this many pending rows are listed; the rest are counted (C-36).
pub const PENDING_ROWS_SHOWN: usize = 3;
/// The menu never grows past this many rows (it pages, C-59).
pub const MENU_MAX_ROWS: u16 = 8;
/// Below this width the menu is not shown and intercepts nothing (C-62).
pub const MENU_MIN_WIDTH: u16 = 24;
/// Widest command column of the menu (the longest entry, `/thinking [hidden|folded|full]`,
/// is 30 cells); it never takes more than 3/5 of the row.
const MENU_NAME_MAX_CELLS: usize = 32;
/// Default placeholder text for an empty draft.
pub const DEFAULT_PLACEHOLDER: &str = "메시지 입력 · / 명령";

/// What the composer shows besides its own state.
#[derive(Debug, Clone, Copy)]
pub struct ComposerView<'a> {
    pub theme: Theme,
    /// Inputs not yet confirmed as started (C-32), oldest first.
    pub pending: &'a [PendingInput],
    pub placeholder: &'a str,
    /// A turn is running: the footer's Esc interrupts instead of going back.
    pub turn_in_flight: bool,
    pub now: Instant,
}

/// Where each part goes inside the chat pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComposerLayout {
    /// What is left for the transcript.
    pub history: Rect,
    pub pending: Option<Rect>,
    pub menu: Option<Rect>,
    /// The rule row and the text rows.
    pub input: Rect,
    pub footer: Rect,
    /// Cells for text on a row.
    pub text_width: u16,
    /// Rows the menu may take at this geometry (0: not shown, C-62).
    pub menu_capacity: u16,
}

impl ComposerLayout {
    /// The key context for this frame's geometry.
    pub fn key_context(&self, now: Instant) -> KeyContext {
        KeyContext {
            text_width: self.text_width,
            menu_rows: self.menu_capacity,
            now,
        }
    }
}

fn pending_rows(count: usize) -> u16 {
    if count == 0 {
        return 0;
    }
    let listed = count.min(PENDING_ROWS_SHOWN);
    let more = usize::from(count > PENDING_ROWS_SHOWN);
    u16::try_from(1 + listed + more).unwrap_or(u16::MAX)
}

/// Text rows the draft takes at `text_width` (1..=`composer_max_rows`).
pub fn input_text_rows(composer: &Composer, text_width: u16) -> u16 {
    let layout = composer.visual_layout(usize::from(text_width));
    let cur = layout.cursor_cell(composer.text(), composer.buffer().cursor());
    let rows = layout.rows_with_cursor(cur).clamp(1, COMPOSER_MAX_ROWS);
    u16::try_from(rows).unwrap_or(1)
}

/// Splits the chat pane (transcript above, composer parts below) keeping at least
/// `min_history_rows` for the transcript when the menu opens (C-62).
pub fn plan(
    area: Rect,
    composer: &Composer,
    view: &ComposerView<'_>,
    min_history_rows: u16,
) -> ComposerLayout {
    let text_width = area.width.saturating_sub(PROMPT_CELLS).max(1);
    let footer_h = area.height.min(1);
    // The input grows to `composer_max_rows` but never into the transcript's minimum
    // (C-19, C-62): past it the draft scrolls inside the input (the `~` rows).
    let room = area.height - footer_h;
    let input_cap = room.saturating_sub(min_history_rows).max(2).min(room);
    let input_h = (1 + input_text_rows(composer, text_width)).min(input_cap);
    let left = area.height - footer_h - input_h;
    let pending_h = pending_rows(view.pending.len()).min(left);
    let left = left - pending_h;
    let menu_capacity = if area.width >= MENU_MIN_WIDTH {
        left.saturating_sub(min_history_rows).min(MENU_MAX_ROWS)
    } else {
        0
    };
    let menu_h = match composer.menu_candidates() {
        Some(c) if menu_capacity > 0 => u16::try_from(c.len())
            .unwrap_or(u16::MAX)
            .min(menu_capacity),
        _ => 0,
    };
    let history_h = left - menu_h;
    let row = |y: u16, h: u16| Rect::new(area.x, y, area.width, h);
    let history = row(area.y, history_h);
    let pending_y = area.y + history_h;
    let menu_y = pending_y + pending_h;
    let input_y = menu_y + menu_h;
    ComposerLayout {
        history,
        pending: (pending_h > 0).then(|| row(pending_y, pending_h)),
        menu: (menu_h > 0).then(|| row(menu_y, menu_h)),
        input: row(input_y, input_h),
        footer: row(input_y + input_h, footer_h),
        text_width,
        menu_capacity,
    }
}

/// Paints everything and returns the terminal cursor cell `(x, y)` (None when the input has no
/// room).
pub fn render(
    composer: &Composer,
    view: &ComposerView<'_>,
    layout: &ComposerLayout,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    if let Some(area) = layout.pending {
        render_pending(view, area, buf);
    }
    if let Some(area) = layout.menu {
        render_menu(composer, view.theme, area, buf);
    }
    let cursor = render_input(composer, view, layout, buf);
    render_footer(composer, view, layout, buf);
    cursor
}

/// Text into cells by the terminal's cell rule (C-70: a skin-tone emoji keeps its modifier).
fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, max: usize, style: Style) -> u16 {
    crate::view::terminal::cells::put_str(buf, x, y, text, max, style)
}

fn pending_tone(state: PendingState) -> Tone {
    match state {
        PendingState::WaitingToSend | PendingState::WaitingToProcess => Tone::Dim,
        PendingState::Sending => Tone::Busy,
        // An unconfirmed send result is always visible (C-44).
        PendingState::ConfirmingDelivery => Tone::Warn,
    }
}

/// `›  대기 입력 N건`, then one row per input: its one label, then its first line (C-32, C-33).
pub fn render_pending(view: &ComposerView<'_>, area: Rect, buf: &mut Buffer) {
    let theme = view.theme;
    let width = usize::from(area.width);
    let mut y = area.y;
    let bottom = area.y + area.height;
    if y >= bottom {
        return;
    }
    let x = put(buf, area.x, y, "›  ", width, theme.style(Tone::Accent));
    put(
        buf,
        x,
        y,
        &pending_header(view.pending.len()),
        width.saturating_sub(3),
        theme.style(Tone::Dim),
    );
    y += 1;
    for input in view.pending.iter().take(PENDING_ROWS_SHOWN) {
        if y >= bottom {
            return;
        }
        let mut x = area.x + 3;
        let avail = width.saturating_sub(3);
        x = put(
            buf,
            x,
            y,
            input.state.label(),
            avail,
            theme.style(pending_tone(input.state)),
        );
        let used = usize::from(x - area.x);
        x = put(
            buf,
            x,
            y,
            " · ",
            width.saturating_sub(used),
            theme.style(Tone::Dim),
        );
        let first = input.text.split('\n').next().unwrap_or("");
        let shown = sanitize(first);
        let room = width.saturating_sub(usize::from(x - area.x));
        put(buf, x, y, &fit_width(&shown, room), room, Style::default());
        y += 1;
    }
    let more = view.pending.len().saturating_sub(PENDING_ROWS_SHOWN);
    if more > 0 && y < bottom {
        put(
            buf,
            area.x + 3,
            y,
            &format!("외 {more}건"),
            width.saturating_sub(3),
            theme.style(Tone::Dim),
        );
    }
}

fn menu_name(spec: &CommandSpec) -> String {
    if spec.arg_hint.is_empty() {
        format!("/{}", spec.name)
    } else {
        format!("/{} {}", spec.name, spec.arg_hint)
    }
}

fn menu_description(spec: &CommandSpec) -> String {
    if spec.aliases.is_empty() {
        spec.description.to_string()
    } else {
        let aliases: Vec<String> = spec.aliases.iter().map(|a| format!("/{a}")).collect();
        format!("{} ({})", spec.description, aliases.join(" "))
    }
}

/// The first candidate shown: the page around the selection (C-59 `menu_window`).
pub fn menu_window_start(selected: usize, rows: usize) -> usize {
    if rows == 0 {
        return 0;
    }
    (selected / rows) * rows
}

/// Two columns, command and description; only the selected row is highlighted (C-59).
pub fn render_menu(composer: &Composer, theme: Theme, area: Rect, buf: &mut Buffer) {
    let Some(candidates) = composer.menu_candidates() else {
        return;
    };
    let rows = usize::from(area.height);
    let selected = composer.menu_selected();
    let start = menu_window_start(selected, rows);
    let width = usize::from(area.width);
    let name_cells = candidates
        .iter()
        .map(|c| display_width(&menu_name(c)))
        .max()
        .unwrap_or(0)
        .min(MENU_NAME_MAX_CELLS)
        .min(width * 3 / 5);
    for (i, spec) in candidates.iter().enumerate().skip(start).take(rows) {
        let y = area.y + u16::try_from(i - start).unwrap_or(0);
        let is_selected = i == selected;
        let base = if is_selected {
            theme.selected()
        } else {
            Style::default()
        };
        let mut line = String::from(" ");
        line.push_str(&pad_to(&menu_name(spec), name_cells));
        line.push_str("  ");
        let room = width.saturating_sub(display_width(&line));
        line.push_str(&fit_width(&menu_description(spec), room));
        let line = pad_to(&line, width);
        put(buf, area.x, y, &line, width, base);
        if !is_selected {
            // The description is secondary text.
            let desc_x = area.x + u16::try_from(1 + name_cells + 2).unwrap_or(0);
            if desc_x < area.x + area.width {
                let cells = usize::from(area.x + area.width - desc_x);
                let desc = fit_width(&menu_description(spec), cells).into_owned();
                put(buf, desc_x, y, &desc, cells, theme.style(Tone::Dim));
            }
        }
    }
}

/// Byte ranges of spill placeholders in the text (painted as chips).
fn chip_ranges(composer: &Composer) -> Vec<(usize, usize)> {
    let text = composer.text();
    let mut ranges: Vec<(usize, usize)> = composer
        .spills()
        .iter()
        .filter_map(|s| {
            let p = s.placeholder();
            text.find(&p).map(|at| (at, at + p.len()))
        })
        .collect();
    ranges.sort_unstable();
    ranges
}

/// The rule row, then the visible text rows with the prompt (or `~` for rows hidden above or
/// below, C-71). Returns the cursor cell.
pub fn render_input(
    composer: &Composer,
    view: &ComposerView<'_>,
    layout: &ComposerLayout,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    let theme = view.theme;
    let area = layout.input;
    if area.height == 0 || area.width == 0 {
        return None;
    }
    let width = usize::from(area.width);
    put(
        buf,
        area.x,
        area.y,
        &"─".repeat(width),
        width,
        theme.style(Tone::Dim),
    );
    let text_rows = usize::from(area.height - 1);
    if text_rows == 0 {
        return None;
    }
    let text_y = area.y + 1;
    let text_x = area.x + PROMPT_CELLS.min(area.width);
    let text_width = usize::from(layout.text_width);
    let text = composer.text();
    let visual = composer.visual_layout(text_width);
    let cur = visual.cursor_cell(text, composer.buffer().cursor());
    let total = visual.rows_with_cursor(cur);
    let top = visible_top(composer.scroll_top(), cur.row, total);
    let top = top
        .min(cur.row)
        .max((cur.row + 1).saturating_sub(text_rows));
    let prompt_style = theme.style(Tone::Accent);
    if text.is_empty() {
        put(buf, area.x, text_y, PROMPT, width, prompt_style);
        let room = width.saturating_sub(usize::from(PROMPT_CELLS));
        put(
            buf,
            text_x,
            text_y,
            &fit_width(view.placeholder, room),
            room,
            theme.style(Tone::Dim),
        );
        return Some((text_x, text_y));
    }
    let chips = chip_ranges(composer);
    let chip_style = theme.style(Tone::Accent);
    for (i, row_index) in (top..total).take(text_rows).enumerate() {
        let y = text_y + u16::try_from(i).unwrap_or(0);
        let hidden_above = i == 0 && top > 0;
        let hidden_below = i + 1 == text_rows && row_index + 1 < total;
        let prompt = if hidden_above || hidden_below {
            "~ "
        } else if row_index == 0 {
            PROMPT
        } else {
            "  "
        };
        let style = if prompt == "~ " {
            theme.style(Tone::Dim)
        } else {
            prompt_style
        };
        put(buf, area.x, y, prompt, width, style);
        let Some(row) = visual.rows.get(row_index) else {
            continue;
        };
        // Segments split at chip boundaries so a placeholder reads as one piece.
        let mut x = text_x;
        let mut at = row.start;
        let mut cuts: Vec<(usize, bool)> = Vec::new();
        for &(s, e) in &chips {
            if e <= row.start || s >= row.end {
                continue;
            }
            cuts.push((s.max(row.start), true));
            cuts.push((e.min(row.end), false));
        }
        cuts.push((row.end, false));
        let mut in_chip = chips.iter().any(|&(s, e)| s < row.start && e > row.start);
        for (cut, opens) in cuts {
            if cut > at {
                let seg = text.get(at..cut).unwrap_or("");
                let style = if in_chip {
                    chip_style
                } else {
                    Style::default()
                };
                let room = usize::from((area.x + area.width).saturating_sub(x));
                x = put(buf, x, y, seg, room, style);
                at = cut;
            }
            in_chip = opens;
        }
    }
    let cursor_y = text_y + u16::try_from(cur.row.saturating_sub(top)).unwrap_or(0);
    let cursor_x = text_x + u16::try_from(cur.x).unwrap_or(0);
    let inside = cursor_x < area.x + area.width && cursor_y < area.y + area.height;
    inside.then_some((cursor_x, cursor_y))
}

/// The footer text for this state (C-63, C-64), with its tone.
pub fn footer_text(
    composer: &Composer,
    view: &ComposerView<'_>,
    menu_visible: bool,
) -> (String, Tone) {
    if let Some(notice) = composer.notice(view.now) {
        return match notice.kind {
            NoticeKind::Failure => (format!("✗ {}", notice.text), Tone::Bad),
            NoticeKind::Note => (format!("! {}", notice.text), Tone::Warn),
        };
    }
    if menu_visible {
        return (
            "↑/↓:select  Tab:insert  Enter:run  Esc:close".to_string(),
            Tone::Dim,
        );
    }
    let esc = if view.turn_in_flight {
        "Esc:interrupt"
    } else {
        "Esc:back"
    };
    (
        format!("Enter:send  Ctrl-J:newline  {esc}  /:commands  /help"),
        Tone::Dim,
    )
}

/// The footer row.
pub fn render_footer(
    composer: &Composer,
    view: &ComposerView<'_>,
    layout: &ComposerLayout,
    buf: &mut Buffer,
) {
    let area = layout.footer;
    if area.height == 0 {
        return;
    }
    let (text, tone) = footer_text(composer, view, layout.menu.is_some());
    let width = usize::from(area.width);
    put(
        buf,
        area.x,
        area.y,
        &fit_width(&text, width),
        width,
        view.theme.style(tone),
    );
}
