//! The Keepers roster (surfaces.md "Keepers roster") and its detail pane.
//!
//! Columns: HEALTH, KEEPER, A (autoboot), P (proactive / autonomous activation), S (sandbox
//! D/M/L, `-` absent), TURN age, LIFECYCLE / RUNTIME (phase + middle-folded runtime id), TASK.
//! An absent field is shown as absent (`?` for flags, `-` elsewhere), never as false or 0.
//! Every `Fetched` state has its own wording (G-4, G-5).

pub mod detail;
pub mod keys;
pub mod operations;
pub mod roster;

pub use detail::fields::detail_lines;
#[cfg(test)]
pub use roster::row::row_line;
pub use roster::row::{Written, paint_row, turn_age};
#[cfg(test)]
use roster::row::{flag, proactive, sandbox};

use super::ProjectionCtx;
use super::react::{ReactCx, Seen};
use super::widgets::{effective_offset, not_served_any_more, not_served_text};
use crate::actors::contract::SourceKey;
#[cfg(test)]
use crate::protocol::keepers::KeeperRow;
use crate::protocol::keepers::{KeeperRoster, KeeperRowSlot};
use crate::view::command::UiCommand;
use crate::view::fetched::{Fetched, Observed};
use crate::view::model::{ConnectionState, Model};
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};
use std::sync::Arc;
use std::time::Instant;

pub const HEALTH_W: usize = 11;
pub const KEEPER_W: usize = 16;
pub const TURN_W: usize = 5;
/// HEALTH, KEEPER, A, P, S, TURN and the seven one-cell gaps.
const FIXED_W: usize = HEALTH_W + KEEPER_W + 3 + TURN_W + 7;

/// Column widths for a pane width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub lifecycle: usize,
    pub task: usize,
}

impl Columns {
    pub fn for_width(width: usize) -> Self {
        let rest = width.saturating_sub(FIXED_W);
        let lifecycle = (rest * 55 / 100).clamp(rest.min(12), 44);
        Self {
            lifecycle,
            task: rest - lifecycle,
        }
    }
}

/// Not known (not read, not sent, not one of ours): the hollow mark, the screen's note about
/// the value (S0: marks are shapes, never `?`).
pub const UNKNOWN_MARK: &str = "○";

const GAP: &str = " ";

pub fn heading_line(cols: Columns, theme: Theme) -> Line<'static> {
    let text = format!(
        "{}{GAP}{}{GAP}A{GAP}P{GAP}S{GAP}{}{GAP}{}{GAP}{}",
        pad_to("HEALTH", HEALTH_W),
        pad_to("KEEPER", KEEPER_W),
        pad_to("TURN", TURN_W),
        pad_to("LIFECYCLE / RUNTIME", cols.lifecycle),
        pad_to("TASK", cols.task),
    );
    Line::styled(text, theme.style(Tone::Strong))
}

/// Whether a row matches a `/` search (case-insensitive, on the name).
pub fn row_matches(slot: &KeeperRowSlot, query_lower: &str) -> bool {
    let name = match slot {
        KeeperRowSlot::Row(r) => Some(r.name.as_str()),
        KeeperRowSlot::Undecodable { name, .. } => name.as_deref(),
    };
    name.is_some_and(|n| n.to_lowercase().contains(query_lower))
}

/// What the title row says about the slot beside the value (G-4).
fn annotation(fetched: &Fetched<Arc<KeeperRoster>>, now: Instant) -> Option<(String, Tone)> {
    match fetched {
        Fetched::Refreshing { .. } if fetched.shows_reading(now) => {
            Some(("⟳ reading… (showing last value)".into(), Tone::Busy))
        }
        Fetched::Failed {
            last: Some(_),
            error,
            retrying,
        } => Some((
            format!(
                "✗ read failed: {} — {}{} (showing last value)",
                error.class,
                sanitize(&error.detail),
                if *retrying { ", retrying" } else { "" }
            ),
            Tone::Bad,
        )),
        Fetched::NotServed {
            route,
            last: Some(_),
        } => Some((not_served_any_more(*route), Tone::Warn)),
        Fetched::Warming { last: Some(_) } => Some((
            "… server warming up (showing last value)".into(),
            Tone::Warn,
        )),
        _ => None,
    }
}

