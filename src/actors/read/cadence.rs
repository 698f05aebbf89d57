//! A self-rescheduling poll: after each completed read the source arms one `send_after` of
//! `Demand(Cadence)` (architecture.md §4.3: never a blind interval that queues behind a slow read).
//!
//! Visibility (a hidden surface's sources poll less): the view tells every source whether a surface
//! on screen shows its slots (`SourceControl::Visible`, no payload). A source no surface shows
//! polls at [`hidden_period`] instead of its own period; when it is shown again, its next poll is
//! due one visible period after the last completed read — at once when that is already past — so
//! what the operator sees is never older than with the visible cadence alone.

use crate::actors::contract::{DemandKind, SourceControl};
use ractor::{ActorRef, Message};
use std::time::Duration;
use tokio::time::Instant;

/// The poll period of a source whose slots no surface on screen shows: eight times its own,
/// and at least two minutes.
pub fn hidden_period(period: Duration) -> Duration {
    (period * 8).max(Duration::from_secs(120))
}

/// The first re-read after a failed read ([`CadenceTimer::retry`]).
pub const RETRY_FIRST: Duration = Duration::from_millis(500);

/// At most one pending cadence tick; re-arming replaces it, dropping cancels it.
#[derive(Debug)]
pub struct CadenceTimer<M: Message> {
    period: Duration,
    /// No surface on screen shows this source (the view said so); starts visible.
    hidden: bool,
    /// When the pending tick was armed (the last completed read).
    armed_at: Option<Instant>,
    /// Failed reads in a row since the last one that did not fail ([`CadenceTimer::retry`]).
    failures: u32,
    /// When the pending tick is due.
    due: Option<Instant>,
    /// The pending tick is the retry of a failed read: a source with several reads per poll
    /// keeps it when a sibling read succeeds, and showing the source keeps it when it is
    /// sooner than the visible period.
    retrying: bool,
    pending: Option<tokio::task::JoinHandle<Result<(), ractor::MessagingErr<M>>>>,
}

impl<M: Message + From<SourceControl>> CadenceTimer<M> {
    pub fn new(period: Duration) -> Self {
        Self {
            period,
            hidden: false,
            armed_at: None,
            failures: 0,
            due: None,
            retrying: false,
            pending: None,
        }
    }

    /// A timer of a source no surface shows from the start (the surface in front at start
    /// does not read it): its first tick is armed with the hidden period.
    pub fn starting_hidden(mut self) -> Self {
        self.hidden = true;
        self
    }

    pub fn period(&self) -> Duration {
        self.period
    }

    /// The period the next tick is armed with: [`hidden_period`] while hidden.
    pub fn effective_period(&self) -> Duration {
        if self.hidden {
            hidden_period(self.period)
        } else {
            self.period
        }
    }

    pub fn is_hidden(&self) -> bool {
        self.hidden
    }

    /// Arms the next tick one (effective) period from now, replacing any pending one — but a
    /// retry still pending stays: another read of the same poll failed, and its re-read is
    /// due sooner (the Board's posts failing while its census succeeds).
    pub fn reschedule(&mut self, myself: &ActorRef<M>) {
        if self.retrying && self.is_armed() {
            return;
        }
        self.retrying = false;
        self.failures = 0;
        self.armed_at = Some(Instant::now());
        let delay = self.effective_period();
        self.arm(myself, delay);
    }

    /// After a read that failed: the next tick comes sooner than the period — [`RETRY_FIRST`],
    /// doubled per failure in a row, never later than the (effective) period — so a source
    /// whose reads fail half the time has its first value about as soon as one whose reads
    /// all succeed, and a server that keeps failing is asked at the period again after a few
    /// tries. A read that does not fail goes back to [`CadenceTimer::reschedule`].
    pub fn retry(&mut self, myself: &ActorRef<M>) {
        let backoff = RETRY_FIRST.saturating_mul(1u32 << self.failures.min(16));
        self.failures = self.failures.saturating_add(1);
        self.armed_at = Some(Instant::now());
        let delay = backoff.min(self.effective_period());
        self.arm(myself, delay);
        self.retrying = true;
    }

