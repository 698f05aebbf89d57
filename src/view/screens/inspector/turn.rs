//! The turn inspector (`O`; sources.md K-14…K-17; protocol.md §10.4, §14.11): pinned to one
//! recorded `Turn_ref` — never replaced by the Keeper's current turn — with four tabs:
//! `1:record`, `2:input`, `3:request` and `4:response`.
//!
//! - The response is the v2 turn transcript, read once when the inspector opens (or on `r`),
//!   validated for Keeper, `Turn_ref`, version and every row by the decoder; a failed read is
//!   never an empty response, and "not retained" is its own state. A request failure row is its
//!   own kind, never a Keeper utterance.
//! - The turn record and the serialized input (§14.11) are read by the turn-inspector source
//!   when the inspector opens ([`super::turn_reads`]): the record only by its exact
//!   `Turn_ref` ("not on this page" otherwise, never another turn's record, K-14); each read
//!   has its own state (K-15: `조회 중` reading, `조회 불가` unavailable, permission denied).
//!   A pinned turn older than the page is reached with `H`, a wider page (MASC has no cursor,
//!   only `limit`: 50 → 200 → 500, its maximum).
//! - Tab entry and scrolling issue no HTTP; the response's Markdown is rendered only on the
//!   response tab and cached by (Keeper, `Turn_ref`, width, palette, observation) (K-17).
//! - Each tab keeps its own scroll; closing the inspector leaves the reader's question,
//!   scroll, origin and draft as they were (K-16).

use super::turn_reads;
use crate::actors::asks::TurnTarget;
use crate::protocol::transcript::{
    TranscriptRole, TranscriptRowKind, TranscriptVersion, TurnTranscript,
};
use crate::view::bindings::{ESC, LEFT, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, bind};
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use crate::view::transcript::markdown::render_markdown;
use crate::view::transcript::wrap::{LogicalLine, Run, wrap_lines};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

/// The inspector's tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InspectorTab {
    Record,
    Input,
    Request,
    Response,
}

impl InspectorTab {
    pub const ALL: [Self; 4] = [Self::Record, Self::Input, Self::Request, Self::Response];

    pub fn index(self) -> usize {
        match self {
            Self::Record => 0,
            Self::Input => 1,
            Self::Request => 2,
            Self::Response => 3,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Record => "1:record",
            Self::Input => "2:input",
            Self::Request => "3:request",
            Self::Response => "4:response",
        }
    }
}

/// What the response's Markdown was rendered for (K-17).
#[derive(Debug, Clone, PartialEq)]
struct MemoKey {
    target: TurnTarget,
    width: u16,
    theme: Theme,
    /// The observation rendered (a new read of the same turn renders again).
    observed_at: Instant,
}

/// The rendered response, cached by [`MemoKey`].
#[derive(Debug, Clone, Default)]
pub struct ResponseMemo {
    key: Option<MemoKey>,
    lines: Vec<Line<'static>>,
    /// How many times the Markdown was rendered (tests: K-17).
    pub renders: u32,
}

/// The inspector's state.
#[derive(Debug, Clone)]
pub struct Inspector {
    /// The pinned turn (K-14).
    pub target: TurnTarget,
    pub tab: InspectorTab,
    /// Scroll per tab.
    pub scroll: [usize; 4],
    memo: RefCell<ResponseMemo>,
}

impl PartialEq for Inspector {
    fn eq(&self, other: &Self) -> bool {
        self.target == other.target && self.tab == other.tab && self.scroll == other.scroll
    }
}

impl Eq for Inspector {}

impl Inspector {
    /// Opens on the response tab (`4:response`).
    pub fn new(target: TurnTarget) -> Self {
        Self {
            target,
            tab: InspectorTab::Response,
            scroll: [0; 4],
            memo: RefCell::new(ResponseMemo::default()),
        }
    }

    /// Markdown renders so far (K-17).
    pub fn renders(&self) -> u32 {
        self.memo.borrow().renders
    }

