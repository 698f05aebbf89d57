//! The Task detail's row layout, done off the view actor (sources.md ).
//!
//! The wrapped rows of the task document (body + canonical goal observation) and of the history
//! are prepared on a worker (`spawn_blocking`) for an exact input key — (part, task, source
//! observation, row count, pane width) — and reused by draw, scroll and count; a frame never
//! re-wraps server text. A result whose key is no longer the wanted one (another task, a new
//! observation or prefix, another width, a withdrawal) is dropped. While a new layout is
//! pending, the previous rendering is shown only for the same source at the same width, and it
//! is marked provisional: its row count never resets the saved scroll.
//!
//! History layout is incremental: the prefix is immutable, so a layout of the same
//! prefix at the same width is extended with the new page's rows only.
//!
//! This file holds the layout bookkeeping (keys, jobs, what is shown while a job runs);
//! `lines` lays out the rows themselves (the task document and each history event).

mod lines;

pub use lines::{body_lines, history_row_lines};

use super::detail::TaskDetailModel;
use crate::actors::work::HistoryChain;
use crate::protocol::tasks::TaskDetail;
use crate::view::theme::Tone;
use compact_str::CompactString;
use smallvec::{SmallVec, smallvec};
use std::sync::Arc;

/// Which part of the detail a layout is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutPart {
    Body,
    History,
}

impl LayoutPart {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Body => "body",
            Self::History => "history",
        }
    }
}

/// The exact input a layout is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LayoutKey {
    pub part: LayoutPart,
    pub task_id: String,
    /// Body: the generation of the admitted body read; history: the prefix id.
    pub source: u64,
    /// History: rows of the prefix; body: 0.
    pub rows: usize,
    pub width: u16,
}

impl LayoutKey {
    /// Same consumer and source at the same width: a previous rendering may stand in.
    fn same_source_and_width(&self, other: &LayoutKey) -> bool {
        self.part == other.part
            && self.task_id == other.task_id
            && self.width == other.width
            && match self.part {
                // The document of the same task; the history of the same prefix.
                LayoutPart::Body => true,
                LayoutPart::History => self.source == other.source,
            }
    }
}

/// The segments of one prepared row, stored inline (no vector per row): a row has at most four (a
/// history head: time, action, transition, agent), and each text up to 24 bytes is stored in
/// place, so a prepared row allocates only for a longer text.
pub type Segments = SmallVec<[(Tone, CompactString); 4]>;

/// One display row, already wrapped to the pane width and sanitised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaidOutLine {
    pub segments: Segments,
}

impl LaidOutLine {
    fn one(tone: Tone, text: impl Into<CompactString>) -> Self {
        Self {
            segments: smallvec![(tone, text.into())],
        }
    }

    fn two(first: (Tone, CompactString), second: (Tone, CompactString)) -> Self {
        Self {
            segments: smallvec![first, second],
        }
    }

    fn blank() -> Self {
        Self {
            segments: Segments::new(),
        }
    }
}

/// A finished layout.
#[derive(Debug, Clone, PartialEq)]
pub struct LaidOut {
    pub key: LayoutKey,
    pub lines: Arc<Vec<LaidOutLine>>,
}

/// A layout to run on a worker: immutable inputs only.
#[derive(Debug, Clone)]
pub enum LayoutJob {
    Body {
        key: LayoutKey,
        detail: Arc<TaskDetail>,
    },
    History {
        key: LayoutKey,
        chain: Arc<HistoryChain>,
        /// A layout of the same prefix at the same width, extended instead of redone.
        previous: Option<Arc<LaidOut>>,
    },
}

impl LayoutJob {
    pub fn key(&self) -> &LayoutKey {
        match self {
            Self::Body { key, .. } | Self::History { key, .. } => key,
        }
    }

    /// Pure: runs on the blocking pool.
    pub fn run(self) -> LaidOut {
        match self {
            Self::Body { key, detail } => {
                let lines = body_lines(&detail, key.width as usize);
                LaidOut {
                    key,
                    lines: Arc::new(lines),
                }
            }
            Self::History {
                key,
                chain,
                previous,
            } => {
                let width = key.width as usize;
                let (mut lines, skip) = match previous {
                    Some(p) => (p.lines.as_ref().clone(), p.key.rows),
                    None => (Vec::new(), 0),
                };
                // A head row and a note row an event, as a rule: sized once, not grown.
                lines.reserve(chain.len().saturating_sub(skip) * 2);
                for row in chain.rows().skip(skip) {
                    history_row_lines(row, width, &mut lines);
                }
                LaidOut {
                    key,
                    lines: Arc::new(lines),
                }
            }
        }
    }
}

