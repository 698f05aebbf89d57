//! The command line as a whole: the top-level parser the binary runs, and the two commands
//! that describe it — shell completions and the man page — generated from that same parser, so
//! they never list a flag the binary does not take.

use super::{config, decode, demo, doctor, final_check, serve, timeline, tui};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

/// The commit the binary was built from (`build.rs`: `git rev-parse`, else `unknown`).
pub const BUILD_COMMIT: &str = env!("MASC_TUI_BUILD_COMMIT");

/// `masc-tui --version`: the package version and the build's commit.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MASC_TUI_BUILD_COMMIT"),
    ")"
);

/// Exit status, environment and files, shown under `--help` and as the man page's own
/// sections (README "Exit codes" and "Environment" hold the full tables).
const AFTER_LONG_HELP: &str = "\
Exit status: 0 quit with `q q` (subcommands: done, decoded, clean; a reader that closes the \
output early, as `| head` does, also ends with 0); 1 abnormal end (decode: rejected; \
final-check and doctor: findings); 2 usage or start-up error; 3 the terminal went away; \
4 another masc-tui holds this state directory; 128+N ended by signal N.";

#[derive(Debug, Parser)]
#[command(
    name = "masc-tui",
    version = VERSION,
    about = "Terminal console for a MASC workspace",
    after_long_help = AFTER_LONG_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: tui::Args,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the embedded workspace server on loopback with seeded data and open the TUI on it.
    Demo(demo::Args),
    /// Run the embedded MASC-compatible workspace server.
    Serve(serve::Args),
    /// Decode a payload file as a manifest kind; exit 0 decoded, 1 rejected, 2 usage.
    Decode(decode::Args),
    /// Summarise a trace file per source.
    Timeline(timeline::Args),
    /// Check a Keeper final answer for hidden report lines that would leak.
    FinalCheck(final_check::Args),
    /// Check a live server endpoint by endpoint against the client's contract (reads only);
    /// exit 0 every served route decodes, 1 some fail, 2 unreachable or unauthorised.
    Doctor(doctor::Args),
    /// The config file: `config check` validates it and prints what a session would resolve.
    Config(config::check::ConfigArgs),
    /// Print a shell completion script (bash, zsh or fish) on stdout.
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout, or write one page per command into a directory.
    Man(ManArgs),
}

/// The shells a completion script is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Clone, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: `bash` (source it, or put it in bash-completion's directory), `zsh` (a
    /// `_masc-tui` file on `$fpath`) or `fish` (`~/.config/fish/completions/masc-tui.fish`).
    pub shell: Shell,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ManArgs {
    /// Write `masc-tui.1` and one `masc-tui-<command>.1` per subcommand into DIR instead of
    /// printing the top page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The process's command line, parsed (clap exits on a usage error), with each session
/// argument's origin (command line or environment) kept for the config resolution.
pub fn parse() -> Cli {
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    cli.tui.origins = config::Origins::of(&matches);
    match (&mut cli.command, matches.subcommand()) {
        (Some(Command::Config(config_args)), Some((_, sub))) => {
            if let Some((_, check)) = sub.subcommand() {
                config_args.set_origins(config::Origins::of(check));
            }
        }
        (Some(Command::Doctor(doctor_args)), Some((_, sub))) => {
            doctor_args.origins = config::Origins::of(sub);
        }
        _ => {}
    }
    cli
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        None => tui::run(cli.tui),
        Some(Command::Demo(a)) => demo::run(a),
        Some(Command::Serve(a)) => serve::run(a),
        Some(Command::Decode(a)) => decode::run(a),
        Some(Command::Timeline(a)) => timeline::run(a),
        Some(Command::FinalCheck(a)) => final_check::run(a),
        Some(Command::Doctor(a)) => doctor::run(a),
        Some(Command::Config(a)) => config::check::run(a),
        Some(Command::Completions(a)) => {
            super::out::stdout().write_all(&completions(a.shell))?;
            Ok(0)
        }
        Some(Command::Man(ManArgs { dir: Some(dir) })) => {
            write_man_pages(&dir)?;
            Ok(0)
        }
        Some(Command::Man(ManArgs { dir: None })) => {
            super::out::stdout().write_all(&man_page(documented())?)?;
            Ok(0)
        }
    }
}

/// The completion script for `shell`, whole (generated into memory first: the generator
/// cannot report a failed write, and a reader that closes early is an ordinary end).
pub fn completions(shell: Shell) -> Vec<u8> {
    use clap_complete::Shell as Target;
    let target = match shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(target, &mut Cli::command(), "masc-tui", &mut script);
    script
}

/// The command line as the man pages document it: without clap's `help` subcommand (every
/// page is the help).
fn documented() -> clap::Command {
    Cli::command().disable_help_subcommand(true)
}

