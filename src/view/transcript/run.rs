//! A piece of body text with one complete style (the unit of [`super::wrap`] and
//! [`super::table`]).

use ratatui::style::Style;

/// A piece of text with one complete style.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub text: String,
    pub style: Style,
}

impl Run {
    pub fn new(text: impl Into<String>, style: Style) -> Self {
        Self {
            text: text.into(),
            style,
        }
    }
}
