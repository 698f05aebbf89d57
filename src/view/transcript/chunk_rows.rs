//! A block's wrapped rows and heights, chunk by chunk, through the row and height caches.

use super::heights::HeightCache;
use super::{TranscriptView, UNKNOWN};
use crate::view::transcript::gutter::GutterLayout;
use crate::view::transcript::marks::Role;
use crate::view::transcript::measure::block_chunk_lines;
use crate::view::transcript::plan::PlannedBlock;
use crate::view::transcript::repeat::body_rows;
use crate::view::transcript::wrap::LogicalLine;
use ratatui::text::Line;
use std::collections::HashMap;
use std::sync::Arc;

const ROW_CACHE_CHUNKS: usize = 4096;
/// The row cache also holds at most this many rows in all. A streamed reply is a new content
/// key at every event, so each frame caches the whole reply's rows again: bounded by chunks
/// alone, the stale versions of a long reply grew the cache by tens of MB a minute (the
/// streaming bench, docs/performance.md). A frame paints at most a screenful of rows.
const ROW_CACHE_ROWS: usize = 16_384;
#[cfg(test)]
pub(super) const ROW_CACHE_ROWS_FOR_TESTS: usize = ROW_CACHE_ROWS;

type Rows = Arc<Vec<Line<'static>>>;

#[derive(Default)]
pub(super) struct Caches {
    pub(super) rows: HashMap<(u64, u32), (Rows, u64)>,
    /// The rows `rows` holds in all.
    rows_held: usize,
    tick: u64,
    /// Body height of each chunk, per content key.
    pub(super) heights: HeightCache,
}

impl Caches {
    pub(super) fn clear(&mut self) {
        self.rows.clear();
        self.rows_held = 0;
        self.heights.clear();
    }

    fn keep(&mut self, key: (u64, u32), rows: Rows, tick: u64) {
        self.rows_held += rows.len();
        if let Some((old, _)) = self.rows.insert(key, (rows, tick)) {
            self.rows_held -= old.len();
        }
        self.evict();
    }

    /// Over either bound, the older half (by last use) goes; the chunk just kept is the
    /// newest, so it stays.
    fn evict(&mut self) {
        if self.rows.len() <= ROW_CACHE_CHUNKS && self.rows_held <= ROW_CACHE_ROWS {
            return;
        }
        let mut ticks: Vec<u64> = self.rows.values().map(|(_, t)| *t).collect();
        ticks.sort_unstable();
        let cut = ticks.get(ticks.len() / 2).copied().unwrap_or(0);
        self.rows.retain(|_, (_, t)| *t > cut);
        self.rows_held = self.rows.values().map(|(rows, _)| rows.len()).sum();
    }
}

impl TranscriptView {
    /// Logical lines of one chunk of a block's body (details appended to the last chunk):
    /// the one projection the frame, the scroll and an off-actor `/find` share (C-74).
    fn chunk_lines(&self, block: &PlannedBlock, chunk: usize) -> Vec<LogicalLine> {
        block_chunk_lines(self.transcript.entries(), &self.ctx(), block, chunk)
    }

    pub(super) fn body_width(&self, layout: &GutterLayout, block: &PlannedBlock) -> usize {
        layout.body_width(block.role == Role::Inbound)
    }

    /// Wrapped rows of one chunk, built now; its height goes to the height cache.
    fn build_chunk_rows(
        &mut self,
        layout: &GutterLayout,
        bi: usize,
        chunk: usize,
    ) -> Vec<Line<'static>> {
        let Some(block) = self.plan.get(bi) else {
            return Vec::new();
        };
        let lines = self.chunk_lines(block, chunk);
        let rows = body_rows(
            &lines,
            self.body_width(layout, block),
            block.role,
            self.style,
        );
        let count = block.chunk_count();
        let heights = self.caches.heights.entry(block.key, count);
        if let Some(h) = heights.get_mut(chunk) {
            *h = rows.len() as u32;
        }
        rows
    }

    /// Wrapped rows of one chunk (cached).
    pub(super) fn chunk_rows(&mut self, layout: &GutterLayout, bi: usize, chunk: usize) -> Rows {
        let Some(block) = self.plan.get(bi) else {
            return Arc::new(Vec::new());
        };
        let key = (block.key, chunk as u32);
        self.caches.tick += 1;
        let tick = self.caches.tick;
        if let Some((rows, used)) = self.caches.rows.get_mut(&key) {
            *used = tick;
            return rows.clone();
        }
        let rows = Arc::new(self.build_chunk_rows(layout, bi, chunk));
        self.caches.keep(key, rows.clone(), tick);
        rows
    }

    pub(super) fn chunk_height(&mut self, layout: &GutterLayout, bi: usize, chunk: usize) -> usize {
        self.chunk_height_keeping(layout, bi, chunk, true)
    }

    /// A chunk's height; an unknown one is measured by wrapping it, and its rows are kept in
    /// the row cache only when `keep_rows` (a chunk about to be painted). A measurement of
    /// rows no frame paints keeps the height alone (measuring 100k entries would fill the row
    /// cache with rows nobody looks at).
    fn chunk_height_keeping(
        &mut self,
        layout: &GutterLayout,
        bi: usize,
        chunk: usize,
        keep_rows: bool,
    ) -> usize {
        let known = self
            .plan
            .get(bi)
            .and_then(|b| self.caches.heights.get(&b.key))
            .and_then(|h| h.get(chunk).copied())
            .filter(|h| *h != UNKNOWN);
        match known {
            Some(h) => h as usize,
            None if keep_rows => self.chunk_rows(layout, bi, chunk).len(),
            None => self.build_chunk_rows(layout, bi, chunk).len(),
        }
    }

    pub(super) fn body_height(&mut self, layout: &GutterLayout, bi: usize) -> usize {
        self.body_height_keeping(layout, bi, true)
    }

    fn body_height_keeping(&mut self, layout: &GutterLayout, bi: usize, keep_rows: bool) -> usize {
        let count = self.plan.get(bi).map_or(0, PlannedBlock::chunk_count);
        (0..count)
            .map(|c| self.chunk_height_keeping(layout, bi, c, keep_rows))
            .sum()
    }

    pub(super) fn block_height(&mut self, layout: &GutterLayout, bi: usize) -> usize {
        self.block_height_keeping(layout, bi, true)
    }

    /// [`Self::block_height`] of a block the frame measures without painting it.
    pub(super) fn measured_height(&mut self, layout: &GutterLayout, bi: usize) -> usize {
        self.block_height_keeping(layout, bi, false)
    }

    fn block_height_keeping(&mut self, layout: &GutterLayout, bi: usize, keep_rows: bool) -> usize {
        if let Some(&h) = self.block_heights.get(bi)
            && h != UNKNOWN
        {
            return h as usize;
        }
        let ctx = self.plan.get(bi).map_or(0, PlannedBlock::ctx_rows);
        let h = ctx + self.body_height_keeping(layout, bi, keep_rows);
        if let Some(slot) = self.block_heights.get_mut(bi) {
            *slot = h as u32;
        }
        h
    }
}
