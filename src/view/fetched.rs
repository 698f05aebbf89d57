//! `Fetched<T>`: what the view knows about one slot (architecture.md §3, sources.md G-4, G-5).
//!
//! Unread, loading, ready-empty, refreshing, failed and not served are different values: a
//! failure never reads as empty, a failed re-read keeps the last good value beside the failure,
//! and a route this MASC does not serve is a known absence of its own, never a
//! failure, never empty, never `0`.

use crate::protocol::client::{ClientError, ErrorClass};
use crate::protocol::routes::RouteFamily;
use std::fmt;
use std::time::{Duration, Instant};

/// A background re-read that keeps the last value on screen shows its "reading" badge only
/// once it has been in flight this long (T.2: a routine poll is not a reason to paint; a slow
/// one is news). A read the user asked for shows the badge at once.
pub const SLOW_READ_BADGE_AFTER: Duration = Duration::from_millis(1500);

/// A value the view admitted, with when it was observed and how it was admitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed<T> {
    pub value: T,
    pub observed_at: Instant,
    /// `true` when admitted in health mode (no workspace receipt; protocol.md §2.3).
    pub health_admitted: bool,
}

/// Why a slot's read failed: a closed set, shown by its stable snake_case name (`Display`:
/// `timeout`, `status_500`, `decode_echo_mismatch`, `source_restarted`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// The admitted read failed (transport, status, decode, receipt, auth...).
    Read(ErrorClass),
    /// The source actor restarted while the read was in flight.
    SourceRestarted,
    /// The supervisor gave the source up; no further read comes.
    SourceStopped,
    /// The server answered that the goal does not exist (§5.6 `ok: false`).
    GoalNotFound,
    /// The read that owned the slot ended without a result (retired, not superseded by a
    /// newer read of the slot): nothing was observed (E-5: the census is `unavailable`).
    EndedWithoutResult,
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(class) => class.fmt(f),
            Self::SourceRestarted => f.write_str("source_restarted"),
            Self::SourceStopped => f.write_str("source_stopped"),
            Self::GoalNotFound => f.write_str("goal_not_found"),
            Self::EndedWithoutResult => f.write_str("ended_without_result"),
        }
    }
}

/// A typed failure as the view shows it: its class and a detail line (no body text beyond
/// what the error itself names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotFailure {
    pub class: FailureClass,
    pub detail: String,
}

