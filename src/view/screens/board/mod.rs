//! The Board surface (surfaces.md "Board"; sources.md E-1…E-15): the order legend, the hearth
//! census line, the post list, and the read view of one post (body, then comments).
//!
//! What it never does: relabel kept posts with the current controls (E-12: a list read with
//! another query is "last observation (order …)"), draw census totals unless the census is
//! received with nothing pending (E-4), or read a failed census as 0 (E-3).

pub mod compose;
pub mod keys;
mod post;

use super::ProjectionCtx;
use super::widgets::{
    annotation, effective_offset, failure_text, no_value_line, not_served_any_more,
    not_served_text, row,
};
use crate::actors::board::{BoardQuery, BoardSort};
use crate::protocol::board::{BoardPost, CreatedAt};
use crate::view::board::PostsObservation;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::text::{display_width, fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// Board UI state: the controls, the selection (by post identity, E-9) and the open post.
#[derive(Debug, Clone, Default)]
pub struct BoardUi {
    /// The controls; the list shown may have been read with another query (E-12).
    pub query: BoardQuery,
    /// The selected post's id (kept by identity across new lists, E-9).
    pub selected: Option<String>,
    pub offset: usize,
    /// The post being read (its detail is `Model::board.post`).
    pub open: Option<String>,
    /// Scroll of the read view, in rows.
    pub scroll: usize,
    /// The post being composed (`w`), kept until it is posted or discarded (E-7).
    pub compose: Option<compose::Compose>,
}

/// Rows above the list: title, census, column header.
pub const LIST_HEADER_ROWS: u16 = 3;

/// The posts of the admitted list, if any.
pub fn shown_posts(model: &Model) -> Option<&PostsObservation> {
    model.board.posts.fetched.last().map(|o| o.value.as_ref())
}

/// The index of the selected post in `posts` (identity first; else the first row).
pub fn selected_index(ui: &BoardUi, posts: &[BoardPost]) -> usize {
    ui.selected
        .as_deref()
        .and_then(|id| posts.iter().position(|p| p.id == id))
        .unwrap_or(0)
}

fn query_words(q: &BoardQuery) -> String {
    format!(
        "order {} · hearth {}",
        q.sort.as_str(),
        q.hearth
            .as_deref()
            .map(|h| sanitize(h).into_owned())
            .unwrap_or_else(|| "all".into())
    )
}

fn title_line(model: &Model, ui: &BoardUi, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let mut spans = vec![Span::styled("BOARD  ", theme.style(Tone::Strong))];
    match shown_posts(model) {
        Some(obs) => {
            spans.push(Span::raw(format!(
                "{} · {} posts",
                query_words(&obs.query),
                obs.page.posts.len()
            )));
            if obs.query != ui.query {
                // E-12: never relabelled with the current controls.
                spans.push(Span::styled(
                    format!(" · last observation; asked: {}", query_words(&ui.query)),
                    theme.style(Tone::Warn),
                ));
            }
        }
        None => spans.push(Span::raw(query_words(&ui.query))),
    }
    if let Some((text, tone)) = annotation(&model.board.posts.fetched, ctx.now) {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(text, theme.style(tone)));
    }
    // E-2: pending while any slot remains — the posts arriving first do not end it. A
    // background re-read under a shown value says so only once it is slow (T.2).
    if model.board.pending() {
        let board = &model.board;
        let remaining: Vec<&str> = [
            (
                "posts",
                board.posts.in_flight() && visible(&board.posts.fetched, ctx),
            ),
            (
                "hearths",
                board.census.in_flight() && visible(&board.census.fetched, ctx),
            ),
        ]
        .into_iter()
        .filter_map(|(name, pending)| pending.then_some(name))
        .collect();
        if !remaining.is_empty() {
            spans.push(Span::styled(
                format!("  pending: {}", remaining.join(", ")),
                theme.style(Tone::Busy),
            ));
        }
    }
    Line::from(spans)
}

/// Whether a slot's read in flight is news on screen: a first read, or a re-read the user
/// asked for or that is slow (T.2).
fn visible<T: Clone>(fetched: &Fetched<T>, ctx: &ProjectionCtx) -> bool {
    matches!(fetched, Fetched::Loading) || fetched.shows_reading(ctx.now)
}