fn title_line(
    value: &Observed<Arc<KeeperRoster>>,
    fetched: &Fetched<Arc<KeeperRoster>>,
    waiting: Option<(String, Tone)>,
    stale: Option<(Instant, bool)>,
    ctx: &ProjectionCtx,
) -> Line<'static> {
    let (stale, disconnected) = match stale {
        Some((at, disconnected)) => (Some(at), disconnected),
        None => (None, false),
    };
    let theme = ctx.theme;
    let roster = &value.value;
    let mut spans = vec![Span::styled(
        format!("KEEPERS {}", roster.keepers().count()),
        theme.style(Tone::Strong),
    )];
    let beyond = roster.truncated || roster.total > roster.count;
    if beyond {
        spans.push(Span::raw(format!(" loaded of {}", roster.total)));
    }
    // First after the counts: the rows' facts may have changed since.
    if let Some(read_at) = stale {
        spans.push(Span::styled(
            format!(
                " · ≈ stale: rows read {} ago, before the {}",
                short_age(ctx.now.saturating_duration_since(read_at).as_secs()),
                if disconnected {
                    "disconnect"
                } else {
                    "failed re-read"
                }
            ),
            theme.style(Tone::Warn),
        ));
    }
    if beyond {
        // MASC's roster route has no offset (§4.1): the rest are reached by name.
        spans.push(Span::styled(
            format!(
                " · MASC lists at most {} · / finds the others by name",
                roster.limit.unwrap_or(roster.count)
            ),
            theme.style(Tone::Warn),
        ));
    }
    let bad = roster.undecodable_count();
    if bad > 0 {
        spans.push(Span::styled(
            format!(" · {bad} undecodable"),
            theme.style(Tone::Bad),
        ));
    }
    if value.health_admitted {
        spans.push(Span::styled(
            " · health-admitted (no receipt)",
            theme.style(Tone::Warn),
        ));
    }
    if let Some((text, tone)) = waiting {
        spans.push(Span::styled(format!(" · {text}"), theme.style(tone)));
    }
    if let Some((text, tone)) = annotation(fetched, ctx.now) {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(text, theme.style(tone)));
    }
    Line::from(spans)
}

/// When the shown rows stopped being current: `Some(read time)` of a roster read before the
/// connection was lost or before a re-read failed (their facts may have changed since), with
/// whether the connection is lost.
pub fn stale_since(model: &Model) -> Option<(Instant, bool)> {
    let fetched = &model.keepers.roster.fetched;
    let value = fetched.last()?;
    let disconnected = model.connection() == ConnectionState::Disconnected;
    let failed = matches!(fetched, Fetched::Failed { .. });
    (disconnected || failed).then_some((value.observed_at, disconnected))
}

