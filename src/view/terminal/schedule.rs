//! Frame scheduling (chat-screen.md T.1, T.2): pure, clock passed in.
//!
//! - The minimum frame interval is 16 ms on the monotonic clock.
//! - A fresh schedule starts with a pending `Force`.
//! - `Force` replaces anything pending and preempts the deadline; `Input` replaces a pending
//!   `Background` and preempts the deadline; `Background` only fills an empty slot.
//! - "Later input in the same window coalesces": an `Input` preempts at most once per window.
//!   When the previous frame was itself a preempting `Input` frame less than 16 ms ago, the
//!   next `Input` waits for the window's end, so held keys or a paste cannot exceed one frame
//!   per 16 ms. `Force` (resize, resume) always renders at once.
//! - `Awaited` (a slot's first value, a re-read the user asked for) preempts the deadline
//!   every time: how many there are is bounded by the slots and the keys, not by time, so it
//!   needs no coalescing — and the first roster rows must not wait behind the connectors'.
//! - `take`: nothing pending → `Idle` (no work, no bytes); pending, not preempting and before
//!   the deadline → `WaitUntil`; otherwise → `Render`.

use std::time::{Duration, Instant};

pub const MIN_FRAME_INTERVAL: Duration = Duration::from_millis(16);

/// Why a frame is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameRequest {
    /// An applied refresh or result: waits for the frame deadline.
    Background,
    /// User input: preempts the deadline (once per window).
    Input,
    /// A result the operator waits for (a first value, an asked re-read): preempts always.
    Awaited,
    /// Everything must be repainted (first frame, resize, resume): preempts, full frame.
    Force,
}

/// What the caller should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameDecision {
    Idle,
    WaitUntil(Instant),
    Render(FrameRequest),
}

#[derive(Debug, Clone)]
pub struct FrameSchedule {
    pending: Option<FrameRequest>,
    last_frame: Option<(Instant, FrameRequest)>,
    interval: Duration,
}

impl Default for FrameSchedule {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameSchedule {
    pub fn new() -> Self {
        Self {
            pending: Some(FrameRequest::Force),
            last_frame: None,
            interval: MIN_FRAME_INTERVAL,
        }
    }

    pub fn pending(&self) -> Option<FrameRequest> {
        self.pending
    }

    /// Records a request per the replacement rules.
    pub fn request(&mut self, kind: FrameRequest) {
        self.pending = match (self.pending, kind) {
            (_, FrameRequest::Force) | (Some(FrameRequest::Force), _) => Some(FrameRequest::Force),
            (_, FrameRequest::Awaited) | (Some(FrameRequest::Awaited), _) => {
                Some(FrameRequest::Awaited)
            }
            (_, FrameRequest::Input) | (Some(FrameRequest::Input), _) => Some(FrameRequest::Input),
            (None | Some(FrameRequest::Background), FrameRequest::Background) => {
                Some(FrameRequest::Background)
            }
        };
    }

    /// What would happen at `now`, without consuming anything.
    pub fn peek(&self, now: Instant) -> FrameDecision {
        let Some(kind) = self.pending else {
            return FrameDecision::Idle;
        };
        let Some((last_at, last_kind)) = self.last_frame else {
            return FrameDecision::Render(kind);
        };
        let deadline = last_at + self.interval;
        let preempts = match kind {
            FrameRequest::Force | FrameRequest::Awaited => true,
            FrameRequest::Input => last_kind != FrameRequest::Input,
            FrameRequest::Background => false,
        };
        if preempts || now >= deadline {
            FrameDecision::Render(kind)
        } else {
            FrameDecision::WaitUntil(deadline)
        }
    }

