//! Styles and `NO_COLOR` (§2.12 C-73). Meaning is always carried by a mark or a word; colour
//! only reinforces it, so a colourless terminal loses nothing but colour. Reverse video for the
//! selection and bold/dim emphasis stay without colour.

use ratatui::style::{Color, Modifier, Style};

/// What a styled piece of text means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    /// Secondary text (labels, absent values).
    Dim,
    /// Headings.
    Strong,
    Good,
    Busy,
    Warn,
    Bad,
    Accent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Self { color: true }
    }
}

impl Theme {
    /// `NO_COLOR` (non-empty) removes colour; `MASC_TUI_FORCE_COLOR=1` overrides it.
    pub fn from_env_values(no_color: Option<&str>, force_color: Option<&str>) -> Self {
        let forced = force_color == Some("1");
        let no_color = no_color.is_some_and(|v| !v.is_empty());
        Self {
            color: forced || !no_color,
        }
    }

    pub fn from_env() -> Self {
        let no_color = std::env::var("NO_COLOR").ok();
        let force = std::env::var("MASC_TUI_FORCE_COLOR").ok();
        Self::from_env_values(no_color.as_deref(), force.as_deref())
    }

    pub fn style(self, tone: Tone) -> Style {
        let base = Style::default();
        match tone {
            Tone::Normal => base,
            Tone::Dim => base.add_modifier(Modifier::DIM),
            Tone::Strong => base.add_modifier(Modifier::BOLD),
            Tone::Bad if !self.color => base.add_modifier(Modifier::BOLD),
            _ if !self.color => base,
            Tone::Good => base.fg(Color::Green),
            Tone::Busy => base.fg(Color::Yellow),
            Tone::Warn => base.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Tone::Bad => base.fg(Color::Red).add_modifier(Modifier::BOLD),
            Tone::Accent => base.fg(Color::Cyan),
        }
    }

    /// The selected row: reverse video in every mode.
    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c73_no_color_removes_colour_but_force_wins() {
        assert!(!Theme::from_env_values(Some("1"), None).color);
        assert!(Theme::from_env_values(Some(""), None).color);
        assert!(Theme::from_env_values(Some("1"), Some("1")).color);
        let plain = Theme { color: false };
        assert_eq!(plain.style(Tone::Good).fg, None);
        assert!(plain.style(Tone::Bad).add_modifier.contains(Modifier::BOLD));
    }
}