/// An age in its largest whole unit (`45s`, `12m`, `3h`, `2d`): at most three cells below
/// 100 days.
pub fn short_age(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        3600..=86_399 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// Where TURN starts in a row: after HEALTH, KEEPER, A, P, S and their gaps.
const TURN_X: usize = HEALTH_W + KEEPER_W + 3 + 5;

/// Marks the painted rows `offset..offset + page` as read `age` ago (stale): HEALTH says `≈`,
/// the age and the status as read; TURN, which counts a turn's age on the clock, says the
/// turn's age is not known (the turn may have ended since).
fn mark_stale_rows(
    roster: &KeeperRoster,
    offset: usize,
    selected: usize,
    age: &str,
    ctx: &ProjectionCtx,
    rows_area: Rect,
    buf: &mut Buffer,
) {
    let area = rows_area.intersection(buf.area);
    let right = area.right();
    for (i, slot) in roster
        .rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(area.height as usize)
    {
        let KeeperRowSlot::Row(row) = slot else {
            continue;
        };
        let y = area.y + (i - offset) as u16;
        let style = if i == selected {
            ctx.theme.selected()
        } else {
            ctx.theme.style(Tone::Warn)
        };
        let health = pad_to(&format!("≈{age} {}", row.status.as_str()), HEALTH_W);
        buf.set_stringn(
            area.x,
            y,
            health,
            HEALTH_W.min(usize::from(area.width)),
            style,
        );
        let turn_x = area.x.saturating_add(TURN_X as u16);
        if turn_x < right {
            let room = usize::from(right - turn_x).min(TURN_W);
            buf.set_stringn(turn_x, y, pad_to(UNKNOWN_MARK, TURN_W), room, style);
        }
    }
}

/// A Keeper asked of the server by name (`/`, beyond the loaded page): its row, below the
/// page's, says what the server answered (§14.7: 404 `unknown keeper` is "no such Keeper").
fn found_line(model: &Model, name: &str, selected: bool, ctx: &ProjectionCtx) -> Line<'static> {
    use crate::protocol::client::ErrorClass;
    use crate::view::fetched::FailureClass;
    let theme = ctx.theme;
    let meta = model.keeper_detail.of(name).map(|d| &d.meta.fetched);
    let (health, tone, note) = match meta {
        Some(fetched) if fetched.last().is_some() => {
            let status = fetched.last().map(|o| &*o.value);
            let paused = status.and_then(|s| s.paused);
            let live = status.and_then(|s| s.keepalive_running);
            (
                "◆ found",
                Tone::Good,
                format!(
                    "beyond the loaded page · {} · {} · Enter detail · c chat",
                    match paused {
                        Some(true) => "paused",
                        Some(false) => "not paused",
                        None => "pause ○",
                    },
                    match live {
                        Some(true) => "fiber running",
                        Some(false) => "no fiber",
                        None => "fiber ○",
                    }
                ),
            )
        }
        Some(Fetched::Failed { error, .. })
            if error.class == FailureClass::Read(ErrorClass::Status(404)) =>
        {
            (
                "✗ unknown",
                Tone::Bad,
                "the server has no Keeper of this name".to_string(),
            )
        }
        Some(Fetched::Failed { error, .. }) => (
            "✗ failed",
            Tone::Bad,
            format!("asking the server failed: {} · r retries", error.class),
        ),
        _ => (
            "⟳ asking",
            Tone::Busy,
            "beyond the loaded page: asking the server by name…".to_string(),
        ),
    };
    let style = |tone| {
        if selected {
            theme.selected()
        } else {
            theme.style(tone)
        }
    };
    Line::from(vec![
        Span::styled(pad_to(health, HEALTH_W), style(tone)),
        Span::raw(GAP),
        Span::styled(pad_to(&sanitize(name), KEEPER_W), style(Tone::Strong)),
        Span::raw(GAP),
        Span::styled(note, style(Tone::Dim)),
    ])
}

/// Where a token comes from, under a read refused for the want of one (§1.1; README
/// "Environment").
fn token_hint(class: crate::view::fetched::FailureClass) -> &'static [&'static str] {
    use crate::protocol::client::ErrorClass;
    use crate::view::fetched::FailureClass;
    match class {
        FailureClass::Read(ErrorClass::NoToken | ErrorClass::Unauthorized(_)) => &[
            "a token comes from --token, else MASC_TOKEN, else the token file",
            "<base>/.masc/auth/masc-tui.token (<base>: --base-path, else this directory);",
            "`masc-tui serve` prints MASC_TOKEN=… at start and writes that file",
        ],
        _ => &[],
    }
}

/// Messages for states without a value (G-5: never an empty table).
fn no_value_lines(fetched: &Fetched<Arc<KeeperRoster>>, theme: Theme) -> Vec<Line<'static>> {
    match fetched {
        Fetched::NotRequested => vec![Line::styled("(not loaded yet)", theme.style(Tone::Dim))],
        Fetched::Loading => vec![Line::styled("⟳ loading keepers…", theme.style(Tone::Busy))],
        Fetched::Warming { last: None } => vec![Line::styled(
            "… server warming up — keepers not available yet",
            theme.style(Tone::Warn),
        )],
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => vec![
            Line::styled(
                format!("✗ keepers read failed: {}", error.class),
                theme.style(Tone::Bad),
            ),
            Line::raw(sanitize(&error.detail).into_owned()),
            Line::styled(
                if *retrying {
                    "retrying…"
                } else {
                    "nothing read yet · r retries"
                },
                theme.style(Tone::Dim),
            ),
        ]
        .into_iter()
        .chain(
            token_hint(error.class)
                .iter()
                .map(|l| Line::styled(*l, theme.style(Tone::Dim))),
        )
        .collect(),
        Fetched::NotServed { route, last: None } => vec![Line::styled(
            not_served_text("keepers", *route),
            theme.style(Tone::Warn),
        )],
        _ => Vec::new(),
    }
}

