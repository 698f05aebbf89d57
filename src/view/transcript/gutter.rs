//! The left gutter (§2.4): fixed order and fixed widths, never measured from loaded names
//! (T.5), so scrolling never re-wraps bodies.
//!
//! `Origin_inline`: rail margin 5 · clock 5+1 · mark+space+label 10 · quote bar 2 · body.
//! `Origin_bare` / `Origin_row`: a 3-cell margin (mark + two spaces) · body (C-23).

use super::modes::OriginMode;
use crate::view::text::display_width;

/// `turn_rail_cells`: siding 3 + glyph 1 + space 1, paid by every row.
pub const TURN_RAIL_CELLS: usize = 5;
/// `chat_clock_column`.
pub const CHAT_CLOCK_COLUMN: usize = 5;
/// Clock column plus its trailing space (`gutter_clock_cells`).
pub const GUTTER_CLOCK_CELLS: usize = CHAT_CLOCK_COLUMN + 1;
/// `chat_role_label_column`: the mark's cells come out of it.
pub const CHAT_ROLE_LABEL_COLUMN: usize = 10;
pub const QUOTE_BAR_CELLS: usize = 2;
/// An inbound row is indented 2 more cells.
pub const INBOUND_INDENT: usize = 2;
/// The bare margin: mark then two spaces (`›  `).
pub const BARE_MARGIN: usize = 3;
/// C-69: reading width in cells; wider panes leave the rest empty.
pub const READING_WIDTH: usize = 100;
/// C-19: the readable body budget of the width gate.
pub const MIN_READABLE_BODY: usize = 20;
/// C-19: `chat_min_terminal_cols` = 4 frame + 2 indent + 5 rail + 10 label + 20 body.
pub const CHAT_MIN_TERMINAL_COLS: usize =
    4 + 2 + TURN_RAIL_CELLS + CHAT_ROLE_LABEL_COLUMN + MIN_READABLE_BODY;
/// C-19 / T.5: at least 3 history rows.
pub const CHAT_MIN_HISTORY_ROWS: usize = 3;

/// Which gutter parts are drawn at this width (C-18: drop the rail first; then the clock and
/// the mark, keeping a shortened name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GutterLayout {
    pub origin: OriginMode,
    pub rail: bool,
    pub clock: bool,
    pub mark: bool,
    /// Cells of the reading area (≤ [`READING_WIDTH`]).
    pub reading: usize,
}

impl GutterLayout {
    pub fn new(origin: OriginMode, width: usize) -> Self {
        let reading = width.min(READING_WIDTH);
        let mut layout = Self {
            origin,
            rail: origin == OriginMode::Inline,
            clock: origin == OriginMode::Inline,
            mark: true,
            reading,
        };
        if origin == OriginMode::Inline {
            if reading.saturating_sub(layout.width(false)) < MIN_READABLE_BODY {
                layout.rail = false;
            }
            if reading.saturating_sub(layout.width(false)) < MIN_READABLE_BODY {
                layout.clock = false;
                layout.mark = false;
            }
        }
        layout
    }

    /// Gutter cells before the body; `inbound` adds the inbound indent (inline only).
    pub fn width(&self, inbound: bool) -> usize {
        match self.origin {
            OriginMode::Bare | OriginMode::Row => BARE_MARGIN,
            OriginMode::Inline => {
                let mut w = CHAT_ROLE_LABEL_COLUMN + QUOTE_BAR_CELLS;
                if self.rail {
                    w += TURN_RAIL_CELLS;
                }
                if self.clock {
                    w += GUTTER_CLOCK_CELLS;
                }
                if inbound {
                    w += INBOUND_INDENT;
                }
                w
            }
        }
    }

    /// Body cells (at least 1).
    pub fn body_width(&self, inbound: bool) -> usize {
        self.reading.saturating_sub(self.width(inbound)).max(1)
    }

