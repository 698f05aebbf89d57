//! CLI edge: parse arguments, dispatch to `masc_tui::cli::*`, turn errors into exit codes.

use clap::{Parser, Subcommand};
use masc_tui::cli;

#[derive(Debug, Parser)]
#[command(
    name = "masc-tui",
    version,
    about = "Terminal console for a MASC workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    tui: cli::tui::Args,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the embedded workspace server on loopback with seeded data and open the TUI on it.
    Demo(cli::demo::Args),
    /// Run the embedded MASC-compatible workspace server.
    Serve(cli::serve::Args),
    /// Decode a payload file as a manifest kind; exit 0 decoded, 1 rejected, 2 usage.
    Decode(cli::decode::Args),
    /// Summarise a trace file per source.
    Timeline(cli::timeline::Args),
    /// Check a Keeper final answer for hidden report lines that would leak.
    FinalCheck(cli::final_check::Args),
    /// Check a live server endpoint by endpoint against the client's contract (reads only);
    /// exit 0 every served route decodes, 1 some fail, 2 unreachable or unauthorised.
    Doctor(cli::doctor::Args),
}

fn main() {
    // Before any thread: the allocator's arenas are made as threads first allocate.
    cli::allocator::tune();
    let parsed = Cli::parse();
    let result = match parsed.command {
        None => cli::tui::run(parsed.tui),
        Some(Command::Demo(a)) => cli::demo::run(a),
        Some(Command::Serve(a)) => cli::serve::run(a),
        Some(Command::Decode(a)) => cli::decode::run(a),
        Some(Command::Timeline(a)) => cli::timeline::run(a),
        Some(Command::FinalCheck(a)) => cli::final_check::run(a),
        Some(Command::Doctor(a)) => cli::doctor::run(a),
    };
    let code = match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("{}", cli::out::error_line(&err));
            2
        }
    };
    std::process::exit(code);
}
