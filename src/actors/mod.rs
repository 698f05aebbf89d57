//! Supervised actors: the workspace actor, one source actor per data source, save actors, and
//! the supervisor. Sources and the view talk by casts only (architecture.md §4).
//!
//! Layers (docs/architecture.md, "Layers"): `contract` (keys, tickets, inboxes, control) ←
//! each source's own types ← `read` (the generic read machinery) ← the sources ← `registry` ←
//! `supervisor`. Nothing here imports `crate::view`.

pub mod activity;
pub mod asks;
pub mod board;
pub mod chat;
pub mod connectors;
pub mod contract;
pub mod decisions;
pub mod fleet;
pub mod gate_queue;
pub mod inspector;
pub mod keeper_detail;
pub mod keepers;
pub mod preparation_report;
pub mod read;
pub mod registry;
pub mod runtime;
pub mod saves;
pub mod source_stats;
pub mod supervisor;
pub mod system_logs;
pub mod tools;
pub mod work;
pub mod workspace;
