//! [`SaveRequest`]: a typed intent of one kind, carried by a command as a small trait object.

use super::companion::SaveCompanion;
use super::refusal::{SaveRefusal, Submitted};
use super::submit::submit_kind;
use crate::actors::saves::{SaveCommand, SaveKind};
use crate::view::model::Model;
use ractor::DerivedActorRef;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A save the operator asked for: its kind and its intent. Two requests are equal when they
/// are of the same kind with equal intents.
#[derive(Clone)]
pub struct SaveRequest(Arc<dyn Pending>);

trait Pending: Send + Sync {
    fn kind(&self) -> &'static str;
    fn intent(&self) -> &dyn Any;
    fn same(&self, other: &dyn Pending) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn submit(
        &self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
    ) -> Result<Submitted, SaveRefusal>;
}

struct Typed<K: SaveKind>(K::Intent);

impl<K: SaveCompanion> Pending for Typed<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn intent(&self) -> &dyn Any {
        &self.0
    }

    fn same(&self, other: &dyn Pending) -> bool {
        other.kind() == K::KIND && other.intent().downcast_ref::<K::Intent>() == Some(&self.0)
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", K::KIND, self.0)
    }

    fn submit(
        &self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
    ) -> Result<Submitted, SaveRefusal> {
        submit_kind::<K>(model, hub, self.0.clone())
    }
}

impl SaveRequest {
    /// A save of kind `K` of `intent`.
    pub fn new<K: SaveCompanion>(intent: K::Intent) -> Self {
        Self(Arc::new(Typed::<K>(intent)))
    }

    /// The kind's name ([`SaveKind::KIND`]).
    pub fn kind(&self) -> &'static str {
        self.0.kind()
    }

    /// The intent, when the request is of kind `K`.
    pub fn intent<K: SaveKind>(&self) -> Option<&K::Intent> {
        if self.0.kind() != K::KIND {
            return None;
        }
        self.0.intent().downcast_ref::<K::Intent>()
    }
}

impl PartialEq for SaveRequest {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

/// Intents compare field by field; none holds a float.
impl Eq for SaveRequest {}

impl fmt::Debug for SaveRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

/// Submits `request`: checked by its kind's companion, registered in its book, cast to `hub`.
/// The cast is the only effect outside `model`; nothing waits.
pub fn submit(
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    request: SaveRequest,
) -> Result<Submitted, SaveRefusal> {
    request.0.submit(model, hub)
}
