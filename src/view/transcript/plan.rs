//! The plan: which blocks are visible in the current modes, in order, with the context each
//! needs from its neighbours (rail, clock on minute change, continued speaker, spacing,
//! heading). Cheap (no wrapping): rebuilt when the transcript or the modes change, never per
//! frame.

use super::gutter::{day_of, minute_bucket};
use super::marks::Role;
use super::model::{Entry, EntryKind, Speaker, Transcript};
use super::modes::{JournalMode, OriginMode, ReasoningMode, ViewModes};
use super::project::chunk_ranges;
use super::rail::{Rail, RailInput, Siding, assign_rails};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

/// Which entries a block shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Entry(usize),
    /// Contiguous tool calls of one turn.
    Tools(Range<usize>),
    /// The coop-report status rows of a Keeper final (entry index).
    Report(usize),
    /// Contiguous pending inputs.
    Pending(Range<usize>),
}

/// What kind of [`Source`] a block has (its entries are [`PlannedBlock`]'s `first..end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceKind {
    Entry,
    Tools,
    Report,
    Pending,
}

/// No minute (the entry has no time): `minute_bucket` never gives it (a finite time's bucket
/// is at least `i64::MIN / 60`).
const NO_MINUTE: i64 = i64::MIN;

/// One block of the plan. 56 bytes (a plan holds a block per entry, 100k of them):
/// its entries as a `u32` range, the minute without an `Option`, the rare chunk ranges behind
/// one pointer; a size test guards it.
#[derive(Debug, Clone)]
pub struct PlannedBlock {
    source_kind: SourceKind,
    /// The entries the block shows, `first..end` (indexes of a transcript, whose id index is
    /// `u32` too).
    first: u32,
    end: u32,
    pub role: Role,
    /// Content identity: entry uids and revisions (stable across prepends).
    pub key: u64,
    pub turn: Option<u32>,
    /// Body chunks of a huge entry (`None` = one chunk).
    chunks: Option<Box<Box<[Range<usize>]>>>,
    pub rail: Rail,
    /// Inline: the clock is drawn (minute changed); [`PlannedBlock::clock`] is its minute.
    /// (Flags rather than copies of the minute and its day: 100k blocks.)
    pub clock_shown: bool,
    /// The block's own minute (row-mode headings), [`NO_MINUTE`] when it has none.
    minute: i64,
    pub continued: bool,
    /// A blank `Spacing` row before the block (C-28).
    pub spacing: bool,
    /// A date separator row (after the spacing row) naming this local day, where the day
    /// differs from the previous dated block's (C-24; inline and row modes only, C-23);
    /// [`PlannedBlock::date`] is the day.
    pub date_shown: bool,
    /// A heading row before the body (row mode; bare inbound header).
    pub header: bool,
    /// The speaker mark sits in the bare margin of the first body row.
    pub margin_mark: bool,
}

impl PlannedBlock {
    fn new(source: Source, role: Role, key: u64, turn: Option<u32>, minute: Option<i64>) -> Self {
        let (source_kind, range) = match source {
            Source::Entry(i) => (SourceKind::Entry, i..i + 1),
            Source::Tools(r) => (SourceKind::Tools, r),
            Source::Report(i) => (SourceKind::Report, i..i + 1),
            Source::Pending(r) => (SourceKind::Pending, r),
        };
        Self {
            source_kind,
            first: index_u32(range.start),
            end: index_u32(range.end),
            role,
            key,
            turn,
            chunks: None,
            rail: Rail::None,
            clock_shown: false,
            minute: minute.unwrap_or(NO_MINUTE),
            continued: false,
            spacing: false,
            date_shown: false,
            header: false,
            margin_mark: false,
        }
    }

    /// Which entries the block shows.
    pub fn source(&self) -> Source {
        let (first, end) = (self.first as usize, self.end as usize);
        match self.source_kind {
            SourceKind::Entry => Source::Entry(first),
            SourceKind::Tools => Source::Tools(first..end),
            SourceKind::Report => Source::Report(first),
            SourceKind::Pending => Source::Pending(first..end),
        }
    }

    /// The block's own minute (row-mode headings).
    pub fn minute(&self) -> Option<i64> {
        (self.minute != NO_MINUTE).then_some(self.minute)
    }

    /// Inline: the clock to draw (minute changed).
    pub fn clock(&self) -> Option<i64> {
        self.minute().filter(|_| self.clock_shown)
    }

