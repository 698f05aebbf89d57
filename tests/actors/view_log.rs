//! The view side shared by the actor rigs (work_rig, tools_rig): the ordered view log and a
//! view [`Model`] fed with exactly the messages the view received, in the view's order, with
//! waits that return each awaited message once. A rig embeds a [`ViewLog`] and derefs to it.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::ordered_view::{OrderedView, Seen};
use masc_tui::actors::contract::{SlotEvent, SlotKey, Ticket};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::model::Model;
use std::time::Instant;

pub struct ViewLog<S, O> {
    pub log: OrderedView<S, O>,
    /// The view model, fed with every message in `log.seen` up to `applied`.
    pub model: Model,
    applied: usize,
    /// Indexes of `log.seen` a wait already returned.
    claimed: Vec<usize>,
    /// Observations the model rejected, with why.
    pub rejected: Vec<(Ticket<S>, RejectReason)>,
}

impl<S, O> ViewLog<S, O>
where
    S: SlotKey + Clone + std::fmt::Debug + Send + 'static,
    O: Clone + Send + 'static,
{
    pub fn new(log: OrderedView<S, O>) -> Self {
        Self {
            log,
            model: Model::default(),
            applied: 0,
            claimed: Vec::new(),
            rejected: Vec::new(),
        }
    }

    /// Applies every message seen so far to the model, in order.
    pub fn sync(&mut self) {
        let now = Instant::now();
        while self.applied < self.log.seen.len() {
            let msg = self.log.seen[self.applied].clone();
            self.applied += 1;
            match msg {
                Seen::Slot(event) => {
                    let ticket = event.ticket().clone();
                    let drained = self.model.deliver(event, now);
                    for reason in drained.rejected {
                        self.rejected.push((ticket.clone(), reason));
                    }
                }
                Seen::Identity(i) => {
                    self.model.on_identity(i);
                }
                Seen::SourceRestarted(s) => {
                    self.model.on_source_restarted(s);
                }
                Seen::SourceStopped(s) => {
                    self.model.on_source_stopped(s);
                }
                Seen::SourceUp { .. } => {}
            }
        }
    }

    /// The first message matching `pred` that no earlier wait took (already received or still
    /// to come), so waits for messages that race (two reads returning) see each exactly once.
    /// Applies everything received to the model.
    pub async fn wait(&mut self, pred: impl Fn(&Seen<S, O>) -> bool) -> Seen<S, O> {
        let earlier = (0..self.log.seen.len())
            .find(|i| !self.claimed.contains(i) && pred(&self.log.seen[*i]));
        let index = match earlier {
            Some(i) => Some(i),
            None => {
                let hit = self.log.wait_for(&pred).await.is_some();
                hit.then(|| self.log.seen.len() - 1)
            }
        };
        if let Some(i) = index {
            self.claimed.push(i);
        }
        let found = match index.map(|i| &self.log.seen[i]) {
            Some(m) => m.clone(),
            None => {
                let tail: Vec<String> = self
                    .log
                    .seen
                    .iter()
                    .rev()
                    .take(12)
                    .map(|m| match m {
                        Seen::Slot(SlotEvent::Dispatched(t)) => format!(
                            "dispatched {:?} g{} e{}",
                            t.slot, t.generation, t.scope.epoch
                        ),
                        Seen::Slot(SlotEvent::Observed(t, _)) => {
                            format!("observed {:?} g{} e{}", t.slot, t.generation, t.scope.epoch)
                        }
                        Seen::Slot(SlotEvent::Retired(t)) => {
                            format!("retired {:?} g{} e{}", t.slot, t.generation, t.scope.epoch)
                        }
                        Seen::Identity(i) => format!("identity {i:?}"),
                        _ => "other".to_string(),
                    })
                    .collect();
                panic!("the awaited view message never came; last seen (newest first): {tail:#?}")
            }
        };
        self.sync();
        found
    }

    pub async fn dispatched(&mut self, slot: &S) -> Ticket<S> {
        match self
            .wait(|m| matches!(m, Seen::Slot(SlotEvent::Dispatched(t)) if &t.slot == slot))
            .await
        {
            Seen::Slot(SlotEvent::Dispatched(t)) => t,
            _ => unreachable!(),
        }
    }

    pub async fn retired(&mut self, ticket: &Ticket<S>) {
        self.wait(|m| matches!(m, Seen::Slot(SlotEvent::Retired(t)) if t == ticket))
            .await;
    }
}
