//! C-28 / C-67: the newest message taller than the window keeps its first row and its newest
//! body with `⋯ N chat rows hidden · PgUp to reveal` between; a huge one whose middle is not
//! measured yet is cut without wrapping the middle, which is measured off the view actor.

use super::{FrameInfo, TranscriptView, UNKNOWN};
use crate::view::transcript::gutter::GutterLayout;
use crate::view::transcript::measure::MeasureJob;
use crate::view::transcript::model::EntryKind;
use crate::view::transcript::paint::{gutter, header, hidden_marker};
use crate::view::transcript::plan::{PlannedBlock, Source};
use ratatui::text::Line;

impl TranscriptView {
    /// C-28 / C-67: a newest message taller than the window keeps its first row and its
    /// newest body, with `⋯ N chat rows hidden · PgUp to reveal` between.
    pub(super) fn cut_newest(
        &mut self,
        layout: &GutterLayout,
        h: usize,
        out: &mut Vec<Line<'static>>,
        info: &mut FrameInfo,
    ) -> bool {
        let Some(bi) = self.plan.len().checked_sub(1) else {
            return false;
        };
        if h >= 3 && !self.heights_known(bi) && self.cut_newest_unmeasured(layout, bi, h, out, info)
        {
            return true;
        }
        let bh = self.block_height(layout, bi);
        let first = self.plan.get(bi).map_or(0, PlannedBlock::lead_rows);
        if bh.saturating_sub(first) <= h || h < 3 {
            return false;
        }
        let tail = h - 2;
        let hidden = bh - first - 1 - tail;
        self.block_rows(layout, bi, first..first + 1, out);
        out.push(hidden_marker(Some(hidden), layout.reading, self.style));
        self.block_rows(layout, bi, bh - tail..bh, out);
        info.hidden_middle = hidden;
        true
    }

    /// Every chunk height of block `bi` is known (a one-chunk body counts as known: it is
    /// measured when painted).
    fn heights_known(&self, bi: usize) -> bool {
        let Some(block) = self.plan.get(bi) else {
            return true;
        };
        if block.chunk_count() <= 1 {
            return true;
        }
        self.caches
            .heights
            .get(&block.key)
            .is_some_and(|h| h.iter().all(|x| *x != UNKNOWN))
    }

    /// The cut of C-28 for a huge newest message whose middle is not measured: wraps only the
    /// first chunk and the newest chunks the window needs, draws the marker without a count,
    /// and leaves the middle to an off-actor [`MeasureJob`]. `false` (nothing drawn) when the
    /// newest chunks already reach the first one: then the exact cut is as cheap.
    fn cut_newest_unmeasured(
        &mut self,
        layout: &GutterLayout,
        bi: usize,
        h: usize,
        out: &mut Vec<Line<'static>>,
        info: &mut FrameInfo,
    ) -> bool {
        let Some(block) = self.plan.get(bi).cloned() else {
            return false;
        };
        let tail = h - 2;
        let count = block.chunk_count();
        let mut acc = 0;
        let mut c = count;
        while c > 1 && acc < tail {
            c -= 1;
            acc += self.chunk_height(layout, bi, c);
        }
        // Chunks 1..c are the unmeasured middle; each wraps to at least one row, so the body
        // is at least `head + middle + acc` rows and taller than the window.
        if c <= 1 {
            return false;
        }
        let head = self.chunk_height(layout, bi, 0);
        let known_middle: usize = (1..c)
            .map(|m| {
                self.caches
                    .heights
                    .get(&block.key)
                    .and_then(|hs| hs.get(m).copied())
                    .filter(|x| *x != UNKNOWN)
                    .map_or(1, |x| x as usize)
            })
            .sum();
        let body_floor = head + known_middle + acc;
        // The first row: the heading when the block has one, else the first body row.
        if block.header {
            out.push(header(&self.painter(), layout, &block));
        } else {
            self.paint_body_row(layout, bi, 0, 0, 0, body_floor, out);
        }
        out.push(hidden_marker(None, layout.reading, self.style));
        // The newest `tail` body rows, from chunk `c` on.
        let mut rows_from_c = Vec::new();
        for chunk in c..count {
            let n = self.chunk_rows(layout, bi, chunk).len();
            rows_from_c.extend((0..n).map(|r| (chunk, r)));
        }
        let skip = rows_from_c.len().saturating_sub(tail);
        let first_k = body_floor - (rows_from_c.len() - skip);
        for (i, (chunk, r)) in rows_from_c.into_iter().skip(skip).enumerate() {
            self.paint_body_row(layout, bi, chunk, r, first_k + i, body_floor, out);
        }
        info.hidden_middle = body_floor.saturating_sub(1 + tail);
        info.hidden_unmeasured = true;
        let middle: Vec<usize> = (1..c)
            .filter(|m| {
                self.caches
                    .heights
                    .get(&block.key)
                    .and_then(|hs| hs.get(*m).copied())
                    .is_none_or(|x| x == UNKNOWN)
            })
            .collect();
        self.want_measure(layout, &block, &middle);
        true
    }

    /// One body row (`chunk`, row `r` of it) with the gutter of body row `k` of `body_h`.
    #[allow(clippy::too_many_arguments)]
    fn paint_body_row(
        &mut self,
        layout: &GutterLayout,
        bi: usize,
        chunk: usize,
        r: usize,
        k: usize,
        body_h: usize,
        out: &mut Vec<Line<'static>>,
    ) {
        let Some(block) = self.plan.get(bi).cloned() else {
            return;
        };
        let rows = self.chunk_rows(layout, bi, chunk);
        let Some(body) = rows.get(r) else {
            return;
        };
        let mut spans = gutter(&self.painter(), layout, &block, k, body_h);
        spans.extend(self.body_spans(body));
        out.push(Line::from(spans));
    }

    /// Records the off-actor measurement of `chunks` of `block` (once per generation and
    /// block while one is in flight).
    fn want_measure(&mut self, layout: &GutterLayout, block: &PlannedBlock, chunks: &[usize]) {
        if chunks.is_empty() || self.measuring == Some((self.generation, block.key)) {
            return;
        }
        let Source::Entry(i) = block.source() else {
            return;
        };
        let Some(entry) = self.transcript.entries().get(i) else {
            return;
        };
        if matches!(entry.kind, EntryKind::SkillSummary(_)) {
            return;
        }
        let Some(ranges) = block.chunks() else {
            return;
        };
        self.measure_wanted = Some(MeasureJob {
            generation: self.generation,
            block: block.key,
            kind: entry.kind.clone(),
            role: block.role,
            ctx: self.ctx(),
            width: self.body_width(layout, block),
            text: entry.text.clone(),
            chunks: chunks
                .iter()
                .filter_map(|c| ranges.get(*c).map(|r| (*c, r.clone())))
                .collect(),
        });
    }
}