/// E-3/E-4: five census states, totals only when received with nothing pending.
pub fn census_line(model: &Model, theme: Theme) -> Line<'static> {
    let census = &model.board.census;
    let names = |h: &crate::protocol::board::HearthCensus| {
        h.hearths
            .iter()
            .map(|x| format!("{} {}", sanitize(&x.name), x.count))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let (text, tone) = match &census.fetched {
        Fetched::NotRequested => ("hearths: not read yet".to_string(), Tone::Dim),
        Fetched::Loading => ("hearths: reading…".to_string(), Tone::Busy),
        Fetched::Warming { .. } => ("hearths: server warming up".to_string(), Tone::Warn),
        Fetched::Ready(o) if model.board.census_settled() => {
            let total: u64 = o.value.hearths.iter().map(|h| h.count).sum();
            if o.value.hearths.is_empty() {
                (
                    "hearths: none (no post has a hearth)".to_string(),
                    Tone::Dim,
                )
            } else {
                (
                    format!(
                        "hearths ({}, {total} posts): {}",
                        o.value.hearths.len(),
                        names(&o.value)
                    ),
                    Tone::Normal,
                )
            }
        }
        Fetched::Ready(o) | Fetched::Refreshing { last: o, .. } => (
            format!("hearths (last observation): {}", names(&o.value)),
            Tone::Dim,
        ),
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => (
            format!(
                "hearths (last observation; read failed: {}): {}",
                error.class,
                names(&o.value)
            ),
            Tone::Bad,
        ),
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => (
            failure_text("hearths unavailable", error, *retrying),
            Tone::Bad,
        ),
        Fetched::NotServed { route, last: None } => {
            (not_served_text("hearths", *route), Tone::Warn)
        }
        Fetched::NotServed {
            route,
            last: Some(o),
        } => (
            format!(
                "hearths (last observation; {}): {}",
                not_served_any_more(*route),
                names(&o.value)
            ),
            Tone::Warn,
        ),
    };
    Line::styled(text, theme.style(tone))
}

/// When a post was made, as `YYYY-MM-DD HH:MM` UTC (ISO text cut, or unix seconds).
pub fn when(created: &CreatedAt) -> String {
    if let Some(iso) = &created.iso {
        // `YYYY-MM-DDTHH:MM…`: the minute, as every other clock of the surface.
        return sanitize(iso).replace('T', " ").chars().take(16).collect();
    }
    created.unix.map_or_else(|| "-".to_string(), unix_minute)
}

pub fn unix_minute(unix: f64) -> String {
    let secs = unix.floor() as i64;
    match time::OffsetDateTime::from_unix_timestamp(secs) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute()
        ),
        Err(_) => "-".to_string(),
    }
}

/// E-13: the time column follows the list's actual query (`updated` shows update times).
fn time_of(post: &BoardPost, sort: BoardSort) -> String {
    match (sort, post.updated_at) {
        (BoardSort::Updated, Some(u)) => unix_minute(u),
        _ => when(&post.created),
    }
}

fn post_row(
    post: &BoardPost,
    sort: BoardSort,
    selected: bool,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let mark = if selected { "▸ " } else { "  " };
    let fixed = format!(
        "{}{} {} {:>4} {:>4}  {}  ",
        mark,
        pad_to(&fit_width(&sanitize(&post.id), 10), 10),
        pad_to(&fit_width(&sanitize(&post.author), 12), 12),
        post.votes,
        post.comment_count,
        time_of(post, sort)
    );
    let rest = width.saturating_sub(display_width(&fixed));
    let mut title = sanitize(&post.title).into_owned();
    if post.pinned == Some(true) {
        title = format!("📌 {title}");
    }
    let text = format!("{fixed}{}", fit_width(&title, rest));
    let tone = if selected { Tone::Accent } else { Tone::Normal };
    Line::styled(text, theme.style(tone))
}