    /// The local day the date separator row names, if the block has one.
    pub fn date(&self) -> Option<i64> {
        self.minute().filter(|_| self.date_shown).map(day_of)
    }

    /// Byte ranges of the body chunks of a huge entry (`None` = one chunk).
    pub fn chunks(&self) -> Option<&[Range<usize>]> {
        self.chunks.as_deref().map(|c| &**c)
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks().map_or(1, <[_]>::len)
    }

    pub fn ctx_rows(&self) -> usize {
        self.lead_rows() + usize::from(self.header)
    }

    /// Rows before the heading (or the body): the spacing row and the date separator.
    pub fn lead_rows(&self) -> usize {
        usize::from(self.spacing) + usize::from(self.date_shown)
    }

    /// The entries the block shows.
    pub fn entry_range(&self) -> Range<usize> {
        self.first as usize..self.end as usize
    }

    pub fn first_entry(&self) -> usize {
        self.first as usize
    }
}

/// An entry index as stored in a block; a transcript's indexes are `u32` (its id index
/// stores them so), so this never saturates in practice, and a saturated index finds no
/// entry rather than another one.
fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

fn speaker_id(entry: &Entry, role: Role) -> u64 {
    let mut h = DefaultHasher::new();
    role.hash(&mut h);
    match &entry.speaker {
        Speaker::Keeper { name, .. } => name.hash(&mut h),
        Speaker::Autonomous { .. } => "AUTO".hash(&mut h),
        Speaker::Inbound(inbound) => inbound.sender.hash(&mut h),
        _ => {}
    }
    h.finish()
}

/// The turn an entry belongs to (C-13, C-14, C-17): the full request id of the send that made
/// it, else the Keeper's `turn_ref` (history rows) — never a display string. Two requests that
/// share a `turn_ref` are two turns. The operator's own input is always a request of its own:
/// one whose request and turn the store does not name (an older store's reloaded row) is its
/// own turn, never a row "from another sender" passing beside a bracket (`───┤`, C-12) — as
/// the live row, which carries its request id, splits an interleaved turn (C-14).
fn turn_key(entry: &Entry) -> Option<&str> {
    entry
        .origin
        .request_id
        .as_deref()
        .or(entry.turn_ref.as_deref())
        .or_else(|| {
            (entry.speaker == Speaker::Operator && entry.kind == EntryKind::Utterance)
                .then_some(entry.id.as_str())
        })
}

fn is_conversation(role: Role) -> bool {
    matches!(
        role,
        Role::User | Role::Inbound | Role::Keeper | Role::Status | Role::Local | Role::Error
    )
}

