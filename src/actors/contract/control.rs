//! Commands every source accepts, and the typed handle of a running source.
//!
//! Each source actor has its own message type. It implements [`SourceMessage`] (conversions to
//! and from [`SourceControl`]) so the supervisor, the workspace actor and the view reach every
//! source the same way, through a `DerivedActorRef<SourceControl>`; a source with commands of
//! its own also registers a `DerivedActorRef` of its command type in its [`SourceHandle`], and
//! only the view code of that surface asks for it. No source has a "not my command" arm.

use super::identity::{DemandKind, IdentityState};
use ractor::{ActorId, ActorRef, DerivedActorRef, Message};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// What every source accepts.
#[derive(Debug, Clone)]
pub enum SourceControl {
    /// Read (or re-read) the source's standing slots.
    Demand(DemandKind),
    /// The workspace identity changed: a new epoch opens (Confirmed) or authority is withdrawn
    /// (anything else); withdrawal retires owned reads (G-6).
    Identity(IdentityState),
    /// Whether a surface on screen shows this source's slots (the view sends it when
    /// the screen changes; no payload). A source with a cadence polls slower while `false`
    /// (`crate::actors::read::hidden_period`); sources without one ignore it.
    Visible(bool),
    /// Supervision drill (tests, `RuntimeConfig::fault_drills`): the source panics in its
    /// handler so the supervisor's restart path runs. Ignored unless drills are enabled.
    InjectPanic,
}

/// A source's message type: it carries [`SourceControl`] and gives it back (ractor's derived
/// references need both directions).
pub trait SourceMessage: Message + From<SourceControl> + Sized {
    fn into_control(self) -> Result<SourceControl, Self>;
}

/// Implements `From<SourceControl>` / `TryFrom<…> for SourceControl` / [`SourceMessage`] for
/// a message enum with a `Control(SourceControl)` variant.
#[macro_export]
macro_rules! source_message {
    // A command-driven source: its message also wraps its typed commands (`$msg::Command`).
    ($msg:ident, command: $cmd:ty) => {
        $crate::source_message!($msg);
        impl From<$cmd> for $msg {
            fn from(c: $cmd) -> Self {
                Self::Command(c)
            }
        }
        impl TryFrom<$msg> for $cmd {
            type Error = $msg;
            fn try_from(m: $msg) -> Result<Self, $msg> {
                match m {
                    $msg::Command(c) => Ok(c),
                    other => Err(other),
                }
            }
        }
    };
    ($msg:ident) => {
        impl From<$crate::actors::contract::SourceControl> for $msg {
            fn from(c: $crate::actors::contract::SourceControl) -> Self {
                Self::Control(c)
            }
        }
        impl TryFrom<$msg> for $crate::actors::contract::SourceControl {
            type Error = $msg;
            fn try_from(m: $msg) -> Result<Self, $msg> {
                match m {
                    $msg::Control(c) => Ok(c),
                    other => Err(other),
                }
            }
        }
        impl $crate::actors::contract::SourceMessage for $msg {
            fn into_control(self) -> Result<$crate::actors::contract::SourceControl, Self> {
                $crate::actors::contract::SourceControl::try_from(self)
            }
        }
    };
}

/// The handles of one running source: control for everyone, typed command handles for the
/// code that knows the source.
#[derive(Clone)]
pub struct SourceHandle {
    control: DerivedActorRef<SourceControl>,
    commands: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for SourceHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceHandle")
            .field("actor", &self.control.get_id())
            .finish()
    }
}

impl SourceHandle {
    /// The handle of `actor`, with control only.
    pub fn new<M>(actor: &ActorRef<M>) -> Self
    where
        M: SourceMessage,
        SourceControl: TryFrom<M>,
    {
        Self {
            control: actor.get_derived::<SourceControl>(),
            commands: Arc::new(HashMap::new()),
        }
    }

    /// Adds the typed handle for the source's own commands `C`.
    pub fn with_commands<M, C>(mut self, actor: &ActorRef<M>) -> Self
    where
        M: Message + From<C>,
        C: TryFrom<M> + 'static,
    {
        let derived: DerivedActorRef<C> = actor.get_derived::<C>();
        Arc::make_mut(&mut self.commands).insert(TypeId::of::<C>(), Arc::new(derived));
        self
    }

    pub fn control(&self) -> &DerivedActorRef<SourceControl> {
        &self.control
    }

    /// Sends a control command; `false` when the actor is gone.
    pub fn send_control(&self, control: SourceControl) -> bool {
        self.control.send_message(control).is_ok()
    }

    /// The typed handle for commands `C`, if this source takes them.
    pub fn commands<C: 'static>(&self) -> Option<DerivedActorRef<C>> {
        self.commands
            .get(&TypeId::of::<C>())
            .and_then(|h| h.downcast_ref::<DerivedActorRef<C>>())
            .cloned()
    }

    pub fn actor_id(&self) -> ActorId {
        self.control.get_id()
    }
}
