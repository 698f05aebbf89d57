//! Server text on its way to a cell: sanitising (T.7 plus bidi controls) and display width
//! in terminal cells (§2.12 C-70, C-71).
//!
//! Every server or external string passes [`sanitize`] (or [`sanitize_bytes`]) exactly once
//! before it reaches a cell; renderer-owned styling is added only afterwards.
//!
//! Widths are measured per grapheme cluster with the same rule the ratatui buffer uses to place
//! cells (`unicode-width` of the cluster), so what we measure is what gets painted: Hangul and
//! emoji take 2 cells, combining marks 0.

use std::borrow::Cow;
use std::fmt::Write as _;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The ellipsis used by [`fit_width`] and [`fit_middle`] (1 cell).
pub const ELLIPSIS: char = '…';

/// Bidirectional formatting controls that could reorder the rest of a row (Trojan-Source style):
/// embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069, and the marks U+200E, U+200F,
/// U+061C. They are shown as inert `\uXXXX` text.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn needs_escape(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || u == 0x7F || (0x80..=0x9F).contains(&u) || is_bidi_control(c)
}

fn push_escaped(out: &mut String, c: char) {
    let u = c as u32;
    // Writing to a String cannot fail; the result is ignored deliberately.
    let _ = if u < 0x20 || u == 0x7F {
        write!(out, "\\x{u:02X}")
    } else {
        write!(out, "\\u{u:04X}")
    };
}

/// T.7 for text that is already UTF-8: C0 and DEL become `\xNN`, C1 code points become
/// `\u00NN`, bidi controls become `\uXXXX`; everything else passes unchanged.
/// Borrowed when nothing needs escaping (the common case costs no allocation).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// T.7 for raw bytes: like [`sanitize`], and every byte that is not part of valid UTF-8
/// (including a lone 0x80–0x9F byte) becomes `\xNN`.
pub fn sanitize_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&sanitize(chunk.valid()));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// Sanitises a multi-line body per line so authored line breaks survive (C-72, T.7).
pub fn sanitize_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| sanitize(line.strip_suffix('\r').unwrap_or(line)).into_owned())
        .collect()
}

/// Cells one grapheme cluster occupies (0 for clusters the buffer skips).
pub fn grapheme_width(g: &str) -> usize {
    g.width()
}

/// Display width of a (sanitised) string in terminal cells.
pub fn display_width(text: &str) -> usize {
    text.graphemes(true).map(grapheme_width).sum()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t7_c0_del_and_c1_become_literal_escapes() {
        assert_eq!(sanitize("a\x1b[31mb"), "a\\x1B[31mb");
        assert_eq!(sanitize("x\x7fy"), "x\\x7Fy");
        assert_eq!(sanitize("\u{9b}31m"), "\\u009B31m");
        assert_eq!(sanitize("tab\there"), "tab\\x09here");
        assert!(matches!(sanitize("plain 한글 🙂"), Cow::Borrowed(_)));
    }

    #[test]
    fn t7_invalid_utf8_and_lone_c1_bytes_become_hex() {
        assert_eq!(sanitize_bytes(b"ok\x9b31m\xff"), "ok\\x9B31m\\xFF");
        assert_eq!(sanitize_bytes("한".as_bytes()), "한");
        assert_eq!(sanitize_bytes(b"\xc2\x9b"), "\\u009B");
    }

    #[test]
    fn bidi_controls_are_neutralised() {
        let s = sanitize("admin\u{202E}gpj.exe\u{2066}x\u{2069}\u{200F}\u{061C}");
        assert!(!s.chars().any(is_bidi_control));
        assert!(s.contains("\\u202E"));
        assert!(s.contains("\\u061C"));
    }

    #[test]
    fn c72_lines_survive_and_are_each_sanitised() {
        assert_eq!(sanitize_lines("a\r\n\x07b"), vec!["a", "\\x07b"]);
    }

    #[test]
    fn c70_widths_in_cells() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("한글"), 4);
        assert_eq!(display_width("🙂"), 2);
        assert_eq!(display_width("e\u{301}"), 1);
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
