//! The composer's text: multi-line UTF-8 with a cursor that always sits on a grapheme-cluster
//! boundary (C-65: Backspace deletes one grapheme; C-70/C-71: wide graphemes are never split).
//!
//! The buffer only edits. What may enter it is decided before (typed keys and pastes are
//! filtered in [`super::paste`], T.7), so every `insert_*` here assumes clean text; `set_text`
//! is the one entry for text from elsewhere and filters itself.

use super::paste::clean_foreign_text;
use unicode_segmentation::GraphemeCursor;

/// Multi-line draft text and its cursor (a byte offset on a grapheme boundary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComposerBuffer {
    text: String,
    cursor: usize,
}

/// Whether a grapheme is part of a word for Ctrl-Left/Right and Ctrl-W: words are runs of
/// non-whitespace, as in readline's `unix-word-rubout` (Korean is spaced by words too).
fn is_word_grapheme(g: &str) -> bool {
    !g.chars().all(char::is_whitespace)
}

impl ComposerBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A buffer holding `text` (filtered like foreign text) with the cursor at `cursor`
    /// (snapped to the next grapheme boundary; clamped to the end).
    pub fn with_text(text: &str, cursor: usize) -> Self {
        let mut b = Self::default();
        b.set_text(text);
        b.cursor = cursor.min(b.text.len());
        b.snap_cursor();
        b
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Byte offset of the cursor in [`Self::text`] (always a grapheme boundary).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the whole text (recall, restored drafts, persisted drafts); the cursor goes to
    /// the end. Controls become spaces and line ends become LF, as for a paste (T.7).
    pub fn set_text(&mut self, text: &str) {
        self.text = clean_foreign_text(text).into_owned();
        self.cursor = self.text.len();
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// The next grapheme boundary after `at` (or the end).
    pub fn next_boundary(&self, at: usize) -> usize {
        let mut gc = GraphemeCursor::new(at, self.text.len(), true);
        match gc.next_boundary(&self.text, 0) {
            Ok(Some(next)) => next,
            // The whole text is one chunk, so neither "incomplete" nor "none before end" can
            // really happen; fall back to the end rather than trust a guess.
            Ok(None) | Err(_) => self.text.len(),
        }
    }

    /// The previous grapheme boundary before `at` (or 0).
    pub fn prev_boundary(&self, at: usize) -> usize {
        let mut gc = GraphemeCursor::new(at, self.text.len(), true);
        match gc.prev_boundary(&self.text, 0) {
            Ok(Some(prev)) => prev,
            Ok(None) | Err(_) => 0,
        }
    }

    /// Whether `at` is a grapheme boundary of the current text.
    pub fn is_boundary(&self, at: usize) -> bool {
        if at > self.text.len() || !self.text.is_char_boundary(at) {
            return false;
        }
        let mut gc = GraphemeCursor::new(at, self.text.len(), true);
        gc.is_boundary(&self.text, 0).unwrap_or(false)
    }

    /// An edit can merge clusters around the cursor (a combining mark typed after a letter, a
    /// ZWJ between two emoji, two regional indicators brought together); the cursor then moves
    /// to the end of the cluster it landed in.
    fn snap_cursor(&mut self) {
        while !self.text.is_char_boundary(self.cursor) {
            self.cursor += 1;
        }
        if !self.is_boundary(self.cursor) {
            self.cursor = self.next_boundary(self.cursor);
        }
    }

    /// Inserts clean text at the cursor and moves the cursor after it.
    pub fn insert_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
        self.snap_cursor();
    }

    pub fn insert_char(&mut self, c: char) {
        let mut tmp = [0u8; 4];
        self.insert_str(c.encode_utf8(&mut tmp));
    }

    /// Ctrl-J (C-65).
    pub fn insert_newline(&mut self) -> bool {
        self.insert_char('\n');
        true
    }

    fn remove_range(&mut self, start: usize, end: usize) -> bool {
        if start >= end {
            return false;
        }
        self.text.replace_range(start..end, "");
        self.cursor = start;
        self.snap_cursor();
        true
    }

    /// Backspace: removes the grapheme before the cursor (C-65). False when at the start.
    pub fn backspace(&mut self) -> bool {
        let start = self.prev_boundary(self.cursor);
        self.remove_range(start, self.cursor)
    }

    /// Delete: removes the grapheme after the cursor. False when at the end.
    pub fn delete(&mut self) -> bool {
        let end = self.next_boundary(self.cursor);
        self.remove_range(self.cursor, end)
    }

    pub fn move_left(&mut self) -> bool {
        let to = self.prev_boundary(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    pub fn move_right(&mut self) -> bool {
        let to = self.next_boundary(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    /// Start of the word before the cursor: skip whitespace back, then the word.
    fn word_start_before(&self, at: usize) -> usize {
        let mut pos = at;
        let mut in_word = false;
        while pos > 0 {
            let prev = self.prev_boundary(pos);
            let word = is_word_grapheme(&self.text[prev..pos]);
            if in_word && !word {
                break;
            }
            in_word |= word;
            pos = prev;
        }
        pos
    }

    /// End of the word after the cursor: skip whitespace forward, then the word.
    fn word_end_after(&self, at: usize) -> usize {
        let mut pos = at;
        let mut in_word = false;
        while pos < self.text.len() {
            let next = self.next_boundary(pos);
            let word = is_word_grapheme(&self.text[pos..next]);
            if in_word && !word {
                break;
            }
            in_word |= word;
            pos = next;
        }
        pos
    }

    /// Ctrl-Left.
    pub fn move_word_left(&mut self) -> bool {
        let to = self.word_start_before(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    /// Ctrl-Right.
    pub fn move_word_right(&mut self) -> bool {
        let to = self.word_end_after(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    /// Byte offset where the logical line holding `at` starts.
    pub fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Byte offset where the logical line holding `at` ends (before its `\n`).
    pub fn line_end(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    /// Home / Ctrl-A: start of the logical line.
    pub fn move_line_start(&mut self) -> bool {
        let to = self.line_start(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    /// End: end of the logical line.
    pub fn move_line_end(&mut self) -> bool {
        let to = self.line_end(self.cursor);
        let moved = to != self.cursor;
        self.cursor = to;
        moved
    }

    /// Puts the cursor at `at` if it is a grapheme boundary (layout-driven moves).
    pub fn set_cursor(&mut self, at: usize) -> bool {
        if self.is_boundary(at) {
            self.cursor = at;
            true
        } else {
            false
        }
    }

    /// Ctrl-W / ESC DEL: deletes the word before the cursor (C-65).
    pub fn kill_word_back(&mut self) -> bool {
        let start = self.word_start_before(self.cursor);
        self.remove_range(start, self.cursor)
    }

    /// Kills from the start of the logical line to the cursor (readline Ctrl-U; the chat
    /// screen binds Ctrl-U to [`Self::clear`] per C-65).
    pub fn kill_to_line_start(&mut self) -> bool {
        let start = self.line_start(self.cursor);
        self.remove_range(start, self.cursor)
    }

    /// Ctrl-K: kills from the cursor to the end of the logical line; at a line end, joins the
    /// next line (the `\n` goes), as in readline/emacs.
    pub fn kill_to_line_end(&mut self) -> bool {
        let end = self.line_end(self.cursor);
        let end = if end == self.cursor && end < self.text.len() {
            end + 1
        } else {
            end
        };
        let cursor = self.cursor;
        self.remove_range(cursor, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_end(text: &str) -> ComposerBuffer {
        ComposerBuffer::with_text(text, text.len())
    }

    #[test]
    fn c65_backspace_removes_one_grapheme_korean_emoji_combining() {
        // Precomposed syllables, conjoining jamo (one cluster), a ZWJ family, e + U+0301.
        for (text, left) in [
            ("안녕", "안"),
            ("가\u{1100}\u{1161}\u{11A8}", "가"),
            ("a👨\u{200D}👩\u{200D}👧", "a"),
            ("xe\u{301}", "x"),
            ("🇰🇷🇯🇵", "🇰🇷"),
            ("👍🏽", ""),
        ] {
            let mut b = at_end(text);
            assert!(b.backspace());
            assert_eq!(b.text(), left, "{text:?}");
            assert_eq!(b.cursor(), left.len());
        }
    }

    #[test]
    fn combining_mark_typed_after_a_letter_keeps_the_cursor_after_the_cluster() {
        let mut b = at_end("ae");
        b.move_left();
        // Cursor between a|e; a combining acute typed here joins the `a`.
        b.insert_char('\u{301}');
        assert_eq!(b.text(), "a\u{301}e");
        assert!(b.is_boundary(b.cursor()));
        assert_eq!(b.cursor(), "a\u{301}".len());
    }

    #[test]
    fn zwj_inserted_between_emoji_snaps_to_cluster_end() {
        let mut b = at_end("👨👩");
        b.move_left();
        b.insert_char('\u{200D}');
        assert_eq!(b.text(), "👨\u{200D}👩");
        assert!(b.is_boundary(b.cursor()));
        assert_eq!(b.cursor(), b.text().len());
    }

    #[test]
    fn words_are_runs_of_non_whitespace() {
        let mut b = at_end("안녕 하세요  world");
        assert!(b.move_word_left());
        assert_eq!(&b.text()[b.cursor()..], "world");
        b.move_word_left();
        assert_eq!(&b.text()[b.cursor()..], "하세요  world");
        b.move_word_right();
        assert_eq!(&b.text()[b.cursor()..], "  world");
        let mut k = at_end("one two  ");
        assert!(k.kill_word_back());
        assert_eq!(k.text(), "one ");
    }

    #[test]
    fn line_kills_and_moves_are_per_logical_line() {
        let mut b = at_end("first\nsecond");
        b.move_left();
        b.move_left();
        assert!(b.kill_to_line_start());
        assert_eq!(b.text(), "first\nnd");
        b.move_line_end();
        b.move_line_start();
        assert_eq!(b.cursor(), "first\n".len());
        b.move_left();
        // At the end of "first": Ctrl-K joins the lines.
        assert!(b.kill_to_line_end());
        assert_eq!(b.text(), "firstnd");
    }

    #[test]
    fn t7_set_text_filters_controls() {
        let b = ComposerBuffer::with_text("a\x1b[31mb\r\nc\u{9b}", 0);
        assert_eq!(b.text(), "a [31mb\nc ");
        assert_eq!(b.cursor(), 0);
    }
}
