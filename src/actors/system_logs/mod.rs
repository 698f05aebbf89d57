//! The System Logs source (§15.1): MASC's log ring, read while the System
//! screen shows its `logs` pane.
//!
//! - **The window** ([`SystemLogsSlot::Window`]): the newest page at the chosen filters (level,
//!   category). The first read after a filter change, a confirmation or an explicit `r` asks
//!   the whole page; the cadence then asks only what is newer than the newest `seq` a completed
//!   read returned (`since_seq`, a delta the view merges by `seq`).
//! - **A page back** ([`SystemLogsSlot::Older`]): `before_seq` = the oldest `seq` the view
//!   holds, one read per command, its own owner (a new command retires the one in flight).
//! - A filter change re-opens the window under a new owner: a read asked under the old filters
//!   is stale on return and never applied (G-7); the cursor starts again.
//! - Withdrawal retires every read (G-6); the next confirmation reads the whole window again.

use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, Payload, ReadResult, SlotKey, SourceContext,
    SourceKey, read_outcome,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{ExplicitPolicy, ReadOwner, SlotSpec, WorkerReturn, reader};
use crate::protocol::client::WorkspaceClient;
use crate::protocol::system_logs::{LogQuery, LogsPage};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The source (supervision key).
pub const SYSTEM_LOGS: SourceKey = SourceKey("system_logs");

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SystemLogsSlot {
    /// The newest page at the chosen filters (a delta after the first read).
    Window,
    /// One page older than what the view holds.
    Older,
}

impl SlotKey for SystemLogsSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Window => "system_logs".to_string(),
            Self::Older => "system_logs_older".to_string(),
        }
    }

    fn source(&self) -> SourceKey {
        SYSTEM_LOGS
    }
}

/// One read and what it asked (the view merges a delta or an older page by `seq`, and starts
/// again on a whole page).
#[derive(Debug, Clone)]
pub struct LogsRead {
    pub query: LogQuery,
    pub result: ReadResult<LogsPage>,
}

#[derive(Debug, Clone)]
pub enum SystemLogsObservation {
    Window(Box<LogsRead>),
    Older(Box<LogsRead>),
}

impl SystemLogsObservation {
    pub fn read(&self) -> &LogsRead {
        match self {
            Self::Window(r) | Self::Older(r) => r,
        }
    }
}

impl Payload for SystemLogsObservation {
    fn outcome(&self) -> String {
        read_outcome(&self.read().result)
    }
}

/// What the view asks of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemLogsCommand {
    /// New filters (`l` level, `c` category): the window is read again whole under them.
    Filters(LogQuery),
    /// One page older than `before_seq` (the oldest `seq` the view holds), at the filters.
    Older { before_seq: u64 },
}

crate::source_commands!(SystemLogsSlot, SystemLogsObservation, SystemLogsCommand);

type Owner = ReadOwner<SystemLogsSlot, SystemLogsObservation, Myself<SystemLogsState>>;

/// The newest `seq` a completed window read of the current filters returned (the next
/// cadence read's `since_seq`); `None`: the next read is whole.
type Cursor = Arc<Mutex<Option<u64>>>;

/// A slot reading the logs: `query` makes what each read asks (at dispatch), `observed` wraps
/// the read as the slot's payload.
fn logs_slot(
    key: SystemLogsSlot,
    generations: &GenerationBook,
    query: impl Fn() -> LogQuery + Send + Sync + 'static,
    observed: fn(Box<LogsRead>) -> SystemLogsObservation,
) -> SlotSpec<SystemLogsSlot, SystemLogsObservation> {
    SlotSpec {
        standing: key == SystemLogsSlot::Window,
        generations: generations.counter(&key),
        key,
        explicit: ExplicitPolicy::Supersede,
        reader: reader(move |auth, client| {
            let query = query();
            async move {
                let result = client.get::<LogsPage>(&auth, &query.target()).await;
                observed(Box::new(LogsRead { query, result }))
            }
        }),
    }
}

/// The window: the filters, and the cursor's `since_seq` when one is held.
fn window_slot(
    filters: LogQuery,
    cursor: Cursor,
    generations: &GenerationBook,
) -> SlotSpec<SystemLogsSlot, SystemLogsObservation> {
    let query = move || LogQuery {
        since_seq: cursor.lock().map(|c| *c).unwrap_or(None),
        ..filters.clone()
    };
    logs_slot(
        SystemLogsSlot::Window,
        generations,
        query,
        SystemLogsObservation::Window,
    )
}

fn older_slot(
    query: LogQuery,
    generations: &GenerationBook,
) -> SlotSpec<SystemLogsSlot, SystemLogsObservation> {
    logs_slot(
        SystemLogsSlot::Older,
        generations,
        move || query.clone(),
        SystemLogsObservation::Older,
    )
}

