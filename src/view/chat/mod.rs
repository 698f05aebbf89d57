//! The chat surface's model: the open chat ([`pane`]: its transcript, sends, progress and
//! admission) and [`surface`], the model that owns it and the chat inbox; [`control`]: the
//! turn control saves (`/interrupt`, `/steer`) and their rows. The other modules write the
//! chat's own rows into its transcript (built by `crate::view::transcript`): the interactive
//! admission notices ([`admission`]), approval and held-call gate rows ([`approvals`],
//! [`held_calls`]), input held behind an interrupt ([`held`]), batch diagnostics ([`batch`])
//! and the preparation detail ([`preparation_report`]).

pub mod admission;
pub mod approvals;
pub mod batch;
pub mod control;
pub mod held;
pub mod held_calls;
pub mod pane;
pub mod preparation_report;
pub mod surface;

pub use pane::{
    Activity, AutonomousTurns, ChatEffect, ChatPane, HistoryState, PendingSend, Progress,
    SendPhase, Unconfirmed, UnknownStanding,
};
pub use surface::ChatModel;
