//! Test support for actor tests of any source: a fake view actor that forwards every
//! `ViewMsg` into a channel, and a waiter that picks the first message matching a predicate
//! (a deterministic signal; no sleeps).

use crate::actors::messages::ViewMsg;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use tokio::sync::mpsc;

/// A view actor that records everything it receives.
pub struct CollectingView;

impl Actor for CollectingView {
    type Msg = ViewMsg;
    type State = mpsc::UnboundedSender<ViewMsg>;
    type Arguments = mpsc::UnboundedSender<ViewMsg>;

    async fn pre_start(
        &self,
        _myself: ActorRef<ViewMsg>,
        tx: mpsc::UnboundedSender<ViewMsg>,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(tx)
    }

    async fn handle(
        &self,
        _myself: ActorRef<ViewMsg>,
        msg: ViewMsg,
        tx: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let _ = tx.send(msg);
        Ok(())
    }
}

/// The receiving side of a [`CollectingView`], keeping everything seen.
pub struct ViewLog {
    rx: mpsc::UnboundedReceiver<ViewMsg>,
    /// Every message received so far, in order.
    pub seen: Vec<ViewMsg>,
}

impl ViewLog {
    /// Waits for the next message matching `pred` (messages before it are kept in `seen`).
    /// `None` if the view actor stopped first, or after the test failsafe
    /// (`crate::timeline::capture::FAILSAFE`) so a stuck test fails instead of hanging.
    pub async fn wait_for(&mut self, pred: impl Fn(&ViewMsg) -> bool) -> Option<&ViewMsg> {
        let deadline = tokio::time::Instant::now() + crate::timeline::capture::FAILSAFE;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .ok()??;
            let hit = pred(&msg);
            self.seen.push(msg);
            if hit {
                return self.seen.last();
            }
        }
    }

    /// The last message already received that matches `pred`, if any.
    pub fn last_seen(&self, pred: impl Fn(&ViewMsg) -> bool) -> Option<&ViewMsg> {
        self.seen.iter().rev().find(|m| pred(m))
    }

    /// Takes whatever has already arrived, without waiting.
    pub fn drain_ready(&mut self) {
        while let Ok(m) = self.rx.try_recv() {
            self.seen.push(m);
        }
    }
}

/// Spawns a [`CollectingView`].
pub async fn collecting_view() -> Result<(ActorRef<ViewMsg>, ViewLog), ractor::SpawnErr> {
    let (tx, rx) = mpsc::unbounded_channel();
    let (view, _join) = CollectingView::spawn(None, CollectingView, tx).await?;
    Ok((
        view,
        ViewLog {
            rx,
            seen: Vec::new(),
        },
    ))
}
