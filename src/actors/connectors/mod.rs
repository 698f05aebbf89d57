//! The Connectors source (protocol.md §7.1, §7.2; sources.md D-1…D-7, D-14): the status list
//! first, then one name cursor chain per (connector, scope), each independent.
//!
//! - [`chain`]: `NamesChain`, the captured immutable prefix of one chain, and its page reader.
//! - [`source`]: the actor owning the status read and the chains, and the write demand of a
//!   settled binding write (D-10…D-13).
//!
//! The bind and unbind save kinds (§7.3, §7.4) live beside the System surface that shows them:
//! `crate::actors::system::binding`.

pub mod chain;
pub mod source;

pub use chain::{NamesChain, NamesPageRead, SCOPES};
pub use source::{ConnectorsCommand, ConnectorsSpawner, ConnectorsState};