pub fn render(
    model: &Model,
    ui: &RosterUi,
    paint: &roster::paint::RowPaintCache,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let fetched = &model.keepers.roster.fetched;
    let Some(value) = fetched.last() else {
        let mut lines = vec![Line::styled("KEEPERS", theme.style(Tone::Strong))];
        lines.extend(no_value_lines(fetched, theme));
        Paragraph::new(lines).render(area, buf);
        return;
    };
    if area.height == 0 {
        return;
    }
    let roster = &value.value;
    let stale = stale_since(model);
    title_line(
        value,
        fetched,
        roster::waiting::title_note(model),
        stale,
        ctx,
    )
    .render(Rect::new(area.x, area.y, area.width, 1), buf);
    let cols = Columns::for_width(area.width as usize);
    if area.height > 1 {
        let heading = Rect::new(area.x, area.y + 1, area.width, 1);
        roster::paint::paint_heading(paint, cols, theme, heading, buf);
    }
    // The selected Keeper's operation line takes the last row: the rows end above it, so it
    // never covers a row (nor the selection).
    let selected_name =
        operations::row_name(model, ui.selected.min(roster.rows.len().saturating_sub(1)));
    let op_row = selected_name
        .clone()
        .filter(|name| operations::has_line(model, name));
    // The selected Keeper's "waits on" line (§15.8) sits above the operation line, once the
    // surface has room for rows beside it.
    let wait_row = selected_name.filter(|_| roster::waiting::has_room(area.height));
    let rows_area = Rect::new(
        area.x,
        area.y + 2,
        area.width,
        area.height
            .saturating_sub(2)
            .saturating_sub(u16::from(op_row.is_some()))
            .saturating_sub(u16::from(wait_row.is_some())),
    );
    if roster.rows.is_empty() {
        Line::styled("no keepers registered", theme.style(Tone::Dim)).render(rows_area, buf);
        return;
    }
    let page = rows_area.height as usize;
    let len = roster.rows.len() + usize::from(ui.found.is_some());
    let selected = ui.selected.min(len - 1);
    let offset = effective_offset(selected, ui.offset, page, len);
    roster::paint::paint_rows(
        paint, roster, offset, page, selected, cols, ctx, rows_area, None, buf,
    );
    if let Some((read_at, _)) = stale {
        let age = short_age(ctx.now.saturating_duration_since(read_at).as_secs());
        mark_stale_rows(roster, offset, selected, &age, ctx, rows_area, buf);
    }
    if let Some(name) = &ui.found {
        let at = roster.rows.len();
        if (offset..offset + page).contains(&at) {
            let y = rows_area.y + (at - offset) as u16;
            found_line(model, name, selected == at, ctx)
                .render(Rect::new(rows_area.x, y, rows_area.width, 1), buf);
        }
    }
    if let Some(name) = &wait_row {
        let y = area.y + area.height - 1 - u16::from(op_row.is_some());
        roster::waiting::render_line(model, name, ctx, Rect::new(area.x, y, area.width, 1), buf);
    }
    if ui.detail_open {
        let slot = roster.rows.get(selected);
        let name = slot.map_or(ui.found.as_deref(), slot_name);
        render_detail(model, slot, name, &ui.detail, ctx, area, buf);
    }
    if let Some(name) = op_row {
        operations::render_op_line(model, &name, theme, area, buf);
    }
    if let Some(picker) = &ui.picker {
        operations::render_picker(model, picker, theme, area, buf);
    }
}

/// Where the open detail pane paints over the surface `area`: the right half from 110 columns,
/// else the whole surface; the logs always take the whole surface.
fn detail_pane(area: Rect, ui: &detail::DetailUi) -> Rect {
    if ui.logs.is_none() && area.width >= 110 {
        Rect::new(
            area.x + area.width / 2,
            area.y,
            area.width - area.width / 2,
            area.height,
        )
    } else {
        area
    }
}

/// A row's Keeper name (an undecodable row's when it had one).
pub fn slot_name(slot: &KeeperRowSlot) -> Option<&str> {
    match slot {
        KeeperRowSlot::Row(r) => Some(r.name.as_str()),
        KeeperRowSlot::Undecodable { name, .. } => name.as_deref(),
    }
}

