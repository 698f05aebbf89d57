//! The mailbox type of a source built on the read machinery, and how such a source is spawned.
//!
//! [`SourceMsg`] carries the commands every source takes ([`SourceControl`]), its workers'
//! returns, and its own commands `C` (a source without commands uses [`NoCommands`]). The view
//! reaches a source's own commands only through the typed handle registered with
//! [`spawn_source`], so no source has a "not my command" arm.

use super::WorkerReturn;
use crate::actors::contract::{SourceContext, SourceControl, SourceHandle, SourceMessage};
use ractor::{Actor, ActorCell, ActorRef, SpawnErr};
use std::time::Duration;

/// A source's mailbox.
#[derive(Debug)]
pub enum SourceMsg<S, P, C> {
    Control(SourceControl),
    /// A worker of this source finished (the owner checks the ticket itself, G-7).
    Returned(WorkerReturn<S, P>),
    /// The source's own command (only the view code of its surface sends these).
    Command(C),
    /// A confirmation held back while the source is hidden is due (`read::shell`).
    IdentityDue,
}

/// The command type of a source that takes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoCommands {}

impl<S, P, C> From<SourceControl> for SourceMsg<S, P, C> {
    fn from(c: SourceControl) -> Self {
        Self::Control(c)
    }
}

impl<S, P, C> TryFrom<SourceMsg<S, P, C>> for SourceControl {
    type Error = SourceMsg<S, P, C>;
    fn try_from(m: SourceMsg<S, P, C>) -> Result<Self, Self::Error> {
        match m {
            SourceMsg::Control(c) => Ok(c),
            other => Err(other),
        }
    }
}

impl<S: Send + 'static, P: Send + 'static, C: Send + 'static> SourceMessage for SourceMsg<S, P, C> {
    fn into_control(self) -> Result<SourceControl, Self> {
        SourceControl::try_from(self)
    }
}

impl<S, P, C> From<WorkerReturn<S, P>> for SourceMsg<S, P, C> {
    fn from(r: WorkerReturn<S, P>) -> Self {
        Self::Returned(r)
    }
}

/// Implements the conversions between a source's own command type and its [`SourceMsg`], so
/// `SourceHandle::with_commands` can hand the view a `DerivedActorRef` of that type.
#[macro_export]
macro_rules! source_commands {
    ($slot:ty, $payload:ty, $cmd:ty) => {
        impl From<$cmd> for $crate::actors::read::SourceMsg<$slot, $payload, $cmd> {
            fn from(c: $cmd) -> Self {
                Self::Command(c)
            }
        }
        impl TryFrom<$crate::actors::read::SourceMsg<$slot, $payload, $cmd>> for $cmd {
            type Error = $crate::actors::read::SourceMsg<$slot, $payload, $cmd>;
            fn try_from(
                m: $crate::actors::read::SourceMsg<$slot, $payload, $cmd>,
            ) -> Result<Self, Self::Error> {
                match m {
                    $crate::actors::read::SourceMsg::Command(c) => Ok(c),
                    other => Err(other),
                }
            }
        }
    };
}

/// What a hand-written source with a cadence starts with: the supervisor's context and its
/// poll period.
pub struct CadencedArgs {
    pub ctx: SourceContext,
    pub cadence: Duration,
}

/// Spawns `actor` linked to the supervisor and hands back its control handle.
pub fn spawn_source<A>(
    actor: A,
    args: A::Arguments,
    supervisor: ActorCell,
) -> futures::future::BoxFuture<'static, Result<SourceHandle, SpawnErr>>
where
    A: Actor,
    A::Msg: SourceMessage,
    SourceControl: TryFrom<A::Msg>,
{
    Box::pin(async move {
        let (handle, _join) = A::spawn_linked(None, actor, args, supervisor).await?;
        Ok(SourceHandle::new(&handle))
    })
}

/// [`spawn_source`] for a source with its own commands `C`: the handle carries a typed
/// reference for them.
pub fn spawn_source_with<A, C>(
    actor: A,
    args: A::Arguments,
    supervisor: ActorCell,
) -> futures::future::BoxFuture<'static, Result<SourceHandle, SpawnErr>>
where
    A: Actor,
    A::Msg: SourceMessage + From<C>,
    SourceControl: TryFrom<A::Msg>,
    C: TryFrom<A::Msg> + 'static,
{
    Box::pin(async move {
        let (handle, _join) = A::spawn_linked(None, actor, args, supervisor).await?;
        Ok(SourceHandle::new(&handle).with_commands::<A::Msg, C>(&handle))
    })
}

/// A source's own actor reference as a return sink for its workers (used by owners).
pub type OwnRef<S, P, C> = ActorRef<SourceMsg<S, P, C>>;
