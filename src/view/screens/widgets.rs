//! Widgets every screen shares, in one place: the list offset that keeps a selection visible,
//! the status and annotation lines of a slot (never "empty" for unread, warming or failed,
//! G-4, G-5), the Keeper status marks, one-row rects, and the cycling of closed rings (tabs,
//! panes, filters, sorts).

use super::ProjectionCtx;
use crate::protocol::keepers::KeeperStatus;
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

/// One status line for a slot without a usable value (never read / reading / warming /
/// failed), or `None` when there is a value to show.
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
        _ => return None,
    };
    Some(Line::styled(text, theme.style(tone)))
}

pub fn failure_text(what: &str, error: &SlotFailure, retrying: bool) -> String {
    let retry = if retrying { " · retrying…" } else { "" };
    format!("{what}: read failed ({}){retry}", error.class)
}

/// The annotation beside a shown value (re-reading, warming, failed re-read).
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
        _ => None,
    }
}

/// A rect's row `i` (1 high), clipped to the rect.
pub fn row(area: Rect, i: u16) -> Option<Rect> {
    (i < area.height).then(|| Rect::new(area.x, area.y + i, area.width, 1))
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
