//! CLI edge: parse arguments, dispatch to `masc_tui::cli::*`, turn errors into exit codes.

use masc_tui::cli;

fn main() {
    // Before any thread: the allocator's arenas are made as threads first allocate.
    cli::allocator::tune();
    let parsed = cli::command::parse();
    let code = match cli::command::run(parsed) {
        Ok(code) => code,
        // A reader that closed our stdout (`| head`) has what it wanted: a quiet, normal end.
        Err(_) if cli::out::stdout_closed() => 0,
        Err(err) => {
            eprintln!("{}", cli::out::error_line(&err));
            cli::exit_code_of(&err)
        }
    };
    std::process::exit(code);
}