/// The detail pane of the selected row (`slot`), or of the Keeper found by name beyond the
/// loaded page (no roster row: `slot` is `None`, `name` is the name asked).
fn render_detail(
    model: &Model,
    slot: Option<&KeeperRowSlot>,
    name: Option<&str>,
    ui: &detail::DetailUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let reads = ui
        .keeper
        .as_deref()
        .filter(|k| Some(*k) == name)
        .and_then(|k| model.keeper_detail.of(k));
    if let Some(scroll) = ui.logs {
        // The logs take the whole surface (surfaces.md "Keeper logs").
        Clear.render(area, buf);
        let keeper = name.unwrap_or("(no name)");
        let title = detail::logs::title_line(
            keeper,
            reads
                .and_then(|d| d.metrics.fetched.last())
                .map(|o| &*o.value),
            theme,
        );
        title.render(Rect::new(area.x, area.y, area.width, 1), buf);
        let body = Rect::new(
            area.x,
            area.y + 1,
            area.width,
            area.height.saturating_sub(1),
        );
        Paragraph::new(detail::logs::body_lines(
            reads,
            scroll,
            body.height as usize,
            ctx,
        ))
        .render(body, buf);
        return;
    }
    let title = match (slot, name) {
        (Some(KeeperRowSlot::Undecodable { .. }), _) => {
            " UNDECODABLE ROW · Esc closes ".to_string()
        }
        (_, Some(name)) => format!(" KEEPER {} · Esc closes ", sanitize(name)),
        (_, None) => " KEEPER · Esc closes ".to_string(),
    };
    let pane = detail_pane(area, ui);
    let mut tabs = Vec::new();
    for tab in detail::DetailTab::ALL {
        let tone = if tab == ui.tab {
            Tone::Accent
        } else {
            Tone::Dim
        };
        tabs.push(Span::styled(
            format!("[{}] ", tab.label()),
            theme.style(tone),
        ));
    }
    let mut lines = vec![Line::from(tabs)];
    match ui.tab {
        detail::DetailTab::Info => {
            lines.extend(detail::info_lines(reads, ctx));
            if let Some(name) = name {
                lines.extend(roster::waiting::detail_lines(model, name, ctx));
            }
            lines.push(Line::styled("ROSTER ROW", theme.style(Tone::Strong)));
            match slot {
                Some(slot) => lines.extend(detail_lines(slot, ctx)),
                None => lines.push(Line::styled(
                    "not on the loaded page (MASC lists at most 200): found by name",
                    theme.style(Tone::Dim),
                )),
            }
        }
        detail::DetailTab::Instructions => {
            lines.extend(detail::instructions_lines(reads, ctx));
        }
    }
    Clear.render(pane, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((ui.scroll, 0))
        .block(
            Block::bordered()
                .title(fit_width(&title, pane.width.saturating_sub(2) as usize).into_owned()),
        )
        .render(pane, buf);
}

/// `/` search over the roster (live jump, `n`/`N`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// Still typing (the footer shows the prompt).
    pub typing: bool,
}

/// Roster UI state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RosterUi {
    pub selected: usize,
    pub offset: usize,
    pub search: Option<Search>,
    pub detail_open: bool,
    /// The detail pane's tab, scroll and logs (`keepers::detail`).
    pub detail: detail::DetailUi,
    /// The last search found nothing (footer says so).
    pub search_missed: bool,
    /// A Keeper asked of the server by name because it is not on the loaded page: one more
    /// row after the page's (selectable at index `rows.len()`).
    pub found: Option<String>,
    /// The `U` runtime picker, while open.
    pub picker: Option<operations::RuntimePicker>,
    /// A lifecycle key armed (`s`, `x`) or the tool-gate choice (`g`).
    pub pending: Option<operations::lifecycle::Pending>,
}

/// The Keepers roster as a [`Screen`](super::screen::Screen), with what it keeps: the roster's
/// cursor, search, detail and pickers, the painted rows, the settings editor `e` (H-1…H-7) and
/// the Create Keeper drafts `a` (H-16, H-17).
#[derive(Debug, Default)]
pub struct KeepersScreen {
    pub roster: RosterUi,
    /// Painted roster rows kept between frames (`paint`).
    pub paint: roster::paint::RowPaintCache,
    /// The settings editor `e`: its preparation and the edit open.
    pub settings: operations::settings::SettingsUi,
    /// Create Keeper `a`: the declaration drafts per workspace.
    pub create: operations::create::CreateUi,
    /// The removals (deletes, unbinds) whose receipt was said (`operations::removal_receipts`).
    pub removals_said: std::collections::BTreeSet<crate::actors::saves::SaveId>,
}

