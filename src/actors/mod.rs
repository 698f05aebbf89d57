//! Supervised actors: the workspace actor, one source actor per data source, save actors, and
//! the supervisor. Sources and the view talk by casts only (architecture.md §4).

pub mod board;
pub mod chat;
pub mod connectors;
pub mod keepers;
pub mod messages;
pub mod read;
pub mod supervisor;
pub mod system;
pub mod ticket;
pub mod work;
pub mod workspace;
