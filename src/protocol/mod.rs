//! Wire types per endpoint family, decoders and the admitted HTTP client.
//!
//! This module depends on neither ratatui nor ractor.

pub mod admission;
pub mod async_requests;
pub mod board;
pub mod client;
pub mod connectors;
pub mod decode;
pub mod health;
pub mod keepers;
pub mod kinds;
pub mod runtime;
pub mod skills;
pub mod sse;
pub mod tools;
