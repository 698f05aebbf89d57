//! "Send this command to that source": an [`Outgoing`] carries one source's own command (a
//! [`SourceCommand`]) through that source's typed handle (`SourceHandle::commands`, a ractor
//! `DerivedActorRef<C>`). The surface model sees the command before it leaves
//! ([`SourceCommand::prepare`]), so screens ask for reads without naming the view actor, and
//! the actor sends any source's command with one arm.

mod commands;

pub use commands::InspectorRequest;

use crate::actors::contract::{SourceHandle, SourceKey};
use crate::view::model::Model;
use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// One source's own command, as the view sends it.
pub trait SourceCommand: Clone + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// What the source's typed handle takes (usually the command itself).
    type Sent: Send + 'static;
    /// The source it goes to.
    const SOURCE: SourceKey;
    /// The source in a notice ("board source").
    const NAME: &'static str;
    /// The surface model sees the command before it leaves and makes what is sent;
    /// `Err(notice)` when there is nothing to send.
    fn prepare(&self, model: &mut Model) -> Result<Self::Sent, String>;
    /// It could not be sent (the source is not up).
    fn unsent(&self, _model: &mut Model) {}
}

/// Sends `cmd` through `source`'s typed handle; `Err(running)` when it could not be sent
/// (`running`: the source has a handle but its mailbox is closed).
pub fn cast<C: 'static>(
    sources: &HashMap<SourceKey, SourceHandle>,
    source: SourceKey,
    cmd: C,
) -> Result<(), bool> {
    match sources.get(&source).and_then(|h| h.commands::<C>()) {
        Some(handle) => handle.send_message(cmd).map_err(|_| true),
        None => Err(false),
    }
}

/// The words when a command to `name` could not be sent.
pub fn unsent_words(name: &str, running: bool) -> String {
    if running {
        format!("not sent: {name} stopped")
    } else {
        format!("not sent: {name} not running")
    }
}

/// A command to one source; equal when of the same type with equal values.
#[derive(Clone)]
pub struct Outgoing(Arc<dyn Deliver>);

trait Deliver: Send + Sync {
    fn command(&self) -> &dyn Any;
    fn same(&self, other: &dyn Deliver) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn deliver(
        &self,
        model: &mut Model,
        sources: &HashMap<SourceKey, SourceHandle>,
    ) -> Result<(), String>;
}

impl<C: SourceCommand> Deliver for C {
    fn command(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn Deliver) -> bool {
        other.command().downcast_ref::<C>() == Some(self)
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({self:?})", C::SOURCE.0)
    }

    fn deliver(
        &self,
        model: &mut Model,
        sources: &HashMap<SourceKey, SourceHandle>,
    ) -> Result<(), String> {
        let sent = self.prepare(model)?;
        cast(sources, C::SOURCE, sent).map_err(|running| {
            self.unsent(model);
            unsent_words(C::NAME, running)
        })
    }
}

impl Outgoing {
    pub fn new<C: SourceCommand>(cmd: C) -> Self {
        Self(Arc::new(cmd))
    }

    /// The command, when it is a `C`.
    pub fn command<C: SourceCommand>(&self) -> Option<&C> {
        self.0.command().downcast_ref::<C>()
    }

    /// Prepares the command on `model` and sends it; `Err(notice)` when nothing left.
    pub fn deliver(
        &self,
        model: &mut Model,
        sources: &HashMap<SourceKey, SourceHandle>,
    ) -> Result<(), String> {
        self.0.deliver(model, sources)
    }
}

impl PartialEq for Outgoing {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

/// Commands compare field by field; none holds a float.
impl Eq for Outgoing {}

impl fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}
