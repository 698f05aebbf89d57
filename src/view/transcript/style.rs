//! The brightness hierarchy (§2.2) as ratatui styles, with `NO_COLOR` (C-73).
//!
//! Speech is foreground, work is dim, chrome recedes, failure is reset → bold → bright red.
//! Each span carries its own complete style, so a bold or link span inside a dim body never
//! brightens what follows: dim is re-opened on the next span by construction (C-5, C-11).

use super::marks::Role;
use crate::view::theme::Theme;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChatStyle {
    pub color: bool,
}

impl ChatStyle {
    pub fn new(theme: Theme) -> Self {
        Self { color: theme.color }
    }

    pub fn foreground(self) -> Style {
        Style::default()
    }

    pub fn dim(self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }

    /// Chrome: clock, siding, rail, labels (C-6).
    pub fn recede(self) -> Style {
        let s = Style::default().add_modifier(Modifier::DIM);
        if self.color { s.fg(Color::DarkGray) } else { s }
    }

    /// C-8: reset, bold, bright red. Without colour, reset + bold.
    pub fn failure(self) -> Style {
        let s = Style::reset().add_modifier(Modifier::BOLD);
        if self.color { s.fg(Color::LightRed) } else { s }
    }

    pub fn ok(self) -> Style {
        if self.color {
            Style::default().fg(Color::Green)
        } else {
            Style::default()
        }
    }

    pub fn warn(self) -> Style {
        if self.color {
            Style::default().fg(Color::Yellow)
        } else {
            Style::default()
        }
    }

    pub fn info(self) -> Style {
        if self.color {
            Style::default().fg(Color::Cyan)
        } else {
            Style::default()
        }
    }

    /// The body style of a role.
    pub fn body(self, role: Role) -> Style {
        if role.body_is_dim() {
            self.dim()
        } else {
            self.foreground()
        }
    }

    /// The mark keeps the speaker colour (the only coloured cell of the gutter).
    pub fn mark(self, role: Role) -> Style {
        if role == Role::Error {
            return self.failure();
        }
        if !self.color {
            return Style::default();
        }
        let c = match role {
            Role::User => Color::Cyan,
            Role::Inbound => Color::Magenta,
            Role::Keeper => Color::Green,
            Role::Journal => Color::Blue,
            Role::Tool | Role::Skill(_) => Color::Yellow,
            Role::Thinking | Role::Status | Role::Local => Color::Gray,
            Role::Error => Color::LightRed,
        };
        Style::default().fg(c)
    }
}
