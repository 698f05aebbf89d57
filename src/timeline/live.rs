//! The live Sources view's numbers: the same stage events the trace file gets, aggregated per
//! source while the TUI runs, off the view actor.
//!
//! - [`LiveLayer`] (in the global subscriber, stage events only) folds each stage event into
//!   one process-wide [`LiveTimeline`] under a short lock: a few bounded ring buffers per
//!   source, nothing that grows with the session.
//! - [`snapshot`] copies what the view shows into a typed [`LiveSnapshot`]; the `source_stats`
//!   read source takes it on its worker, so percentiles are computed off the view actor, and
//!   the view gets it as any other admitted observation.
//!
//! Per source (a slot's trace name, or a save's `save:<kind>`): its state from the
//! supervisor's restart events, dispatches in the last minute, dispatch → admit latency p50 /
//! p95 over a sliding window, worker failures by class, rejections by reason, restarts, the
//! age of the newest admission, the recent latencies for a sparkline and the recent tickets.

use super::record::StageRecord;
use super::stage::{Stage, TARGET};
use super::tickets::{Folded, TicketFold, TicketInterval};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use tracing_subscriber::layer::Context;

/// "Per minute": dispatches within this much of the snapshot.
pub const RATE_WINDOW_US: u64 = 60_000_000;
/// Latencies older than this (by their admission) leave the percentiles.
pub const LATENCY_WINDOW_US: u64 = 300_000_000;
/// At most this many latencies per source (the newest kept).
pub const LATENCY_SAMPLES: usize = 256;
/// At most this many points in a row's sparkline (the newest admissions).
pub const SPARK_POINTS: usize = 32;
/// Ended tickets kept per source for `Enter`.
pub const RECENT_TICKETS: usize = 12;
/// Dispatch times kept per source (a bound on a source that dispatches in a loop).
const DISPATCH_MARKS: usize = 4096;
/// Tickets held open at once; past this the oldest is dropped from the fold.
const OPEN_TICKETS: usize = 1024;

/// What the supervisor last said of a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceState {
    /// No stage event of it yet.
    Quiet,
    /// It dispatched since its last restart (or never restarted).
    Running,
    /// Restarted (attempt `attempt` of the supervisor's window) and not dispatched since.
    Restarting { attempt: u32 },
    /// The supervisor gave up on it (restart intensity exceeded).
    Stopped,
}

impl SourceState {
    pub fn word(self) -> &'static str {
        match self {
            Self::Quiet => "no events",
            Self::Running => "running",
            Self::Restarting { .. } => "restarting",
            Self::Stopped => "stopped",
        }
    }
}

/// One row of the Sources view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// The slot's trace name (`keepers_roster`, `save:board_vote` …).
    pub name: String,
    /// The supervised source it belongs to (its restarts and state are that source's).
    pub owner: String,
    pub state: SourceState,
    /// Dispatches within [`RATE_WINDOW_US`].
    pub per_minute: u32,
    /// Admitted tickets within [`LATENCY_WINDOW_US`] the percentiles are taken over.
    pub samples: usize,
    /// Dispatch → admit, nearest rank; `None` without an admitted ticket in the window.
    pub p50_us: Option<u64>,
    pub p95_us: Option<u64>,
    /// Worker failures by class, the whole session.
    pub failures: Vec<(String, u64)>,
    /// Results not applied, by reason, the whole session.
    pub rejected: Vec<(String, u64)>,
    /// The owner's restarts, the whole session.
    pub restarts: u32,
    /// Since the newest admission; `None`: never admitted.
    pub last_admitted_age_us: Option<u64>,
    /// Dispatch → admit in milliseconds of the newest admissions in the window, oldest first.
    pub spark_ms: Vec<u64>,
    /// Ended tickets, oldest first (at most [`RECENT_TICKETS`]).
    pub recent: Vec<TicketInterval>,
}

impl SourceRow {
    pub fn failure_count(&self) -> u64 {
        self.failures.iter().map(|(_, n)| n).sum()
    }

