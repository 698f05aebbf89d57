//! The actors' contract: the types every source, the supervisor and the view agree on. It
//! depends on `protocol` (and the stage vocabulary of `timeline`) only; nothing here names a
//! particular source or surface.
//!
//! - [`keys`]: a source's supervision key ([`SourceKey`]), the [`SlotKey`] trait each surface's
//!   own slot type implements, and the [`Ticket`] a result carries (G-2, G-7).
//! - [`identity`]: the workspace identity judgement and why a demand was made.
//! - [`inbox`]: the typed per-surface inboxes the view drains in mailbox order, and the
//!   [`Outlet`] a source posts its slot events through.
//! - [`events`]: the payload-free notifications the view's mailbox receives ([`SourceEvent`])
//!   and the sink trait sources send them through (the view owns its inbox, actors never
//!   import it).
//! - [`control`]: the commands every source accepts ([`SourceControl`]) and the typed handle
//!   of a running source ([`SourceHandle`]).
//! - [`spawn`]: what the registry hands the supervisor for each source.

pub mod control;
pub mod events;
pub mod generations;
pub mod identity;
pub mod inbox;
pub mod keys;
pub mod outlet;
pub mod spawn;

pub use control::{SourceControl, SourceHandle, SourceMessage};
pub use events::{EventSink, SourceEvent};
pub use generations::{GenerationBook, GenerationCounter};
pub use identity::{DemandKind, IdentityState};
pub use inbox::{Inbox, InboxId, Inboxes, SlotEvent};
pub use keys::{SlotKey, SourceKey, Ticket};
pub use outlet::{Outlet, SlotSink};
pub use spawn::{SourceContext, SourceSpawner};

/// A read result as the worker produced it.
pub type ReadResult<T> =
    Result<crate::protocol::client::Admitted<T>, crate::protocol::client::ClientError>;

/// What every observation payload says about itself in traces: `"ok"` or a failure class
/// (the `outcome` field of `worker_return` / `observe`; no body text, G-10).
pub trait Payload: Send + Sync + 'static {
    fn outcome(&self) -> String;
}

/// The outcome of a plain admitted read.
pub fn read_outcome<T>(result: &ReadResult<T>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(e) => e.class().to_string(),
    }
}
