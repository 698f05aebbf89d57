//! Scroll identity (C-31, C-74): a scroll position is kept as the entry it stands on, not as a
//! row count. A row count means other content in each origin mode (a heading row, a clock, a
//! fold changes every block's height), so a view toggle re-finds the same entry in the new
//! projection and puts it back at the top of the window.

use super::{ScrollPosition, TranscriptView};

/// The entry at the top row of the window and how many of its block's rows were above it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScrollAnchor {
    /// The entry's stable id (the source message id; the request id of a pending input).
    pub entry: String,
    /// Its index when the anchor was taken (to find the next visible entry when it is hidden
    /// in the new mode).
    index: usize,
    /// Rows of its block above the window's top row.
    offset: usize,
    /// The position counted from the top (`FromTop`) rather than from the newest row.
    from_top: bool,
}

impl TranscriptView {
    /// Cumulative start row of each planned block and the total, at `width`.
    pub(super) fn block_starts(&mut self, width: u16) -> (Vec<usize>, usize) {
        let layout = self.sync(usize::from(width));
        let mut starts = Vec::with_capacity(self.plan.len());
        let mut acc = 0;
        for bi in 0..self.plan.len() {
            starts.push(acc);
            acc += self.block_height(&layout, bi);
        }
        (starts, acc)
    }

    /// The top row of the window a scroll position shows (`None`: pinned to the newest row).
    pub(crate) fn top_row(
        &mut self,
        width: u16,
        height: u16,
        scroll: ScrollPosition,
    ) -> Option<usize> {
        let h = usize::from(height);
        match scroll {
            ScrollPosition::Newest => None,
            ScrollPosition::FromTop(skip) => Some(skip),
            ScrollPosition::Back(back) => {
                let (_, total) = self.block_starts(width);
                Some(total.saturating_sub(back + h))
            }
        }
    }

    /// What the window of `scroll` stands on, in the current modes; `None` when it is pinned
    /// to the newest row (that is its identity) or the transcript is empty.
    pub fn anchor(
        &mut self,
        width: u16,
        height: u16,
        scroll: ScrollPosition,
    ) -> Option<ScrollAnchor> {
        let top = self.top_row(width, height, scroll)?;
        let (starts, _) = self.block_starts(width);
        let bi = starts.partition_point(|&s| s <= top).checked_sub(1)?;
        let block = self.plan.get(bi)?;
        let index = block.first_entry();
        let entry = self.transcript.entries().get(index)?;
        Some(ScrollAnchor {
            entry: entry.id.to_string(),
            index,
            offset: top - starts[bi],
            from_top: matches!(scroll, ScrollPosition::FromTop(_)),
        })
    }

    /// The scroll position that puts `anchor`'s entry back at the top of a `height`-row window
    /// in the current modes (the entry, or the next one shown when this mode hides it).
    pub fn position_of(
        &mut self,
        width: u16,
        height: u16,
        anchor: &ScrollAnchor,
    ) -> ScrollPosition {
        let (starts, total) = self.block_starts(width);
        let entries = self.transcript.entries();
        let index = entries
            .iter()
            .position(|e| e.id == anchor.entry)
            .unwrap_or(anchor.index);
        let found = self.plan.iter().position(|b| {
            let range = b.entry_range();
            range.contains(&index) || range.start > index
        });
        let Some(bi) = found else {
            return ScrollPosition::Newest;
        };
        let layout = self.sync(usize::from(width));
        let bh = self.block_height(&layout, bi);
        let same_entry = self
            .plan
            .get(bi)
            .is_some_and(|b| b.entry_range().contains(&index));
        let offset = if same_entry {
            anchor.offset.min(bh.saturating_sub(1))
        } else {
            0
        };
        let top = starts.get(bi).copied().unwrap_or(0) + offset;
        if anchor.from_top {
            return ScrollPosition::FromTop(top);
        }
        let h = usize::from(height);
        match total.checked_sub(top + h) {
            Some(back) if back > 0 => ScrollPosition::Back(back),
            _ => ScrollPosition::Newest,
        }
    }
}
