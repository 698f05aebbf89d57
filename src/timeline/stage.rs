//! One emitter per stage event (architecture.md §3). Target `masc_tui::stage`, level INFO.
//!
//! Fields: `stage`, `source`, `generation`, `epoch`, `workspace` (a digest, never the path),
//! and `reason` / `outcome` where they apply (`outcome` is `"ok"` or a `ClientError::class()`).
//! Values are closed vocabularies: no body text, paths or declarations ever reach these fields
//! (G-10).

use std::fmt::Display;

/// The tracing target every stage event uses; the timeline layer keys on it.
pub const TARGET: &str = "masc_tui::stage";

/// The stage vocabulary, as written in the `stage` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// The owner allocated a ticket and started a worker.
    Dispatch,
    /// The worker task began running.
    WorkerEnter,
    /// The worker produced its result (`outcome`).
    WorkerReturn,
    /// The owning actor received the worker's result (`outcome`).
    Observe,
    /// The consumer (view, or the workspace actor for `/health`) applied the result.
    Admit,
    /// The result was not applied (`reason`).
    Reject,
    /// The read ended without a result (`reason`): superseded, withdrawn, worker panicked.
    Retire,
    /// The owner asked the worker to stop (`reason`).
    CancelRequested,
    /// The owner released the worker's registration (`reason`).
    Unregistered,
    /// The supervisor restarted (or gave up on) a child (`reason`).
    Restart,
    /// A demand was refused before any ticket existed (`reason`, e.g. `no_epoch`).
    Refused,
}

impl Stage {
    pub const ALL: [Stage; 11] = [
        Self::Dispatch,
        Self::WorkerEnter,
        Self::WorkerReturn,
        Self::Observe,
        Self::Admit,
        Self::Reject,
        Self::Retire,
        Self::CancelRequested,
        Self::Unregistered,
        Self::Restart,
        Self::Refused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dispatch => "dispatch",
            Self::WorkerEnter => "worker_enter",
            Self::WorkerReturn => "worker_return",
            Self::Observe => "observe",
            Self::Admit => "admit",
            Self::Reject => "reject",
            Self::Retire => "retire",
            Self::CancelRequested => "cancel_requested",
            Self::Unregistered => "unregistered",
            Self::Restart => "restart",
            Self::Refused => "refused",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// What a stage event needs of a ticket: the slot's trace name, its generation and epoch.
/// Implemented by the actors' `Ticket` (and by test doubles), so this module names no actor.
pub trait StageTicket {
    fn stage_source(&self) -> String;
    fn stage_generation(&self) -> u64;
    fn stage_epoch(&self) -> u64;
    /// The workspace root the ticket is scoped to; traced only as [`workspace_digest`].
    fn stage_workspace(&self) -> Option<&str> {
        None
    }
}

/// The workspace as traced: 12 hex digits of SHA-256 over its root. It tells workspaces apart
/// in a trace or a collector without writing the path anywhere (G-10).
pub fn workspace_digest(root: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(root.as_bytes());
    hex::encode(digest.get(..6).unwrap_or_default())
}

macro_rules! ticket_event {
    ($stage:expr, $ticket:expr $(, $k:ident = $v:expr)*) => {
        tracing::info!(
            target: "masc_tui::stage",
            stage = $stage.as_str(),
            source = %$ticket.stage_source(),
            generation = $ticket.stage_generation(),
            epoch = $ticket.stage_epoch(),
            workspace = $ticket.stage_workspace().map(workspace_digest).as_deref(),
            $($k = $v,)*
        )
    };
}

/// The owner allocated `ticket` and spawned its worker.
pub fn dispatch(ticket: &impl StageTicket) {
    ticket_event!(Stage::Dispatch, ticket);
}

/// The worker of `ticket` started running.
pub fn worker_enter(ticket: &impl StageTicket) {
    ticket_event!(Stage::WorkerEnter, ticket);
}

/// The worker of `ticket` finished with `outcome` (`"ok"` or an error class).
pub fn worker_return(ticket: &impl StageTicket, outcome: &str) {
    ticket_event!(Stage::WorkerReturn, ticket, outcome = outcome);
}

/// The owning actor received the worker's result.
pub fn observe(ticket: &impl StageTicket, outcome: &str) {
    ticket_event!(Stage::Observe, ticket, outcome = outcome);
}

/// The consumer applied the result of `ticket`.
pub fn admit(ticket: &impl StageTicket) {
    ticket_event!(Stage::Admit, ticket);
}

/// The result of `ticket` was not applied, for `reason` (e.g. `stale_epoch`, `not_owner`).
pub fn reject(ticket: &impl StageTicket, reason: &str) {
    ticket_event!(Stage::Reject, ticket, reason = reason);
}

/// The read of `ticket` ended without a result.
pub fn retire(ticket: &impl StageTicket, reason: &str) {
    ticket_event!(Stage::Retire, ticket, reason = reason);
}

/// The owner asked the worker of `ticket` to stop.
pub fn cancel_requested(ticket: &impl StageTicket, reason: &str) {
    ticket_event!(Stage::CancelRequested, ticket, reason = reason);
}

/// The owner released the worker registration of `ticket`.
pub fn unregistered(ticket: &impl StageTicket, reason: &str) {
    ticket_event!(Stage::Unregistered, ticket, reason = reason);
}

/// The supervisor restarted `source` (attempt `attempt` in the current window), or gave up
/// (`reason = "gave_up"`). No ticket: restarts are per source.
pub fn restart(source: &dyn Display, attempt: u32, reason: &str) {
    tracing::info!(
        target: "masc_tui::stage",
        stage = Stage::Restart.as_str(),
        source = %source,
        attempt = attempt,
        reason = reason,
    );
}

/// A demand for `source` was refused before a ticket existed (e.g. no confirmed epoch).
pub fn refused(source: &dyn Display, reason: &str) {
    tracing::info!(
        target: "masc_tui::stage",
        stage = Stage::Refused.as_str(),
        source = %source,
        reason = reason,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_round_trip() {
        for st in Stage::ALL {
            assert_eq!(Stage::parse(st.as_str()), Some(st));
        }
        assert_eq!(Stage::parse("paint"), None);
    }

    #[test]
    fn the_workspace_digest_is_short_stable_and_not_the_path() {
        let digest = workspace_digest("/home/op/work/.masc");
        assert_eq!(digest.len(), 12);
        assert!(digest.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(digest, workspace_digest("/home/op/work/.masc"));
        assert_ne!(digest, workspace_digest("/home/op/other/.masc"));
        assert!(!digest.contains("home"));
    }

    #[test]
    fn target_matches_macro_literal() {
        // The macros above spell the target literally (tracing needs a constant); keep in step.
        assert_eq!(TARGET, "masc_tui::stage");
    }
}
