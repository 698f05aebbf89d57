//! Shared server state: identity, boot phase, auth, fault engine, request counts, store.

use super::cache::{ResponseCache, Revision};
use super::compat::{MascRelease, Played};
use super::faults::{FaultEngine, FaultPlan, FiredRule};
use super::origin::OriginPolicy;
use super::store::Store;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

/// The workspace identity `/health` and the receipts serve (§2.1, §2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub base_path: String,
    pub masc_root: String,
}

/// The token the server checks, if any (§1.3). `None` = `--no-auth`.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    pub token: Option<String>,
}

/// Everything handlers and middleware share. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub store: Store,
    pub identity: RwLock<Identity>,
    pub auth: AuthConfig,
    pub test_mode: bool,
    pub faults: Mutex<FaultEngine>,
    pub requests: Mutex<HashMap<(String, String), usize>>,
    /// `/health` answers `state_ready:false` while this is above zero, and decrements it.
    pub boot_reads_left: AtomicU32,
    /// An older MASC: no admission advert, no receipts (§2.3), or a whole MASC release.
    pub played: Played,
    /// Host / Origin / content-type allow-list of the listening address (docs/security.md).
    pub origin: OriginPolicy,
    pub started: Instant,
    /// When the runtime probe was last "run" (its cache; `routes::runtime_probe`).
    pub probe_refreshed: Mutex<Option<Instant>>,
    /// Scripted chat turns by request id, queued or running (`routes::chat`,
    /// `routes::turn_control`).
    pub chat_turns: Mutex<ChatTurns>,
    /// The journal of each scripted turn, for `since_seq` resumes (`routes::chat_journal`).
    pub chat_journals: Mutex<crate::server::routes::chat_journal::Journals>,
    /// Bumped when the identity or the fault plan is replaced: part of the data revision
    /// (so cached answers follow a new identity or plan), and what wakes a held `/health`.
    pub config_gen: AtomicU64,
    /// Wakes held `/health` probes (sent on every `config_gen` bump).
    pub changed: tokio::sync::watch::Sender<u64>,
    /// Answers of read routes per (path with query, revision) (`server::cache`).
    pub responses: Mutex<ResponseCache>,
}

/// One scripted chat turn the server holds (one running per Keeper; the others queued).
#[derive(Debug, Clone)]
pub struct ChatTurn {
    pub keeper: String,
    pub turn_id: i64,
    /// Running (not queued).
    pub started: bool,
    /// Asked to run next (§14.14).
    pub prioritized: bool,
    /// A stop was signalled (§14.13): the script ends the turn as cancelled.
    pub stop: Arc<std::sync::atomic::AtomicBool>,
    /// The execution it runs in, when batched with other inputs (newer MASC; C-37).
    pub execution: Option<String>,
}

pub type ChatTurns = HashMap<String, ChatTurn>;

