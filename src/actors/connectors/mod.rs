//! The Connectors source (protocol.md §7.1, §7.2; sources.md D-1…D-7, D-14): the status list
//! first, then one name cursor chain per (connector, scope), each independent.
//!
//! - [`chain`]: `NamesChain`, the captured immutable prefix of one chain, and its page reader.
//! - [`source`]: the actor owning the status read and the chains.

pub mod chain;
pub mod source;

pub use chain::{NamesChain, NamesPageRead, SCOPES};
pub use source::{ConnectorsSource, ConnectorsSpawner};
