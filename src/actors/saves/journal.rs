//! The saves journal's read of the outbox: on demand, the hub reads back the newest rows of
//! the current workspace — every session's, this one's included — so the journal can list what
//! earlier sessions left (settled or not) and the chat sends, whose book is their chat's pane.
//! Posted with a ticket like any read: a result for another epoch or an older demand is
//! rejected by the view.

use super::SAVES;
use super::env::SaveEnv;
use crate::actors::contract::{Outlet, Payload, SlotKey, SourceKey, Ticket};
use crate::outbox::SaveRow;
use crate::protocol::admission::ReadScope;
use crate::timeline::stage;

/// The class of a read without an outbox (this runtime could not open one).
const NO_OUTBOX: &str = "outbox_unavailable";

/// How many rows the journal reads back (newest first).
pub const JOURNAL_ROWS: usize = 500;

/// The journal's one slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SaveJournalSlot;

impl SlotKey for SaveJournalSlot {
    fn trace_name(&self) -> String {
        "save_journal".into()
    }

    fn source(&self) -> SourceKey {
        SAVES
    }
}

/// The outbox rows of one workspace, newest first, and which session this process is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveJournalRead {
    /// This process's outbox session (a row of another was left by an earlier run).
    pub session: String,
    /// `Err`: the outbox could not be read (its class).
    pub rows: Result<Vec<SaveRow>, String>,
}

impl Payload for SaveJournalRead {
    fn outcome(&self) -> String {
        match &self.rows {
            Ok(_) => "ok".into(),
            Err(class) => class.clone(),
        }
    }
}

/// Reads the journal of `scope`'s workspace off the hub (the blocking pool) and posts it.
pub fn read(env: &SaveEnv, scope: &ReadScope) {
    let slot = SaveJournalSlot;
    let ticket = Ticket {
        generation: env.generations.counter(&slot).next(),
        slot,
        scope: scope.clone(),
    };
    let outlet: Outlet<SaveJournalSlot, SaveJournalRead> =
        Outlet::new(&env.inboxes, env.events.clone());
    stage::dispatch(&ticket);
    outlet.dispatched(ticket.clone());
    let outbox = env.outbox.clone();
    let workspace = scope.workspace.0.clone();
    tokio::spawn(async move {
        let read = tokio::task::spawn_blocking(move || match outbox {
            Some(outbox) => SaveJournalRead {
                session: outbox.session().to_string(),
                rows: outbox
                    .recent_saves(&workspace, JOURNAL_ROWS)
                    .map_err(|e| e.class().to_string()),
            },
            None => SaveJournalRead {
                session: String::new(),
                rows: Err(NO_OUTBOX.to_string()),
            },
        })
        .await
        .unwrap_or_else(|_| SaveJournalRead {
            session: String::new(),
            rows: Err("read_panicked".into()),
        });
        stage::worker_return(&ticket, &read.outcome());
        outlet.observed(ticket, read);
    });
}
