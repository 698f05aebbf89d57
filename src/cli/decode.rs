//! `masc-tui decode` — not built yet (see the open issues).

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Arguments are defined when the subcommand is built.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(_args: Args) -> anyhow::Result<i32> {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "masc-tui decode: not built yet");
    Ok(2)
}