    /// Cells of the label text after `mark + space` (the whole column when the mark is dropped).
    pub fn label_cells(&self) -> usize {
        if self.mark {
            CHAT_ROLE_LABEL_COLUMN - 2
        } else {
            CHAT_ROLE_LABEL_COLUMN
        }
    }
}

/// `fit_middle` of the label column: an overflowing name keeps head = ⌊(col−1)/3⌋ cells and
/// the tail = the rest around `…`, then is padded to exactly `col` cells. A wide grapheme
/// is never split; its cells become spaces (C-71).
pub fn fit_label(name: &str, col: usize) -> String {
    let width = display_width(name);
    if width <= col {
        let mut out = name.to_string();
        out.extend(std::iter::repeat_n(' ', col - width));
        return out;
    }
    if col == 0 {
        return String::new();
    }
    let head_budget = (col - 1) / 3;
    let tail_budget = col - 1 - head_budget;
    let (mut head, used, tail, tail_used) =
        crate::view::text::head_and_tail(name, head_budget, tail_budget);
    head.extend(std::iter::repeat_n(' ', head_budget - used));
    head.push('…');
    head.extend(std::iter::repeat_n(' ', tail_budget - tail_used));
    head.push_str(&tail);
    head
}

/// Minute bucket of a timestamp at a UTC offset (seconds east), for C-21.
pub fn minute_bucket(ts: f64, offset_secs: i32) -> Option<i64> {
    if !ts.is_finite() {
        return None;
    }
    Some(((ts.floor() as i64) + i64::from(offset_secs)).div_euclid(60))
}

/// The local day (days since 1970-01-01 at the same offset) of a minute bucket (C-24).
pub fn day_of(bucket: i64) -> i64 {
    bucket.div_euclid(24 * 60)
}

/// `YYYY-MM-DD` of a local day (the civil calendar, proleptic Gregorian).
pub fn date_text(day: i64) -> String {
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM` of a minute bucket (5 cells).
pub fn clock_text(bucket: i64) -> String {
    let minute_of_day = bucket.rem_euclid(24 * 60);
    format!("{:02}:{:02}", minute_of_day / 60, minute_of_day % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c19_min_terminal_cols_is_41() {
        assert_eq!(CHAT_MIN_TERMINAL_COLS, 41);
    }

    #[test]
    fn c18_rail_dropped_first_at_narrow_width() {
        let narrow = GutterLayout::new(OriginMode::Inline, 41);
        assert!(!narrow.rail && narrow.clock && narrow.mark);
        assert_eq!(narrow.width(false), 18);
        let wide = GutterLayout::new(OriginMode::Inline, 60);
        assert_eq!(wide.width(false), 23);
        let tiny = GutterLayout::new(OriginMode::Inline, 30);
        assert!(!tiny.clock && !tiny.mark);
    }

    #[test]
    fn c17_fit_label_middle_folds_with_head_third() {
        let folded = fit_label("keeper-with-a-very-long-name", 8);
        assert_eq!(display_width(&folded), 8);
        // head = (8-1)/3 = 2 cells, tail = 5 cells.
        assert_eq!(folded, "ke…-name");
        assert_eq!(display_width(&fit_label("한국어이름입니다", 8)), 8);
        assert_eq!(fit_label("YOU", 8), "YOU     ");
    }

    #[test]
    fn c24_date_of_a_day() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(20_423), "2025-12-01");
        assert_eq!(date_text(-1), "1969-12-31");
        let b = minute_bucket(1_764_633_540.0, 0).unwrap_or_default();
        assert_eq!(date_text(day_of(b)), "2025-12-01");
        assert_eq!(clock_text(b), "23:59");
    }

    #[test]
    fn c21_clock_of_bucket() {
        let b = minute_bucket(19.0 * 3600.0 + 30.0 * 60.0 + 59.0, 0);
        assert_eq!(b.map(clock_text).as_deref(), Some("19:30"));
    }
}
