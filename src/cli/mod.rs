//! Subcommand implementations. `main.rs` only parses arguments and dispatches here; each file
//! owns one subcommand's arguments (clap `Args`) and its `run`, returning the process exit code.
//! `command` is the whole command line (and the completions and man page made from it).

pub mod allocator;
pub mod args;
pub mod command;
pub mod config;
pub mod decode;
pub mod demo;
pub mod doctor;
pub mod final_check;
pub mod out;
pub mod serve;
pub mod state;
pub mod timeline;
pub mod tui;

pub use state::exit_code_of;
