//! Stage events folded into one interval per ticket (dispatch → admission), the shape every
//! timeline picture shares: the Chrome trace, the swimlane SVG and the OpenTelemetry spans.
//!
//! A ticket is keyed by (process, source, generation); generations are per slot and never
//! reset (G-6), so the key is unique within one process. Times are never subtracted across
//! processes. A ticket ends at its first `admit`, `reject` or `retire`; stage events for it
//! after that (an `unregistered` after a `retire`) belong to no interval and are dropped.

use super::record::StageRecord;
use super::stage::Stage;
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

/// Identifies one ticket within a trace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TicketKey {
    pub pid: Option<u32>,
    pub source: String,
    pub generation: u64,
}

/// How a ticket's read (or save) ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The consumer applied the result (which may itself be a failure: see `failure_class`).
    Admitted,
    /// The result was not applied (`reason`: superseded, stale_epoch, withdrawn …).
    Rejected(String),
    /// The read ended without a result (`reason`).
    Retired(String),
    /// Nothing ended it within the trace (or before the export stopped).
    Unfinished,
}

impl Ending {
    /// The word written as the outcome of the ticket.
    pub fn outcome(&self) -> &'static str {
        match self {
            Self::Admitted => "admitted",
            Self::Rejected(_) => "rejected",
            Self::Retired(_) => "retired",
            Self::Unfinished => "unfinished",
        }
    }

    /// The reason of a rejection or retirement.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Rejected(r) | Self::Retired(r) => Some(r),
            Self::Admitted | Self::Unfinished => None,
        }
    }
}

/// Whether a source's tickets are reads or saves (saves are traced as `save:<kind>`).
pub fn ticket_kind(source: &str) -> &'static str {
    if source.starts_with("save:") {
        "save"
    } else {
        "read"
    }
}

/// One ticket from dispatch to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketInterval {
    pub key: TicketKey,
    pub epoch: Option<u64>,
    /// The workspace digest the ticket was scoped to (`stage::workspace_digest`), if traced.
    pub workspace: Option<String>,
    pub dispatch_us: u64,
    pub worker_enter_us: Option<u64>,
    pub worker_return_us: Option<u64>,
    /// The worker's outcome when it was not `ok` (a `ClientError` class, or a save's step).
    pub failure_class: Option<String>,
    /// When the ticket ended; `None` while unfinished.
    pub end_us: Option<u64>,
    pub ending: Ending,
}

impl TicketInterval {
    fn opened(key: TicketKey, r: &StageRecord) -> Self {
        Self {
            key,
            epoch: r.epoch,
            workspace: r.workspace.clone(),
            dispatch_us: r.ts_us,
            worker_enter_us: None,
            worker_return_us: None,
            failure_class: None,
            end_us: None,
            ending: Ending::Unfinished,
        }
    }
}

/// A moment worth marking on a source's track: a failure, a rejection, a retirement, a refused
/// demand or a restart, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub pid: Option<u32>,
    pub source: String,
    pub ts_us: u64,
    pub stage: Stage,
    /// The worker's failure class (for `worker_return`), else the event's `reason`.
    pub reason: String,
    pub generation: Option<u64>,
}

/// What one stage record did to the fold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Folded {
    /// A ticket was dispatched.
    Opened(TicketKey),
    /// A stage of an open ticket.
    Stage(TicketKey),
    /// The ticket ended; here is its interval.
    Closed(TicketInterval),
    /// The record belongs to no open ticket (per-source events, or after the ticket ended).
    Loose,
}

/// Folds stage records into ticket intervals, one record at a time.
#[derive(Debug, Default)]
pub struct TicketFold {
    open: HashMap<TicketKey, TicketInterval>,
}

impl TicketFold {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// The open ticket `key`, if any.
    pub fn get(&self, key: &TicketKey) -> Option<&TicketInterval> {
        self.open.get(key)
    }