impl SlotFailure {
    /// The failure of an admitted read.
    pub fn of_client(err: &ClientError) -> Self {
        Self {
            class: FailureClass::Read(err.class()),
            detail: err.to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Fetched<T> {
    /// Never asked for.
    #[default]
    NotRequested,
    /// First read in flight; nothing known yet.
    Loading,
    /// The server is warming up (dashboard warming body / 503 not initialized): not empty.
    Warming { last: Option<Observed<T>> },
    /// Admitted value (may be a normal empty collection).
    Ready(Observed<T>),
    /// A re-read in flight; the last good value stays on screen. `since` is when it was
    /// dispatched; `asked` when the user asked for it (it shows at once, see
    /// [`Fetched::shows_reading`]).
    Refreshing {
        last: Observed<T>,
        since: Instant,
        asked: bool,
    },
    /// The last read failed; `last` is the previous good value if any.
    Failed {
        last: Option<Observed<T>>,
        error: SlotFailure,
        retrying: bool,
    },
    /// This MASC does not serve the slot's route (`ClientError::NotServed`): a known
    /// absence, not a failure — the header never calls it degraded and no screen reads it as
    /// empty, `0` or "data unreliable". `last` is a value read while the route was served (the
    /// server changed under it), kept and marked.
    NotServed {
        route: RouteFamily,
        last: Option<Observed<T>>,
    },
}

impl<T: Clone> Fetched<T> {
    /// The last good value, whatever the current state.
    pub fn last(&self) -> Option<&Observed<T>> {
        match self {
            Self::Ready(o) | Self::Refreshing { last: o, .. } => Some(o),
            Self::Warming { last } | Self::Failed { last, .. } | Self::NotServed { last, .. } => {
                last.as_ref()
            }
            Self::NotRequested | Self::Loading => None,
        }
    }

    /// A read was dispatched for this slot.
    pub fn begin_read(&mut self) {
        self.begin_read_at(Instant::now());
    }

    /// A read was dispatched for this slot at `now`. A route known not served stays so while
    /// it is asked again (the client answers from its capability table, and a server that
    /// changed answers the read): no "reading" flash on every cadence.
    pub fn begin_read_at(&mut self, now: Instant) {
        let next = match std::mem::take(self) {
            Self::Refreshing { last, since, asked } => Self::Refreshing { last, since, asked },
            not_served @ Self::NotServed { .. } => not_served,
            Self::Ready(o)
            | Self::Failed { last: Some(o), .. }
            | Self::Warming { last: Some(o) } => Self::Refreshing {
                last: o,
                since: now,
                asked: false,
            },
            Self::Failed { last: None, .. }
            | Self::Warming { last: None }
            | Self::NotRequested
            | Self::Loading => Self::Loading,
        };
        *self = next;
    }

    /// An admitted value.
    pub fn admit(&mut self, value: Observed<T>) {
        *self = Self::Ready(value);
    }

    /// An admitted failure: keeps the last good value (G-4).
    pub fn fail(&mut self, error: SlotFailure, retrying: bool) {
        let last = self.last().cloned();
        *self = Self::Failed {
            last,
            error,
            retrying,
        };
    }

    /// This MASC does not serve the route: a known absence; the last good value stays,
    /// marked.
    pub fn set_not_served(&mut self, route: RouteFamily) {
        let last = self.last().cloned();
        *self = Self::NotServed { route, last };
    }

    /// An admitted warming answer: keeps the last good value, never reads as empty (G-5).
    pub fn warming(&mut self) {
        let last = self.last().cloned();
        *self = Self::Warming { last };
    }

    /// Withdrawal without a result (retired read): back to the last good value or not-requested.
    pub fn settle_without_result(&mut self) {
        let next = match std::mem::take(self) {
            Self::Refreshing { last, .. } => Self::Ready(last),
            Self::Loading => Self::NotRequested,
            other => other,
        };
        *self = next;
    }
}

impl<T: Clone> Fetched<T> {
    /// The route family this MASC does not serve, if that is the state.
    pub fn not_served(&self) -> Option<RouteFamily> {
        match self {
            Self::NotServed { route, .. } => Some(*route),
            _ => None,
        }
    }

    /// A re-read is in flight with the last value still shown.
    pub fn is_refreshing(&self) -> bool {
        matches!(self, Self::Refreshing { .. })
    }

    /// The in-flight re-read was asked for by the user: its badge shows at once.
    pub fn mark_asked(&mut self) {
        if let Self::Refreshing { asked, .. } = self {
            *asked = true;
        }
    }

    /// Whether a "reading" badge belongs beside the shown value at `now`: a re-read the user
    /// asked for, or a background one in flight for [`SLOW_READ_BADGE_AFTER`] or longer.
    pub fn shows_reading(&self, now: Instant) -> bool {
        match self {
            Self::Refreshing { since, asked, .. } => {
                *asked || now.saturating_duration_since(*since) >= SLOW_READ_BADGE_AFTER
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(v: u32) -> Observed<u32> {
        Observed {
            value: v,
            observed_at: Instant::now(),
            health_admitted: false,
        }
    }

    #[test]
    fn failure_keeps_last_good_value() {
        let mut f: Fetched<u32> = Fetched::NotRequested;
        f.begin_read();
        assert!(matches!(f, Fetched::Loading));
        f.admit(obs(3));
        f.begin_read();
        assert!(matches!(f, Fetched::Refreshing { .. }));
        f.fail(SlotFailure::of_client(&ClientError::Timeout), false);
        assert_eq!(f.last().map(|o| o.value), Some(3));
        let mut g: Fetched<u32> = Fetched::Loading;
        g.fail(
            SlotFailure::of_client(&ClientError::Status {
                status: 500,
                body: String::new(),
            }),
            false,
        );
        assert!(matches!(g, Fetched::Failed { last: None, .. }));
    }

    /// G-5: a route this MASC does not serve is its own value — not a failure, never
    /// empty; it keeps a value read earlier, and stays while it is asked again.
    #[test]
    fn issue13_not_served_is_its_own_value_and_keeps_the_last_one() {
        let mut f: Fetched<u32> = Fetched::NotRequested;
        f.begin_read();
        f.set_not_served(RouteFamily::Skills);
        assert_eq!(f.not_served(), Some(RouteFamily::Skills));
        assert!(f.last().is_none());
        assert!(!matches!(f, Fetched::Failed { .. }));
        f.begin_read();
        assert_eq!(
            f.not_served(),
            Some(RouteFamily::Skills),
            "no reading flash"
        );
        f.admit(obs(4));
        assert_eq!(f.not_served(), None);
        f.begin_read();
        f.set_not_served(RouteFamily::Skills);
        assert_eq!(f.last().map(|o| o.value), Some(4));
        assert!(!f.is_refreshing());
    }

    /// T.2: a background re-read shows no badge until it is slow; an asked one shows at once;
    /// a re-dispatch while refreshing keeps the first dispatch time (the read is one wait).
    #[test]
    fn reading_badge_waits_for_slow_background_reads() {
        let t0 = Instant::now();
        let mut f: Fetched<u32> = Fetched::Ready(obs(1));
        assert!(!f.shows_reading(t0));
        f.begin_read_at(t0);
        assert!(f.is_refreshing());
        assert!(!f.shows_reading(t0));
        assert!(!f.shows_reading(t0 + SLOW_READ_BADGE_AFTER / 2));
        f.begin_read_at(t0 + SLOW_READ_BADGE_AFTER / 2);
        assert!(f.shows_reading(t0 + SLOW_READ_BADGE_AFTER));
        let mut g: Fetched<u32> = Fetched::Ready(obs(2));
        g.begin_read_at(t0);
        g.mark_asked();
        assert!(g.shows_reading(t0));
        g.admit(obs(3));
        assert!(!g.shows_reading(t0 + SLOW_READ_BADGE_AFTER * 2));
        // A first read is Loading, not a badge beside a value.
        let mut h: Fetched<u32> = Fetched::NotRequested;
        h.begin_read_at(t0);
        h.mark_asked();
        assert!(!h.shows_reading(t0));
    }
}