/// What the screen draws for one part.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    pub lines: &'a [LaidOutLine],
    /// A previous rendering standing in while the current one is prepared: its count is not
    /// the count of the current source and must not clamp the saved scroll.
    pub provisional: bool,
}

#[derive(Debug, Default)]
pub struct RowLayouts {
    body: Option<Arc<LaidOut>>,
    history: Option<Arc<LaidOut>>,
    in_flight: Vec<LayoutKey>,
}

fn wanted_body(task: &TaskDetailModel, width: u16) -> Option<(LayoutKey, Arc<TaskDetail>)> {
    let detail = task.body.fetched.last()?.value.clone();
    Some((
        LayoutKey {
            part: LayoutPart::Body,
            task_id: task.task_id.clone(),
            source: task.body_generation.unwrap_or(0),
            rows: 0,
            width,
        },
        detail,
    ))
}

fn wanted_history(task: &TaskDetailModel, width: u16) -> Option<(LayoutKey, Arc<HistoryChain>)> {
    let chain = task.history.fetched.last()?.value.clone();
    Some((
        LayoutKey {
            part: LayoutPart::History,
            task_id: task.task_id.clone(),
            source: chain.prefix_id,
            rows: chain.len(),
            width,
        },
        chain,
    ))
}

impl RowLayouts {
    /// The open task changed or was withdrawn: nothing prepared for it stands in any more.
    pub fn forget_task(&mut self) {
        self.body = None;
        self.history = None;
        self.in_flight.clear();
    }

    /// Layouts the current model needs at `width` that are neither done nor running;
    /// marks them running.
    pub fn jobs(&mut self, task: Option<&TaskDetailModel>, width: u16) -> Vec<LayoutJob> {
        let Some(task) = task else {
            return Vec::new();
        };
        let mut jobs = Vec::new();
        if let Some((key, detail)) = wanted_body(task, width)
            && self.body.as_ref().is_none_or(|p| p.key != key)
            && !self.in_flight.contains(&key)
        {
            jobs.push(LayoutJob::Body { key, detail });
        }
        if let Some((key, chain)) = wanted_history(task, width)
            && self.history.as_ref().is_none_or(|p| p.key != key)
            && !self.in_flight.contains(&key)
        {
            let previous = self
                .history
                .clone()
                .filter(|p| p.key.same_source_and_width(&key) && p.key.rows <= key.rows);
            jobs.push(LayoutJob::History {
                key,
                chain,
                previous,
            });
        }
        for job in &jobs {
            tracing::debug!(target: "masc_tui::work::layout", part = job.key().part.as_str(), width = job.key().width, "prep start");
            self.in_flight.push(job.key().clone());
        }
        jobs
    }

    /// A worker's result: kept only when its key is still the wanted one.
    pub fn admit(&mut self, laid_out: LaidOut, task: Option<&TaskDetailModel>, width: u16) -> bool {
        self.in_flight.retain(|k| k != &laid_out.key);
        let wanted = task.and_then(|t| match laid_out.key.part {
            LayoutPart::Body => wanted_body(t, width).map(|(k, _)| k),
            LayoutPart::History => wanted_history(t, width).map(|(k, _)| k),
        });
        let part = laid_out.key.part;
        if wanted.as_ref() != Some(&laid_out.key) {
            tracing::debug!(target: "masc_tui::work::layout", part = part.as_str(), "prep dropped: source or width changed");
            return false;
        }
        tracing::debug!(target: "masc_tui::work::layout", part = part.as_str(), "prep applied");
        let slot = match part {
            LayoutPart::Body => &mut self.body,
            LayoutPart::History => &mut self.history,
        };
        *slot = Some(Arc::new(laid_out));
        true
    }

    fn shown<'a>(
        prepared: &'a Option<Arc<LaidOut>>,
        wanted: Option<LayoutKey>,
    ) -> Option<Shown<'a>> {
        let p = prepared.as_ref()?;
        let wanted = wanted?;
        if p.key == wanted {
            return Some(Shown {
                lines: &p.lines,
                provisional: false,
            });
        }
        p.key.same_source_and_width(&wanted).then_some(Shown {
            lines: &p.lines,
            provisional: true,
        })
    }

    /// The document rows to draw for `task` at `width`, if any are prepared.
    pub fn body<'a>(&'a self, task: &TaskDetailModel, width: u16) -> Option<Shown<'a>> {
        Self::shown(&self.body, wanted_body(task, width).map(|(k, _)| k))
    }

    /// The history rows to draw for `task` at `width`, if any are prepared.
    pub fn history<'a>(&'a self, task: &TaskDetailModel, width: u16) -> Option<Shown<'a>> {
        Self::shown(&self.history, wanted_history(task, width).map(|(k, _)| k))
    }

    /// Layouts running (diagnostics, tests).
    pub fn running(&self) -> usize {
        self.in_flight.len()
    }
}
