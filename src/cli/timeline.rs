//! `masc-tui timeline FILE [--json] [--chrome-trace OUT.json] [--svg OUT.svg]` — per-source summary of a stage
//! trace (see `crate::timeline::report`), or the same trace as a picture for a timeline viewer
//! (`crate::timeline::chrome`) or a picture for a bug report (`crate::timeline::svg`).

use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A trace file written by `--trace-file` (JSON lines).
    pub file: PathBuf,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write the trace in the Trace Event Format (open it in Perfetto UI or chrome://tracing)
    /// instead of printing the report.
    #[arg(long, value_name = "OUT.json")]
    pub chrome_trace: Option<PathBuf>,
    /// Draw the trace as a swimlane picture (SVG: a row per source, a bar per ticket) instead
    /// of printing the report.
    #[arg(long, value_name = "OUT.svg")]
    pub svg: Option<PathBuf>,
}

impl Args {
    fn exports(&self) -> bool {
        self.chrome_trace.is_some() || self.svg.is_some()
    }
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    run_with(&args, &mut super::out::stdout())
}

fn open_trace(path: &Path) -> anyhow::Result<std::io::BufReader<std::fs::File>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(std::io::BufReader::new(file))
}

/// Writes `bytes` to `path`, owner-only like the trace it came from (it names the same sources
/// and reasons).
fn write_export(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = crate::private_file::open_private(path, true)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The subcommand over an explicit output (tests drive this directly). Source names, reasons
/// and outcome classes come from the trace file (and through it from the server: connector
/// ids become source names), so the report is printed through `cli::out`.
pub fn run_with(args: &Args, out: &mut dyn Write) -> anyhow::Result<i32> {
    if args.exports() {
        let timeline = crate::timeline::tickets::read_timeline(open_trace(&args.file)?)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        if let Some(path) = &args.chrome_trace {
            let document = crate::timeline::chrome::chrome_trace(&timeline);
            let text = crate::sanitize::to_json_string(&document)?;
            write_export(path, text.as_bytes())?;
            super::out::text(
                out,
                &format!(
                    "chrome trace: {} tickets from {} process(es) written to {}",
                    timeline.ticket_count(),
                    timeline.processes.len(),
                    path.display()
                ),
            )?;
        }
        if let Some(path) = &args.svg {
            let picture = crate::timeline::svg::swimlane_svg(&timeline)?;
            write_export(path, picture.as_bytes())?;
            super::out::text(
                out,
                &format!(
                    "swimlane picture: {} tickets from {} process(es) written to {}",
                    timeline.ticket_count(),
                    timeline.processes.len(),
                    path.display()
                ),
            )?;
        }
        return Ok(0);
    }
    let report = crate::timeline::report::read_report(open_trace(&args.file)?)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    if args.json {
        super::out::json(out, &report)?;
    } else {
        super::out::text(out, &crate::timeline::report::render_text(&report))?;
    }
    Ok(0)
}