pub struct SystemLogsState {
    client: WorkspaceClient,
    outlet: Outlet<SystemLogsSlot, SystemLogsObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    filters: LogQuery,
    cursor: Cursor,
    window: Owner,
    older: Option<Owner>,
}

impl SystemLogsState {
    fn owner(
        &self,
        myself: &Myself<Self>,
        spec: SlotSpec<SystemLogsSlot, SystemLogsObservation>,
    ) -> Owner {
        let mut owner = ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        owner.add_slot(spec);
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        owner
    }

    fn reset_cursor(&self) {
        if let Ok(mut c) = self.cursor.lock() {
            *c = None;
        }
    }

    fn set_filters(&mut self, myself: &Myself<Self>, filters: LogQuery) {
        self.window.retire_all("filters_changed");
        if let Some(mut older) = self.older.take() {
            older.retire_all("filters_changed");
        }
        self.filters = filters.filters();
        self.cursor = Arc::new(Mutex::new(None));
        let spec = window_slot(
            self.filters.clone(),
            Arc::clone(&self.cursor),
            &self.generations,
        );
        self.window = self.owner(myself, spec);
        self.window
            .demand(&SystemLogsSlot::Window, DemandKind::Explicit);
    }

    fn page_back(&mut self, myself: &Myself<Self>, before_seq: u64) {
        if let Some(mut older) = self.older.take() {
            older.retire_all("superseded");
        }
        let query = LogQuery {
            before_seq: Some(before_seq),
            ..self.filters.clone()
        };
        let mut owner = self.owner(myself, older_slot(query, &self.generations));
        owner.demand(&SystemLogsSlot::Older, DemandKind::Explicit);
        self.older = Some(owner);
    }
}

/// The newest `seq` of a window read that decoded (`latest_seq`, else its newest row).
fn newest_seq(payload: &SystemLogsObservation) -> Option<u64> {
    let SystemLogsObservation::Window(read) = payload else {
        return None;
    };
    let page = &read.result.as_ref().ok()?.value;
    let from_rows = page.rows.iter().filter_map(|r| r.seq()).max();
    page.latest_seq.max(from_rows).or(read.query.since_seq)
}

impl SourceState for SystemLogsState {
    type Slot = SystemLogsSlot;
    type Payload = SystemLogsObservation;
    type Command = SystemLogsCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let outlet = ctx.outlet::<SystemLogsSlot, SystemLogsObservation>();
        let filters = LogQuery::default();
        let cursor: Cursor = Arc::new(Mutex::new(None));
        let mut window = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        window.add_slot(window_slot(
            filters.clone(),
            Arc::clone(&cursor),
            &ctx.generations,
        ));
        SystemLogsState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            filters,
            cursor,
            window,
            older: None,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: SystemLogsCommand) {
        match command {
            SystemLogsCommand::Filters(filters) => self.set_filters(&ctl.myself, filters),
            SystemLogsCommand::Older { before_seq } => self.page_back(&ctl.myself, before_seq),
        }
    }

    /// The cadence asks a delta; an explicit demand (`r`) the whole window again.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Explicit {
            self.reset_cursor();
        }
        self.window.demand(&SystemLogsSlot::Window, kind);
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        // Another epoch: nothing held is this one's, the next read is whole (G-6).
        self.reset_cursor();
        self.window.identity(&identity);
        if let Some(older) = self.older.as_mut() {
            older.identity(&identity);
        }
        if self.window.authority().is_none() {
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
    }

    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<SystemLogsSlot, SystemLogsObservation>,
    ) -> bool {
        match ret.ticket.slot {
            SystemLogsSlot::Window => {
                let newest = ret.result.as_ref().ok().and_then(newest_seq);
                let completed = self.window.worker_returned(ret).completed();
                if completed
                    && let Some(seq) = newest
                    && let Ok(mut c) = self.cursor.lock()
                {
                    *c = Some(c.map_or(seq, |held| held.max(seq)));
                }
                completed
            }
            SystemLogsSlot::Older => match self.older.as_mut() {
                Some(owner) => owner.worker_returned(ret).completed(),
                None => {
                    ret.reject_late();
                    false
                }
            },
        }
    }

    fn stop(&mut self, reason: &str) {
        self.window.retire_all(reason);
        if let Some(mut older) = self.older.take() {
            older.retire_all(reason);
        }
    }
}

impl OwnKey for SystemLogsState {
    const KEY: SourceKey = SYSTEM_LOGS;
}

/// Spawns the System Logs source under the supervisor.
pub type SystemLogsSpawner = Every<SystemLogsState>;
