//! The `masc-tui` subcommands run as processes: `decode`, `doctor`, `final-check` and
//! `timeline`, and everything every subcommand prints passes the one sanitiser (`cli_output`).
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod cli_conventions;
mod cli_output;
mod config_file;
mod decode_cli;
mod doctor_cli;
mod fault_plan_docs;
mod final_check_cli;
mod otlp_export;
mod timeline_chrome;
mod timeline_report;
mod timeline_svg;
mod trace_event_format;
