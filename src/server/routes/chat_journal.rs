//! The journal of each scripted chat turn (protocol.md §4.3, newer MASC): every event of the
//! turn by its journal sequence (the SSE `id:`), so a re-POST of the same `request_id` with
//! `since_seq` continues a cut stream with the events after that sequence — the embedded
//! server's play of MASC's stream resume. The turn's script writes here; each stream (the
//! first, and every resumed one) follows the journal from its own sequence, so a client going
//! away never stops the turn (as in MASC).

use axum::body::Bytes;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};

/// How many finished journals the server keeps for resumes (oldest dropped first).
const KEPT_JOURNALS: usize = 256;

/// One turn's events. Sequence `n` is `events[n - 1]`.
#[derive(Debug)]
pub struct Journal {
    events: Mutex<Vec<Value>>,
    /// (events written, ended): wakes followers.
    progress: watch::Sender<(usize, bool)>,
}

impl Journal {
    fn new() -> Self {
        Self {
            events: Mutex::new(Vec::new()),
            progress: watch::Sender::new((0, false)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Value>> {
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one event; returns its sequence.
    pub fn push(&self, event: Value) -> u64 {
        let len = {
            let mut events = self.lock();
            events.push(event);
            events.len()
        };
        self.progress.send_modify(|p| p.0 = len);
        len as u64
    }

    /// Every event written so far (sequence `n` is index `n - 1`).
    pub fn snapshot(&self) -> Vec<Value> {
        self.lock().clone()
    }

    /// The turn wrote its last event.
    pub fn end(&self) {
        self.progress.send_modify(|p| p.1 = true);
    }

    /// Sends every event after sequence `after` to `out` as SSE frames (with `id:` lines when
    /// `ids`), the ones still to come included, until the turn ended or `out` is closed.
    pub fn follow(self: &Arc<Self>, after: u64, out: mpsc::Sender<Bytes>, ids: bool) {
        let journal = Arc::clone(self);
        let mut progress = journal.progress.subscribe();
        tokio::spawn(async move {
            let mut next = usize::try_from(after).unwrap_or(usize::MAX);
            loop {
                let (written, ended) = *progress.borrow_and_update();
                while next < written {
                    let event = journal.lock().get(next).cloned();
                    next += 1;
                    let Some(event) = event else { break };
                    if out
                        .send(frame(ids.then_some(next as u64), &event))
                        .await
                        .is_err()
                    {
                        // The client went away; the turn goes on without it.
                        return;
                    }
                }
                if ended {
                    return;
                }
                if progress.changed().await.is_err() {
                    return;
                }
            }
        });
    }
}

/// One SSE event: `id: <seq>` when the stream is journaled, and one `data:` line.
pub fn frame(seq: Option<u64>, event: &Value) -> Bytes {
    match seq {
        Some(seq) => Bytes::from(format!("id: {seq}\ndata: {event}\n\n")),
        None => Bytes::from(format!("data: {event}\n\n")),
    }
}

/// The journals of the server's turns by request id.
#[derive(Debug, Default)]
pub struct Journals {
    by_request: HashMap<String, Arc<Journal>>,
    order: VecDeque<String>,
}

impl Journals {
    /// A new journal for `request_id`'s turn.
    pub fn open(&mut self, request_id: &str) -> Arc<Journal> {
        let journal = Arc::new(Journal::new());
        if self
            .by_request
            .insert(request_id.to_string(), Arc::clone(&journal))
            .is_none()
        {
            self.order.push_back(request_id.to_string());
        }
        while self.order.len() > KEPT_JOURNALS {
            if let Some(old) = self.order.pop_front() {
                self.by_request.remove(&old);
            }
        }
        journal
    }

    pub fn get(&self, request_id: &str) -> Option<Arc<Journal>> {
        self.by_request.get(request_id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_follower_gets_the_events_after_its_sequence_then_the_live_ones() {
        let mut journals = Journals::default();
        let journal = journals.open("tui-1");
        for n in 1..=3 {
            journal.push(json!({ "n": n }));
        }
        let (tx, mut rx) = mpsc::channel(16);
        journal.follow(2, tx, true);
        journal.push(json!({ "n": 4 }));
        journal.end();
        let mut got = Vec::new();
        while let Some(b) = rx.recv().await {
            got.push(String::from_utf8(b.to_vec()).unwrap_or_default());
        }
        assert_eq!(
            got,
            vec![
                "id: 3\ndata: {\"n\":3}\n\n".to_string(),
                "id: 4\ndata: {\"n\":4}\n\n".to_string()
            ]
        );
        assert!(journals.get("tui-1").is_some());
        assert!(journals.get("tui-2").is_none());
    }
}
