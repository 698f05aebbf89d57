//! Server text on its way to a cell: sanitising (T.7 plus bidi controls) and display width
//! in terminal cells (§2.12 C-70, C-71).
//!
//! Every server or external string passes [`sanitize`] (or [`sanitize_bytes`]) exactly once
//! before it reaches a cell; renderer-owned styling is added only afterwards.
//!
//! Widths are measured per grapheme cluster by the terminal's rule (C-70): a tty advances the
//! cursor scalar by scalar, so a cluster takes the sum of its scalars' cells (`👍🏽` = 2 + 2,
//! `❤️` = 1 + 0, a flag = 1 + 1), except a Hangul conjoining L+V/T cluster, which takes its
//! widest scalar. Where that differs from the ratatui buffer's own width of the cluster, the
//! cluster is painted with [`crate::view::terminal::cells`] (a forced cell width), so what we measure is
//! what the terminal shows and no neighbour overwrites a scalar (a skin-tone modifier would
//! vanish behind the next cell).

use std::borrow::Cow;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The ellipsis used by [`fit_width`] and [`fit_middle`] (1 cell).
pub const ELLIPSIS: char = '…';

// The one sanitiser is shared with the CLI, so both escape the same way: `crate::sanitize`.
pub use crate::sanitize::{sanitize, sanitize_bytes, sanitize_line, sanitize_lines};

/// Cells one grapheme cluster occupies on a terminal (C-70; 0 for clusters the buffer skips).
pub fn grapheme_width(g: &str) -> usize {
    let mut chars = g.chars();
    match (chars.next(), chars.next()) {
        (None, _) => 0,
        // One scalar: the cluster's width is the scalar's (the common case).
        (Some(_), None) => g.width(),
        (Some(first), Some(_)) => {
            let scalar = |c: char| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if is_hangul_leading_jamo(first) {
                g.chars().map(scalar).max().unwrap_or(0)
            } else {
                g.chars().map(scalar).sum()
            }
        }
    }
}

/// Hangul conjoining leading consonants (L jamo): an L+V(+T) cluster is one syllable cell.
fn is_hangul_leading_jamo(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{115F}' | '\u{A960}'..='\u{A97F}')
}

/// Display width of a (sanitised) string in terminal cells.
pub fn display_width(text: &str) -> usize {
    // Printable ASCII is one grapheme of one cell per byte: the common case needs no
    // segmentation (same answer, tested below).
    if is_printable_ascii(text) {
        return text.len();
    }
    // Text of characters that are each a cluster of their own (Korean, CJK, Latin, the
    // separators the screens draw) needs no segmentation either.
    if let Some(w) = lone_clusters_width(text) {
        return w;
    }
    text.graphemes(true).map(grapheme_width).sum()
}

/// The width of `text` when every character of it is one of the ranges below, else `None`.
/// None of them extends, prepends to or joins a neighbour (UAX #29: not Extend, ZWJ,
/// SpacingMark, Prepend, a Hangul jamo or a regional indicator), so in a text made of them only,
/// each character is a cluster of one scalar, whose width is the scalar's (tested below for
/// every character of the ranges).
fn lone_clusters_width(text: &str) -> Option<usize> {
    let mut width = 0;
    for c in text.chars() {
        width += match u32::from(c) {
            0x20..=0x7E => 1,
            0xA0..=0x2FF
            | 0x2010..=0x2027
            | 0x2030..=0x205E
            | 0x2190..=0x21FF
            | 0x3131..=0x318E
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7A3 => unicode_width::UnicodeWidthChar::width(c).unwrap_or(0),
            _ => return None,
        };
    }
    Some(width)
}

/// Whether `text` fits in `width` cells. A string is never wider than its UTF-8 length (a
/// one-byte character takes at most one cell, a wide one takes two and at least three bytes,
/// and a cluster takes its scalars' cells or fewer; tested below over every `char`), so short
/// strings need no segmentation.
pub fn fits_in(text: &str, width: usize) -> bool {
    text.len() <= width || display_width(text) <= width
}

/// Every byte is printable ASCII (space to `~`).
pub(crate) fn is_printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Cuts `text` to at most `max` cells, appending [`ELLIPSIS`] when something was cut. A wide
/// grapheme is never split: when it does not fit, the gap before the ellipsis is a space, so
/// the result is exactly `max` cells whenever a cut happened (C-71).
pub fn fit_width(text: &str, max: usize) -> Cow<'_, str> {
    if display_width(text) <= max {
        return Cow::Borrowed(text);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let budget = max - 1;
    let mut out = String::new();
    let mut used = 0;
    for g in text.graphemes(true) {
        let w = grapheme_width(g);
        if used + w > budget {
            break;
        }
        out.push_str(g);
        used += w;
    }
    while used < budget {
        out.push(' ');
        used += 1;
    }
    out.push(ELLIPSIS);
    Cow::Owned(out)
}