impl super::screen::Screen for KeepersScreen {
    fn tab(&self) -> super::Tab {
        super::Tab::Keepers
    }

    fn render(
        &self,
        model: &Model,
        _ui: &super::Ui,
        ctx: &ProjectionCtx,
        area: Rect,
        buf: &mut Buffer,
    ) {
        render(model, &self.roster, &self.paint, ctx, area, buf);
    }

    fn footer(&self, _ui: &super::Ui, _theme: Theme) -> Vec<Span<'static>> {
        Vec::new()
    }

    /// The roster's search with its `n`/`N`, while it is kept.
    fn recall(&self, theme: Theme) -> Option<Span<'static>> {
        self.roster.search.as_ref().map(|search| {
            Span::styled(
                format!("/{} (n/N) · ", sanitize(&search.query)),
                theme.style(Tone::Accent),
            )
        })
    }

    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table> {
        if self.roster.detail_open && self.roster.detail.logs.is_some() {
            vec![&keys::LOGS]
        } else if self.roster.detail_open {
            vec![&keys::DETAIL]
        } else {
            vec![&keys::ROSTER]
        }
    }

    fn handle_key(&mut self, ui: &mut super::Ui, model: &Model, key: KeyEvent) -> UiCommand {
        keys::handle(self, ui, model, key)
    }

    /// A click on a roster row selects it (the title and the column heading are the first two
    /// rows of the body).
    fn click(&mut self, ui: &mut super::Ui, model: &Model, _column: u16, row: u16) -> UiCommand {
        if self.roster.detail_open || row < 2 {
            return UiCommand::None;
        }
        let page = ui.roster_page_rows().max(1);
        keys::select_shown(&mut self.roster, model, usize::from(row - 2), page)
    }

    fn refresh(&mut self, _ui: &mut super::Ui) -> UiCommand {
        use crate::actors::keeper_detail::KeeperDetailCommand;
        // In the detail (and its logs) `r` re-reads that Keeper's detail (L-4, N-3).
        match self.roster.detail.keeper.clone() {
            Some(keeper) if self.roster.detail_open => {
                UiCommand::send(KeeperDetailCommand::Refresh { keeper })
            }
            _ => UiCommand::Refresh(crate::actors::keepers::ROSTER),
        }
    }

    fn typing(&self) -> bool {
        keys::typing(&self.roster)
    }

    fn typing_key(&mut self, ui: &mut super::Ui, model: &Model, key: KeyEvent) -> UiCommand {
        keys::typing_key(&mut self.roster, ui, model, key)
    }

    fn typing_footer(&self, _ui: &super::Ui, theme: Theme) -> Vec<Span<'static>> {
        if self.roster.picker.is_some() {
            return vec![Span::styled(
                " j/k choose · Enter assign · Esc close",
                theme.style(Tone::Dim),
            )];
        }
        let Some(search) = self.roster.search.as_ref() else {
            return Vec::new();
        };
        let mut spans = vec![
            Span::styled("/", theme.style(Tone::Accent)),
            Span::raw(sanitize(&search.query).into_owned()),
            Span::styled("▏", theme.style(Tone::Accent)),
            Span::styled("  Enter keep · Esc cancel", theme.style(Tone::Dim)),
        ];
        if self.roster.search_missed {
            spans.push(Span::styled("  no match", theme.style(Tone::Warn)));
        }
        spans
    }

    /// H-2: `Esc` while a settings preparation waits cancels it, and nothing else.
    fn escape(&mut self, ui: &mut super::Ui) -> bool {
        operations::settings::escape(&mut self.settings, &mut ui.notice.text)
    }

    fn paste(&mut self, ui: &mut super::Ui, model: &Model, text: &str) -> bool {
        keys::paste(&mut self.roster, ui, model, text)
    }

    fn edited(
        &mut self,
        ui: &mut super::Ui,
        model: &Model,
        result: crate::view::editor::EditResult,
    ) -> UiCommand {
        match result.purpose {
            crate::view::editor::EditPurpose::KeeperSettings => {
                operations::settings::edited(&mut self.settings, ui, model, result)
            }
            crate::view::editor::EditPurpose::KeeperCreate => {
                operations::create::edited(&mut self.create, &mut ui.notice.text, model, result)
            }
            _ => {
                ui.notice.text = Some(result.notice());
                UiCommand::Repaint
            }
        }
    }

    /// The Runtime catalogue only while the `U` picker reads it.
    fn shown_sources(&self) -> &'static [SourceKey] {
        use crate::actors::{
            connectors::CONNECTORS,
            keeper_detail::KEEPER_DETAIL,
            keepers::{ROSTER, WAITING_INVENTORY},
            runtime::RUNTIME,
        };
        if self.roster.picker.is_some() {
            &[
                ROSTER,
                WAITING_INVENTORY,
                KEEPER_DETAIL,
                CONNECTORS,
                RUNTIME,
            ]
        } else {
            &[ROSTER, WAITING_INVENTORY, KEEPER_DETAIL, CONNECTORS]
        }
    }

    fn react(&mut self, ui: &mut super::Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        use crate::actors::keeper_detail::KEEPER_DETAIL;
        match seen {
            // A move or withdrawal cancels a settings preparation; its snapshot opens the
            // editor; a move cancels the editor opening for it (H-2, H-3).
            Seen::Delivered | Seen::Identity | Seen::Key => {
                // A removed Keeper's row (or binding) leaves its list with its receipt: the
                // receipt is said in the notice line instead.
                if let Some(said) =
                    operations::removal_receipts(cx.model(), &mut self.removals_said)
                {
                    ui.notice.text = Some(said);
                    cx.repaint();
                }
                if self.settings.sent.is_some()
                    && operations::settings_conflict::follow_receipt(self, ui, cx)
                {
                    cx.repaint();
                }
                if self.settings.prep.is_some() && operations::settings::follow(self, ui, cx) {
                    cx.repaint();
                }
                if operations::settings::open_edit_moved(self, ui) {
                    cx.edit_moved();
                }
            }
            // A restarted Keeper detail source lost its watches: watch again (new tickets).
            Seen::Restarted(source) if source == KEEPER_DETAIL => {
                for cmd in cx.model().keeper_detail.rewatch_commands() {
                    let _ = cx.send(KEEPER_DETAIL, cmd);
                }
            }
            Seen::Restarted(_) => {}
        }
    }
}

