//! The turn rail (§2.3): which turn does this row belong to? Pure over a sequence of blocks.
//!
//! - The `╭…╰` bracket joins contiguous rows of one turn only; rows outside any turn pass
//!   beside it (`┤` with a siding) without breaking it (C-12, C-13).
//! - A row of another turn that interleaves splits the turn: each part is drawn on its own,
//!   a one-block part as a lone row, never one bracket over the interleaving row (C-14).
//! - One-row speech draws no rail (C-15); a wrapped block keeps its rail (C-16).
//! - Grouping is by the full turn identity (C-17): callers pass interned full ids.

/// The 3-cell siding texture before `┤` (C-12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Siding {
    /// The Memory journal lane: `╌╌╌`.
    Journal,
    /// Rows from another sender: `───`.
    Other,
}

impl Siding {
    pub fn texture(self) -> &'static str {
        match self {
            Self::Journal => "╌╌╌",
            Self::Other => "───",
        }
    }
}

/// `turn_rail_glyph` of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rail {
    /// `╭` the turn starts here.
    Opens,
    /// `│` speech inside the turn.
    Says,
    /// `├` work inside the turn.
    Does,
    /// `╶` a one-block turn whose row is work.
    Stands,
    /// `╰` the turn ends on the last row of this block; `work` picks the first-row glyph.
    Closes { work: bool },
    /// `┤` a block outside any turn touching an open bracket.
    Joins(Siding),
    /// No rail: one-block speech, or a block outside any turn and any bracket.
    None,
}

/// What the rail needs to know about one visible block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RailInput {
    /// Interned full turn id; `None` = outside any turn.
    pub turn: Option<u32>,
    /// Work (tool, skill, thinking) rather than speech.
    pub work: bool,
    /// Texture used when this block joins a bracket from outside.
    pub siding: Siding,
}

/// Assigns the rail of every block.
pub fn assign_rails(blocks: &[RailInput]) -> Vec<Rail> {
    let mut out = vec![Rail::None; blocks.len()];
    let mut segment: Vec<usize> = Vec::new();
    let mut segment_turn: Option<u32> = None;
    for (i, block) in blocks.iter().enumerate() {
        let Some(turn) = block.turn else { continue };
        if segment_turn != Some(turn) {
            close_segment(&segment, blocks, &mut out);
            segment.clear();
            segment_turn = Some(turn);
        }
        segment.push(i);
    }
    close_segment(&segment, blocks, &mut out);
    out
}

fn close_segment(members: &[usize], blocks: &[RailInput], out: &mut [Rail]) {
    let (Some(&first), Some(&last)) = (members.first(), members.last()) else {
        return;
    };
    let work = |i: usize| blocks.get(i).is_some_and(|b| b.work);
    if first == last {
        if let Some(slot) = out.get_mut(first) {
            *slot = if work(first) {
                Rail::Stands
            } else {
                Rail::None
            };
        }
        return;
    }
    for &i in members {
        let rail = if i == first {
            Rail::Opens
        } else if i == last {
            Rail::Closes { work: work(i) }
        } else if work(i) {
            Rail::Does
        } else {
            Rail::Says
        };
        if let Some(slot) = out.get_mut(i) {
            *slot = rail;
        }
    }
    for i in first + 1..last {
        if let (Some(block), Some(slot)) = (blocks.get(i), out.get_mut(i))
            && block.turn.is_none()
        {
            *slot = Rail::Joins(block.siding);
        }
    }
}

/// The siding (3 cells) and glyph (1 cell) of row `row` of a block `height` rows tall (C-16).
pub fn row_glyph(rail: Rail, row: usize, height: usize) -> (&'static str, char) {
    let last = row + 1 >= height;
    match rail {
        Rail::Opens if row == 0 => ("   ", '╭'),
        Rail::Opens | Rail::Says => ("   ", '│'),
        Rail::Does if row == 0 => ("   ", '├'),
        Rail::Does => ("   ", '│'),
        Rail::Stands if row == 0 => ("   ", '╶'),
        Rail::Closes { .. } if last => ("   ", '╰'),
        Rail::Closes { work: true } if row == 0 => ("   ", '├'),
        Rail::Closes { .. } => ("   ", '│'),
        Rail::Joins(siding) if row == 0 => (siding.texture(), '┤'),
        Rail::Stands | Rail::Joins(_) | Rail::None => ("   ", ' '),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speech(turn: Option<u32>) -> RailInput {
        RailInput {
            turn,
            work: false,
            siding: Siding::Other,
        }
    }
    fn work(turn: u32) -> RailInput {
        RailInput {
            turn: Some(turn),
            work: true,
            siding: Siding::Other,
        }
    }
    fn journal() -> RailInput {
        RailInput {
            turn: None,
            work: false,
            siding: Siding::Journal,
        }
    }

    #[test]
    fn c13_bracket_over_contiguous_turn_with_journal_passing_beside() {
        let rails = assign_rails(&[speech(Some(1)), journal(), work(1), speech(Some(1))]);
        assert_eq!(
            rails,
            vec![
                Rail::Opens,
                Rail::Joins(Siding::Journal),
                Rail::Does,
                Rail::Closes { work: false }
            ]
        );
    }

    #[test]
    fn c14_interleaved_turn_splits_into_lone_rows() {
        let rails = assign_rails(&[speech(Some(1)), speech(Some(2)), work(1)]);
        assert_eq!(rails, vec![Rail::None, Rail::None, Rail::Stands]);
    }

    #[test]
    fn c15_one_row_speech_has_no_rail_and_c16_wrapped_rows_keep_it() {
        assert_eq!(assign_rails(&[speech(Some(3))]), vec![Rail::None]);
        assert_eq!(row_glyph(Rail::Opens, 0, 3).1, '╭');
        assert_eq!(row_glyph(Rail::Opens, 2, 3).1, '│');
        assert_eq!(row_glyph(Rail::Closes { work: true }, 0, 2).1, '├');
        assert_eq!(row_glyph(Rail::Closes { work: true }, 1, 2).1, '╰');
        assert_eq!(row_glyph(Rail::Joins(Siding::Other), 0, 2), ("───", '┤'));
        assert_eq!(row_glyph(Rail::Joins(Siding::Other), 1, 2), ("   ", ' '));
    }
}