/// [`fit_width`], then right-padded with spaces to exactly `width` cells.
pub fn pad_to(text: &str, width: usize) -> String {
    let fitted = fit_width(text, width);
    let w = display_width(&fitted);
    let mut out = fitted.into_owned();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    out
}

/// Folds the middle of an identifier (runtime ids, long names) so both its head and its
/// distinguishing tail stay visible: `rt-claude-sonnet…20250929-ab12`. Never splits a wide
/// grapheme; the result is at most `max` cells.
pub fn fit_middle(text: &str, max: usize) -> Cow<'_, str> {
    if display_width(text) <= max {
        return Cow::Borrowed(text);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let budget = max - 1;
    let tail_budget = budget / 2;
    let head_budget = budget - tail_budget;
    let (head, used, tail, tail_used) = head_and_tail(text, head_budget, tail_budget);
    let mut out = head;
    // Give a space the cells a wide grapheme could not take, so columns stay aligned.
    let gap = budget.saturating_sub(used + tail_used);
    out.extend(std::iter::repeat_n(' ', gap));
    out.push(ELLIPSIS);
    out.push_str(&tail);
    Cow::Owned(out)
}

/// The longest whole-grapheme head of `text` within `head_budget` cells and the longest
/// whole-grapheme tail within `tail_budget`, with the cells each uses. Wide graphemes are never
/// split; the caller pads the cells they could not take.
pub fn head_and_tail(
    text: &str,
    head_budget: usize,
    tail_budget: usize,
) -> (String, usize, String, usize) {
    let graphemes: Vec<&str> = text.graphemes(true).collect();
    let mut head = String::new();
    let mut used = 0;
    for g in &graphemes {
        let w = grapheme_width(g);
        if used + w > head_budget {
            break;
        }
        head.push_str(g);
        used += w;
    }
    let mut tail_rev: Vec<&str> = Vec::new();
    let mut tail_used = 0;
    for g in graphemes.iter().rev() {
        let w = grapheme_width(g);
        if tail_used + w > tail_budget {
            break;
        }
        tail_rev.push(g);
        tail_used += w;
    }
    let tail: String = tail_rev.into_iter().rev().collect();
    (head, used, tail, tail_used)
}

/// A word wider than `width` laid out grapheme by grapheme onto `line` (`used` cells taken),
/// pushing each full line to `out`: the wrappers' one way to cut what has no space to break at.
pub fn break_word(
    word: &str,
    width: usize,
    line: &mut String,
    used: &mut usize,
    out: &mut Vec<String>,
) {
    for g in word.graphemes(true) {
        let gw = grapheme_width(g);
        if *used + gw > width && *used > 0 {
            out.push(std::mem::take(line));
            *used = 0;
        }
        line.push_str(g);
        *used += gw;
    }
}