/// A Keeper operation (Sandbox `d`/`m`/`s`, the `U` picker's choice, a lifecycle action, a
/// settings save, a create): a save of its kind on the one save path (previewed first when its
/// kind says so), then the Keepers screen's reaction — the picker closes or keeps its choice,
/// and a pause or shutdown sent (not only previewed) for a bound Keeper offers to unbind too,
/// as a confirmation of its own (`operations::lifecycle::unbind_offer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperOp(pub crate::view::save_path::SaveRequest);

impl KeeperOp {
    /// The command submitting `intent` as a Keeper operation of kind `K`.
    pub fn command<K: crate::view::save_path::SaveCompanion>(
        intent: K::Intent,
    ) -> crate::view::command::UiCommand {
        crate::view::command::UiCommand::local(Self(crate::view::save_path::SaveRequest::new::<K>(
            intent,
        )))
    }
}

impl crate::view::screens::local::LocalEvent for KeeperOp {
    fn run(&self, ui: &mut super::Ui, fx: &mut crate::view::effects::Effects<'_>) {
        use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleSave};
        let offer_for = self
            .0
            .intent::<LifecycleSave>()
            .filter(|i| matches!(i.action, LifecycleAction::Pause | LifecycleAction::Shutdown))
            .map(|i| i.keeper.clone());
        let submitted = fx.submit(self.0.clone());
        if let Some(roster) = ui.screen_mut::<KeepersScreen>().map(|k| &mut k.roster) {
            operations::submitted(roster, submitted.is_err());
        }
        let sent = submitted.as_ref().is_ok_and(|s| s.is_committed());
        ui.notice.text = crate::view::save_path::notice(submitted);
        if sent
            && let Some(keeper) = offer_for
            && let Some(layer) = operations::lifecycle::unbind_offer(fx.model, &keeper)
        {
            super::confirm::open(ui, layer);
        }
    }
}

#[cfg(test)]
mod tests;