    /// The view says whether a surface on screen shows this source. Hidden: the next tick is
    /// armed with the hidden period (a pending tick keeps its time). Shown again: a pending
    /// tick is moved to one visible period after it was armed (now, if that is past).
    pub fn set_visible(&mut self, visible: bool, myself: &ActorRef<M>) {
        let was_hidden = self.hidden;
        self.hidden = !visible;
        if visible && was_hidden && self.is_armed() {
            let since = self.armed_at.map(|at| at.elapsed()).unwrap_or_default();
            let delay = self.period.saturating_sub(since);
            // A pending tick already due sooner (a retry) keeps its time.
            if self.due.is_some_and(|due| due <= Instant::now() + delay) {
                return;
            }
            let retrying = self.retrying;
            self.arm(myself, delay);
            self.retrying = retrying;
        }
    }

    fn arm(&mut self, myself: &ActorRef<M>, delay: Duration) {
        self.cancel();
        self.retrying = false;
        self.due = Some(Instant::now() + delay);
        self.pending = Some(myself.send_after(delay, || {
            M::from(SourceControl::Demand(DemandKind::Cadence))
        }));
    }

    pub fn is_armed(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| !p.is_finished())
    }
}

impl<M: Message> CadenceTimer<M> {
    pub fn cancel(&mut self) {
        if let Some(p) = self.pending.take() {
            p.abort();
        }
    }
}

impl<M: Message> Drop for CadenceTimer<M> {
    fn drop(&mut self) {
        self.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ractor::{Actor, ActorProcessingErr};
    use tokio::sync::mpsc;

    /// An actor that reports when each cadence tick reaches it.
    struct Probe;

    #[derive(Debug)]
    enum ProbeMsg {
        Control(SourceControl),
    }

    impl From<SourceControl> for ProbeMsg {
        fn from(c: SourceControl) -> Self {
            Self::Control(c)
        }
    }

    impl Actor for Probe {
        type Msg = ProbeMsg;
        type State = mpsc::UnboundedSender<Instant>;
        type Arguments = mpsc::UnboundedSender<Instant>;

        async fn pre_start(
            &self,
            _myself: ActorRef<ProbeMsg>,
            args: Self::Arguments,
        ) -> Result<Self::State, ActorProcessingErr> {
            Ok(args)
        }

        async fn handle(
            &self,
            _myself: ActorRef<ProbeMsg>,
            msg: ProbeMsg,
            state: &mut Self::State,
        ) -> Result<(), ActorProcessingErr> {
            if let ProbeMsg::Control(SourceControl::Demand(DemandKind::Cadence)) = msg {
                let _ = state.send(Instant::now());
            }
            Ok(())
        }
    }

    async fn probe() -> (ActorRef<ProbeMsg>, mpsc::UnboundedReceiver<Instant>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (actor, _) = Actor::spawn(None, Probe, tx).await.expect("probe");
        (actor, rx)
    }

    const PERIOD: Duration = Duration::from_secs(10);

    #[test]
    fn the_hidden_period_is_eight_periods_and_at_least_two_minutes() {
        assert_eq!(
            hidden_period(Duration::from_secs(5)),
            Duration::from_secs(120)
        );
        assert_eq!(
            hidden_period(Duration::from_secs(15)),
            Duration::from_secs(120)
        );
        assert_eq!(
            hidden_period(Duration::from_secs(30)),
            Duration::from_secs(240)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_visible_source_ticks_at_its_period() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        let start = Instant::now();
        timer.reschedule(&actor);
        let at = ticks.recv().await.expect("tick");
        assert_eq!(at - start, PERIOD);
        actor.stop(None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_hidden_source_ticks_at_the_hidden_period() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        timer.set_visible(false, &actor);
        assert!(timer.is_hidden());
        let start = Instant::now();
        timer.reschedule(&actor);
        let at = ticks.recv().await.expect("tick");
        assert_eq!(at - start, hidden_period(PERIOD));
        actor.stop(None);
    }

    /// Shown again after its visible period passed: read at once, not at the hidden tick.
    #[tokio::test(start_paused = true)]
    async fn shown_again_after_the_period_ticks_at_once() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        timer.set_visible(false, &actor);
        let start = Instant::now();
        timer.reschedule(&actor);
        tokio::time::sleep(Duration::from_secs(30)).await;
        timer.set_visible(true, &actor);
        let at = ticks.recv().await.expect("tick");
        assert_eq!(at - start, Duration::from_secs(30));
        actor.stop(None);
    }

    /// Failed reads in a row re-read after 0.5 s, 1 s, 2 s, 4 s, 8 s, then the period; a read
    /// that does not fail goes back to the period, and the next failure starts at 0.5 s again.
    #[tokio::test(start_paused = true)]
    async fn failed_reads_are_retried_sooner_with_a_doubling_delay_up_to_the_period() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        let mut delays = Vec::new();
        for _ in 0..6 {
            let start = Instant::now();
            timer.retry(&actor);
            delays.push((ticks.recv().await.expect("tick") - start).as_millis());
        }
        assert_eq!(delays, [500, 1_000, 2_000, 4_000, 8_000, 10_000]);
        let start = Instant::now();
        timer.reschedule(&actor);
        assert_eq!(ticks.recv().await.expect("tick") - start, PERIOD);
        let start = Instant::now();
        timer.retry(&actor);
        assert_eq!(
            ticks.recv().await.expect("tick") - start,
            Duration::from_millis(500)
        );
        // Hidden, the retries stop at the hidden period, not the visible one.
        timer.set_visible(false, &actor);
        for _ in 0..12 {
            timer.retry(&actor);
            let _ = ticks.recv().await;
        }
        let start = Instant::now();
        timer.retry(&actor);
        assert_eq!(
            ticks.recv().await.expect("tick") - start,
            hidden_period(PERIOD)
        );
        actor.stop(None);
    }

    /// Shown again before its visible period passed: the tick comes one period after the
    /// last read, as if it had never been hidden.
    #[tokio::test(start_paused = true)]
    async fn shown_again_within_the_period_ticks_one_period_after_the_read() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        timer.set_visible(false, &actor);
        let start = Instant::now();
        timer.reschedule(&actor);
        tokio::time::sleep(Duration::from_secs(3)).await;
        timer.set_visible(true, &actor);
        let at = ticks.recv().await.expect("tick");
        assert_eq!(at - start, PERIOD);
        actor.stop(None);
    }

