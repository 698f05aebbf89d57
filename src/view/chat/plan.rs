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

#[derive(Debug, Clone)]
pub struct PlannedBlock {
    pub source: Source,
    pub role: Role,
    /// Content identity: entry uids and revisions (stable across prepends).
    pub key: u64,
    pub turn: Option<u32>,
    /// Body chunks of a huge entry (`None` = one chunk).
    pub chunks: Option<Box<[Range<usize>]>>,
    pub rail: Rail,
    /// Inline: the clock is drawn (minute changed); [`PlannedBlock::clock`] is its minute.
    /// (Flags rather than copies of the minute and its day: issue 15, 100k blocks.)
    pub clock_shown: bool,
    /// The block's own minute (row-mode headings).
    pub minute: Option<i64>,
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
    /// Inline: the clock to draw (minute changed).
    pub fn clock(&self) -> Option<i64> {
        self.minute.filter(|_| self.clock_shown)
    }

    /// The local day the date separator row names, if the block has one.
    pub fn date(&self) -> Option<i64> {
        self.minute.filter(|_| self.date_shown).map(day_of)
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks.as_ref().map_or(1, |c| c.len())
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
        match &self.source {
            Source::Entry(i) | Source::Report(i) => *i..*i + 1,
            Source::Tools(r) | Source::Pending(r) => r.clone(),
        }
    }

    pub fn first_entry(&self) -> usize {
        match &self.source {
            Source::Entry(i) | Source::Report(i) => *i,
            Source::Tools(r) | Source::Pending(r) => r.start,
        }
    }
}

fn speaker_id(entry: &Entry, role: Role) -> u64 {
    let mut h = DefaultHasher::new();
    role.hash(&mut h);
    match &entry.speaker {
        Speaker::Keeper { name, .. } => name.hash(&mut h),
        Speaker::Inbound { sender, .. } => sender.hash(&mut h),
        _ => {}
    }
    h.finish()
}

/// The turn an entry belongs to (C-13, C-14, C-17): the full request id of the send that made
/// it, else the Keeper's `turn_ref` (history rows) — never a display string. Two requests that
/// share a `turn_ref` are two turns.
fn turn_key(entry: &Entry) -> Option<&str> {
    entry
        .origin
        .request_id
        .as_deref()
        .or(entry.turn_ref.as_deref())
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
        blocks.push(PlannedBlock {
            source,
            role,
            key,
            turn,
            chunks,
            rail: Rail::None,
            clock_shown: false,
            minute,
            continued: false,
            spacing: false,
            date_shown: false,
            header: false,
            margin_mark: false,
        });
        if has_report {
            let mut h = DefaultHasher::new();
            "report".hash(&mut h);
            key.hash(&mut h);
            blocks.push(PlannedBlock {
                source: Source::Report(i),
                role: Role::Status,
                key: h.finish(),
                turn,
                chunks: None,
                rail: Rail::None,
                clock_shown: false,
                minute,
                continued: false,
                spacing: false,
                date_shown: false,
                header: false,
                margin_mark: false,
            });
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
        let speaker = match b.source {
            Source::Report(_) => {
                let mut h = DefaultHasher::new();
                Role::Status.hash(&mut h);
                h.finish()
            }
            _ => speaker_id(entry, b.role),
        };
        let entry_block = matches!(b.source, Source::Entry(_));
        b.continued = prev_speaker == Some(speaker);
        if origin == OriginMode::Inline && b.minute.is_some() && b.minute != prev_minute {
            b.clock_shown = true;
        }
        // C-24: the clock shows minutes only; a new day gets its own row, so a clock that
        // wraps past midnight (or a row of an earlier day) never reads as time running back.
        let day = b.minute.map(day_of);
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
                b.margin_mark = matches!(b.source, Source::Pending(_))
                    || (entry_block
                        && matches!(
                            b.role,
                            Role::User | Role::Keeper | Role::Local | Role::Status | Role::Error
                        ));
            }
            OriginMode::Row => {
                b.header = entry_block && is_conversation(b.role);
                b.margin_mark = matches!(b.source, Source::Pending(_));
            }
            OriginMode::Inline => {}
        }
        if origin != OriginMode::Inline
            && let Some(prev) = prev_role
        {
            b.spacing = is_conversation(b.role) || is_conversation(prev);
        }
        if b.minute.is_some() {
            prev_minute = b.minute;
        }
        prev_speaker = Some(speaker);
        prev_role = Some(b.role);
    }
}
