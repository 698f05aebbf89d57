//! The run mode's command line (flattened into the top-level command line, shared with
//! `demo`, `doctor` and `config check`) and the values it names: the default server, the
//! surface a session opens on, the theme. Apart from the run mode itself so the config file's
//! resolution can read them without the run mode reading it back.

use crate::view::screens::Tab;
use crate::view::theme::{Palette, Theme};
use std::path::PathBuf;

/// Arguments of the run mode (flattened into the top-level command line).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The named workspace of the config file to open (its url, token source, base path).
    /// Without it: `--url`/`--host`, then `MASC_TUI_WORKSPACE`, then `MASC_HOST`, then the
    /// file's `defaults.workspace`.
    #[arg(long, env = "MASC_TUI_WORKSPACE", value_name = "NAME")]
    pub workspace: Option<String>,
    /// The config file (default `$XDG_CONFIG_HOME/masc-tui/config.toml`, else
    /// `~/.config/masc-tui/config.toml`); named here, it must exist.
    #[arg(long, env = "MASC_TUI_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Workspace server URL of an unnamed workspace (or overriding a named one's); default
    /// `http://$MASC_HOST:$MASC_HTTP_PORT`.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Server host when `--url` is not given [default: 127.0.0.1].
    #[arg(long, env = "MASC_HOST")]
    pub host: Option<String>,
    /// Server HTTP port when `--url` is not given [default: 8935].
    #[arg(long, env = "MASC_HTTP_PORT")]
    pub http_port: Option<u16>,
    /// Bearer token. Without it the client reads the named workspace's token source, or
    /// `MASC_TOKEN`, then `<base>/.masc/auth/masc-tui.token`; it re-reads on 401.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The workspace base path this session expects the server to serve.
    #[arg(long, env = "MASC_BASE_PATH", value_name = "DIR")]
    pub base_path: Option<PathBuf>,
    /// The surface in front at start [default: keepers].
    #[arg(long, env = "MASC_TUI_START", value_enum, value_name = "SURFACE")]
    pub start: Option<StartSurface>,
    /// Write stage traces (JSON lines) to this file.
    #[arg(long, value_name = "FILE")]
    pub trace_file: Option<PathBuf>,
    /// Refuse servers that send no workspace receipts (no health-admission mode).
    #[arg(long)]
    pub strict_receipts: bool,
    /// The state directory: the outbox of every write (`chat-outbox.sqlite3`), its lock and,
    /// without `--trace-file`, the trace file. One masc-tui at a time per directory. Default
    /// `$XDG_STATE_HOME/masc-tui`, else `~/.local/state/masc-tui`.
    #[arg(long, env = "MASC_TUI_STATE_DIR", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// When another masc-tui holds the state directory, look without saving instead of
    /// exiting 4: no outbox is opened, every write is refused, a banner says so.
    #[arg(long)]
    pub read_only: bool,
    /// Export every read and save ticket as an OpenTelemetry span to this OTLP/HTTP collector
    /// (e.g. `http://localhost:4318`, Jaeger's or Tempo's receiver; docs/timeline.md). Off by
    /// default; an unreachable collector only drops spans and is reported once in the trace.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    #[command(flatten)]
    pub look: Look,
    /// Which of these came from the command line and which from the environment (filled by
    /// `command::parse` from clap's matches; the config file sits below both).
    #[arg(skip)]
    pub origins: crate::cli::config::origin::Origins,
}

/// The server host of an unnamed workspace when neither `--host` nor `MASC_HOST` gives one.
pub const DEFAULT_HOST: &str = "127.0.0.1";
/// The server port of an unnamed workspace when neither `--http-port` nor `MASC_HTTP_PORT`
/// gives one.
pub const DEFAULT_HTTP_PORT: u16 = 8935;

/// The surface a session opens on (`--start`, `defaults.start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum StartSurface {
    Overview,
    Work,
    #[default]
    Keepers,
    Board,
    System,
}

impl StartSurface {
    pub fn tab(self) -> Tab {
        match self {
            Self::Overview => Tab::Overview,
            Self::Work => Tab::Work,
            Self::Keepers => Tab::Keepers,
            Self::Board => Tab::Board,
            Self::System => Tab::System,
        }
    }

    /// The spelling of the flag and the config file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Overview => "overview",
            Self::Work => "work",
            Self::Keepers => "keepers",
            Self::Board => "board",
            Self::System => "system",
        }
    }
}

/// The colours a session paints with (`--theme`; `NO_COLOR` still wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl ThemeName {
    /// The spelling of the flag and the config file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dark => "dark",
            Self::Light => "light",
            Self::HighContrast => "high-contrast",
        }
    }
}

impl From<ThemeName> for Palette {
    fn from(name: ThemeName) -> Self {
        match name {
            ThemeName::Dark => Palette::Dark,
            ThemeName::Light => Palette::Light,
            ThemeName::HighContrast => Palette::HighContrast,
        }
    }
}

/// How the session looks and what it takes from the terminal: the theme and the mouse.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct Look {
    /// Colours for the terminal's background: dark, light or high-contrast [default: dark, or
    /// the config file's `defaults.theme`]. `NO_COLOR` (non-empty) removes colour in every
    /// theme.
    #[arg(long, env = "MASC_TUI_THEME", value_enum)]
    pub theme: Option<ThemeName>,
    /// Leave the mouse to the terminal (its own selection and scrolling): no wheel scrolling and
    /// no clicks in masc-tui.
    #[arg(long)]
    pub no_mouse: bool,
}

impl Look {
    /// The theme: `NO_COLOR` / `MASC_TUI_FORCE_COLOR` from the environment, this palette.
    pub fn theme(&self) -> Theme {
        Theme::from_env().with_palette(self.theme.unwrap_or_default().into())
    }
}