/// Builds the plan of the visible blocks.
pub fn build_plan(t: &Transcript, modes: ViewModes, utc_offset_secs: i32) -> Vec<PlannedBlock> {
    let entries = t.entries();
    let mut turns: HashMap<&str, u32> = HashMap::new();
    let mut blocks: Vec<PlannedBlock> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let entry = &entries[i];
        let role = Role::of(entry);
        let (source, next) = match &entry.kind {
            EntryKind::ToolCall(_) => {
                let mut j = i + 1;
                while j < entries.len()
                    && matches!(entries[j].kind, EntryKind::ToolCall(_))
                    && turn_key(&entries[j]) == turn_key(entry)
                {
                    j += 1;
                }
                (Source::Tools(i..j), j)
            }
            EntryKind::PendingInput { .. } => {
                let mut j = i + 1;
                while j < entries.len() && matches!(entries[j].kind, EntryKind::PendingInput { .. })
                {
                    j += 1;
                }
                (Source::Pending(i..j), j)
            }
            EntryKind::Thinking
                if modes.reasoning == ReasoningMode::Hidden || entry.text.trim().is_empty() =>
            {
                i += 1;
                continue;
            }
            // A reply whose first delta has not come yet has nothing to show: no lone `●`.
            EntryKind::Utterance if entry.text.trim().is_empty() && entry.reports.is_none() => {
                i += 1;
                continue;
            }
            EntryKind::Journal if modes.journal == JournalMode::Hidden => {
                i += 1;
                continue;
            }
            _ => (Source::Entry(i), i + 1),
        };
        // Journal and other senders are outside any turn; they pass beside brackets.
        let outside =
            matches!(role, Role::Journal | Role::Inbound) || matches!(source, Source::Pending(_));
        let turn = if outside {
            None
        } else {
            turn_key(entry).map(|r| {
                let n = turns.len() as u32;
                *turns.entry(r).or_insert(n)
            })
        };
        let mut h = DefaultHasher::new();
        std::mem::discriminant(&source).hash(&mut h);
        let range = match &source {
            Source::Entry(i) => *i..*i + 1,
            Source::Tools(r) | Source::Pending(r) => r.clone(),
            Source::Report(i) => *i..*i + 1,
        };
        for k in range {
            t.uid(k).hash(&mut h);
            t.rev(k).hash(&mut h);
        }
        let key = h.finish();
        let chunks = match (&source, &entry.kind) {
            (
                Source::Entry(_),
                EntryKind::Utterance
                | EntryKind::Failure(_)
                | EntryKind::Status
                | EntryKind::LocalReply,
            )
            | (Source::Entry(_), EntryKind::Thinking)
            | (Source::Entry(_), EntryKind::Journal)
                if entry.text.len() > super::project::CHUNK_THRESHOLD =>
            {
                let ranges = chunk_ranges(&entry.text);
                (ranges.len() > 1).then(|| ranges.into_boxed_slice())
            }
            _ => None,
        };
        let minute = entry.ts.and_then(|ts| minute_bucket(ts, utc_offset_secs));
        let has_report = entry.reports.is_some() && matches!(source, Source::Entry(_));
        let mut block = PlannedBlock::new(source, role, key, turn, minute);
        block.chunks = chunks.map(Box::new);
        blocks.push(block);
        if has_report {
            let mut h = DefaultHasher::new();
            "report".hash(&mut h);
            key.hash(&mut h);
            blocks.push(PlannedBlock::new(
                Source::Report(i),
                Role::Status,
                h.finish(),
                turn,
                minute,
            ));
        }
        i = next;
    }
    contextualise(&mut blocks, entries, modes.origin);
    blocks
}

