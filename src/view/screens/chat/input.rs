//! The chat input behind a small trait, so the full composer (`src/view/composer/`, another
//! work item) replaces [`LineInput`] by changing the one alias [`ChatInput`].
//!
//! [`LineInput`] is deliberately minimal: insert printable scalars (T.7), Ctrl-J newline,
//! Backspace one grapheme, Ctrl-U clear, Left/Right/Home/End by grapheme.

use unicode_segmentation::UnicodeSegmentation;

/// What the chat screen needs from an input.
pub trait ComposerInput: Default + Clone + PartialEq + Eq + std::fmt::Debug {
    fn text(&self) -> &str;
    /// Replaces the whole text (draft restore); the cursor goes to the end.
    fn set_text(&mut self, text: String);
    /// Takes the text out (send); the input is empty afterwards.
    fn take_text(&mut self) -> String;
    fn insert_char(&mut self, c: char);
    fn newline(&mut self);
    fn backspace(&mut self);
    fn clear(&mut self);
    fn left(&mut self);
    fn right(&mut self);
    fn home(&mut self);
    fn end(&mut self);
    /// Byte offset of the cursor in [`ComposerInput::text`].
    fn cursor(&self) -> usize;
}

/// The input the chat screen uses.
pub type ChatInput = LineInput;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInput {
    text: String,
    cursor: usize,
}

/// Printable per T.7: not C0, not DEL, not C1.
pub fn printable(c: char) -> bool {
    !c.is_control() && !('\u{80}'..='\u{9f}').contains(&c)
}

impl LineInput {
    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor]
            .grapheme_indices(true)
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..]
            .graphemes(true)
            .next()
            .map_or(self.cursor, |g| self.cursor + g.len())
    }
}

impl ComposerInput for LineInput {
    fn text(&self) -> &str {
        &self.text
    }

    fn set_text(&mut self, text: String) {
        self.cursor = text.len();
        self.text = text;
    }

    fn take_text(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }

    fn insert_char(&mut self, c: char) {
        if printable(c) {
            self.text.insert(self.cursor, c);
            self.cursor += c.len_utf8();
        }
    }

    fn newline(&mut self) {
        self.text.insert(self.cursor, '\n');
        self.cursor += 1;
    }

    fn backspace(&mut self) {
        let start = self.prev_boundary();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    fn left(&mut self) {
        self.cursor = self.prev_boundary();
    }

    fn right(&mut self) {
        self.cursor = self.next_boundary();
    }

    fn home(&mut self) {
        self.cursor = 0;
    }

    fn end(&mut self) {
        self.cursor = self.text.len();
    }

    fn cursor(&self) -> usize {
        self.cursor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backspace_removes_one_grapheme_and_controls_are_refused() {
        let mut input = LineInput::default();
        for c in "a한👍🏽".chars() {
            input.insert_char(c);
        }
        input.insert_char('\u{1b}');
        input.insert_char('\u{9b}');
        assert_eq!(input.text(), "a한👍🏽");
        input.backspace();
        assert_eq!(input.text(), "a한");
        input.left();
        input.insert_char('b');
        assert_eq!(input.text(), "ab한");
        input.newline();
        assert_eq!(input.take_text(), "ab\n한");
        assert_eq!(input.text(), "");
    }
}
