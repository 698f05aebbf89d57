//! [`SaveRequest`]: a typed intent of one kind, carried by a command as a small trait object,
//! with where it stands before its commit (confirmed or not, and its confirming key).

use super::preview::Preview;
use super::refusal::SaveRefusal;
use crate::actors::saves::{SaveCommand, SaveId, SaveKind};
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
    pub(super) pending: Arc<dyn Pending>,
    /// The operator saw its preview and pressed the confirming key.
    confirmed: bool,
    /// The key that asked: pressed again, it confirms.
    key: KeyCode,
}

/// A request's kind and intent behind a trait object; made for a known kind on the submit
/// side (`submit::Typed`), which also runs it.
pub(super) trait Pending: Send + Sync {
    fn kind(&self) -> &'static str;
    fn intent(&self) -> &dyn Any;
    fn same(&self, other: &dyn Pending) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn submit(
        &self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
        request: &SaveRequest,
    ) -> Result<Submitted, SaveRefusal>;
}

impl SaveRequest {
    /// A request of `pending`, asked with `Enter` (its preview, if its kind has one, is
    /// confirmed with `Enter` again).
    pub(super) fn of(pending: Arc<dyn Pending>) -> Self {
        Self {
            pending,
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

/// A save handed to the save hub, kept by its companion to be sent later, or staged for its
/// confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    pub save_id: SaveId,
    /// Kept in the model, not sent yet ([`super::SaveCompanion::hold`]), or staged.
    pub held: bool,
    /// What to tell the operator (usually nothing: the receipt speaks).
    pub notice: Option<String>,
    /// Not registered, not sent: its preview waits for the confirming key.
    pub staged: Option<Box<Staged>>,
}

impl Submitted {
    /// Handed to the hub (or kept by its companion): no confirmation pending.
    pub fn is_committed(&self) -> bool {
        self.staged.is_none()
    }
}

/// A save whose preview is shown before it is committed: nothing registered, nothing sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    pub preview: Preview,
    /// The same request, marked confirmed: what the confirming key submits.
    pub request: SaveRequest,
    /// The confirming key (the key that asked, pressed again).
    pub key: KeyCode,
}

/// What the operator is told after a submit: the refusal, or what the kind says about a save
/// it sent (usually nothing: its receipt speaks).
pub fn notice(submitted: Result<Submitted, SaveRefusal>) -> Option<String> {
    match submitted {
        Ok(s) => s.notice,
        Err(refusal) => Some(refusal.words),
    }
}