    pub fn scroll_by(&mut self, delta: isize) {
        let i = self.tab.index();
        self.scroll[i] = self.scroll[i].saturating_add_signed(delta);
    }

    /// The response rows at `width`, rendered once per (Keeper, turn, width, palette,
    /// observation).
    fn response_rows(
        &self,
        transcript: &TurnTranscript,
        observed_at: Instant,
        width: u16,
        theme: Theme,
    ) -> Vec<Line<'static>> {
        let key = MemoKey {
            target: self.target.clone(),
            width,
            theme,
            observed_at,
        };
        let mut memo = self.memo.borrow_mut();
        if memo.key.as_ref() != Some(&key) {
            memo.lines = render_response(transcript, width as usize, theme);
            memo.key = Some(key);
            memo.renders += 1;
        }
        memo.lines.clone()
    }
}

/// The response rows of a transcript: one heading per row, its content as Markdown (a request
/// failure as plain text of its own kind).
fn render_response(t: &TurnTranscript, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let rows = match t {
        TurnTranscript::NotRetained { .. } => {
            return vec![Line::styled(
                "not retained: the server keeps no transcript of this turn (not an empty response)",
                theme.style(Tone::Warn),
            )];
        }
        TurnTranscript::Found { rows, .. } => rows,
    };
    if rows.is_empty() {
        return vec![Line::styled("retained, no rows", theme.style(Tone::Dim))];
    }
    let mut out = Vec::new();
    for row in rows {
        let who = match row.role {
            TranscriptRole::User => "› user",
            TranscriptRole::Assistant => "● keeper",
        };
        match row.kind {
            TranscriptRowKind::Utterance => {
                out.push(Line::styled(
                    format!(
                        "{who} · {}",
                        crate::view::screens::approvals::asks::clock(row.ts)
                    ),
                    theme.style(Tone::Dim),
                ));
                let lines = render_markdown(
                    &row.content,
                    theme.style(Tone::Normal),
                    theme.style(Tone::Dim),
                );
                out.extend(wrap_lines(&lines, width.max(1)));
            }
            TranscriptRowKind::RequestFailure => {
                out.push(Line::styled(
                    format!(
                        "✗ request failure · {}",
                        crate::view::screens::approvals::asks::clock(row.ts)
                    ),
                    theme.style(Tone::Bad),
                ));
                let plain: Vec<LogicalLine> = sanitize(&row.content)
                    .split('\n')
                    .map(|l| LogicalLine::plain(vec![Run::new(l, theme.style(Tone::Bad))]))
                    .collect();
                out.extend(wrap_lines(&plain, width.max(1)));
            }
        }
        out.push(Line::raw(""));
    }
    out
}

/// The state words of the response read (K-15: reading distinct from unavailable).
pub fn response_state(fetched: &Fetched<Arc<TurnTranscript>>) -> (String, Tone) {
    match fetched {
        Fetched::NotRequested => ("not read".into(), Tone::Dim),
        Fetched::Loading => ("reading (조회 중)".into(), Tone::Busy),
        Fetched::Refreshing { .. } => (
            "reading again (조회 중) · last observation shown".into(),
            Tone::Busy,
        ),
        Fetched::Warming { .. } => ("server warming up".into(), Tone::Warn),
        Fetched::NotServed { last, .. } => (
            format!(
                "unavailable (조회 불가): not served by this MASC{}",
                if last.is_some() {
                    " · last observation shown"
                } else {
                    ""
                }
            ),
            Tone::Dim,
        ),
        Fetched::Failed { error, last, .. } => (
            format!(
                "unavailable (조회 불가): read failed ({}){}",
                error.class,
                if last.is_some() {
                    " · last observation shown"
                } else {
                    ""
                }
            ),
            Tone::Bad,
        ),
        Fetched::Ready(o) => match o.value.as_ref() {
            TurnTranscript::Found { rows, version, .. } => (
                format!("received · {} rows{}", rows.len(), version_words(*version)),
                Tone::Good,
            ),
            TurnTranscript::NotRetained { version, .. } => (
                format!("received · not retained{}", version_words(*version)),
                Tone::Warn,
            ),
        },
    }
}

