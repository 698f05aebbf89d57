//! Wire types per endpoint family, decoders and the admitted HTTP client.
//!
//! This module depends on neither ratatui nor ractor.

pub mod admission;
pub mod chat;
pub mod client;
pub mod coop_report;
pub mod decode;
pub mod goals;
pub mod health;
pub mod keepers;
pub mod kinds;
pub mod kinds_work;
pub mod planning;
pub mod sse;
pub mod tasks;
pub mod transcript;
pub mod turns;
