//! Generation counters: owned by the supervisor and handed to every incarnation of a source,
//! so a restarted source continues its generations and the same id in a new workspace cannot
//! pick up an old response (G-6).

use super::keys::SlotKey;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One slot's generation counter. The first generation is 1.
#[derive(Debug, Clone, Default)]
pub struct GenerationCounter(Arc<AtomicU64>);

impl GenerationCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates the next generation.
    pub fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst).saturating_add(1)
    }

    /// The last allocated generation (0 before the first).
    pub fn current(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Every slot's counter, by slot key (of whatever surface); the same counter ever after.
#[derive(Debug, Clone, Default)]
pub struct GenerationBook(Arc<Mutex<HashMap<TypeId, Box<dyn Any + Send>>>>);

impl GenerationBook {
    pub fn new() -> Self {
        Self::default()
    }

    /// The counter of `key` (created at 0 on first use; the same counter ever after).
    pub fn counter<S: SlotKey>(&self, key: &S) -> GenerationCounter {
        // A poisoned book must still not hand out a reset counter for a known key; no
        // invariant spans the lock, so recover the map.
        let mut book = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let entry = book
            .entry(TypeId::of::<S>())
            .or_insert_with(|| Box::new(HashMap::<S, GenerationCounter>::new()));
        match entry.downcast_mut::<HashMap<S, GenerationCounter>>() {
            Some(map) => map.entry(key.clone()).or_default().clone(),
            // Unreachable: the entry of TypeId::of::<S>() is only ever a map of S. A fresh
            // counter would break G-6, so keep one for this key in a replacement map.
            None => {
                let mut map = HashMap::<S, GenerationCounter>::new();
                let counter = map.entry(key.clone()).or_default().clone();
                *entry = Box::new(map);
                counter
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::contract::keys::SourceKey;

    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    struct A(u8);
    impl SlotKey for A {
        fn trace_name(&self) -> String {
            "a".into()
        }
        fn source(&self) -> SourceKey {
            SourceKey("a")
        }
    }
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    struct B(u8);
    impl SlotKey for B {
        fn trace_name(&self) -> String {
            "b".into()
        }
        fn source(&self) -> SourceKey {
            SourceKey("b")
        }
    }

    #[test]
    fn g6_counters_are_per_key_and_never_reset() {
        let book = GenerationBook::new();
        assert_eq!(book.counter(&A(1)).next(), 1);
        assert_eq!(book.counter(&A(1)).next(), 2);
        // Another key, and the same value of another slot type, count on their own.
        assert_eq!(book.counter(&A(2)).next(), 1);
        assert_eq!(book.counter(&B(1)).next(), 1);
        let clone = book.clone();
        assert_eq!(clone.counter(&A(1)).next(), 3);
    }
}
