//! The `masc-tui` subcommands run as processes: `decode`, `doctor`, `final-check` and
//! `timeline`.
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod decode_cli;
mod doctor_cli;
mod final_check_cli;
mod timeline_report;
