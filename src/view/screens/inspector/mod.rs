//! The turn inspector's screens (protocol.md §14.11; sources.md K-14…K-17): the readings as
//! rows (`reads`), shared by the turn inspector over Approvals (`O`) and the context inspector
//! over the chat (`/context`), and the proof tab (`proof`) that accounts for a turn's
//! serialized request by its recorded components; the turn inspector itself (`turn`) and its
//! record and input tabs (`turn_reads`).

pub mod proof;
pub mod reads;
pub mod turn;
pub mod turn_reads;
