//! Density modes and view toggles (§2.5): `Ctrl-F` origin, `Ctrl-N` journal, `Ctrl-D` tools,
//! `Ctrl-R` reasoning, `Ctrl-S` turn details. Defaults follow the seeds [S0][S1].

/// `Ctrl-F`: `Origin_bare → Origin_inline → Origin_row → Origin_bare` (C-23..C-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OriginMode {
    /// Conversation: a 3-cell margin holding the mark; no clock, rail or labels (default).
    #[default]
    Bare,
    /// Clock, speaker column and turn rail in the left gutter.
    Inline,
    /// One origin heading row above each speaker's body.
    Row,
}

impl OriginMode {
    pub fn cycle(self) -> Self {
        match self {
            Self::Bare => Self::Inline,
            Self::Inline => Self::Row,
            Self::Row => Self::Bare,
        }
    }
}

/// `Ctrl-D`: `Tools_compact → Tools_results → Tools_full → Tools_compact` (C-47..C-50).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ToolVisibility {
    #[default]
    Compact,
    Results,
    Full,
}

impl ToolVisibility {
    pub fn cycle(self) -> Self {
        match self {
            Self::Compact => Self::Results,
            Self::Results => Self::Full,
            Self::Full => Self::Compact,
        }
    }
}

/// `Ctrl-R`: folded → full → hidden → folded (C-38).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReasoningMode {
    #[default]
    Folded,
    Full,
    Hidden,
}

impl ReasoningMode {
    pub fn cycle(self) -> Self {
        match self {
            Self::Folded => Self::Full,
            Self::Full => Self::Hidden,
            Self::Hidden => Self::Folded,
        }
    }
}

/// `Ctrl-N`: hidden → summary → full → hidden (the journal lane; default hidden [S1]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JournalMode {
    #[default]
    Hidden,
    Summary,
    Full,
}

impl JournalMode {
    pub fn cycle(self) -> Self {
        match self {
            Self::Hidden => Self::Summary,
            Self::Summary => Self::Full,
            Self::Full => Self::Hidden,
        }
    }
}

/// Every toggle of the transcript. `Default` is the readable default layout (C-27).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ViewModes {
    pub origin: OriginMode,
    pub tools: ToolVisibility,
    pub reasoning: ReasoningMode,
    pub journal: JournalMode,
    /// `Ctrl-S`: expanded turn details (diagnostic rows after the body, C-30).
    pub details: bool,
}

/// A toggle key of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewToggle {
    /// `Ctrl-F`
    Origin,
    /// `Ctrl-N`
    Journal,
    /// `Ctrl-D`
    Tools,
    /// `Ctrl-R`
    Reasoning,
    /// `Ctrl-S`
    Details,
}

impl ViewModes {
    pub fn toggle(&mut self, key: ViewToggle) {
        match key {
            ViewToggle::Origin => self.origin = self.origin.cycle(),
            ViewToggle::Journal => self.journal = self.journal.cycle(),
            ViewToggle::Tools => self.tools = self.tools.cycle(),
            ViewToggle::Reasoning => self.reasoning = self.reasoning.cycle(),
            ViewToggle::Details => self.details = !self.details,
        }
    }

    /// Names of the detail modes the user opened, for beside the title. Defaults are never
    /// announced (C-26): the default layout yields an empty list.
    pub fn opened_badges(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        match self.origin {
            OriginMode::Bare => {}
            OriginMode::Inline => out.push("metadata"),
            OriginMode::Row => out.push("origin rows"),
        }
        match self.tools {
            ToolVisibility::Compact => {}
            ToolVisibility::Results => out.push("tool results"),
            ToolVisibility::Full => out.push("tools full"),
        }
        match self.reasoning {
            ReasoningMode::Folded => {}
            ReasoningMode::Full => out.push("reasoning full"),
            ReasoningMode::Hidden => out.push("reasoning hidden"),
        }
        match self.journal {
            JournalMode::Hidden => {}
            JournalMode::Summary => out.push("journal summary"),
            JournalMode::Full => out.push("journal full"),
        }
        if self.details {
            out.push("details");
        }
        out
    }
}
