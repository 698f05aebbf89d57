//! A screen's local event ([`LocalEvent`]): what one of its keys asks that needs more than
//! the screen's own state — the model, a source's handle, the save path — and is consumed by
//! that screen again, with the [`Effects`] the view actor lends it. Only cross-cutting effects
//! are `UiCommand` variants of their own (a save, a source command, a refresh, an edit…);
//! everything else a screen asks is one of its own typed events, carried as a [`Local`].

use super::Ui;
use crate::view::effects::Effects;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// One screen's own event, run by the view actor right after the key that made it.
pub trait LocalEvent: Any + Send + Sync + fmt::Debug + PartialEq {
    /// Consumes the event: the UI (the screen's state, the notice) and the actor's hands.
    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>);
}

/// A local event of any screen; equal when of the same type with equal values.
#[derive(Clone)]
pub struct Local(Arc<dyn Erased>);

trait Erased: Send + Sync {
    fn event(&self) -> &dyn Any;
    fn same(&self, other: &dyn Erased) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>);
}

impl<E: LocalEvent> Erased for E {
    fn event(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn Erased) -> bool {
        other.event().downcast_ref::<E>() == Some(self)
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }

    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>) {
        LocalEvent::run(self, ui, fx)
    }
}

impl Local {
    pub fn new<E: LocalEvent>(event: E) -> Self {
        Self(Arc::new(event))
    }

    /// The event, when it is an `E`.
    pub fn event<E: LocalEvent>(&self) -> Option<&E> {
        self.0.event().downcast_ref::<E>()
    }

    pub fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>) {
        self.0.run(ui, fx)
    }
}

impl PartialEq for Local {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

/// Events compare field by field; none holds a float.
impl Eq for Local {}

impl fmt::Debug for Local {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}
