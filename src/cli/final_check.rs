//! `masc-tui final-check [FILE|-] [--json]`: what a reader of one Keeper final answer sees, the
//! reports it carries, and every report line a CommonMark renderer would display.
//! Exit 0 clean, 1 leaks or invalid reports, 2 usage (unreadable input included).

use crate::protocol::coop_report::{FinalAnalysis, analyse};
use anyhow::Context;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The final answer to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// Print one JSON object: reader_text, reports, invalid_reports, leaks, hidden_lines...
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let bytes = read_input(args.input.as_ref())?;
    run_on(&args, &bytes, &mut super::out::stdout())
}

/// The subcommand on given input bytes and output (tests drive this directly). The final is
/// worker text: the report goes through `cli::out` (text sanitised line by line, JSON with
/// every control escaped).
pub fn run_on(args: &Args, bytes: &[u8], out: &mut dyn Write) -> anyhow::Result<i32> {
    let text = std::str::from_utf8(bytes).context("the final answer is not valid UTF-8")?;
    let analysis = analyse(text);
    if args.json {
        super::out::json(out, &json_report(&analysis))?;
    } else {
        let mut report = Vec::new();
        write_text_report(&mut report, &analysis)?;
        super::out::text(out, &String::from_utf8_lossy(&report))?;
    }
    Ok(if analysis.is_clean() { 0 } else { 1 })
}

fn read_input(input: Option<&PathBuf>) -> anyhow::Result<Vec<u8>> {
    match input {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
        }
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            Ok(bytes)
        }
    }
}

/// The `--json` object. Scripts depend on `reader_text`, `reports`, `leaks` (`line`, `cause`)
/// and `invalid_reports`; the rest is extra detail.
fn json_report(analysis: &FinalAnalysis) -> serde_json::Value {
    serde_json::json!({
        "clean": analysis.is_clean(),
        "reader_text": analysis.reader_text.text,
        "reader_source": analysis.reader_text.source,
        "reports": analysis.reports,
        "invalid_reports": analysis.invalid_reports,
        "leaks": analysis.leaks,
        "hidden_lines": analysis.hidden_lines,
        "spans": analysis.spans.iter().map(|s| serde_json::json!({
            "start": s.start, "end": s.end, "line": s.line, "entries": s.entries.len(),
        })).collect::<Vec<_>>(),
    })
}

fn write_text_report(out: &mut impl Write, analysis: &FinalAnalysis) -> std::io::Result<()> {
    writeln!(out, "reader text:")?;
    for line in analysis.reader_text.text.lines() {
        writeln!(out, "  {}", printable(line))?;
    }
    writeln!(
        out,
        "reports: {} valid, {} invalid, in {} span(s)",
        analysis.reports.len(),
        analysis.invalid_reports.len(),
        analysis.spans.len()
    )?;
    for r in &analysis.reports {
        writeln!(
            out,
            "  line {}: binding_id={} outcome={}",
            r.line,
            printable(&r.report.binding_id),
            printable(&r.report.outcome)
        )?;
    }
    for r in &analysis.invalid_reports {
        let detail = serde_json::to_value(&r.cause)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .map(|mut o| {
                o.remove("cause");
                serde_json::Value::Object(o).to_string()
            })
            .unwrap_or_default();
        writeln!(
            out,
            "  invalid, line {}: {} {}",
            r.line,
            r.cause.name(),
            printable(&detail)
        )?;
    }
    writeln!(out, "leaks: {}", analysis.leaks.len())?;
    for leak in &analysis.leaks {
        let all: Vec<&str> = leak.causes.iter().map(|c| c.name()).collect();
        writeln!(
            out,
            "  line {}: {} [{}] shows: {}",
            leak.line,
            leak.cause.name(),
            all.join(", "),
            printable(&leak.visible)
        )?;
    }
    // Long finals can hide thousands of lines: list the first few, count the rest.
    const LISTED: usize = 20;
    let mut hidden: Vec<String> = analysis
        .hidden_lines
        .iter()
        .take(LISTED)
        .map(|h| h.line.to_string())
        .collect();
    if analysis.hidden_lines.len() > LISTED {
        hidden.push(format!("… {} more", analysis.hidden_lines.len() - LISTED));
    }
    writeln!(out, "hidden lines: {}", hidden.join(", "))?;
    writeln!(
        out,
        "verdict: {}",
        if analysis.is_clean() {
            "clean"
        } else {
            "not clean"
        }
    )
}

/// Worker text goes to a terminal: one line, every control escaped by the one sanitiser
/// (the whole report passes `cli::out` again, which changes nothing already escaped).
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    crate::sanitize::sanitize(text)
}
