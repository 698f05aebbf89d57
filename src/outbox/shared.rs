//! One outbox per runtime, opened on first use and shared by every actor that writes or reads
//! it (the save hub and the chat sources): one connection and one session, so a row this
//! runtime wrote is recognised as its own (live), never as an earlier run's orphan.

use super::{Outbox, OutboxLocation};
use std::sync::{Arc, OnceLock};

/// The runtime's outbox: where it is, and the handle once opened (or why it could not be).
#[derive(Debug, Clone)]
pub struct SharedOutbox {
    at: OutboxLocation,
    opened: Arc<OnceLock<Result<Outbox, String>>>,
}

impl SharedOutbox {
    /// Nothing is opened yet: a runtime that never writes never touches the state file.
    pub fn new(at: OutboxLocation) -> Self {
        Self {
            at,
            opened: Arc::new(OnceLock::new()),
        }
    }

    pub fn location(&self) -> &OutboxLocation {
        &self.at
    }

    /// The outbox, opened on the first call; `None` when it cannot be opened (every write is
    /// then refused before it leaves: "not sent").
    pub fn get(&self) -> Option<Outbox> {
        self.opened
            .get_or_init(|| {
                Outbox::open(&self.at).map_err(|e| {
                    tracing::warn!(target: "masc_tui::outbox", error = e.class(), "outbox unavailable");
                    e.to_string()
                })
            })
            .as_ref()
            .ok()
            .cloned()
    }
}

impl Default for SharedOutbox {
    fn default() -> Self {
        Self::new(OutboxLocation::StateDir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OUTBOX_FILE;

    #[test]
    fn clones_share_one_session() {
        let dir = tempfile::tempdir().unwrap();
        let shared = SharedOutbox::new(OutboxLocation::File(dir.path().join(OUTBOX_FILE)));
        let other = shared.clone();
        let a = shared.get().unwrap();
        let b = other.get().unwrap();
        assert_eq!(a.session(), b.session());
        let fresh = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        assert_ne!(fresh.session(), a.session());
    }

    #[test]
    fn an_unopenable_outbox_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let shared = SharedOutbox::new(OutboxLocation::File(blocker.join(OUTBOX_FILE)));
        assert!(shared.get().is_none());
    }
}
