//! What the save benches share: the embedded server in this process with a token, a client for
//! it, a scratch outbox, and the runtime started with the save hub plus the given sources, each
//! with the slots the binary's registry lists for it. The caller drives `events` the way the
//! view actor does.

use masc_tui::actors::contract::{EventSink, Inboxes, SourceEvent, SourceSpawner};
use masc_tui::actors::registry::{SourceEntry, sources};
use masc_tui::actors::saves::SaveHubSpawner;
use masc_tui::actors::supervisor::{RuntimeConfig, RuntimeHandle, start_runtime_with};
use masc_tui::outbox::{OutboxLocation, SharedOutbox};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

const TOKEN: &str = "bench-token";

/// A source as the registry lists it (its slots), spawned by `spawner`.
pub fn entry_of(spawner: impl SourceSpawner) -> SourceEntry {
    let key = spawner.key();
    let slots = sources(Duration::from_secs(5), &OutboxLocation::StateDir)
        .into_iter()
        .find(|e| e.key() == key)
        .map(|e| e.slots)
        .expect("in the registry");
    SourceEntry {
        spawner: Arc::new(spawner),
        slots,
    }
}

/// The server, the runtime over it and what the view side reads from.
pub struct Embedded {
    pub server: RunningServer,
    pub runtime: RuntimeHandle,
    pub events: mpsc::UnboundedReceiver<SourceEvent>,
    pub inboxes: Inboxes,
    /// The outbox's directory: removed when dropped.
    pub state: tempfile::TempDir,
}

/// Starts the server and a runtime with the save hub first, then `entries`. The roster reads
/// once per epoch and on demand only, so no cadence read lands mid-measurement.
pub async fn start_embedded(entries: Vec<SourceEntry>) -> Embedded {
    let server = start(ServeOptions {
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = TokenSource::Fixed(TOKEN.into());
    let client = WorkspaceClient::new(cc).unwrap();
    let state = tempfile::tempdir().unwrap();
    let outbox = OutboxLocation::File(state.path().join("outbox.sqlite3"));
    let (tx, events) = mpsc::unbounded_channel::<SourceEvent>();
    let sink: Arc<dyn EventSink> = Arc::new(tx);
    let inboxes = Inboxes::new();
    let cfg = RuntimeConfig {
        outbox: outbox.clone(),
        keepers_roster_interval: Duration::from_secs(3600),
        ..RuntimeConfig::default()
    };
    let mut all = vec![entry_of(SaveHubSpawner {
        outbox: SharedOutbox::new(outbox),
    })];
    all.extend(entries);
    let runtime = start_runtime_with(client, sink, inboxes.clone(), cfg, all)
        .await
        .unwrap();
    Embedded {
        server,
        runtime,
        events,
        inboxes,
        state,
    }
}
