//! The roster's rows: one row described once and painted two ways ([`row`]), rows kept
//! between frames ([`paint`]), frames repainted in part ([`retain`]) and what the selected
//! Keeper waits on ([`waiting`]).

pub mod paint;
pub mod retain;
pub(super) mod row;
pub mod waiting;