    pub fn push(&mut self, r: &StageRecord) -> Folded {
        let Some(stage) = Stage::parse(&r.stage) else {
            return Folded::Loose;
        };
        let Some(generation) = r.generation else {
            return Folded::Loose;
        };
        let key = TicketKey {
            pid: r.pid,
            source: r.source.clone(),
            generation,
        };
        if stage == Stage::Dispatch {
            if self.open.contains_key(&key) {
                return Folded::Loose;
            }
            self.open
                .insert(key.clone(), TicketInterval::opened(key.clone(), r));
            return Folded::Opened(key);
        }
        let Some(ticket) = self.open.get_mut(&key) else {
            return Folded::Loose;
        };
        let reason = || r.reason.clone().unwrap_or_else(|| "unspecified".into());
        let ending = match stage {
            Stage::WorkerEnter => {
                ticket.worker_enter_us.get_or_insert(r.ts_us);
                None
            }
            Stage::WorkerReturn => {
                ticket.worker_return_us.get_or_insert(r.ts_us);
                if let Some(outcome) = r.outcome.as_deref().filter(|o| *o != "ok") {
                    ticket.failure_class.get_or_insert_with(|| outcome.into());
                }
                None
            }
            Stage::Admit => Some(Ending::Admitted),
            Stage::Reject => Some(Ending::Rejected(reason())),
            Stage::Retire => Some(Ending::Retired(reason())),
            _ => None,
        };
        let Some(ending) = ending else {
            return Folded::Stage(key);
        };
        match self.open.remove(&key) {
            Some(mut ticket) => {
                ticket.end_us = Some(r.ts_us);
                ticket.ending = ending;
                Folded::Closed(ticket)
            }
            None => Folded::Loose,
        }
    }

    /// Every ticket still open, oldest dispatch first; the fold is left empty.
    pub fn drain_unfinished(&mut self) -> Vec<TicketInterval> {
        let mut open: Vec<TicketInterval> = self.open.drain().map(|(_, t)| t).collect();
        open.sort_by(|a, b| (a.dispatch_us, &a.key).cmp(&(b.dispatch_us, &b.key)));
        open
    }

    /// Ends the oldest open ticket as unfinished (a bound on what an exporter keeps).
    pub fn evict_oldest(&mut self) -> Option<TicketInterval> {
        let key = self
            .open
            .values()
            .min_by_key(|t| (t.dispatch_us, t.key.clone()))
            .map(|t| t.key.clone())?;
        self.open.remove(&key)
    }
}

/// The marker a stage record makes, if it makes one.
pub fn marker_of(r: &StageRecord) -> Option<Marker> {
    let stage = Stage::parse(&r.stage)?;
    let reason = match stage {
        Stage::WorkerReturn => r.outcome.clone().filter(|o| o != "ok")?,
        Stage::Reject | Stage::Retire | Stage::Refused | Stage::Restart => r
            .reason
            .clone()
            .unwrap_or_else(|| "unspecified".to_string()),
        _ => return None,
    };
    Some(Marker {
        pid: r.pid,
        source: r.source.clone(),
        ts_us: r.ts_us,
        stage,
        reason,
        generation: r.generation,
    })
}

/// One process's part of a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessTimeline {
    /// The first and last `ts_us` of any line of the process.
    pub first_us: u64,
    pub last_us: u64,
    /// Tickets per source, in dispatch order.
    pub tickets: BTreeMap<String, Vec<TicketInterval>>,
    /// Markers per source, in time order.
    pub markers: BTreeMap<String, Vec<Marker>>,
}

