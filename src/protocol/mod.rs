//! Wire types per endpoint family, decoders and the admitted HTTP client.
//!
//! This module depends on neither ratatui nor ractor.

pub mod admission;
pub mod asks;
pub mod async_requests;
pub mod board;
pub mod client;
pub mod connectors;
pub mod decode;
pub mod health;
pub mod keeper_config;
pub mod keepers;
pub mod kinds;
pub mod kinds_system;
pub mod operator;
pub mod outcome;
pub mod runtime;
pub mod skills;
pub mod sse;
pub mod tools;