    pub fn rejected_count(&self) -> u64 {
        self.rejected.iter().map(|(_, n)| n).sum()
    }
}

/// What the Sources view is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveSnapshot {
    /// No live layer in this process (tracing was not set up: tests, or it failed).
    NotRecording,
    Recording {
        /// `ts_us` of the snapshot (the trace clock).
        taken_us: u64,
        rows: Vec<SourceRow>,
    },
}

/// What one source has done, as the layer folds it.
#[derive(Debug, Default)]
struct SourceLive {
    dispatches: VecDeque<u64>,
    last_dispatch_us: Option<u64>,
    /// (admitted at, dispatch → admit), oldest first.
    latencies: VecDeque<(u64, u64)>,
    failures: BTreeMap<String, u64>,
    rejected: BTreeMap<String, u64>,
    restarts: u32,
    /// The newest restart event: when, its attempt, and whether it was the supervisor giving up.
    last_restart: Option<(u64, u32, bool)>,
    last_admitted_us: Option<u64>,
    recent: VecDeque<TicketInterval>,
}

fn bounded_push<T>(ring: &mut VecDeque<T>, value: T, cap: usize) {
    if ring.len() == cap {
        ring.pop_front();
    }
    ring.push_back(value);
}

/// Every source's live numbers; fed stage records in time order.
#[derive(Debug, Default)]
pub struct LiveTimeline {
    fold: TicketFold,
    sources: BTreeMap<String, SourceLive>,
}

impl LiveTimeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one stage record.
    pub fn push(&mut self, r: &StageRecord) {
        let Some(stage) = Stage::parse(&r.stage) else {
            return;
        };
        let live = self.sources.entry(r.source.clone()).or_default();
        match stage {
            Stage::Dispatch => {
                bounded_push(&mut live.dispatches, r.ts_us, DISPATCH_MARKS);
                live.last_dispatch_us = Some(r.ts_us);
            }
            Stage::WorkerReturn => {
                if let Some(class) = r.outcome.as_deref().filter(|o| *o != "ok") {
                    *live.failures.entry(class.to_string()).or_default() += 1;
                }
            }
            Stage::Reject => {
                let reason = r.reason.as_deref().unwrap_or("unspecified");
                *live.rejected.entry(reason.to_string()).or_default() += 1;
            }
            Stage::Restart => {
                let gave_up = r.reason.as_deref() == Some("gave_up");
                if !gave_up {
                    live.restarts = live.restarts.saturating_add(1);
                }
                live.last_restart = Some((r.ts_us, live.restarts, gave_up));
            }
            _ => {}
        }
        if let Folded::Closed(ticket) = self.fold.push(r) {
            let live = self.sources.entry(ticket.key.source.clone()).or_default();
            if let (super::tickets::Ending::Admitted, Some(end)) = (&ticket.ending, ticket.end_us) {
                let took = end.saturating_sub(ticket.dispatch_us);
                bounded_push(&mut live.latencies, (end, took), LATENCY_SAMPLES);
                live.last_admitted_us = Some(end);
            }
            bounded_push(&mut live.recent, ticket, RECENT_TICKETS);
        }
        if self.fold.open_count() > OPEN_TICKETS {
            self.fold.evict_oldest();
        }
    }

    /// The rows at `now_us`: one per slot of `owners` (source key → its slots' trace names), in
    /// that order, then every other name seen in a stage event, sorted.
    pub fn rows(&self, now_us: u64, owners: &[(String, Vec<String>)]) -> Vec<SourceRow> {
        let mut rows = Vec::new();
        let mut listed: Vec<&str> = Vec::new();
        for (owner, slots) in owners {
            listed.push(owner);
            for slot in slots {
                listed.push(slot);
                rows.push(self.row(now_us, slot, owner, slots));
            }
        }
        for name in self.sources.keys() {
            if !listed.contains(&name.as_str()) {
                rows.push(self.row(now_us, name, name, std::slice::from_ref(name)));
            }
        }
        rows
    }

    fn row(&self, now_us: u64, name: &str, owner: &str, siblings: &[String]) -> SourceRow {
        static QUIET: OnceLock<SourceLive> = OnceLock::new();
        let quiet = QUIET.get_or_init(SourceLive::default);
        let live = self.sources.get(name).unwrap_or(quiet);
        let owner_live = self.sources.get(owner).unwrap_or(quiet);
        // The owner's newest dispatch over all its slots says whether it runs again.
        let dispatched = siblings
            .iter()
            .filter_map(|s| self.sources.get(s)?.last_dispatch_us)
            .chain(owner_live.last_dispatch_us)
            .max();
        let state = match owner_live.last_restart {
            Some((_, _, true)) => SourceState::Stopped,
            Some((at, attempt, false)) if dispatched.is_none_or(|d| d < at) => {
                SourceState::Restarting { attempt }
            }
            _ if dispatched.is_some() => SourceState::Running,
            _ => SourceState::Quiet,
        };
        let since = |w: u64| now_us.saturating_sub(w);
        let per_minute = live
            .dispatches
            .iter()
            .rev()
            .take_while(|&&t| t >= since(RATE_WINDOW_US))
            .count();
        let window: Vec<u64> = live
            .latencies
            .iter()
            .filter(|(at, _)| *at >= since(LATENCY_WINDOW_US))
            .map(|(_, took)| *took)
            .collect();
        let spark_ms = window
            .iter()
            .skip(window.len().saturating_sub(SPARK_POINTS))
            .map(|us| us / 1000)
            .collect();
        let mut sorted = window.clone();
        sorted.sort_unstable();
        SourceRow {
            name: name.to_string(),
            owner: owner.to_string(),
            state,
            per_minute: u32::try_from(per_minute).unwrap_or(u32::MAX),
            samples: sorted.len(),
            p50_us: nearest_rank(&sorted, 50),
            p95_us: nearest_rank(&sorted, 95),
            failures: live.failures.iter().map(|(k, n)| (k.clone(), *n)).collect(),
            rejected: live.rejected.iter().map(|(k, n)| (k.clone(), *n)).collect(),
            restarts: owner_live.restarts,
            last_admitted_age_us: live.last_admitted_us.map(|t| now_us.saturating_sub(t)),
            spark_ms,
            recent: live.recent.iter().cloned().collect(),
        }
    }
}

