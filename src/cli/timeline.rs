//! `masc-tui timeline FILE [--json]` — per-source summary of a stage trace (see
//! `crate::timeline::report`).

use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A trace file written by `--trace-file` (JSON lines).
    pub file: PathBuf,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    run_with(&args, &mut super::out::stdout())
}

/// The subcommand over an explicit output (tests drive this directly). Source names, reasons
/// and outcome classes come from the trace file (and through it from the server: connector
/// ids become source names), so the report is printed through `cli::out`.
pub fn run_with(args: &Args, out: &mut dyn Write) -> anyhow::Result<i32> {
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot open {}", args.file.display()))?;
    let report = crate::timeline::report::read_report(std::io::BufReader::new(file))
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    if args.json {
        super::out::json(out, &report)?;
    } else {
        super::out::text(out, &crate::timeline::report::render_text(&report))?;
    }
    Ok(0)
}
