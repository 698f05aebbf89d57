//! Widgets every screen shares, in one place: the list offset that keeps a selection visible,
//! the status and annotation lines of a slot (never "empty" for unread, warming or failed,
//! G-4, G-5), the words for a route this MASC does not serve (what is missing and
//! what the operator can do — never `degraded`, `0` or `data unreliable`), the Keeper status
//! marks, one-row rects, and the cycling of closed rings (tabs, panes, filters, sorts).

use super::ProjectionCtx;
use crate::protocol::keepers::KeeperStatus;
use crate::protocol::routes::{RouteFamily, RouteOrigin};
use crate::view::fetched::{Fetched, SlotFailure};
use crate::view::theme::{Theme, Tone};
use ratatui::layout::Rect;
use ratatui::text::Line;
use std::time::Instant;

/// A closed ring of choices that `Tab`, `p`, `f` or `s` walk.
pub trait Ring: Copy + PartialEq + 'static {
    /// Every value, in walking order.
    const RING: &'static [Self];

    fn position(self) -> usize {
        Self::RING.iter().position(|v| *v == self).unwrap_or(0)
    }

    fn next(self) -> Self {
        let ring = Self::RING;
        ring.get((self.position() + 1) % ring.len().max(1))
            .copied()
            .unwrap_or(self)
    }

    fn previous(self) -> Self {
        let ring = Self::RING;
        let len = ring.len().max(1);
        ring.get((self.position() + len - 1) % len)
            .copied()
            .unwrap_or(self)
    }
}

/// The first visible row, keeping `selected` on screen.
pub fn effective_offset(selected: usize, offset: usize, page: usize, len: usize) -> usize {
    if page == 0 || len == 0 {
        return 0;
    }
    let max_offset = len.saturating_sub(page);
    let mut off = offset.min(max_offset);
    if selected < off {
        off = selected;
    } else if selected >= off + page {
        off = selected + 1 - page;
    }
    off.min(max_offset)
}

pub fn status_mark(status: KeeperStatus) -> (&'static str, Tone) {
    match status {
        KeeperStatus::Active => ("●", Tone::Good),
        KeeperStatus::Busy => ("◆", Tone::Busy),
        KeeperStatus::Listening => ("◎", Tone::Accent),
        KeeperStatus::Idle => ("○", Tone::Normal),
        KeeperStatus::Inactive => ("◌", Tone::Dim),
        KeeperStatus::Offline => ("·", Tone::Dim),
        KeeperStatus::Error => ("✗", Tone::Bad),
    }
}

/// What a route this MASC does not serve means for the operator. The one place
/// these words live: every surface, the Overview and the header take them from here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Absent {
    /// Compact name for the header's list of absent capabilities (`task list`, `asks`).
    pub short: &'static str,
    /// What is missing: the route and where it comes from.
    pub missing: String,
    /// What the operator can do about it (and what masc-tui shows instead, if anything).
    pub action: &'static str,
}

/// The words for `route` not being served by this MASC.
pub fn absent(route: RouteFamily) -> Absent {
    use RouteFamily as F;
    let (short, action) = match route {
        F::TaskList => (
            "task list",
            "upgrade MASC for the full list; the tasks linked to goals are listed from its goals tree",
        ),
        F::TaskDetail => (
            "task body",
            "upgrade MASC for the task body; the goal links' row is shown instead",
        ),
        F::TaskHistoryPage => (
            "task history pages",
            "upgrade MASC for paged history; its legacy recent events are shown instead",
        ),
        F::TaskHistoryLegacy => ("legacy task events", "no other route of this MASC has them"),
        F::Skills => ("skills", "upgrade MASC to read the Skills catalogue"),
        F::AsyncRequests => ("async runs", "upgrade MASC to read async runs"),
        F::AsyncRequest => ("async run detail", "upgrade MASC to read one async run"),
        F::ConnectorNames => (
            "connector names",
            "channel ids are shown without names; upgrade MASC for names",
        ),
        F::Asks => (
            "asks",
            "upgrade MASC, or read open asks in MASC's web dashboard",
        ),
        F::AskFollowUp => ("ask follow-up", "upgrade MASC to follow an answered ask"),
        F::TurnTranscript => ("turn transcript", "upgrade MASC to read a turn's response"),
        F::KeeperTurns => ("keeper turns", "upgrade MASC to see who is mid-turn"),
        F::KeeperCreate => ("keeper create", "create Keepers with MASC's own tools"),
        other => (
            other.as_str(),
            "upgrade MASC, or check it with `masc-tui doctor`",
        ),
    };
    let origin = match route.spec().origin {
        RouteOrigin::Extension => "a masc-tui extension MASC does not have",
        RouteOrigin::NewerMasc => "added in MASC releases newer than this one",
        RouteOrigin::Masc => "served by the MASC releases masc-tui covers; this one may be older",
    };
    Absent {
        short,
        missing: format!("{route} ({origin})"),
        action,
    }
}

/// The status words of a slot whose route this MASC does not serve: plainly what to do, then
/// what is missing (never `degraded`, `0` or `data unreliable`).
pub fn not_served_text(what: &str, route: RouteFamily) -> String {
    let a = absent(route);
    format!(
        "{what}: not served by this MASC — {}. Missing: {}.",
        a.action, a.missing
    )
}

/// The one-line form for summaries (the Overview): "not served by this MASC — what to do".
pub fn not_served_brief(route: RouteFamily) -> String {
    format!("not served by this MASC — {}", absent(route).action)
}