fn contextualise(blocks: &mut [PlannedBlock], entries: &[Arc<Entry>], origin: OriginMode) {
    if origin == OriginMode::Inline {
        let inputs: Vec<RailInput> = blocks
            .iter()
            .map(|b| RailInput {
                turn: b.turn,
                work: b.role.is_work(),
                siding: if b.role == Role::Journal {
                    Siding::Journal
                } else {
                    Siding::Other
                },
            })
            .collect();
        for (b, rail) in blocks.iter_mut().zip(assign_rails(&inputs)) {
            b.rail = rail;
        }
    }
    let mut prev_minute: Option<i64> = None;
    let mut prev_day: Option<i64> = None;
    let mut prev_speaker: Option<u64> = None;
    let mut prev_role: Option<Role> = None;
    for b in blocks.iter_mut() {
        let Some(entry) = entries.get(b.first_entry()) else {
            continue;
        };
        let source = b.source();
        let speaker = match source {
            Source::Report(_) => {
                let mut h = DefaultHasher::new();
                Role::Status.hash(&mut h);
                h.finish()
            }
            _ => speaker_id(entry, b.role),
        };
        let entry_block = matches!(source, Source::Entry(_));
        b.continued = prev_speaker == Some(speaker);
        let minute = b.minute();
        if origin == OriginMode::Inline && minute.is_some() && minute != prev_minute {
            b.clock_shown = true;
        }
        // C-24: the clock shows minutes only; a new day gets its own row, so a clock that
        // wraps past midnight (or a row of an earlier day) never reads as time running back.
        let day = minute.map(day_of);
        if origin != OriginMode::Bare && day.is_some() && day != prev_day {
            b.date_shown = true;
            // The first row after a date shows its clock even within the same minute.
            if origin == OriginMode::Inline {
                b.clock_shown = true;
            }
        }
        if day.is_some() {
            prev_day = day;
        }
        match origin {
            OriginMode::Bare => {
                b.header = entry_block && b.role == Role::Inbound;
                b.margin_mark = matches!(source, Source::Pending(_))
                    || (entry_block
                        && matches!(
                            b.role,
                            Role::User | Role::Keeper | Role::Local | Role::Status | Role::Error
                        ));
            }
            OriginMode::Row => {
                b.header = entry_block && is_conversation(b.role);
                b.margin_mark = matches!(source, Source::Pending(_));
            }
            OriginMode::Inline => {}
        }
        if origin != OriginMode::Inline
            && let Some(prev) = prev_role
        {
            b.spacing = is_conversation(b.role) || is_conversation(prev);
        }
        if minute.is_some() {
            prev_minute = minute;
        }
        prev_speaker = Some(speaker);
        prev_role = Some(b.role);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::transcript::model::{CallState, ToolCall};

    /// A block is 56 bytes (88 with `usize` ranges, an `Option` minute and a fat
    /// chunk pointer); a plan holds one per entry.
    #[test]
    fn issue15_planned_block_is_56_bytes() {
        assert!(
            std::mem::size_of::<PlannedBlock>() <= 56,
            "{}",
            std::mem::size_of::<PlannedBlock>()
        );
    }

    /// The compact block answers what the `Source` and the minute it was made of say: every
    /// kind of source, a block of several entries, no minute, and the lowest minute a finite
    /// time gives (never read as "no minute").
    #[test]
    fn issue15_compact_block_reads_back_its_source_and_minute() {
        for (source, range) in [
            (Source::Entry(7), 7..8),
            (Source::Tools(3..9), 3..9),
            (Source::Report(0), 0..1),
            (Source::Pending(100_000..100_004), 100_000..100_004),
        ] {
            for minute in [
                None,
                Some(29_783_333),
                Some(i64::MIN.div_euclid(60)),
                Some(-1),
            ] {
                let b = PlannedBlock::new(source.clone(), Role::Keeper, 1, Some(2), minute);
                assert_eq!(b.source(), source);
                assert_eq!(b.entry_range(), range);
                assert_eq!(b.first_entry(), range.start);
                assert_eq!(b.minute(), minute);
            }
        }
        assert_eq!(minute_bucket(f64::MIN, 0), Some(i64::MIN.div_euclid(60)));
    }

    /// A plan of a long transcript keeps each block's entries, a huge body's chunks and the
    /// entries' minutes.
    #[test]
    fn issue15_plan_keeps_sources_chunks_and_minutes() {
        let mut t = Transcript::new();
        let big = "가나다 라마바 🙂\n".repeat(40_000);
        for i in 0..40usize {
            let entry = match i % 4 {
                0 => Entry::new(
                    format!("u{i}"),
                    Speaker::Operator,
                    EntryKind::Utterance,
                    "q",
                ),
                1 | 2 => Entry::new(
                    format!("c{i}"),
                    Speaker::Tool,
                    EntryKind::ToolCall(Box::new(ToolCall {
                        call_id: None,
                        name: "read_file".into(),
                        state: CallState::Succeeded,
                        args: None,
                        duration_ms: None,
                        turn_stopped: None,
                    })),
                    "",
                ),
                _ => Entry::new(
                    format!("k{i}"),
                    Speaker::Keeper {
                        name: "alpha".into(),
                        owner: true,
                    },
                    EntryKind::Utterance,
                    if i == 39 { big.as_str() } else { "a" },
                ),
            };
            let entry = entry.with_turn(format!("trace-alpha#{}", i / 4));
            t.push(if i % 8 == 0 {
                entry
            } else {
                entry.with_ts(600.0 * i as f64)
            });
        }
        let plan = build_plan(&t, ViewModes::default(), 0);
        assert_eq!(plan.len(), 30);
        for (k, b) in plan.iter().enumerate() {
            let turn = k / 3;
            let want = match k % 3 {
                0 => Source::Entry(4 * turn),
                1 => Source::Tools(4 * turn + 1..4 * turn + 3),
                _ => Source::Entry(4 * turn + 3),
            };
            assert_eq!(b.source(), want, "block {k}");
            let first = b.first_entry();
            let minute = (first % 8 != 0).then(|| (600 * first as i64).div_euclid(60));
            assert_eq!(b.minute(), minute, "block {k}");
            assert_eq!(b.turn, Some(turn as u32));
        }
        let last = plan.last().unwrap();
        let chunks = last.chunks().unwrap();
        assert_eq!(chunks.len(), last.chunk_count());
        assert!(chunks.len() > 1);
        assert_eq!(chunks.first().map(|r| r.start), Some(0));
        assert_eq!(chunks.last().map(|r| r.end), Some(big.len()));
        assert!(plan[..29].iter().all(|b| b.chunks().is_none()));
    }
}
