//! `masc-tui decode --as KIND FILE`: decode a payload file as a fixture-manifest kind.
//!
//! Prints the one-line summary (exit 0) or `rejected: <reason> at <path>: <detail>` (exit 1);
//! usage problems (unknown kind, unreadable file, no decoder built) exit 2. `FILE` may be `-`
//! for stdin; `.sse` transcripts are read as the chat stream for `keeper_chat_stream`.

use crate::protocol::kinds::{KINDS, decode_kind};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Manifest kind to decode as (e.g. `gate_keepers`, `keeper_chat_stream`).
    #[arg(long = "as", value_name = "KIND")]
    pub kind: String,
    /// Payload file, or `-` for stdin.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub const EXIT_DECODED: i32 = 0;
pub const EXIT_REJECTED: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// Runs the subcommand on the process's stdio; returns the exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let stdin = std::io::stdin();
    let stderr = std::io::stderr();
    run_with(
        &args,
        &mut stdin.lock(),
        &mut super::out::stdout(),
        &mut stderr.lock(),
    )
}

/// The subcommand over explicit streams (tests drive this directly).
pub fn run_with(
    args: &Args,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if !KINDS.contains(&args.kind.as_str()) {
        super::out::text(
            err,
            &format!(
                "masc-tui decode: unknown kind \"{}\"; valid kinds: {}",
                crate::sanitize::sanitize(&args.kind),
                KINDS.join(", ")
            ),
        )?;
        return Ok(EXIT_USAGE);
    }
    let bytes = if args.file.as_os_str() == "-" {
        let mut buf = Vec::new();
        if let Err(e) = stdin.read_to_end(&mut buf) {
            super::out::text(err, &format!("masc-tui decode: cannot read stdin: {e}"))?;
            return Ok(EXIT_USAGE);
        }
        buf
    } else {
        match std::fs::read(&args.file) {
            Ok(b) => b,
            Err(e) => {
                super::out::text(
                    err,
                    &format!(
                        "masc-tui decode: cannot read {}: {e}",
                        crate::sanitize::sanitize(&args.file.to_string_lossy())
                    ),
                )?;
                return Ok(EXIT_USAGE);
            }
        }
    };
    match decode_kind(&args.kind, &bytes) {
        None => {
            super::out::text(
                err,
                &format!(
                    "masc-tui decode: unknown kind \"{}\"",
                    crate::sanitize::sanitize(&args.kind)
                ),
            )?;
            Ok(EXIT_USAGE)
        }
        Some(Ok(summary)) => {
            super::out::text(out, &summary)?;
            Ok(EXIT_DECODED)
        }
        Some(Err(e)) if e.reason() == "decoder_not_built" => {
            super::out::text(err, &format!("masc-tui decode: {}", e.detail))?;
            Ok(EXIT_USAGE)
        }
        Some(Err(e)) => {
            // The path names keys of the payload and the detail may quote its tokens: one
            // line, every control escaped by the one sanitiser.
            super::out::text(
                out,
                &format!(
                    "rejected: {} at {}: {}",
                    e.reason(),
                    crate::sanitize::sanitize(&e.path),
                    crate::sanitize::sanitize(&e.detail)
                ),
            )?;
            Ok(EXIT_REJECTED)
        }
    }
}
