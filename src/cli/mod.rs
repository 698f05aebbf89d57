//! Subcommand implementations. `main.rs` only parses arguments and dispatches here; each file
//! owns one subcommand's arguments (clap `Args`) and its `run`, returning the process exit code.

pub mod allocator;
pub mod decode;
pub mod demo;
pub mod doctor;
pub mod final_check;
pub mod out;
pub mod serve;
pub mod timeline;
pub mod tui;
