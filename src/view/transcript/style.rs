//! The brightness hierarchy (§2.2) as ratatui styles, with `NO_COLOR` (C-73).
//!
//! Speech is foreground, work is dim, chrome recedes, failure is reset → bold → bright red.
//! Each span carries its own complete style, so a bold or link span inside a dim body never
//! brightens what follows: dim is re-opened on the next span by construction (C-5, C-11).

use super::marks::Role;
use crate::view::theme::{Palette, Theme};
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChatStyle {
    pub color: bool,
    pub palette: Palette,
}

impl ChatStyle {
    pub fn new(theme: Theme) -> Self {
        Self {
            color: theme.color,
            palette: theme.palette,
        }
    }

    /// A colour for this palette: `dark` on a dark background, `light` on a light one, `high`
    /// in high contrast; none without colour.
    fn pick(self, dark: Color, light: Color, high: Color) -> Option<Color> {
        match (self.color, self.palette) {
            (false, _) => None,
            (true, Palette::Dark) => Some(dark),
            (true, Palette::Light) => Some(light),
            (true, Palette::HighContrast) => Some(high),
        }
    }

    fn high_contrast(self) -> bool {
        self.color && self.palette == Palette::HighContrast
    }

    fn with(style: Style, color: Option<Color>) -> Style {
        match color {
            Some(c) => style.fg(c),
            None => style,
        }
    }

    pub fn foreground(self) -> Style {
        Style::default()
    }

    /// Work is dim; high contrast drops dim (it is what that palette removes).
    pub fn dim(self) -> Style {
        if self.high_contrast() {
            Style::default()
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    /// Chrome: clock, siding, rail, labels (C-6).
    pub fn recede(self) -> Style {
        Self::with(
            self.dim(),
            self.pick(Color::DarkGray, Color::DarkGray, Color::Gray),
        )
    }

    /// C-8: reset, bold, bright red. Without colour, reset + bold.
    pub fn failure(self) -> Style {
        let s = Style::reset().add_modifier(Modifier::BOLD);
        Self::with(s, self.pick(Color::LightRed, Color::Red, Color::LightRed))
    }

    pub fn ok(self) -> Style {
        Self::with(
            Style::default(),
            self.pick(Color::Green, Color::Green, Color::LightGreen),
        )
    }

    pub fn warn(self) -> Style {
        Self::with(
            Style::default(),
            self.pick(Color::Yellow, Color::Magenta, Color::LightYellow),
        )
    }

    pub fn info(self) -> Style {
        Self::with(
            Style::default(),
            self.pick(Color::Cyan, Color::Blue, Color::LightCyan),
        )
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
        let c = match role {
            Role::User => self.pick(Color::Cyan, Color::Blue, Color::LightCyan),
            Role::Inbound => self.pick(Color::Magenta, Color::Magenta, Color::LightMagenta),
            Role::Keeper => self.pick(Color::Green, Color::Green, Color::LightGreen),
            Role::Journal => self.pick(Color::Blue, Color::Blue, Color::LightBlue),
            Role::Tool | Role::Skill(_) => {
                self.pick(Color::Yellow, Color::Magenta, Color::LightYellow)
            }
            Role::Thinking | Role::Status | Role::Local => {
                self.pick(Color::Gray, Color::DarkGray, Color::White)
            }
            Role::Error => self.pick(Color::LightRed, Color::Red, Color::LightRed),
        };
        Self::with(Style::default(), c)
    }
}