    /// A source with several reads per poll (the Board: posts and census): one read fails and
    /// arms its retry, a sibling read of the same poll then succeeds — the retry stays due,
    /// not pushed back to the period. After that tick, a success re-arms the period.
    #[tokio::test(start_paused = true)]
    async fn a_sibling_read_that_succeeds_keeps_the_retry_of_one_that_failed() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        let start = Instant::now();
        timer.retry(&actor);
        timer.reschedule(&actor);
        assert_eq!(
            ticks.recv().await.expect("tick") - start,
            Duration::from_millis(500)
        );
        let start = Instant::now();
        timer.reschedule(&actor);
        assert_eq!(ticks.recv().await.expect("tick") - start, PERIOD);
        actor.stop(None);
    }

    /// A failed read retried while its surface is hidden, then the surface is shown: the retry
    /// keeps its sooner time instead of moving to one visible period after it was armed.
    #[tokio::test(start_paused = true)]
    async fn shown_again_a_pending_retry_keeps_its_sooner_time() {
        let (actor, mut ticks) = probe().await;
        let mut timer = CadenceTimer::new(PERIOD);
        timer.set_visible(false, &actor);
        let start = Instant::now();
        timer.retry(&actor);
        tokio::time::sleep(Duration::from_millis(100)).await;
        timer.set_visible(true, &actor);
        assert_eq!(
            ticks.recv().await.expect("tick") - start,
            Duration::from_millis(500)
        );
        // And a sibling's success after it is shown still keeps it (nothing pending now:
        // the tick came; a new retry is kept the same way).
        let start = Instant::now();
        timer.retry(&actor);
        timer.set_visible(false, &actor);
        timer.set_visible(true, &actor);
        timer.reschedule(&actor);
        assert_eq!(
            ticks.recv().await.expect("tick") - start,
            Duration::from_millis(1_000)
        );
        actor.stop(None);
    }
}