pub fn render(model: &Model, ui: &BoardUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    if let Some(c) = ui.compose.as_ref().filter(|c| c.open()) {
        let lines = compose::lines(model, c, ctx.theme, area.width as usize);
        for (i, line) in lines.into_iter().enumerate() {
            if let Some(r) = row(area, i as u16) {
                crate::view::terminal::cells::render_line(&line, r, buf);
            }
        }
        return;
    }
    if ui.open.is_some() {
        post::render(model, ui, ctx, area, buf);
        return;
    }
    let theme = ctx.theme;
    let mut y = 0u16;
    let mut put = |line: Line<'static>, buf: &mut Buffer| {
        if let Some(r) = row(area, y) {
            crate::view::terminal::cells::render_line(&line, r, buf);
        }
        y += 1;
    };
    put(title_line(model, ui, ctx), buf);
    // E-7: a kept draft says so above whatever the list shows (last observation or failure).
    if let Some(c) = &ui.compose {
        put(
            Line::styled(
                fit_width(
                    &format!(
                        "draft kept: {} (w to continue)",
                        sanitize(c.title.text().trim())
                    ),
                    area.width as usize,
                )
                .into_owned(),
                theme.style(Tone::Accent),
            ),
            buf,
        );
    }
    put(census_line(model, theme), buf);
    let Some(obs) = shown_posts(model) else {
        if let Some(line) = no_value_line("posts", &model.board.posts.fetched, theme) {
            put(line, buf);
        }
        return;
    };
    let header = format!(
        "  {} {} {:>4} {:>4}  {:<16}  TITLE",
        pad_to("POST", 10),
        pad_to("AUTHOR", 12),
        "▲",
        "💬",
        if obs.query.sort == BoardSort::Updated {
            "UPDATED"
        } else {
            "CREATED"
        }
    );
    put(Line::styled(header, theme.style(Tone::Dim)), buf);
    let posts = &obs.page.posts;
    if posts.is_empty() {
        put(
            Line::styled(
                format!("no posts for {}", query_words(&obs.query)),
                theme.style(Tone::Dim),
            ),
            buf,
        );
        return;
    }
    let page = area.height.saturating_sub(LIST_HEADER_ROWS) as usize;
    let selected = selected_index(ui, posts);
    let offset = effective_offset(selected, ui.offset, page, posts.len());
    for (i, post) in posts.iter().enumerate().skip(offset).take(page) {
        put(
            post_row(
                post,
                obs.query.sort,
                i == selected,
                area.width as usize,
                theme,
            ),
            buf,
        );
    }
}

/// The Board footer while a post is composed (the hints otherwise come from the bindings).
pub fn footer_spans(ui: &BoardUi, theme: Theme) -> Vec<Span<'static>> {
    if let Some(c) = ui.compose.as_ref().filter(|c| c.open()) {
        return compose::footer(c, theme);
    }
    Vec::new()
}

/// The Board surface as a [`Screen`](super::screen::Screen): its state is its own.
impl super::screen::Screen for BoardUi {
    fn tab(&self) -> super::Tab {
        super::Tab::Board
    }

    fn render(
        &self,
        model: &Model,
        _ui: &super::Ui,
        ctx: &ProjectionCtx,
        area: Rect,
        buf: &mut Buffer,
    ) {
        render(model, self, ctx, area, buf);
    }

    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table> {
        vec![if self.open.is_some() {
            &keys::POST
        } else {
            &keys::POSTS
        }]
    }

    fn handle_key(
        &mut self,
        ui: &mut super::Ui,
        model: &Model,
        key: crossterm::event::KeyEvent,
    ) -> crate::view::command::UiCommand {
        let rows = super::body_area(ui.area).height;
        keys::handle(self, model, key, rows)
    }

    fn refresh(&mut self, _ui: &mut super::Ui) -> crate::view::command::UiCommand {
        keys::refresh(self)
    }

    /// The compose view takes every key while it is open (its own `Esc` menu).
    fn typing(&self) -> bool {
        self.compose.as_ref().is_some_and(|c| c.open())
    }

    fn typing_key(
        &mut self,
        ui: &mut super::Ui,
        model: &Model,
        key: crossterm::event::KeyEvent,
    ) -> crate::view::command::UiCommand {
        compose::key(&mut self.compose, model, key, &mut ui.notice.text)
    }

    fn typing_footer(&self, _ui: &super::Ui, theme: Theme) -> Vec<Span<'static>> {
        footer_spans(self, theme)
    }

    fn paste(&mut self, _ui: &mut super::Ui, _model: &Model, text: &str) -> bool {
        compose::paste(&mut self.compose, text)
    }

    fn edited(
        &mut self,
        ui: &mut super::Ui,
        _model: &Model,
        result: crate::view::editor::EditResult,
    ) -> crate::view::command::UiCommand {
        compose::edited(&mut self.compose, result, &mut ui.notice.text);
        crate::view::command::UiCommand::Repaint
    }

    fn shown_sources(&self) -> &'static [crate::actors::contract::SourceKey] {
        &[crate::actors::board::BOARD]
    }
}
