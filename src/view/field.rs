//! One line of operator input in a form ([`Field`]) and the bounds a number typed into one is
//! checked against ([`Bounded`]) before anything is sent.
//!
//! A field opened on a current value holds it selected: the first typed character replaces it,
//! `Backspace`/`Delete` clear it, `Ctrl-A`/`Home` or `End`/`Ctrl-E` (or `←`/`→`) keep it and
//! put the cursor at its start or end to edit in place. So opening the context override on
//! `160000` and typing `150000` gives `150000`, never `160000150000`. Typed and pasted text
//! is filtered one scalar at a time (T.7): only printable characters enter a field.

use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Span;

/// Whether a typed or pasted scalar may enter a field (T.7).
pub fn printable(c: char) -> bool {
    !c.is_control() && !('\u{80}'..='\u{9f}').contains(&c)
}

/// One line of input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    text: String,
    /// Byte offset of the cursor (on a char boundary).
    cursor: usize,
    /// The whole text is selected: the next typed character replaces it.
    selected: bool,
}

impl Field {
    /// An empty field.
    pub fn new() -> Self {
        Self::default()
    }

    /// A field opened on `value`: selected, so typing replaces it.
    pub fn opened_on(value: impl Into<String>) -> Self {
        let text: String = value.into();
        Self {
            cursor: text.len(),
            selected: !text.is_empty(),
            text,
        }
    }

    /// Replaces the text with `value`, selected (a value that arrived after opening).
    pub fn set(&mut self, value: impl Into<String>) {
        *self = Self::opened_on(value);
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn is_selected(&self) -> bool {
        self.selected
    }

    fn take_selection(&mut self) {
        if std::mem::take(&mut self.selected) {
            self.text.clear();
            self.cursor = 0;
        }
    }

    fn insert(&mut self, c: char) {
        self.take_selection();
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..]
            .chars()
            .next()
            .map_or(self.cursor, |c| self.cursor + c.len_utf8())
    }

    /// A key while the field has focus; `true` when it took the key (the text or the cursor may
    /// have changed). Keys it does not take (`Enter`, `Tab`, `Esc`, …) are the form's.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('a') | KeyCode::Char('A') if ctrl => {
                self.selected = false;
                self.cursor = 0;
            }
            KeyCode::Home => {
                self.selected = false;
                self.cursor = 0;
            }
            KeyCode::Char('e') | KeyCode::Char('E') if ctrl => {
                self.selected = false;
                self.cursor = self.text.len();
            }
            KeyCode::End => {
                self.selected = false;
                self.cursor = self.text.len();
            }
            KeyCode::Char('u') | KeyCode::Char('U') if ctrl => {
                self.text.clear();
                self.cursor = 0;
                self.selected = false;
            }
            KeyCode::Left => {
                if std::mem::take(&mut self.selected) {
                    self.cursor = 0;
                } else {
                    self.cursor = self.prev_boundary();
                }
            }
            KeyCode::Right => {
                if std::mem::take(&mut self.selected) {
                    self.cursor = self.text.len();
                } else {
                    self.cursor = self.next_boundary();
                }
            }
            KeyCode::Backspace => {
                if self.selected {
                    self.take_selection();
                } else if self.cursor > 0 {
                    let at = self.prev_boundary();
                    self.text.replace_range(at..self.cursor, "");
                    self.cursor = at;
                }
            }
            KeyCode::Delete => {
                if self.selected {
                    self.take_selection();
                } else if self.cursor < self.text.len() {
                    let to = self.next_boundary();
                    self.text.replace_range(self.cursor..to, "");
                }
            }
            KeyCode::Char(c) if !ctrl && !alt && printable(c) => self.insert(c),
            _ => return false,
        }
        true
    }

    /// A bracketed paste: replaces a selection, non-printables become spaces, line breaks
    /// end it (one line).
    pub fn paste(&mut self, text: &str) {
        let line = text.lines().next().unwrap_or("");
        self.take_selection();
        for c in line.chars() {
            let c = if printable(c) { c } else { ' ' };
            self.text.insert(self.cursor, c);
            self.cursor += c.len_utf8();
        }
    }

    /// The field's spans: a selection in reverse video, the cursor `▏` where it is (focused).
    pub fn spans(&self, theme: Theme, focused: bool) -> Vec<Span<'static>> {
        let text = sanitize(&self.text).into_owned();
        if !focused {
            return vec![Span::raw(text)];
        }
        if self.selected {
            return vec![
                Span::styled(
                    text,
                    theme
                        .style(Tone::Strong)
                        .add_modifier(ratatui::style::Modifier::REVERSED),
                ),
                Span::raw("▏"),
            ];
        }
        let (head, tail) = self.text.split_at(self.cursor);
        vec![
            Span::raw(sanitize(head).into_owned()),
            Span::raw("▏"),
            Span::raw(sanitize(tail).into_owned()),
        ]
    }

    /// The field as one string with its cursor mark (a line built by `format!`).
    pub fn shown(&self, focused: bool) -> String {
        if !focused {
            return sanitize(&self.text).into_owned();
        }
        if self.selected {
            return format!("[{}]▏", sanitize(&self.text));
        }
        let (head, tail) = self.text.split_at(self.cursor);
        format!("{}▏{}", sanitize(head), sanitize(tail))
    }
}

