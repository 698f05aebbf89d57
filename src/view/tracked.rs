//! A value whose mutable accesses are counted, so a painter can tell whether it may have changed.

use std::ops::{Deref, DerefMut};

/// A value whose every mutable access is counted (the view's model): a frame painted from it
/// may be kept while [`Tracked::changes`] has not moved. Counting `&mut` access over-counts
/// (a `&mut` call that changes nothing counts too), which only costs a whole frame.
#[derive(Debug, Default)]
pub struct Tracked<T> {
    value: T,
    changes: u64,
}

impl<T> Tracked<T> {
    pub fn new(value: T) -> Self {
        Self { value, changes: 0 }
    }

    /// How many times the value was (or may have been) changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Counts a change made through shared access (interior mutability) or not seen.
    pub fn touch(&mut self) {
        self.changes = self.changes.wrapping_add(1);
    }
}

impl<T> Deref for Tracked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Tracked<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.touch();
        &mut self.value
    }
}
