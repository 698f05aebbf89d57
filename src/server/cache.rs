//! The response cache of the embedded server: the answer of a read route is kept
//! per (path with query, data revision), so a conditional GET of unchanged data is answered
//! 304 — and an unconditional one with the stored bytes — without running the handler, reading
//! the store or rebuilding and hashing the body.
//!
//! Only routes whose answer is a function of the store and the query are listed
//! ([`cacheable`]); anything that reads the clock, counts reads (the tools warming script) or
//! streams is not. A request any fault fired on, a booting server and an older MASC release
//! always run the handler. The route's auth class and the expected-root check still run on
//! every request (the class is the one the route's `Guard` declared when the answer was stored).

use super::auth_class::AuthClass;
use axum::http::HeaderMap;
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::Arc;

/// Read routes whose 200 body depends only on the stored data and the query.
const CACHEABLE: &[&str] = &[
    "/api/v1/gate/keepers",
    "/api/v1/dashboard/tasks",
    "/api/v1/dashboard/tasks/detail",
    "/api/v1/dashboard/tasks/history/page",
    "/api/v1/dashboard/planning",
    "/api/v1/dashboard/goals",
    "/api/v1/dashboard/goals/detail",
    "/api/v1/gate/connectors",
    "/api/v1/gate/connector/names",
    "/api/v1/board",
    "/api/v1/board/hearths",
];

/// At most this many answers are kept; past it the cache starts over.
const MAX_ENTRIES: usize = 512;

pub(crate) fn cacheable(path: &str) -> bool {
    CACHEABLE.contains(&path)
}

/// What the data revision is made of: the store's write revision and the server's own
/// configuration generation (identity, fault plan).
pub(crate) type Revision = (u64, u64);

/// One stored 200: its tag, headers (no receipt) and body, and the guard's auth class.
#[derive(Debug)]
pub(crate) struct CachedResponse {
    pub revision: Revision,
    pub class: AuthClass,
    pub tag: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Debug, Default)]
pub(crate) struct ResponseCache {
    entries: HashMap<String, Arc<CachedResponse>>,
}

impl ResponseCache {
    /// The answer stored for `key` at exactly this revision.
    pub fn get(&self, key: &str, revision: Revision) -> Option<Arc<CachedResponse>> {
        self.entries
            .get(key)
            .filter(|e| e.revision == revision)
            .cloned()
    }

    /// Keeps `entry`; answers of older revisions are dropped on the way.
    pub fn put(&mut self, key: String, entry: CachedResponse) {
        let revision = entry.revision;
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        self.entries.retain(|_, e| e.revision == revision);
        self.entries.insert(key, Arc::new(entry));
    }
}