/// One man page (roff): clap's sections for `cmd`, then, on the top page, EXIT STATUS,
/// ENVIRONMENT and FILES.
pub fn man_page(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    let top = cmd.get_name() == "masc-tui";
    // The top page carries the exit status as its own section, not in clap's EXTRA.
    let cmd = if top {
        cmd.after_long_help(None::<&str>)
    } else {
        cmd
    };
    let man = clap_mangen::Man::new(cmd);
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    if top {
        man.render_subcommands_section(&mut page)?;
        man_sections().to_writer(&mut page)?;
        man.render_version_section(&mut page)?;
    }
    Ok(page)
}

/// `masc-tui man --dir DIR`: the top page and one page per subcommand (`masc-tui-demo.1`, …).
pub fn write_man_pages(dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut top = documented();
    top.build();
    let mut pages = vec![("masc-tui.1".to_string(), man_page(top.clone())?)];
    for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("masc-tui-{}", sub.get_name());
        let page = man_page(sub.clone().display_name(name.clone()))?;
        pages.push((format!("{name}.1"), page));
    }
    for (file, page) in pages {
        let path = dir.join(&file);
        std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The top page's EXIT STATUS, ENVIRONMENT and FILES (the README's tables, shortened).
fn man_sections() -> roff::Roff {
    let mut roff = roff::Roff::default();
    table(
        &mut roff,
        "EXIT STATUS",
        &[
            (
                "0",
                "Quit with q q; a subcommand done (decode: decoded, final-check: clean, doctor: \
                 every served route decodes). Also when the reader closes the output early \
                 (masc-tui timeline FILE | head).",
            ),
            (
                "1",
                "Abnormal end of the TUI; decode: rejected; final-check: leaks; doctor: a route \
                 fails.",
            ),
            (
                "2",
                "Usage or start-up error; doctor: the server is unreachable or refuses the token.",
            ),
            (
                "3",
                "The terminal went away (end of input or a read error on it).",
            ),
            (
                "4",
                "Another masc-tui holds this state directory (its pid is printed); use \
                 --state-dir DIR or MASC_TUI_STATE_DIR.",
            ),
            (
                "129, 130, 131, 143",
                "Ended by SIGHUP, SIGINT (or Ctrl-C), SIGQUIT, SIGTERM.",
            ),
        ],
    );
    table(
        &mut roff,
        "ENVIRONMENT",
        &[
            (
                "MASC_HOST, MASC_HTTP_PORT",
                "Server address (default 127.0.0.1:8935).",
            ),
            (
                "MASC_TOKEN",
                "Bearer token when --token is not given; otherwise the token file (FILES).",
            ),
            (
                "MASC_BASE_PATH",
                "The workspace base path you expect the server to serve.",
            ),
            (
                "MASC_TUI_STATE_DIR",
                "The state directory (outbox and its lock); as --state-dir.",
            ),
            (
                "MASC_TUI_WORKSPACE, MASC_TUI_CONFIG, MASC_TUI_START",
                "The named workspace, the config file and the start surface; as --workspace, \
                 --config and --start.",
            ),
            (
                "XDG_CONFIG_HOME",
                "The config file is $XDG_CONFIG_HOME/masc-tui/config.toml (else \
                 ~/.config/masc-tui/config.toml).",
            ),
            (
                "XDG_STATE_HOME",
                "State and traces go to $XDG_STATE_HOME/masc-tui (else ~/.local/state/masc-tui).",
            ),
            (
                "NO_COLOR",
                "No colours; meaning is kept by marks and words.",
            ),
            ("VISUAL, EDITOR", "The editor long edits go to."),
        ],
    );
    table(
        &mut roff,
        "FILES",
        &[
            (
                "<state>/chat-outbox.sqlite3",
                "The durable outbox of every write (0600); <state>/chat-outbox.sqlite3.lock \
                 holds the pid of the masc-tui using it.",
            ),
            (
                "<base>/.masc/auth/masc-tui.token",
                "The token file read when neither --token nor MASC_TOKEN is given; masc-tui serve \
                 writes the token it requires there (0600).",
            ),
            (
                "~/.config/masc-tui/config.toml",
                "Named workspaces (url, token_file / token_env / token_command, base_path, \
                 colour) and defaults (workspace, theme, lang, start); masc-tui config check \
                 validates it. A token file, or a config file holding a token, that others may \
                 read is refused.",
            ),
            (
                "<base>/.masc/logs/masc-tui-<pid>.log",
                "One exit line per session (0600).",
            ),
        ],
    );
    roff
}

/// A man page section of tagged paragraphs: each term in bold, its text below it.
fn table(roff: &mut roff::Roff, heading: &str, rows: &[(&str, &str)]) {
    roff.control("SH", [heading]);
    for (term, text) in rows {
        roff.control("TP", []);
        roff.text([roff::bold(*term)]);
        roff.text([roff::roman(*text)]);
    }
}
