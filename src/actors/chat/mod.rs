//! Keeper chat actors (issue 4 items 1 and 5; protocol.md §4.3–§4.5, §11; sources.md G-1…G-10).
//!
//! - [`hub`]: the supervised `ChatHub` source; spawns the two actor kinds below, linked to it.
//! - [`source`]: one `ChatSource` per open Keeper: history pages (PgUp at the top loads the
//!   next older page), the outbox restore on open, reconciliation of exact request ids.
//! - [`send`]: one `SendOperation` per send: outbox first, then the POST and its stream.
//! - [`observation`]: what they tell the view ([`ChatObservation`]) and the commands the view
//!   sends ([`ChatCommand`]).
//!
//! The ownership contract (tickets, admission, what is rejected where) is written down with
//! its tests in `docs/audits/chat.md`.

pub mod hub;
pub mod observation;
pub mod send;
pub mod source;

pub use hub::{ChatHub, ChatHubConfig, ChatHubSpawner};
pub use observation::{
    CHAT_HUB, ChatCommand, ChatHubMsg, ChatObservation, ChatSlot, Reconciliation, RestoredSend,
    SendOutcome, SendStep, UnknownCause,
};
pub use source::ChatSourceConfig;
