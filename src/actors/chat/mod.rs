//! Keeper chat actors (protocol.md §4.3–§4.5, §11;
//! sources.md G-1…G-10).
//!
//! - [`hub`]: the supervised `ChatHub` source; spawns one chat source per open Keeper, linked
//!   to it.
//! - [`source`]: one `ChatSource` per open Keeper: history pages (PgUp at the top loads the
//!   next older page), the outbox restore on open, reconciliation of exact request ids.
//! - [`send`]: the chat send as a save kind ([`ChatSend`]): the save hub runs each send as
//!   its own actor, outbox first, then the POST and its stream (one write path).
//! - [`interrupt`], [`steer`]: turn control as save kinds (`/interrupt`, `/steer`; §14.13,
//!   §14.14), their receipts landing in the chat surface's own slots.
//! - [`control_receipt`]: a turn control save's receipt kept beside its outbox row, read back
//!   after a restart.
//! - [`marks`]: what this client learned about a send after its row settled, kept by request
//!   id (not recorded, not reconcilable, text given back to the draft).
//! - [`observation`]: what they tell the view ([`ChatObservation`]) and the commands the view
//!   sends ([`ChatCommand`]).
//!
//! The ownership contract (tickets, admission, what is rejected where) is written down with
//! its tests in `docs/audits/chat.md`.

pub mod control_receipt;
pub mod hub;
pub mod interrupt;
pub mod marks;
pub mod observation;
pub mod resume;
pub mod send;
pub mod source;
pub mod steer;

pub use hub::{ChatHub, ChatHubConfig, ChatHubSpawner};
pub use interrupt::{InterruptAim, InterruptIntent, TurnInterrupt};
pub use marks::{ChatMark, SendMarks};
pub use observation::{
    CHAT_HUB, ChatCommand, ChatHubMsg, ChatObservation, ChatSlot, KeptTurns, Reconciliation,
    RestoredSend, ResumeStanding, SendOutcome, SendStep, SentTurn, TurnControlEvent, UnknownCause,
    UnknownWindow,
};
pub use send::{ChatSend, ChatSendIntent};
pub use source::ChatSourceConfig;
pub use steer::{SteerIntent, TurnSteer};