/// A whole number's bounds, each with the words naming where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
    pub field: &'static str,
    pub min: u64,
    pub max: u64,
    /// Where the upper bound comes from (`the model's window: max_context of a.x`).
    pub max_source: String,
}

impl Bounded {
    /// The number typed, or a refusal naming the bound it breaks.
    pub fn parse(&self, text: &str) -> Result<u64, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err(format!("{} is empty: type a whole number", self.field));
        }
        let value: u64 = t.parse().map_err(|_| {
            if t.chars().all(|c| c.is_ascii_digit()) {
                format!(
                    "{} {} is above {} ({})",
                    self.field,
                    sanitize(t),
                    self.max,
                    self.max_source
                )
            } else {
                format!(
                    "{} must be a whole number (got {})",
                    self.field,
                    sanitize(t)
                )
            }
        })?;
        if value < self.min {
            return Err(format!(
                "{} {value} is below its minimum {}",
                self.field, self.min
            ));
        }
        if value > self.max {
            return Err(format!(
                "{} {value} is above {} ({})",
                self.field, self.max, self.max_source
            ));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(field: &mut Field, text: &str) {
        for c in text.chars() {
            field.key(KeyEvent::from(KeyCode::Char(c)));
        }
    }

    /// The reported bug: a field opened on 160000, typed 150000, is 150000.
    #[test]
    fn typing_replaces_the_value_a_field_opened_on() {
        let mut f = Field::opened_on("160000");
        typed(&mut f, "150000");
        assert_eq!(f.text(), "150000");
    }

    #[test]
    fn ctrl_a_and_end_edit_in_place() {
        let mut f = Field::opened_on("160000");
        f.key(KeyEvent::from(KeyCode::End));
        f.key(KeyEvent::from(KeyCode::Backspace));
        typed(&mut f, "1");
        assert_eq!(f.text(), "160001");
        let mut f = Field::opened_on("60000");
        f.key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL));
        typed(&mut f, "1");
        assert_eq!(f.text(), "160000");
        f.key(KeyEvent::from(KeyCode::Delete));
        assert_eq!(f.text(), "10000");
    }

    #[test]
    fn backspace_on_a_selection_clears_it_and_paste_replaces_it() {
        let mut f = Field::opened_on("abc");
        f.key(KeyEvent::from(KeyCode::Backspace));
        assert_eq!(f.text(), "");
        let mut f = Field::opened_on("abc");
        f.paste("x\u{7}y\nz");
        assert_eq!(f.text(), "x y");
    }

    #[test]
    fn a_number_is_refused_with_the_bound_it_breaks() {
        let b = Bounded {
            field: "max_context_override",
            min: 1,
            max: 200_000,
            max_source: "the model's window: max_context of a.x".into(),
        };
        assert_eq!(b.parse("150000"), Ok(150_000));
        let e = b.parse("160000150000").unwrap_err();
        assert!(
            e.contains("above 200000") && e.contains("max_context of a.x"),
            "{e}"
        );
        let e = b.parse("99999999999999999999999").unwrap_err();
        assert!(e.contains("above 200000"), "{e}");
        assert!(b.parse("0").unwrap_err().contains("minimum 1"));
        assert!(b.parse("12k").unwrap_err().contains("whole number"));
    }
}
