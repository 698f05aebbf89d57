//! The ETag read cache (§2.5): keyed by (expected root, path with query), holding the tag and
//! the decoded value of the last admitted 200. Only an admitted 200 writes an entry; a failed
//! read never touches it (§2.2).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// (expected root, path with query). The root is part of the key so a different workspace
/// never sees another workspace's entry (G-6, G-9).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    pub root: String,
    pub target: String,
}

pub(crate) type CachedValue = Arc<dyn Any + Send + Sync>;

struct CacheEntry {
    etag: String,
    value: CachedValue,
    /// Sweep generation in which the entry was last stored or re-admitted.
    last_used: u64,
}

#[derive(Default)]
struct CacheState {
    entries: HashMap<CacheKey, CacheEntry>,
    generation: u64,
}

#[derive(Default)]
pub(crate) struct ReadCache {
    state: Mutex<CacheState>,
}

impl ReadCache {
    fn lock(&self) -> MutexGuard<'_, CacheState> {
        // A poisoned lock only means another thread panicked mid-update of a plain map; the
        // map itself is still consistent (every update is a single insert/remove).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The tag to send as `If-None-Match`, if an entry of type `T` exists under exactly this
    /// key. An entry stored by another decoder for the same target is not offered: its 304
    /// could not be served as a `T`, and every retry would earn the same 304.
    pub fn tag_for<T: Any>(&self, key: &CacheKey) -> Option<String> {
        self.lock()
            .entries
            .get(key)
            .filter(|e| e.value.is::<T>())
            .map(|e| e.etag.clone())
    }

    /// The stored value for an admitted 304; marks the entry used.
    pub fn revalidated(&self, key: &CacheKey) -> Option<CachedValue> {
        let mut state = self.lock();
        let generation = state.generation;
        state.entries.get_mut(key).map(|e| {
            e.last_used = generation;
            Arc::clone(&e.value)
        })
    }

    /// Store the result of an admitted 200 (with a tag), or forget the key (without one: the
    /// old tag no longer describes what the server serves).
    pub fn store(&self, key: CacheKey, etag: Option<String>, value: CachedValue) {
        let mut state = self.lock();
        let generation = state.generation;
        match etag {
            Some(etag) => {
                state.entries.insert(
                    key,
                    CacheEntry {
                        etag,
                        value,
                        last_used: generation,
                    },
                );
            }
            None => {
                state.entries.remove(&key);
            }
        }
    }

    /// One refresh tick: drop entries unread for two ticks (§2.5).
    pub fn sweep(&self) -> usize {
        let mut state = self.lock();
        state.generation += 1;
        let now = state.generation;
        let before = state.entries.len();
        state.entries.retain(|_, e| e.last_used + 2 > now);
        before - state.entries.len()
    }

    /// Drop every entry of a root (the epoch of that root was withdrawn).
    pub fn forget_root(&self, root: &str) {
        self.lock().entries.retain(|k, _| k.root != root);
    }

    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }
}