impl AppState {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        store: Store,
        identity: Identity,
        auth: AuthConfig,
        test_mode: bool,
        faults: FaultPlan,
        boot_delay_reads: u32,
        played: Played,
        origin: OriginPolicy,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                identity: RwLock::new(identity),
                auth,
                test_mode,
                faults: Mutex::new(FaultEngine::new(faults)),
                requests: Mutex::new(HashMap::new()),
                boot_reads_left: AtomicU32::new(boot_delay_reads),
                played,
                origin,
                started: Instant::now(),
                probe_refreshed: Mutex::new(None),
                chat_turns: Mutex::new(HashMap::new()),
                chat_journals: Mutex::new(Default::default()),
                config_gen: AtomicU64::new(0),
                changed: tokio::sync::watch::Sender::new(0),
                responses: Mutex::new(ResponseCache::default()),
            }),
        }
    }

    /// Whether this server plays an older MASC without receipts (§2.3).
    pub fn legacy_no_receipts(&self) -> bool {
        self.inner.played.without_receipts()
    }

    /// The MASC release this server plays, if any (`--compat`).
    pub fn release(&self) -> Option<MascRelease> {
        self.inner.played.release
    }

    /// Who may address this server (checked first by the middleware).
    pub fn origin_policy(&self) -> &OriginPolicy {
        &self.inner.origin
    }

    /// Reads and updates the runtime probe's cache time under its lock.
    pub fn probe_cache<T>(&self, f: impl FnOnce(&mut Option<Instant>) -> T) -> T {
        match self.inner.probe_refreshed.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Reads and updates the scripted chat turns under their lock.
    pub fn chat_turns<T>(&self, f: impl FnOnce(&mut ChatTurns) -> T) -> T {
        match self.inner.chat_turns.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Reads and updates the chat turns' journals under their lock.
    pub fn chat_journals<T>(
        &self,
        f: impl FnOnce(&mut crate::server::routes::chat_journal::Journals) -> T,
    ) -> T {
        match self.inner.chat_journals.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// The store every family reads and writes through.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn identity(&self) -> Identity {
        match self.inner.identity.read() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn set_identity(&self, identity: Identity) {
        match self.inner.identity.write() {
            Ok(mut g) => *g = identity,
            Err(poisoned) => *poisoned.into_inner() = identity,
        }
        self.config_changed();
    }

    /// The identity or the fault plan was replaced: cached answers are void and held
    /// `/health` probes answer now.
    fn config_changed(&self) {
        let generation = self.inner.config_gen.fetch_add(1, Ordering::SeqCst) + 1;
        self.inner.changed.send_replace(generation);
    }

    /// The data revision cached answers are keyed by.
    pub(crate) fn revision(&self) -> Revision {
        (
            self.inner.store.revision(),
            self.inner.config_gen.load(Ordering::SeqCst),
        )
    }

    /// A receiver that wakes when the identity or the fault plan changes.
    pub(crate) fn watch_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    pub(crate) fn responses(&self) -> std::sync::MutexGuard<'_, ResponseCache> {
        // A poisoned lock still holds a consistent map (every update is one insert).
        self.inner
            .responses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    pub fn auth(&self) -> &AuthConfig {
        &self.inner.auth
    }

    pub fn test_mode(&self) -> bool {
        self.inner.test_mode
    }

    /// True while the scripted boot phase lasts (§3 `state_ready:false`).
    pub fn booting(&self) -> bool {
        self.inner.boot_reads_left.load(Ordering::SeqCst) > 0
    }

    /// One `/health` read during boot: returns whether this read still reports "booting".
    pub(crate) fn consume_boot_read(&self) -> bool {
        self.inner
            .boot_reads_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    pub fn uptime_secs(&self) -> u64 {
        self.inner.started.elapsed().as_secs()
    }

    pub fn set_faults(&self, plan: FaultPlan) {
        let engine = FaultEngine::new(plan);
        match self.inner.faults.lock() {
            Ok(mut g) => *g = engine,
            Err(poisoned) => *poisoned.into_inner() = engine,
        }
        self.config_changed();
    }

    pub fn fault_plan(&self) -> FaultPlan {
        match self.inner.faults.lock() {
            Ok(g) => g.plan().clone(),
            Err(poisoned) => poisoned.into_inner().plan().clone(),
        }
    }

    pub(crate) fn decide_faults(&self, method: &str, path: &str, query: &str) -> Vec<FiredRule> {
        match self.inner.faults.lock() {
            Ok(mut g) => g.decide(method, path, query),
            Err(poisoned) => poisoned.into_inner().decide(method, path, query),
        }
    }

    pub(crate) fn count_request(&self, method: &str, path: &str) {
        let key = (method.to_ascii_uppercase(), path.to_string());
        match self.inner.requests.lock() {
            Ok(mut g) => *g.entry(key).or_insert(0) += 1,
            Err(poisoned) => *poisoned.into_inner().entry(key).or_insert(0) += 1,
        }
    }

    pub fn request_count(&self, method: &str, path: &str) -> usize {
        let key = (method.to_ascii_uppercase(), path.to_string());
        match self.inner.requests.lock() {
            Ok(g) => g.get(&key).copied().unwrap_or(0),
            Err(poisoned) => poisoned.into_inner().get(&key).copied().unwrap_or(0),
        }
    }

    pub fn request_counts(&self) -> Vec<(String, String, usize)> {
        let map = match self.inner.requests.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        let mut rows: Vec<_> = map.into_iter().map(|((m, p), n)| (m, p, n)).collect();
        rows.sort();
        rows
    }
}