    /// Like [`FrameSchedule::peek`]; a `Render` consumes the pending request and starts a window.
    pub fn take(&mut self, now: Instant) -> FrameDecision {
        let decision = self.peek(now);
        if let FrameDecision::Render(kind) = decision {
            self.pending = None;
            self.last_frame = Some((now, kind));
        }
        decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t1_fresh_schedule_starts_with_force_then_idles() {
        let mut s = FrameSchedule::new();
        let t0 = Instant::now();
        assert_eq!(s.take(t0), FrameDecision::Render(FrameRequest::Force));
        assert_eq!(s.take(t0), FrameDecision::Idle);
        assert_eq!(s.take(t0 + Duration::from_secs(5)), FrameDecision::Idle);
    }

    #[test]
    fn t1_background_waits_for_the_deadline() {
        let mut s = FrameSchedule::new();
        let t0 = Instant::now();
        s.take(t0);
        s.request(FrameRequest::Background);
        let early = t0 + Duration::from_millis(5);
        assert_eq!(
            s.take(early),
            FrameDecision::WaitUntil(t0 + MIN_FRAME_INTERVAL)
        );
        assert_eq!(
            s.take(t0 + MIN_FRAME_INTERVAL),
            FrameDecision::Render(FrameRequest::Background)
        );
    }

    #[test]
    fn t1_input_replaces_background_and_preempts_once_per_window() {
        let mut s = FrameSchedule::new();
        let t0 = Instant::now();
        s.take(t0);
        s.request(FrameRequest::Background);
        s.request(FrameRequest::Input);
        assert_eq!(s.pending(), Some(FrameRequest::Input));
        let t1 = t0 + Duration::from_millis(2);
        assert_eq!(s.take(t1), FrameDecision::Render(FrameRequest::Input));
        // Later input in the same window coalesces until the window ends.
        s.request(FrameRequest::Input);
        s.request(FrameRequest::Input);
        let t2 = t1 + Duration::from_millis(3);
        assert_eq!(
            s.take(t2),
            FrameDecision::WaitUntil(t1 + MIN_FRAME_INTERVAL)
        );
        assert_eq!(
            s.take(t1 + MIN_FRAME_INTERVAL),
            FrameDecision::Render(FrameRequest::Input)
        );
        assert_eq!(s.take(t1 + MIN_FRAME_INTERVAL), FrameDecision::Idle);
    }

    #[test]
    fn t1_an_awaited_result_preempts_even_right_after_a_preempting_frame() {
        let mut s = FrameSchedule::new();
        let t0 = Instant::now();
        s.take(t0);
        // The connectors' first value painted at once…
        s.request(FrameRequest::Awaited);
        let t1 = t0 + Duration::from_millis(1);
        assert_eq!(s.take(t1), FrameDecision::Render(FrameRequest::Awaited));
        // …the roster's first value 2 ms later does not wait for the window's end.
        s.request(FrameRequest::Background);
        s.request(FrameRequest::Awaited);
        assert_eq!(s.pending(), Some(FrameRequest::Awaited));
        let t2 = t1 + Duration::from_millis(2);
        assert_eq!(s.take(t2), FrameDecision::Render(FrameRequest::Awaited));
        // A held key after it still preempts once, then coalesces.
        s.request(FrameRequest::Input);
        assert_eq!(s.take(t2), FrameDecision::Render(FrameRequest::Input));
        s.request(FrameRequest::Input);
        assert_eq!(
            s.take(t2 + Duration::from_millis(1)),
            FrameDecision::WaitUntil(t2 + MIN_FRAME_INTERVAL)
        );
        // Input never downgrades a pending awaited frame; Force still wins.
        s.request(FrameRequest::Awaited);
        assert_eq!(s.pending(), Some(FrameRequest::Awaited));
        s.request(FrameRequest::Force);
        assert_eq!(s.pending(), Some(FrameRequest::Force));
    }

    #[test]
    fn t1_background_never_replaces_input_or_force() {
        let mut s = FrameSchedule::new();
        s.request(FrameRequest::Background);
        assert_eq!(s.pending(), Some(FrameRequest::Force));
        let t0 = Instant::now();
        s.take(t0);
        s.request(FrameRequest::Input);
        s.request(FrameRequest::Background);
        assert_eq!(s.pending(), Some(FrameRequest::Input));
    }

    #[test]
    fn t1_force_replaces_anything_and_preempts_always() {
        let mut s = FrameSchedule::new();
        let t0 = Instant::now();
        s.take(t0);
        s.request(FrameRequest::Input);
        s.request(FrameRequest::Force);
        s.request(FrameRequest::Input);
        assert_eq!(s.pending(), Some(FrameRequest::Force));
        let t1 = t0 + Duration::from_millis(1);
        assert_eq!(s.take(t1), FrameDecision::Render(FrameRequest::Force));
        s.request(FrameRequest::Force);
        assert_eq!(
            s.take(t1 + Duration::from_millis(1)),
            FrameDecision::Render(FrameRequest::Force)
        );
    }
}