/// The `pct`-th percentile of `sorted` (ascending) by nearest rank: the smallest value with at
/// least `pct` % of the values at or below it.
pub fn nearest_rank(sorted: &[u64], pct: u32) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let rank = (n * pct as usize).div_ceil(100).clamp(1, n);
    sorted.get(rank - 1).copied()
}

/// The process-wide timeline the layer feeds; absent until [`layer`] installs it.
static HUB: OnceLock<Arc<Mutex<LiveTimeline>>> = OnceLock::new();

/// The layer for the global subscriber; the first call installs the process-wide timeline.
pub fn layer() -> LiveLayer {
    LiveLayer {
        hub: Arc::clone(HUB.get_or_init(Arc::default)),
    }
}

/// The live rows now, or [`LiveSnapshot::NotRecording`] without a layer in this process.
pub fn snapshot(owners: &[(String, Vec<String>)]) -> LiveSnapshot {
    let Some(hub) = HUB.get() else {
        return LiveSnapshot::NotRecording;
    };
    let taken_us = super::record::now_us();
    let rows = match hub.lock() {
        Ok(timeline) => timeline.rows(taken_us, owners),
        // A panic while folding left the numbers as they were: still worth showing.
        Err(poisoned) => poisoned.into_inner().rows(taken_us, owners),
    };
    LiveSnapshot::Recording { taken_us, rows }
}

/// Stage events into the process-wide [`LiveTimeline`].
pub struct LiveLayer {
    hub: Arc<Mutex<LiveTimeline>>,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for LiveLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != TARGET {
            return;
        }
        let Some(record) = StageRecord::from_event(event, super::record::now_us(), None) else {
            return;
        };
        match self.hub.lock() {
            Ok(mut timeline) => timeline.push(&record),
            Err(poisoned) => poisoned.into_inner().push(&record),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ts_us: u64, stage: Stage, source: &str, generation: Option<u64>) -> StageRecord {
        StageRecord {
            ts_us,
            pid: None,
            stage: stage.as_str().into(),
            source: source.into(),
            generation,
            epoch: Some(1),
            workspace: None,
            reason: None,
            outcome: None,
        }
    }

