//! In-memory capture of stage events for tests.
//!
//! ```ignore
//! let recorder = StageRecorder::new();
//! let _guard = tracing::subscriber::set_default(recorder.subscriber());
//! // ... drive actors on a current-thread runtime (set_default is per thread) ...
//! let dispatched = recorder.records_where(|r| r.stage == "dispatch");
//! ```
//! [`StageRecorder::wait_for`] resolves when a matching record exists: a deterministic signal,
//! not a sleep.

use super::record::{JsonFields, StageRecord, now_us};
use super::stage::TARGET;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// How long test waits may take before they give up (a failsafe, never a pacing device).
pub const FAILSAFE: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Default)]
struct Shared {
    records: Mutex<Vec<StageRecord>>,
    changed: Notify,
}

/// A tracing layer keeping every stage event in memory. Cheap to clone; clones share records.
#[derive(Clone, Default)]
pub struct StageRecorder {
    shared: Arc<Shared>,
}

impl StageRecorder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A subscriber with only this layer, for `tracing::subscriber::set_default`.
    pub fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync + 'static {
        tracing_subscriber::registry().with(self.clone())
    }

    /// Every stage record so far, in emission order.
    pub fn records(&self) -> Vec<StageRecord> {
        self.shared
            .records
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    pub fn records_where(&self, pred: impl Fn(&StageRecord) -> bool) -> Vec<StageRecord> {
        self.records().into_iter().filter(|r| pred(r)).collect()
    }

    /// The first record matching `pred` (already recorded or future). `None` only after
    /// [`FAILSAFE`]: a stuck test fails instead of hanging; it is not a synchronisation delay.
    pub async fn wait_for(&self, pred: impl Fn(&StageRecord) -> bool) -> Option<StageRecord> {
        tokio::time::timeout(FAILSAFE, self.wait_for_unbounded(pred))
            .await
            .ok()
    }

    async fn wait_for_unbounded(&self, pred: impl Fn(&StageRecord) -> bool) -> StageRecord {
        loop {
            let notified = self.shared.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(found) = self.records().into_iter().find(|r| pred(r)) {
                return found;
            }
            notified.await;
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for StageRecorder {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != TARGET {
            return;
        }
        let mut fields = JsonFields::default();
        event.record(&mut fields);
        let Some(record) = StageRecord::from_fields(now_us(), Some(std::process::id()), &fields.0)
        else {
            return;
        };
        if let Ok(mut records) = self.shared.records.lock() {
            records.push(record);
        }
        self.shared.changed.notify_waiters();
    }
}
