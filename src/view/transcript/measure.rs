//! Chunk heights of a huge body measured off the view actor (the first frame never waits for
//! a whole huge message to wrap).
//!
//! The first frame of a chat whose newest message is huge needs only that message's first row
//! and its newest rows (C-28); the rows between are counted for the `⋯ N chat rows hidden`
//! marker. Counting them means wrapping the whole body, which is the view actor's biggest
//! single cost (a 1 MB body: tens of milliseconds). So the window paints what it needs, says
//! the count is not measured yet, and hands a [`MeasureJob`] to the blocking pool; its
//! [`Measured`] heights come back as a message and fill the same height cache a synchronous
//! measurement would, for the same layout generation only.

use super::marks::Role;
use super::model::{Entry, EntryKind, ToolCall};
use super::plan::{PlannedBlock, Source};
use super::project::{
    ProjectCtx, detail_rows, failure_rows, journal_rows, pending_rows, project_tool_block,
    reasoning_rows, report_rows, skill_rows, utterance_rows,
};
use super::wrap::LogicalLine;
use std::ops::Range;
use std::sync::Arc;

/// Logical lines of one chunk of a planned block's body (details appended to the last
/// chunk). The frame, the scroll, the off-actor measurement and the off-actor `/find` all
/// project through this one function (C-74).
pub(super) fn block_chunk_lines(
    entries: &[Arc<Entry>],
    ctx: &ProjectCtx,
    block: &PlannedBlock,
    chunk: usize,
) -> Vec<LogicalLine> {
    let last_chunk = chunk + 1 >= block.chunk_count();
    match &block.source() {
        Source::Tools(range) => {
            let calls: Vec<(&ToolCall, &str)> = entries
                .get(range.clone())
                .unwrap_or(&[])
                .iter()
                .filter_map(|e| match &e.kind {
                    EntryKind::ToolCall(c) => Some((&**c, e.text.as_str())),
                    _ => None,
                })
                .collect();
            project_tool_block(&calls, ctx.modes.tools, ctx.style)
        }
        Source::Pending(range) => {
            let list: Vec<&Entry> = entries
                .get(range.clone())
                .unwrap_or(&[])
                .iter()
                .map(|e| &**e)
                .collect();
            pending_rows(&list, ctx)
        }
        Source::Report(i) => entries
            .get(*i)
            .and_then(|e| e.reports.as_deref())
            .map(|facts| report_rows(facts, ctx))
            .unwrap_or_default(),
        Source::Entry(i) => {
            let Some(entry) = entries.get(*i) else {
                return Vec::new();
            };
            let text = match block.chunks() {
                Some(ranges) => ranges
                    .get(chunk)
                    .and_then(|r| entry.text.get(r.clone()))
                    .unwrap_or(""),
                // Leaked report lines are not painted; the report rows warn about them.
                None => entry
                    .reports
                    .as_ref()
                    .and_then(|f| f.display_text.as_deref())
                    .unwrap_or(entry.text.as_str()),
            };
            // Still streaming: its open inline markup closed for display (never raw `*`).
            let text = if entry.open {
                super::partial::close_open_markup(text)
            } else {
                std::borrow::Cow::Borrowed(text)
            };
            let mut lines = entry_chunk_lines(
                &entry.kind,
                &text,
                chunk,
                block.role,
                entry.turn_ref.as_deref(),
                ctx,
            );
            if last_chunk {
                lines.extend(detail_rows(entry, ctx));
            }
            lines
        }
    }
}

/// The body lines of one chunk of an entry (details excluded: they follow the last chunk).
pub(super) fn entry_chunk_lines(
    kind: &EntryKind,
    text: &str,
    chunk: usize,
    role: Role,
    turn_ref: Option<&str>,
    ctx: &ProjectCtx,
) -> Vec<LogicalLine> {
    match kind {
        EntryKind::Thinking => reasoning_rows(text, ctx),
        EntryKind::Journal => journal_rows(text, ctx),
        EntryKind::Failure(_) => failure_rows(text, ctx.style),
        EntryKind::SkillSummary(run) => skill_rows(run, turn_ref, ctx),
        _ => {
            let mut lines = Vec::new();
            // A chunk that starts after a blank line keeps the paragraph gap.
            if chunk > 0 && text.starts_with('\n') {
                lines.push(LogicalLine::default());
            }
            lines.extend(utterance_rows(text, role, ctx));
            lines
        }
    }
}

/// Chunks of one block to measure at one layout generation. Owns its text (a copy of the
/// entry's body), so it runs anywhere.
pub struct MeasureJob {
    pub(super) generation: u64,
    pub(super) block: u64,
    pub(super) kind: EntryKind,
    pub(super) role: Role,
    pub(super) ctx: ProjectCtx,
    pub(super) width: usize,
    pub(super) text: String,
    /// (chunk index, byte range of `text`).
    pub(super) chunks: Vec<(usize, Range<usize>)>,
}

impl std::fmt::Debug for MeasureJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeasureJob")
            .field("generation", &self.generation)
            .field("block", &self.block)
            .field("chunks", &self.chunks.len())
            .field("bytes", &self.text.len())
            .finish()
    }
}

/// Heights of the chunks a [`MeasureJob`] measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measured {
    pub(super) generation: u64,
    pub(super) block: u64,
    /// (chunk index, rows).
    pub(super) heights: Vec<(usize, u32)>,
}

impl MeasureJob {
    /// Wraps every chunk of the job at its width and counts the rows (pure; never panics).
    pub fn run(self) -> Measured {
        let heights = self
            .chunks
            .iter()
            .map(|(chunk, range)| {
                let text = self.text.get(range.clone()).unwrap_or("");
                let lines = entry_chunk_lines(&self.kind, text, *chunk, self.role, None, &self.ctx);
                let rows = super::repeat::body_rows(&lines, self.width, self.role, self.ctx.style);
                (*chunk, rows.len() as u32)
            })
            .collect();
        Measured {
            generation: self.generation,
            block: self.block,
            heights,
        }
    }

    /// How many chunks the job measures.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}
