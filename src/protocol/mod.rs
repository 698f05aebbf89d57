//! Wire types per endpoint family, decoders and the admitted HTTP client.
//!
//! This module depends on neither ratatui nor ractor.

pub mod admission;
pub mod asks;
pub mod async_requests;
pub mod board;
pub mod board_vote;
pub mod chat;
pub mod client;
pub mod connectors;
pub mod coop_report;
pub mod decode;
pub mod gate_queue;
pub mod gate_resolve;
pub mod goal_transition;
pub mod goals;
pub mod health;
pub mod held_calls;
pub mod inspector;
pub mod keeper_config;
pub mod keeper_detail;
pub mod keeper_ops;
pub mod keeper_up;
pub mod keepers;
pub mod kinds;
pub mod observer;
pub mod operator;
pub mod outcome;
pub mod planning;
pub mod routes;
pub mod runtime;
pub mod runtime_trace;
pub mod skills;
pub mod sse;
pub mod system_logs;
pub mod tasks;
pub mod tools;
pub mod transcript;
pub mod turn_control;
pub mod turns;
pub mod waiting;
