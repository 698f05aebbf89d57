//! What the registry hands the supervisor for each source, and what a source gets when it is
//! (re)spawned.

use super::control::SourceHandle;
use super::events::EventSink;
use super::generations::GenerationBook;
use super::inbox::Inboxes;
use super::keys::SourceKey;
use super::outlet::Outlet;
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::sync::Arc;

/// What every source gets when (re)spawned.
#[derive(Clone)]
pub struct SourceContext {
    pub client: WorkspaceClient,
    /// The view's mailbox, for payload-free notifications.
    pub events: Arc<dyn EventSink>,
    /// The runtime's typed inboxes; a source takes its surface's with [`SourceContext::outlet`].
    pub inboxes: Inboxes,
    /// Owned by the supervisor: a restarted source continues its generations (G-6).
    pub generations: GenerationBook,
    /// Honour `SourceControl::InjectPanic` (supervision drills; tests and `demo`).
    pub fault_drills: bool,
    /// Whether the surface in front when the session starts shows this source. A source
    /// started hidden polls at its hidden cadence from the start and reads its first value
    /// after the shown sources have had the first moments of the session (`read::shell`);
    /// the view says so again (`SourceControl::Visible`) once the source is up.
    pub shown_at_start: bool,
}

impl SourceContext {
    /// The outlet of the surface whose slot type is `S` and payload type is `P`.
    pub fn outlet<S: Send + 'static, P: Send + 'static>(&self) -> Outlet<S, P> {
        Outlet::new(&self.inboxes, self.events.clone())
    }
}

/// How the supervisor (re)spawns one source. Each source provides one; the registry lists
/// them (`crate::actors::registry`).
pub trait SourceSpawner: Send + Sync + 'static {
    fn key(&self) -> SourceKey;
    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>>;
}