/// Which body the server answered (§15.10): MASC's own version 1 is named; the extension is the
/// default and says nothing.
fn version_words(version: TranscriptVersion) -> &'static str {
    match version {
        TranscriptVersion::V1 => " · MASC's version 1 (request and retained response)",
        TranscriptVersion::V2 => "",
    }
}

/// Paints the inspector into `area`.
pub fn render(model: &Model, ins: &Inspector, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let width = area.width as usize;
    let tabs: Vec<String> = InspectorTab::ALL
        .iter()
        .map(|t| {
            if *t == ins.tab {
                format!("[{}]", t.label())
            } else {
                t.label().to_string()
            }
        })
        .collect();
    let head = format!(
        "INSPECTOR · {} · {} (pinned) · {}",
        sanitize(&ins.target.keeper),
        sanitize(&ins.target.turn_ref),
        tabs.join(" ")
    );
    let mut y = 0u16;
    if y < area.height {
        Line::styled(
            fit_width(&head, width).into_owned(),
            theme.style(Tone::Strong),
        )
        .render(Rect::new(area.x, area.y, area.width, 1), buf);
        y += 1;
    }
    let fetched = model.asks.transcripts.get(&ins.target).map(|s| &s.fetched);
    let not_read = Fetched::NotRequested;
    let fetched = fetched.unwrap_or(&not_read);
    let styled = |rows: Vec<(String, Tone)>| -> Vec<Line<'static>> {
        rows.into_iter()
            .map(|(text, tone)| {
                Line::styled(fit_width(&text, width).into_owned(), theme.style(tone))
            })
            .collect()
    };
    let rows: Vec<Line<'static>> = match ins.tab {
        InspectorTab::Record => styled(turn_reads::record_tab(model, &ins.target)),
        InspectorTab::Input => styled(turn_reads::input_tab(model, &ins.target)),
        InspectorTab::Request => {
            let (words, tone) = response_state(fetched);
            let mut rows = styled(turn_reads::request_states(model, &ins.target));
            rows.extend([
                Line::styled(format!("response          {words}"), theme.style(tone)),
                Line::styled(
                    "  1:record, 2:input and 4:response show each reading",
                    theme.style(Tone::Dim),
                ),
            ]);
            rows
        }
        InspectorTab::Response => {
            let (words, tone) = response_state(fetched);
            let mut rows = vec![Line::styled(words, theme.style(tone))];
            if let Some(o) = fetched.last() {
                rows.extend(ins.response_rows(&o.value, o.observed_at, area.width, theme));
            }
            rows
        }
    };
    let page = area.height.saturating_sub(y) as usize;
    let max = rows.len().saturating_sub(page);
    let offset = ins.scroll[ins.tab.index()].min(max);
    for line in rows.into_iter().skip(offset).take(page) {
        line.render(Rect::new(area.x, area.y + y, area.width, 1), buf);
        y += 1;
    }
}

/// The inspector's keys, for `?`.
pub const INSPECTOR: Table = Table {
    title: "Turn inspector keys",
    bindings: &[
        bind(
            "1 2 3 4",
            &[
                Press::ch('1'),
                Press::ch('2'),
                Press::ch('3'),
                Press::ch('4'),
            ],
            "tab: record, input, request, response (no read on tab entry)",
        ),
        bind("Left / Right", &[LEFT, RIGHT], "previous / next tab"),
        bind(
            "j / k, PgUp / PgDn",
            &[Press::ch('j'), Press::ch('k'), PAGE_UP, PAGE_DOWN],
            "scroll this tab (no read)",
        ),
        bind(
            "r",
            &[],
            "read the pinned turn's record, serialized input and transcript again (the global r)",
        ),
        bind(
            "H",
            &[Press::ch('H')],
            "turn not on the records page: read a wider page (50, 200, MASC's maximum 500)",
        ),
        bind(
            "Esc",
            &[ESC],
            "close; the reader's question, scroll and draft are as they were",
        ),
    ],
};