impl ProcessTimeline {
    /// Every source that has a ticket or a marker, sorted.
    pub fn sources(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .tickets
            .keys()
            .chain(self.markers.keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// A whole trace file as tickets and markers, per process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    pub processes: BTreeMap<Option<u32>, ProcessTimeline>,
}

impl Timeline {
    pub fn ticket_count(&self) -> usize {
        self.processes
            .values()
            .flat_map(|p| p.tickets.values())
            .map(Vec::len)
            .sum()
    }
}

/// Reads a JSONL trace into a [`Timeline`].
pub fn read_timeline(input: impl BufRead) -> std::io::Result<Timeline> {
    let mut timeline = Timeline::default();
    let mut fold = TicketFold::new();
    super::trace_lines::read_trace(input, |stamp, line| {
        if let Some(ts) = stamp.ts_us {
            let process = timeline
                .processes
                .entry(stamp.pid)
                .or_insert_with(|| ProcessTimeline {
                    first_us: ts,
                    last_us: ts,
                    ..ProcessTimeline::default()
                });
            process.first_us = process.first_us.min(ts);
            process.last_us = process.last_us.max(ts);
        }
        let super::trace_lines::TraceLine::Stage(record) = line else {
            return;
        };
        let process = timeline.processes.entry(record.pid).or_default();
        if let Some(marker) = marker_of(&record) {
            process
                .markers
                .entry(record.source.clone())
                .or_default()
                .push(marker);
        }
        if let Folded::Closed(ticket) = fold.push(&record) {
            process
                .tickets
                .entry(ticket.key.source.clone())
                .or_default()
                .push(ticket);
        }
    })?;
    for ticket in fold.drain_unfinished() {
        let process = timeline.processes.entry(ticket.key.pid).or_default();
        process
            .tickets
            .entry(ticket.key.source.clone())
            .or_default()
            .push(ticket);
    }
    for process in timeline.processes.values_mut() {
        for tickets in process.tickets.values_mut() {
            tickets.sort_by(|a, b| {
                (a.dispatch_us, a.key.generation).cmp(&(b.dispatch_us, b.key.generation))
            });
        }
        for markers in process.markers.values_mut() {
            markers.sort_by_key(|m| m.ts_us);
        }
    }
    Ok(timeline)
}

/// Splits one source's tickets into lanes so that no two tickets in a lane overlap in time
/// (a superseded read still in flight while its successor runs needs a second lane: slices on
/// one track must nest, never cross). Returns each ticket's lane, by index, and the lane count.
pub fn lanes(tickets: &[TicketInterval], end_of_unfinished: u64) -> (Vec<usize>, usize) {
    let mut lane_ends: Vec<u64> = Vec::new();
    let mut assigned = Vec::with_capacity(tickets.len());
    for t in tickets {
        let end = t.end_us.unwrap_or(end_of_unfinished).max(t.dispatch_us);
        let lane = match lane_ends.iter().position(|&e| e <= t.dispatch_us) {
            Some(i) => i,
            None => {
                lane_ends.push(0);
                lane_ends.len() - 1
            }
        };
        if let Some(slot) = lane_ends.get_mut(lane) {
            *slot = end;
        }
        assigned.push(lane);
    }
    (assigned, lane_ends.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ts: u64, stage: &str, generation: u64, extra: (&str, &str)) -> StageRecord {
        StageRecord {
            ts_us: ts,
            pid: Some(1),
            stage: stage.into(),
            source: "s".into(),
            generation: Some(generation),
            epoch: Some(1),
            workspace: None,
            reason: (extra.0 == "reason").then(|| extra.1.to_string()),
            outcome: (extra.0 == "outcome").then(|| extra.1.to_string()),
        }
    }

    #[test]
    fn a_ticket_closes_at_its_first_ending_and_later_events_are_loose() {
        let mut fold = TicketFold::new();
        assert!(matches!(
            fold.push(&rec(10, "dispatch", 1, ("", ""))),
            Folded::Opened(_)
        ));
        assert!(matches!(
            fold.push(&rec(20, "worker_return", 1, ("outcome", "timeout"))),
            Folded::Stage(_)
        ));
        let Folded::Closed(t) = fold.push(&rec(30, "retire", 1, ("reason", "superseded"))) else {
            panic!("retire did not close the ticket");
        };
        assert_eq!(t.dispatch_us, 10);
        assert_eq!(t.worker_return_us, Some(20));
        assert_eq!(t.failure_class.as_deref(), Some("timeout"));
        assert_eq!(t.end_us, Some(30));
        assert_eq!(t.ending, Ending::Retired("superseded".into()));
        assert_eq!(
            fold.push(&rec(40, "unregistered", 1, ("reason", "x"))),
            Folded::Loose
        );
        assert_eq!(fold.open_count(), 0);
    }

    #[test]
    fn overlapping_tickets_take_separate_lanes_and_reuse_freed_ones() {
        let t = |d: u64, e: Option<u64>| TicketInterval {
            key: TicketKey {
                pid: None,
                source: "s".into(),
                generation: d,
            },
            epoch: None,
            workspace: None,
            dispatch_us: d,
            worker_enter_us: None,
            worker_return_us: None,
            failure_class: None,
            end_us: e,
            ending: Ending::Unfinished,
        };
        let tickets = [
            t(0, Some(100)),
            t(50, Some(60)),
            t(100, Some(200)),
            t(150, None),
        ];
        assert_eq!(lanes(&tickets, 300), (vec![0, 1, 0, 1], 2));
    }
}