/// Word-wraps sanitised text to `width` cells (graphemes never split; over-long words cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    // Text that fits is one row, as the loop below would make it (no segmentation for the
    // common case).
    if fits_in(text, width) {
        return vec![text.trim_end().to_string()];
    }
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0usize;
    for word in text.split_word_bounds() {
        let w = display_width(word);
        if used + w > width && used > 0 {
            out.push(std::mem::take(&mut line).trim_end().to_string());
            used = 0;
            if word.trim().is_empty() {
                continue;
            }
        }
        if w > width {
            break_word(word, width, &mut line, &mut used, &mut out);
            continue;
        }
        line.push_str(word);
        used += w;
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line.trim_end().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c70_widths_in_cells() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("한글"), 4);
        assert_eq!(display_width("🙂"), 2);
        assert_eq!(display_width("e\u{301}"), 1);
    }

    /// C-70's check: `Aé한🙂👍🏽🇰🇷❤️-proof` is 19 cells (the cursor moves from column 6 to
    /// 25): `👍🏽` = 4, each regional indicator 1, `❤️` (text-default heart + VS16) 1, a
    /// conjoining L+V+T syllable 2.
    #[test]
    fn c70_clusters_take_the_cells_a_terminal_gives_their_scalars() {
        assert_eq!(display_width("\u{1F44D}\u{1F3FD}"), 4);
        assert_eq!(display_width("🇰🇷"), 2);
        assert_eq!(display_width("\u{2764}\u{FE0F}"), 1);
        assert_eq!(display_width("\u{1112}\u{1161}\u{11AB}"), 2);
        assert_eq!(display_width("👨\u{200D}👩\u{200D}👧"), 6);
        assert_eq!(
            display_width("Aé한🙂\u{1F44D}\u{1F3FD}🇰🇷\u{2764}\u{FE0F}-proof"),
            19
        );
    }

    /// `fits_in`'s shortcut: no character is wider in cells than in UTF-8 bytes, nor is any
    /// cluster of the sequences that widen (emoji presentation, ZWJ, keycaps, flags, Hangul).
    #[test]
    fn no_text_is_wider_than_its_bytes() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let mut b = [0u8; 4];
            let s = c.encode_utf8(&mut b);
            assert!(display_width(s) <= s.len(), "{c:?}");
        }
        for s in [
            "\u{2764}\u{FE0F}",
            "1\u{FE0F}\u{20E3}",
            "\u{1F1F0}\u{1F1F7}",
            "\u{1F469}\u{200D}\u{1F4BB}",
            "\u{1F44D}\u{1F3FD}",
            "\u{1100}\u{1161}\u{11A8}",
            "e\u{301}",
            "한글 🙂 wrap",
        ] {
            assert!(display_width(s) <= s.len(), "{s:?}");
            for g in s.graphemes(true) {
                assert!(display_width(g) <= g.len(), "{g:?}");
            }
        }
    }

    /// The printable-ASCII fast path of `display_width` gives what grapheme segmentation gives.
    #[test]
    fn c70_ascii_fast_path_matches_segmentation() {
        let printable: String = (0x20u8..0x7f).map(char::from).collect();
        for text in [printable.as_str(), "", " ", "a b", "~~~", "rebased on main"] {
            assert!(is_printable_ascii(text));
            let segmented: usize = text.graphemes(true).map(grapheme_width).sum();
            assert_eq!(display_width(text), segmented, "{text:?}");
        }
        for text in ["a\tb", "a\u{7f}", "é", "e\u{301}", "한", "a\r\nb"] {
            assert!(!is_printable_ascii(text), "{text:?}");
        }
    }

    /// The lone-cluster fast path of `display_width`: every character it takes is a
    /// cluster of its own beside any other it takes (and beside ASCII), and takes the width
    /// segmentation gives it.
    #[test]
    fn c70_lone_cluster_fast_path_matches_segmentation() {
        let segmented = |s: &str| -> usize { s.graphemes(true).map(grapheme_width).sum() };
        let mut taken = 0;
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let mut b = [0u8; 4];
            let alone = c.encode_utf8(&mut b);
            let Some(w) = lone_clusters_width(alone) else {
                continue;
            };
            taken += 1;
            assert_eq!(w, segmented(alone), "{c:?}");
            assert_eq!(w, grapheme_width(alone), "{c:?}");
            for pair in [
                format!("a{c}"),
                format!("{c}a"),
                format!("{c}{c}"),
                format!("{c}한"),
                format!("가{c}"),
                format!("{c}·"),
            ] {
                assert_eq!(pair.graphemes(true).count(), 2, "{pair:?}");
                assert_eq!(display_width(&pair), segmented(&pair), "{pair:?}");
            }
        }
        assert!(taken > 30_000, "{taken}");
        for text in [
            " · rondo",
            "디코더 경로 에러",
            "a → b",
            "↪ 한글 — ok…",
            "e\u{301}",
            "🙂",
        ] {
            assert_eq!(display_width(text), segmented(text), "{text:?}");
        }
        assert_eq!(lone_clusters_width("e\u{301}"), None);
        assert_eq!(lone_clusters_width("\u{1100}\u{1161}"), None);
    }

    #[test]
    fn c71_fit_width_never_splits_a_wide_grapheme() {
        // 5 cells: "한" "글" would need 4, the ellipsis 1 → "한글…"
        assert_eq!(fit_width("한글날", 5), "한글…");
        // 4 cells: only "한" (2) fits in 3; the gap is a space.
        assert_eq!(fit_width("한글날", 4), "한 …");
        assert_eq!(display_width(&fit_width("🙂🙂🙂", 4)), 4);
        assert_eq!(fit_width("short", 10), "short");
        assert_eq!(pad_to("ab", 4), "ab  ");
        assert_eq!(display_width(&pad_to("한글날씨", 5)), 5);
    }

    #[test]
    fn c71_fit_middle_keeps_head_and_tail() {
        let id = "claude-sonnet-4-5-20250929-ab12cd";
        let folded = fit_middle(id, 16);
        assert_eq!(display_width(&folded), 16);
        assert!(folded.starts_with("claude-"));
        assert!(folded.ends_with("ab12cd"));
        assert!(folded.contains(ELLIPSIS));
        assert_eq!(display_width(&fit_middle("가나다라마바사", 8)), 8);
    }
}
