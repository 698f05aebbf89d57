//! [`SaveRequest`]: a typed intent of one kind, carried by a command as a small trait object,
//! with where it stands before its commit (confirmed or not, and its confirming key).

use super::companion::SaveCompanion;
use super::refusal::{SaveRefusal, Submitted};
use super::submit::{Stage, submit_kind};
use crate::actors::saves::{SaveCommand, SaveKind};
use crate::view::model::Model;
use crossterm::event::KeyCode;
use ractor::DerivedActorRef;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A save the operator asked for: its kind and its intent. Two requests are equal when they
/// are of the same kind with equal intents and the same stage.
#[derive(Clone)]
pub struct SaveRequest {
    pending: Arc<dyn Pending>,
    /// The operator saw its preview and pressed the confirming key.
    confirmed: bool,
    /// The key that asked: pressed again, it confirms.
    key: KeyCode,
}

trait Pending: Send + Sync {
    fn kind(&self) -> &'static str;
    fn intent(&self) -> &dyn Any;
    fn same(&self, other: &dyn Pending) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn submit(
        &self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
        stage: Stage<'_>,
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
        stage: Stage<'_>,
    ) -> Result<Submitted, SaveRefusal> {
        submit_kind::<K>(model, hub, self.0.clone(), stage)
    }
}

impl SaveRequest {
    /// A save of kind `K` of `intent`, asked with `Enter` (its preview, if its kind has one,
    /// is confirmed with `Enter` again).
    pub fn new<K: SaveCompanion>(intent: K::Intent) -> Self {
        Self {
            pending: Arc::new(Typed::<K>(intent)),
            confirmed: false,
            key: KeyCode::Enter,
        }
    }

    /// Asked with `key`: the same key again confirms its preview (an armed key).
    pub fn armed_by(mut self, key: KeyCode) -> Self {
        self.key = key;
        self
    }

    /// The same request after the operator confirmed its preview: committed on its submit.
    pub fn confirmed(mut self) -> Self {
        self.confirmed = true;
        self
    }

    /// Whether `other` asks the same save (kind and intent), confirmed or not.
    pub fn same_save(&self, other: &SaveRequest) -> bool {
        self.pending.same(other.pending.as_ref())
    }

    pub fn is_confirmed(&self) -> bool {
        self.confirmed
    }

    /// The key that asked (and confirms).
    pub fn key(&self) -> KeyCode {
        self.key
    }

    /// The kind's name ([`SaveKind::KIND`]).
    pub fn kind(&self) -> &'static str {
        self.pending.kind()
    }

    /// The intent, when the request is of kind `K`.
    pub fn intent<K: SaveKind>(&self) -> Option<&K::Intent> {
        if self.pending.kind() != K::KIND {
            return None;
        }
        self.pending.intent().downcast_ref::<K::Intent>()
    }
}

impl PartialEq for SaveRequest {
    fn eq(&self, other: &Self) -> bool {
        self.pending.same(other.pending.as_ref()) && self.confirmed == other.confirmed
    }
}

/// Intents compare field by field; none holds a float.
impl Eq for SaveRequest {}

impl fmt::Debug for SaveRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pending.debug(f)?;
        if self.confirmed {
            f.write_str(" confirmed")?;
        }
        Ok(())
    }
}

/// Submits `request`: checked by its kind's companion, staged for its confirmation when it has
/// a preview and is not confirmed yet, else registered in its book and cast to `hub`. The cast
/// is the only effect outside `model`; nothing waits.
pub fn submit(
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    request: SaveRequest,
) -> Result<Submitted, SaveRefusal> {
    let stage = Stage { request: &request };
    request.pending.submit(model, hub, stage)
}