/// Beside a value read while the route was served: the server no longer serves it.
pub fn not_served_any_more(route: RouteFamily) -> String {
    format!(
        "not served by this MASC any more ({}) · last observation",
        absent(route).short
    )
}

/// [`not_served_text`] wrapped to `width` (continuation rows indented), for panes that have
/// the rows: the action must not be cut off.
pub fn not_served_lines(
    what: &str,
    route: RouteFamily,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let text = not_served_text(what, route);
    let mut out = Vec::new();
    for (i, row) in crate::view::text::wrap(&text, width.max(8))
        .into_iter()
        .enumerate()
    {
        let row = if i == 0 { row } else { format!("  {row}") };
        out.push(Line::styled(row, theme.style(Tone::Warn)));
    }
    out
}

/// One status line for a slot without a usable value (never read / reading / warming /
/// failed / not served), or `None` when there is a value to show.
pub fn no_value_line<T: Clone>(
    what: &str,
    fetched: &Fetched<T>,
    theme: Theme,
) -> Option<Line<'static>> {
    let (text, tone) = match fetched {
        Fetched::NotRequested => (format!("{what}: (not loaded yet)"), Tone::Dim),
        Fetched::Loading => (format!("{what}: reading…"), Tone::Busy),
        Fetched::Warming { last: None } => (format!("{what}: server warming up"), Tone::Warn),
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => (failure_text(what, error, *retrying), Tone::Bad),
        Fetched::NotServed { route, last: None } => (not_served_text(what, *route), Tone::Warn),
        _ => return None,
    };
    Some(Line::styled(text, theme.style(tone)))
}

/// A failed read's words: its class (a route this MASC does not serve is not a failure; its
/// words are [`not_served_text`]).
pub fn failure_text(what: &str, error: &SlotFailure, retrying: bool) -> String {
    let retry = if retrying { " · retrying…" } else { "" };
    format!("{what}: read failed ({}){retry}", error.class)
}

/// The annotation beside a shown value (re-reading, warming, failed re-read, a route that is
/// not served any more).
pub fn annotation<T: Clone>(fetched: &Fetched<T>, now: Instant) -> Option<(String, Tone)> {
    match fetched {
        Fetched::Refreshing { .. } if fetched.shows_reading(now) => {
            Some(("reading…".into(), Tone::Busy))
        }
        Fetched::Warming { last: Some(_) } => {
            Some(("server warming up · last observation".into(), Tone::Warn))
        }
        Fetched::Failed {
            last: Some(_),
            error,
            retrying,
        } => Some((
            format!(
                "data unreliable (read failed: {}){} · last observation",
                error.class,
                if *retrying { " · retrying…" } else { "" }
            ),
            Tone::Bad,
        )),
        // The route went away under a value read earlier: a known absence.
        Fetched::NotServed {
            route,
            last: Some(_),
        } => Some((not_served_any_more(*route), Tone::Warn)),
        _ => None,
    }
}

/// A rect's row `i` (1 high), clipped to the rect.
pub fn row(area: Rect, i: u16) -> Option<Rect> {
    (i < area.height).then(|| Rect::new(area.x, area.y + i, area.width, 1))
}

/// [`slot_status`] as rows of a pane `width` wide: a route this MASC does not serve gets its
/// whole sentence, wrapped ([`not_served_lines`]).
pub fn slot_status_lines<T: Clone>(
    what: &str,
    fetched: &Fetched<T>,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    match fetched {
        Fetched::NotServed { route, last: None } => {
            not_served_lines(what, *route, width, ctx.theme)
        }
        _ => slot_status(what, fetched, ctx).into_iter().collect(),
    }
}

/// The status words of a slot beside (or instead of) its value: `None` when the value
/// stands alone. Never "empty" for unread, warming or failed (G-5).
pub fn slot_status<T: Clone>(
    what: &str,
    fetched: &Fetched<T>,
    ctx: &ProjectionCtx,
) -> Option<Line<'static>> {
    if let Some(line) = no_value_line(what, fetched, ctx.theme) {
        return Some(line);
    }
    annotation(fetched, ctx.now)
        .map(|(text, tone)| Line::styled(format!("{what}: {text}"), ctx.theme.style(tone)))
}

/// The tone of a save's line by its receipt's class (`None`: still in flight).
pub fn receipt_tone(class: Option<crate::protocol::outcome::SaveClass>) -> Tone {
    use crate::protocol::outcome::SaveClass;
    match class {
        None => Tone::Busy,
        Some(SaveClass::Applied | SaveClass::Unchanged) => Tone::Good,
        Some(SaveClass::NotSent | SaveClass::Conflict) => Tone::Warn,
        Some(SaveClass::NotApplied | SaveClass::OutcomeUnknown) => Tone::Bad,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Three {
        A,
        B,
        C,
    }

    impl Ring for Three {
        const RING: &'static [Self] = &[Self::A, Self::B, Self::C];
    }

    #[test]
    fn rings_wrap_both_ways() {
        assert_eq!(Three::A.next(), Three::B);
        assert_eq!(Three::C.next(), Three::A);
        assert_eq!(Three::A.previous(), Three::C);
        assert_eq!(Three::B.previous(), Three::A);
    }

    #[test]
    fn offset_keeps_selection_visible() {
        assert_eq!(effective_offset(0, 0, 10, 100), 0);
        assert_eq!(effective_offset(15, 0, 10, 100), 6);
        assert_eq!(effective_offset(3, 6, 10, 100), 3);
        assert_eq!(effective_offset(99, 0, 10, 100), 90);
        assert_eq!(effective_offset(0, 50, 10, 5), 0);
    }
}
