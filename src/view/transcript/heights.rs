//! The body-height cache of a transcript view: the height of each chunk of a block's body,
//! per content key, kept across re-plans so a streamed delta does not re-measure the whole
//! transcript.
//!
//! A measured transcript holds one height per block, 100k of them. A one-chunk body
//! (nearly every block) is a `u32` beside its key (16 bytes a slot); only a huge body's
//! per-chunk heights are boxed, in a map of their own.

use std::collections::HashMap;

/// A chunk not measured yet.
pub(super) const UNKNOWN: u32 = u32::MAX;

#[derive(Debug, Default)]
pub(super) struct HeightCache {
    /// One-chunk bodies: the height alone.
    one: HashMap<u64, u32>,
    /// Chunked bodies: a height per chunk.
    many: HashMap<u64, Box<[u32]>>,
}

impl HeightCache {
    /// The chunk heights of the body with content key `key`, if any was recorded.
    pub(super) fn get(&self, key: &u64) -> Option<&[u32]> {
        match self.one.get(key) {
            Some(h) => Some(std::slice::from_ref(h)),
            None => self.many.get(key).map(|hs| &**hs),
        }
    }

    /// The chunk heights of a `count`-chunk body, recorded as unknown when new.
    pub(super) fn entry(&mut self, key: u64, count: usize) -> &mut [u32] {
        if count <= 1 && !self.many.contains_key(&key) {
            std::slice::from_mut(self.one.entry(key).or_insert(UNKNOWN))
        } else {
            self.many
                .entry(key)
                .or_insert_with(|| vec![UNKNOWN; count].into_boxed_slice())
        }
    }

    /// Every recorded body's chunk heights.
    #[cfg(test)]
    pub(super) fn values(&self) -> impl Iterator<Item = &[u32]> {
        self.one
            .values()
            .map(std::slice::from_ref)
            .chain(self.many.values().map(|hs| &**hs))
    }

    pub(super) fn clear(&mut self) {
        self.one.clear();
        self.many.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-chunk body's height and a chunked body's heights are kept apart by
    /// key, read back as recorded, and cleared together.
    #[test]
    fn heights_read_back_per_key_and_chunk() {
        let mut c = HeightCache::default();
        assert_eq!(c.get(&1), None);
        assert_eq!(c.entry(1, 1), &mut [UNKNOWN][..]);
        c.entry(1, 1)[0] = 7;
        c.entry(2, 3)[2] = 5;
        assert_eq!(c.get(&1), Some(&[7][..]));
        assert_eq!(c.get(&2), Some(&[UNKNOWN, UNKNOWN, 5][..]));
        // Recording again keeps what was measured.
        assert_eq!(c.entry(1, 1), &mut [7][..]);
        assert_eq!(c.entry(2, 3), &mut [UNKNOWN, UNKNOWN, 5][..]);
        let mut all: Vec<Vec<u32>> = c.values().map(<[u32]>::to_vec).collect();
        all.sort();
        assert_eq!(all, vec![vec![7], vec![UNKNOWN, UNKNOWN, 5]]);
        c.clear();
        assert_eq!(c.get(&1), None);
        assert_eq!(c.get(&2), None);
        assert_eq!(c.values().count(), 0);
    }

    /// The slot of a one-chunk height is 16 bytes (the enum of before made it 24).
    #[test]
    fn one_chunk_slot_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<(u64, u32)>(), 16);
    }
}
