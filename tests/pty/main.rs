//! End-to-end runs of the `masc-tui` binary in a pseudo-terminal (demo, chat, approvals).
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod pty_support;

mod pty_activity;
mod pty_approvals;
mod pty_asks;
mod pty_board;
mod pty_chat;
mod pty_chat_batch;
mod pty_chat_reopen;
mod pty_chat_text;
mod pty_config;
mod pty_conflict;
mod pty_connectors;
mod pty_context;
mod pty_demo;
mod pty_demo_fleet;
mod pty_editor;
mod pty_gate_queue;
mod pty_held_calls;
mod pty_help;
mod pty_journal;
mod pty_keeper_create;
mod pty_keeper_ops;
mod pty_keeper_settings;
mod pty_palette;
mod pty_preparation_report;
mod pty_proof_saves;
mod pty_runtime;
mod pty_settings_conflict;
mod pty_sources;
mod pty_state_dir;
mod pty_tools;
mod pty_turn_control;