    /// One read of `source`: dispatched at `at`, admitted `took` µs later.
    fn admitted(t: &mut LiveTimeline, source: &str, generation: u64, at: u64, took: u64) {
        t.push(&rec(at, Stage::Dispatch, source, Some(generation)));
        let mut back = rec(at + took / 2, Stage::WorkerReturn, source, Some(generation));
        back.outcome = Some("ok".into());
        t.push(&back);
        t.push(&rec(at + took, Stage::Admit, source, Some(generation)));
    }

    fn owners(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|(o, s)| (o.to_string(), s.iter().map(|x| x.to_string()).collect()))
            .collect()
    }

    fn row<'a>(rows: &'a [SourceRow], name: &str) -> &'a SourceRow {
        let Some(row) = rows.iter().find(|r| r.name == name) else {
            panic!("no row {name}: {rows:?}");
        };
        row
    }

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(nearest_rank(&[], 50), None);
        assert_eq!(nearest_rank(&[7], 50), Some(7));
        assert_eq!(nearest_rank(&[7], 95), Some(7));
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 50), Some(2));
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 95), Some(4));
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&hundred, 50), Some(50));
        assert_eq!(nearest_rank(&hundred, 95), Some(95));
        let twenty: Vec<u64> = (1..=20).collect();
        assert_eq!(nearest_rank(&twenty, 95), Some(19));
    }

    #[test]
    fn latencies_give_p50_p95_and_a_sparkline_in_admission_order() {
        let mut t = LiveTimeline::new();
        // 20 reads, 1 ms … 20 ms, admitted in that order.
        for i in 1..=20u64 {
            admitted(&mut t, "planning", i, i * 1_000_000, i * 1000);
        }
        let rows = t.rows(25_000_000, &owners(&[("planning", &["planning"])]));
        let r = row(&rows, "planning");
        assert_eq!(r.samples, 20);
        assert_eq!(r.p50_us, Some(10_000));
        assert_eq!(r.p95_us, Some(19_000));
        assert_eq!(r.spark_ms, (1..=20).collect::<Vec<u64>>());
        assert_eq!(r.per_minute, 20);
        assert_eq!(r.state, SourceState::Running);
        // The newest admission: dispatched at 20 s, admitted 20 ms later.
        assert_eq!(r.last_admitted_age_us, Some(25_000_000 - 20_020_000));
    }

    #[test]
    fn the_windows_expire_old_dispatches_and_latencies() {
        let mut t = LiveTimeline::new();
        admitted(&mut t, "planning", 1, 1_000_000, 900_000);
        admitted(&mut t, "planning", 2, 200_000_000, 10_000);
        admitted(&mut t, "planning", 3, 290_000_000, 30_000);
        let o = owners(&[("planning", &["planning"])]);
        // At 320 s: one dispatch in the last minute; the 900 ms read (admitted at 1.9 s) is
        // more than five minutes old and leaves the percentiles.
        let rows = t.rows(320_000_000, &o);
        let r = row(&rows, "planning");
        assert_eq!(r.per_minute, 1);
        assert_eq!(r.samples, 2);
        assert_eq!(r.p50_us, Some(10_000));
        assert_eq!(r.p95_us, Some(30_000));
        assert_eq!(r.spark_ms, vec![10, 30]);
        // Much later nothing is in either window; the counts of the session stay.
        let rows = t.rows(2_000_000_000, &o);
        let r = row(&rows, "planning");
        assert_eq!((r.per_minute, r.samples, r.p50_us), (0, 0, None));
        assert_eq!(r.recent.len(), 3);
    }

    #[test]
    fn rejections_count_by_reason_and_failures_by_class() {
        let mut t = LiveTimeline::new();
        for (generation, reason) in [(1, "stale_epoch"), (2, "not_owner"), (3, "stale_epoch")] {
            t.push(&rec(
                generation * 10,
                Stage::Dispatch,
                "board_posts",
                Some(generation),
            ));
            let mut no = rec(
                generation * 10 + 5,
                Stage::Reject,
                "board_posts",
                Some(generation),
            );
            no.reason = Some(reason.into());
            t.push(&no);
        }
        let mut failed = rec(50, Stage::WorkerReturn, "board_posts", Some(4));
        t.push(&rec(45, Stage::Dispatch, "board_posts", Some(4)));
        failed.outcome = Some("http_500".into());
        t.push(&failed);
        t.push(&rec(55, Stage::Admit, "board_posts", Some(4)));
        let rows = t.rows(100, &owners(&[("board", &["board_posts", "board_post"])]));
        let r = row(&rows, "board_posts");
        assert_eq!(
            r.rejected,
            vec![("not_owner".into(), 1), ("stale_epoch".into(), 2)]
        );
        assert_eq!(r.rejected_count(), 3);
        assert_eq!(r.failures, vec![("http_500".into(), 1)]);
        // A failed read that was admitted is still an admission (the failure is the value).
        assert_eq!(r.samples, 1);
        let Some(last) = r.recent.last() else {
            panic!("no recent ticket");
        };
        assert_eq!(last.failure_class.as_deref(), Some("http_500"));
        assert_eq!(r.recent[0].ending.reason(), Some("stale_epoch"));
        // The sibling slot that never read is listed, quiet for itself but under a running owner.
        let sibling = row(&rows, "board_post");
        assert_eq!((sibling.per_minute, sibling.samples), (0, 0));
        assert_eq!(sibling.state, SourceState::Running);
    }

    #[test]
    fn restarts_move_the_state_of_every_slot_of_the_owner() {
        let mut t = LiveTimeline::new();
        let o = owners(&[("board", &["board_posts", "hearth_census"])]);
        assert_eq!(row(&t.rows(0, &o), "board_posts").state, SourceState::Quiet);
        admitted(&mut t, "board_posts", 1, 10, 5);
        let mut restart = rec(100, Stage::Restart, "board", None);
        restart.reason = Some("restarted".into());
        t.push(&restart);
        let rows = t.rows(150, &o);
        assert_eq!(
            row(&rows, "hearth_census").state,
            SourceState::Restarting { attempt: 1 }
        );
        assert_eq!(row(&rows, "board_posts").restarts, 1);
        // A dispatch of any of its slots after the restart: running again.
        t.push(&rec(200, Stage::Dispatch, "hearth_census", Some(1)));
        assert_eq!(
            row(&t.rows(250, &o), "board_posts").state,
            SourceState::Running
        );
        let mut gave_up = rec(300, Stage::Restart, "board", None);
        gave_up.reason = Some("gave_up".into());
        t.push(&gave_up);
        let rows = t.rows(350, &o);
        assert_eq!(row(&rows, "board_posts").state, SourceState::Stopped);
        assert_eq!(row(&rows, "board_posts").restarts, 1);
    }

    #[test]
    fn names_outside_the_registry_follow_the_listed_ones() {
        let mut t = LiveTimeline::new();
        admitted(&mut t, "workspace", 1, 10, 5);
        admitted(&mut t, "planning", 1, 10, 5);
        let rows = t.rows(100, &owners(&[("planning", &["planning"])]));
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["planning", "workspace"]);
    }

    #[test]
    fn the_rings_stay_bounded() {
        let mut t = LiveTimeline::new();
        for g in 0..(LATENCY_SAMPLES as u64 + 50) {
            admitted(&mut t, "planning", g, g * 10, 5);
        }
        let rows = t.rows(LATENCY_SAMPLES as u64 * 10 + 600, &owners(&[]));
        let r = row(&rows, "planning");
        assert_eq!(r.samples, LATENCY_SAMPLES);
        assert_eq!(r.spark_ms.len(), SPARK_POINTS);
        assert_eq!(r.recent.len(), RECENT_TICKETS);
    }
}
