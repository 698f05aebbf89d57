//! Drafts kept per Keeper and per workspace (C-65 "Drafts are kept per Keeper").
//!
//! A draft survives navigation (switching Keeper, leaving the chat) and errors (a failed send
//! puts it back). It keeps the text, the cursor and any large-paste spills (C-68), so a
//! placeholder never outlives its text. The store is in memory; a [`DraftPersistence`] hook
//! may mirror it (its failures are traced and never lose the in-memory draft). Sent messages
//! are persisted by the chat runtime's outbox, not here.

use super::paste::PasteSpill;
use crate::protocol::admission::WorkspaceId;
use std::collections::HashMap;

/// Whose draft: the workspace and the Keeper the chat targets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DraftKey {
    pub workspace: WorkspaceId,
    pub keeper: String,
}

impl DraftKey {
    pub fn new(workspace: WorkspaceId, keeper: impl Into<String>) -> Self {
        Self {
            workspace,
            keeper: keeper.into(),
        }
    }
}

/// A put-away draft.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Draft {
    pub text: String,
    /// Byte offset; re-snapped to a grapheme boundary when restored.
    pub cursor: usize,
    pub spills: Vec<PasteSpill>,
}

impl Draft {
    /// Empty drafts are not kept (nothing to restore).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("draft persistence failed: {0}")]
pub struct DraftPersistError(pub String);

/// Mirrors drafts somewhere durable. `None` removes the stored draft.
pub trait DraftPersistence: Send {
    fn store(&mut self, key: &DraftKey, draft: Option<&Draft>) -> Result<(), DraftPersistError>;
}

/// Drafts by (workspace, Keeper).
#[derive(Default)]
pub struct DraftStore {
    drafts: HashMap<DraftKey, Draft>,
    persistence: Option<Box<dyn DraftPersistence>>,
}

impl std::fmt::Debug for DraftStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DraftStore")
            .field("drafts", &self.drafts)
            .field("persistence", &self.persistence.is_some())
            .finish()
    }
}

impl DraftStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_persistence(persistence: Box<dyn DraftPersistence>) -> Self {
        Self {
            drafts: HashMap::new(),
            persistence: Some(persistence),
        }
    }

    /// Loads drafts read back from persistence at start (without writing them again).
    pub fn seed(&mut self, key: DraftKey, draft: Draft) {
        if !draft.is_empty() {
            self.drafts.insert(key, draft);
        }
    }

    fn mirror(&mut self, key: &DraftKey) {
        let Some(p) = self.persistence.as_mut() else {
            return;
        };
        if let Err(e) = p.store(key, self.drafts.get(key)) {
            tracing::warn!(target: "masc_tui::composer", keeper = %key.keeper,
                workspace = %key.workspace, error = %e, "draft not persisted; kept in memory");
        }
    }

    /// Puts a draft away (an empty one removes the entry).
    pub fn put(&mut self, key: DraftKey, draft: Draft) {
        if draft.is_empty() {
            if self.drafts.remove(&key).is_some() {
                self.mirror(&key);
            }
            return;
        }
        if self.drafts.get(&key) == Some(&draft) {
            return;
        }
        self.drafts.insert(key.clone(), draft);
        self.mirror(&key);
    }

    /// The draft for `key`, left in the store (so a crash while editing still has it).
    pub fn get(&self, key: &DraftKey) -> Option<&Draft> {
        self.drafts.get(key)
    }

    /// Removes and returns the draft (after a confirmed hand-over to the outbox).
    pub fn take(&mut self, key: &DraftKey) -> Option<Draft> {
        let d = self.drafts.remove(key);
        if d.is_some() {
            self.mirror(key);
        }
        d
    }

    pub fn len(&self) -> usize {
        self.drafts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.drafts.is_empty()
    }
}
