//! Styles, themes and `NO_COLOR` (§2.12 C-73). Meaning is always carried by a mark or a word;
//! colour only reinforces it, so a colourless terminal loses nothing but colour. Reverse video
//! for the selection and bold/dim emphasis stay without colour.
//!
//! Three palettes (`--theme`): `dark` (for a dark background), `light` (no yellow or cyan
//! text, which fade on a light background) and `high-contrast` (bright colours, bold instead of
//! dim). `NO_COLOR` wins over every palette.

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

/// The colours for the terminal's background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Palette {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl Palette {
    pub const ALL: [Palette; 3] = [Palette::Dark, Palette::Light, Palette::HighContrast];

    /// The name `--theme` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dark => "dark",
            Self::Light => "light",
            Self::HighContrast => "high-contrast",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Theme {
    pub color: bool,
    pub palette: Palette,
}

impl Default for Theme {
    fn default() -> Self {
        Self::colored(true)
    }
}

impl Theme {
    /// No colour (`NO_COLOR`): marks, words, bold, dim and reverse video only.
    pub const fn plain() -> Self {
        Self::colored(false)
    }

    /// The dark palette, with or without colour.
    pub const fn colored(color: bool) -> Self {
        Self {
            color,
            palette: Palette::Dark,
        }
    }

    /// `NO_COLOR` (non-empty) removes colour; `MASC_TUI_FORCE_COLOR=1` overrides it.
    pub fn from_env_values(no_color: Option<&str>, force_color: Option<&str>) -> Self {
        let forced = force_color == Some("1");
        let no_color = no_color.is_some_and(|v| !v.is_empty());
        Self::colored(forced || !no_color)
    }

    pub fn from_env() -> Self {
        let no_color = std::env::var("NO_COLOR").ok();
        let force = std::env::var("MASC_TUI_FORCE_COLOR").ok();
        Self::from_env_values(no_color.as_deref(), force.as_deref())
    }

    /// This theme in `palette` (colour stays as `NO_COLOR` decided).
    pub fn with_palette(self, palette: Palette) -> Self {
        Self { palette, ..self }
    }

    /// Dim text, except in the high-contrast palette (dim is what it removes).
    fn dim(self) -> Style {
        match (self.color, self.palette) {
            (true, Palette::HighContrast) => Style::default(),
            _ => Style::default().add_modifier(Modifier::DIM),
        }
    }

    pub fn style(self, tone: Tone) -> Style {
        let base = Style::default();
        let bold = Modifier::BOLD;
        match tone {
            Tone::Normal => base,
            Tone::Dim => self.dim(),
            Tone::Strong => base.add_modifier(bold),
            Tone::Bad if !self.color => base.add_modifier(bold),
            _ if !self.color => base,
            _ => match (self.palette, tone) {
                (Palette::Dark, Tone::Good) => base.fg(Color::Green),
                (Palette::Dark, Tone::Busy) => base.fg(Color::Yellow),
                (Palette::Dark, Tone::Warn) => base.fg(Color::Yellow).add_modifier(bold),
                (Palette::Dark, Tone::Bad) => base.fg(Color::Red).add_modifier(bold),
                (Palette::Dark, _) => base.fg(Color::Cyan),
                (Palette::Light, Tone::Good) => base.fg(Color::Green),
                (Palette::Light, Tone::Busy) => base.fg(Color::Magenta),
                (Palette::Light, Tone::Warn) => base.fg(Color::Magenta).add_modifier(bold),
                (Palette::Light, Tone::Bad) => base.fg(Color::Red).add_modifier(bold),
                (Palette::Light, _) => base.fg(Color::Blue),
                (Palette::HighContrast, Tone::Good) => {
                    base.fg(Color::LightGreen).add_modifier(bold)
                }
                (Palette::HighContrast, Tone::Busy) => base.fg(Color::LightYellow),
                (Palette::HighContrast, Tone::Warn) => {
                    base.fg(Color::LightYellow).add_modifier(bold)
                }
                (Palette::HighContrast, Tone::Bad) => base
                    .fg(Color::LightRed)
                    .add_modifier(bold | Modifier::UNDERLINED),
                (Palette::HighContrast, _) => base.fg(Color::LightCyan).add_modifier(bold),
            },
        }
    }

    /// An operator-chosen colour (a workspace's `colour`): bold without colour (`NO_COLOR`).
    pub fn accent(self, colour: Color) -> Style {
        if self.color {
            Style::default().fg(colour).add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }

    /// The selected row: reverse video in every mode (bold too in high contrast).
    pub fn selected(self) -> Style {
        let reversed = Style::default().add_modifier(Modifier::REVERSED);
        match (self.color, self.palette) {
            (true, Palette::HighContrast) => reversed.add_modifier(Modifier::BOLD),
            _ => reversed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TONES: [Tone; 8] = [
        Tone::Normal,
        Tone::Dim,
        Tone::Strong,
        Tone::Good,
        Tone::Busy,
        Tone::Warn,
        Tone::Bad,
        Tone::Accent,
    ];

    #[test]
    fn c73_no_color_removes_colour_but_force_wins() {
        assert!(!Theme::from_env_values(Some("1"), None).color);
        assert!(Theme::from_env_values(Some(""), None).color);
        assert!(Theme::from_env_values(Some("1"), Some("1")).color);
        let plain = Theme::plain();
        assert_eq!(plain.style(Tone::Good).fg, None);
        assert!(plain.style(Tone::Bad).add_modifier.contains(Modifier::BOLD));
    }

    /// NO_COLOR wins over every palette.
    #[test]
    fn c73_no_color_wins_over_every_palette() {
        for palette in Palette::ALL {
            let theme = Theme::plain().with_palette(palette);
            for tone in TONES {
                assert_eq!(theme.style(tone).fg, None, "{palette:?} {tone:?}");
            }
            assert_eq!(theme.style(Tone::Dim), Theme::plain().style(Tone::Dim));
        }
    }

    /// Light has no yellow or cyan text; high contrast has no dim and
    /// only bright colours; the palettes differ where they say so.
    #[test]
    fn issue27_each_palette_keeps_its_promise() {
        let light = Theme::default().with_palette(Palette::Light);
        let high = Theme::default().with_palette(Palette::HighContrast);
        for tone in TONES {
            let fg = light.style(tone).fg;
            assert!(
                !matches!(
                    fg,
                    Some(Color::Yellow | Color::Cyan | Color::LightYellow | Color::LightCyan)
                ),
                "light {tone:?}: {fg:?}"
            );
            let s = high.style(tone);
            assert!(
                !s.add_modifier.contains(Modifier::DIM),
                "high-contrast {tone:?} dim"
            );
            assert!(
                !matches!(
                    s.fg,
                    Some(Color::Green | Color::Yellow | Color::Red | Color::Cyan | Color::Blue)
                ),
                "high-contrast {tone:?}: {:?}",
                s.fg
            );
        }
        assert_ne!(
            light.style(Tone::Accent),
            Theme::default().style(Tone::Accent)
        );
        assert!(high.selected().add_modifier.contains(Modifier::BOLD));
        assert_eq!(
            Palette::ALL.map(Palette::name),
            ["dark", "light", "high-contrast"]
        );
    }
}
