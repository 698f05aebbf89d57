//! Embedded server integration tests: each route family over plain HTTP with its fault hooks,
//! and every endpoint read and written through the client (protocol-coverage.md).
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod server_support;
mod support_endpoints;

mod compat_masc;
mod compat_newer;
mod endpoints_reads;
mod endpoints_writes;
mod server_asks;
mod server_board;
mod server_cache;
mod server_connectors;
mod server_goals;
mod server_infra;
mod server_inspector;
mod server_keeper_detail;
mod server_keeper_ops;
mod server_keepers_chat;
mod server_one_record;
mod server_operator;
mod server_runtime;
mod server_scale;
mod server_tasks;
mod server_tools;
mod server_waiting;
