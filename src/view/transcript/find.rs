//! `/find` in the transcript (C-74): matches are looked for in the body rows
//! the renderer paints — the same plan, modes, width and wrapped rows as the frame and the
//! scroll — so a match row is a row the window can show, in every origin mode. Matching is
//! ASCII-case-insensitive on each painted row (a match never spans a wrap).
//!
//! The search itself runs off the view actor ([`crate::view::transcript::search`]): the view only
//! stamps its layout ([`TranscriptView::find_stamp`]), hands out a [`FindJob`] and adopts the
//! block heights of a result made under its current stamp.

use super::{TranscriptView, UNKNOWN};
use crate::view::transcript::search::{FindJob, FindStamp, Found};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use std::ops::Range;
use std::sync::Arc;

/// Byte ranges of `query` in `text`, ASCII case ignored (lowercasing ASCII keeps byte offsets).
pub(crate) fn match_ranges(text: &str, query: &str) -> Vec<Range<usize>> {
    if query.is_empty() {
        return Vec::new();
    }
    let hay = text.to_ascii_lowercase();
    let needle = query.to_ascii_lowercase();
    hay.match_indices(&needle)
        .map(|(at, m)| at..at + m.len())
        .collect()
}

/// `spans` with every match of `query` in their joined text drawn reversed (C-73: reverse
/// video keeps its meaning under `NO_COLOR`).
pub(crate) fn highlight(spans: Vec<Span<'static>>, query: &str) -> Vec<Span<'static>> {
    let joined: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let ranges = match_ranges(&joined, query);
    if ranges.is_empty() {
        return spans;
    }
    let mut out = Vec::with_capacity(spans.len() + 2 * ranges.len());
    let mut offset = 0;
    for span in spans {
        let text = span.content.as_ref();
        let end = offset + text.len();
        let mut cuts: Vec<usize> = vec![0, text.len()];
        for r in &ranges {
            for b in [r.start, r.end] {
                if b > offset && b < end {
                    cuts.push(b - offset);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let Some(piece) = text.get(a..b) else {
                continue;
            };
            let inside = ranges
                .iter()
                .any(|r| r.start <= offset + a && offset + b <= r.end);
            let style: Style = if inside {
                span.style.add_modifier(Modifier::REVERSED)
            } else {
                span.style
            };
            out.push(Span::styled(piece.to_string(), style));
        }
        offset = end;
    }
    out
}

impl TranscriptView {
    /// The text `/find` highlights in painted body rows (`None`: no search).
    pub fn set_find(&mut self, query: Option<&str>) {
        self.find = query.filter(|q| !q.is_empty()).map(str::to_string);
    }

    pub fn find_query(&self) -> Option<&str> {
        self.find.as_deref()
    }

    /// The layout a search at `width` is made for (re-plans first when the transcript or the
    /// modes changed, as a frame would; no wrapping).
    pub fn find_stamp(&mut self, width: u16) -> FindStamp {
        self.sync(usize::from(width));
        let (transcript, modes, utc_offset_secs) = self.plan_for.unwrap_or((
            self.transcript.generation(),
            self.modes,
            self.utc_offset_secs,
        ));
        FindStamp {
            generation: self.generation,
            transcript,
            modes,
            utc_offset_secs,
            width,
        }
    }

    /// A search for `query` at `width` to run off the view actor: shared snapshots of the
    /// entries and the plan (reference counts only; nothing is wrapped here).
    pub fn find_job(&mut self, width: u16, query: &str) -> FindJob {
        let stamp = self.find_stamp(width);
        let layout = self.sync(usize::from(width));
        FindJob {
            stamp,
            query: query.to_string(),
            entries: self.transcript.snapshot(),
            plan: Arc::clone(&self.plan),
            ctx: self.ctx(),
            layout,
        }
    }

    /// Takes the block heights a search measured when it was made under the current stamp
    /// (so walking to an old match does not wrap every block below it on the view actor);
    /// `false`, nothing taken, under any other stamp.
    pub fn adopt_found_heights(&mut self, found: &Found) -> bool {
        if found.stamp != self.find_stamp(found.stamp.width)
            || found.block_heights.len() != self.plan.len()
        {
            return false;
        }
        for (slot, h) in self.block_heights.iter_mut().zip(&found.block_heights) {
            if *slot == UNKNOWN {
                *slot = *h;
            }
        }
        true
    }

    /// Transcript rows (counted from the first row, as `ScrollPosition::FromTop` counts) whose
    /// painted body holds `query`, in the current modes at `width`, found here on the calling
    /// thread through the frame's row cache (the reference the off-actor [`FindJob`] is held
    /// to; not used by key handling).
    pub fn find_rows(&mut self, width: u16, query: &str) -> Vec<usize> {
        let layout = self.sync(usize::from(width));
        let mut out = Vec::new();
        let mut start = 0;
        for bi in 0..self.plan.len() {
            let bh = self.block_height(&layout, bi);
            let ctx = self.plan.get(bi).map_or(0, |b| b.ctx_rows());
            let chunks = self.plan.get(bi).map_or(0, |b| b.chunk_count());
            let mut k = 0;
            for chunk in 0..chunks {
                let rows = self.chunk_rows(&layout, bi, chunk);
                for row in rows.iter() {
                    let text: String = row.spans.iter().map(|s| s.content.as_ref()).collect();
                    if !match_ranges(&text, query).is_empty() {
                        out.push(start + ctx + k);
                    }
                    k += 1;
                }
            }
            start += bh;
        }
        out
    }

    /// The id and stored original text (C-31: before sanitising and wrapping) of the entry
    /// painted at transcript row `row`.
    pub fn entry_at_row(&mut self, width: u16, row: usize) -> Option<(String, String)> {
        let (starts, _) = self.block_starts(width);
        let bi = starts.partition_point(|&s| s <= row).checked_sub(1)?;
        let range = self.plan.get(bi)?.entry_range();
        let entries = self.transcript.entries();
        // A block of several entries (tool calls, pending inputs): the first one.
        let entry = entries.get(range.start)?;
        Some((entry.id.to_string(), entry.text.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c74_matches_ignore_ascii_case_and_keep_byte_offsets() {
        assert_eq!(
            match_ranges("Deploy 배포 deploy", "DEPLOY"),
            vec![0..6, 14..20]
        );
        assert!(match_ranges("abc", "").is_empty());
    }

    #[test]
    fn c74_highlight_reverses_only_the_match_across_spans() {
        let spans = vec![Span::raw("ab"), Span::raw("cd"), Span::raw("ef")];
        let out = highlight(spans, "bcd");
        let reversed: String = out
            .iter()
            .filter(|s| s.style.add_modifier.contains(Modifier::REVERSED))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(reversed, "bcd");
        let all: String = out.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(all, "abcdef");
    }
}
