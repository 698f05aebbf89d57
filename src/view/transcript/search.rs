//! `/find` off the view actor (heavy projection never runs on the view actor).
//!
//! A search wraps every chunk of the whole transcript, so on a 100k-entry chat it is the
//! biggest single cost a key can cause. The view actor only dispatches: it takes a
//! [`FindJob`] — a shared snapshot of the entries and the plan (reference counts, no copy),
//! the projection context and the gutter layout, stamped with the layout it was made for —
//! and hands it to the blocking pool. The [`Found`] match list comes back as a message and is
//! admitted only while the layout (layout generation: reading width, modes, colour; the
//! transcript revision; the clock offset; the window width) and the query are still the ones
//! the search was dispatched for (`screens::chat::find::admit`). The rows are projected by the
//! same function as the frame and the scroll (`measure::block_chunk_lines`, then
//! `repeat::body_rows`), so a match row is a row the window paints (C-31, C-74).

use super::gutter::GutterLayout;
use super::marks::Role;
use super::measure::block_chunk_lines;
use super::model::Entry;
use super::modes::ViewModes;
use super::plan::PlannedBlock;
use super::project::ProjectCtx;
use super::repeat::body_rows;
use std::sync::Arc;

/// The layout a search was made for; a result is admitted only under the same stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FindStamp {
    /// The transcript view's layout generation (unique across views: a reload or another
    /// Keeper's chat never matches).
    pub(super) generation: u64,
    /// [`super::Transcript::generation`] when the plan was built.
    pub(super) transcript: u64,
    pub(super) modes: ViewModes,
    pub(super) utc_offset_secs: i32,
    /// The transcript window's width in cells.
    pub(super) width: u16,
}

/// One search to run off the view actor. Owns shared snapshots, so it runs anywhere.
#[derive(Clone)]
pub struct FindJob {
    pub(super) stamp: FindStamp,
    pub(super) query: String,
    pub(super) entries: Arc<Vec<Arc<Entry>>>,
    pub(super) plan: Arc<Vec<PlannedBlock>>,
    pub(super) ctx: ProjectCtx,
    pub(super) layout: GutterLayout,
}

impl std::fmt::Debug for FindJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FindJob")
            .field("stamp", &self.stamp)
            .field("query", &self.query)
            .field("blocks", &self.plan.len())
            .finish()
    }
}

/// Two jobs are the same search when they look for the same text under the same stamp.
impl PartialEq for FindJob {
    fn eq(&self, other: &Self) -> bool {
        self.stamp == other.stamp && self.query == other.query
    }
}

impl Eq for FindJob {}

/// What a [`FindJob`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub stamp: FindStamp,
    pub query: String,
    /// Transcript rows (from the first row, as `ScrollPosition::FromTop` counts) whose painted
    /// body holds the query, in order.
    pub rows: Vec<usize>,
    /// Rows of the whole transcript under the stamp.
    pub total: usize,
    /// Rows of each planned block (the view adopts them under the same stamp, so scrolling
    /// to an old match does not wrap the blocks below it again).
    pub block_heights: Vec<u32>,
}

/// ASCII case ignored, as [`super::window`]'s highlight matches (lowercasing ASCII keeps
/// byte offsets, so a row matches exactly when its highlight has a range).
pub(super) fn row_matches(text: &str, needle_lower: &str) -> bool {
    !needle_lower.is_empty() && text.to_ascii_lowercase().contains(needle_lower)
}

impl FindJob {
    pub fn stamp(&self) -> FindStamp {
        self.stamp
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    /// Projects and wraps every chunk of every planned block and lists the rows that hold the
    /// query (pure; never panics).
    pub fn run(self) -> Found {
        let needle = self.query.to_ascii_lowercase();
        let mut rows = Vec::new();
        let mut block_heights = Vec::with_capacity(self.plan.len());
        let mut start = 0usize;
        for block in self.plan.iter() {
            let ctx_rows = block.ctx_rows();
            let width = self.layout.body_width(block.role == Role::Inbound);
            let mut k = 0usize;
            for chunk in 0..block.chunk_count() {
                let lines = block_chunk_lines(&self.entries, &self.ctx, block, chunk);
                for row in body_rows(&lines, width, block.role, self.ctx.style) {
                    let text: String = row.spans.iter().map(|s| s.content.as_ref()).collect();
                    if row_matches(&text, &needle) {
                        rows.push(start + ctx_rows + k);
                    }
                    k += 1;
                }
            }
            let height = ctx_rows + k;
            block_heights.push(u32::try_from(height).unwrap_or(u32::MAX));
            start += height;
        }
        Found {
            stamp: self.stamp,
            query: self.query,
            rows,
            total: start,
            block_heights,
        }
    }
}
