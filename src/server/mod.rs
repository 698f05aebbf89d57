//! Embedded MASC-compatible workspace server (architecture.md §5, protocol.md §12).
//!
//! `masc-tui serve` and tests start it with [`start`]; it serves one seeded workspace from a
//! SQLite store on loopback, with receipts, ETags, auth classes and a fault plan.
//!
//! # Layout
//!
//! - [`state`]: [`AppState`](state::AppState) shared by handlers (identity, auth, faults, store).
//! - [`http`]: the [`Guard`](http::Guard) extractor (auth class + expected-root check) and
//!   JSON/error helpers.
//! - [`middleware`]: the single layer for faults, warming, receipts and ETag/304.
//! - [`faults`]: the pure fault-plan engine (format in `docs/fault-plans.md`).
//! - [`store`]: SQLite with per-family numbered migrations and deterministic seeds.
//! - [`routes`]: one file per endpoint family, all registered in `routes::router`.
//!
//! # Adding an endpoint family
//!
//! 1. **Store**: create `store/<family>.rs` with `pub const FAMILY: Family` holding its
//!    `MIGRATIONS` (`Migration { version: 1, name, sql }`, append-only, versions per family) and
//!    a `seed(&Transaction)` that writes deterministic rows (use `store::seed_rng("<family>")`
//!    and times derived from `store::SEED_EPOCH`). Add `pub mod <family>;` and append
//!    `&<family>::FAMILY` to `store::FAMILIES` (after the families its seed reads).
//! 2. **Routes**: create `routes/<family>.rs` with `pub fn router() -> Router<AppState>`, and
//!    merge it in `routes::router`.
//! 3. **Auth + admission**: every handler takes `_: Guard<Public|Read|Operator|Admin>` as its
//!    first extractor. It answers 401 (`www-authenticate: Bearer`) when a token is configured
//!    and missing/wrong, then 409 `workspace_mismatch` when `X-MASC-Expected-Root` differs, before
//!    the handler runs. Receipts, ETag, `cache-control` and 304 are added by the middleware for
//!    every `GET /api/v1/…`; handlers never set them.
//! 4. **Store access**: `state.store().read(|conn| …)` and `state.store().write(|tx| …)` run on
//!    the blocking pool; `write` is one transaction, committed only on `Ok`. Do CAS checks inside
//!    the `write` closure (read the revision, compare, update) so two writers on the same base
//!    revision cannot both win. Return `ApiResult`; `?` on a `StoreError` gives a 500 `{"error"}`.
//! 5. **Responses**: `http::json_ok`, `json_status`, `error_body` (`{"error"}`), `gate_error`
//!    (`{"ok":false,"error"}`). Build JSON with `serde_json::json!` or your own serde structs;
//!    never use `crate::protocol` decoders here.
//! 6. **Fault hooks**: wrap the response with `http::with_echo(resp, &["request_id", …])` to name
//!    the top-level echo fields `{"echo":"wrong"}` alters, and `http::with_next_cursor(resp,
//!    "next_cursor", request_cursor)` on paged routes for `{"repeat_cursor":true}`. SSE handlers
//!    read `http::request_faults(&extensions)` and apply echo faults themselves; `sse_cut_after`,
//!    delays, status, malformed, truncate, receipt and drop faults need nothing from a handler.
//!    For `{"drop":"after_apply"}` on a write, commit in the handler before returning.
//! 7. **Tests**: `tests/server/server_<family>.rs` through plain reqwest against `start(..)`.

mod auth_class;
pub(crate) mod cache;
pub mod compat;
pub mod conn;
pub mod faults;
pub mod http;
pub mod middleware;
pub mod origin;
pub mod routes;
pub mod seeded;
pub mod state;
pub mod store;

use compat::{MascRelease, Played};
use faults::FaultPlan;
use origin::OriginPolicy;
use state::{AppState, AuthConfig, Identity};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How requests are authenticated (§1.3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AuthMode {
    /// `--no-auth`: every request is accepted.
    NoAuth,
    /// A fixed bearer token.
    Token(String),
    /// A random bearer token made at start (read it with [`RunningServer::token`]).
    #[default]
    GeneratedToken,
}

/// Options of [`start`].
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Loopback only; anything else is refused.
    pub host: IpAddr,
    /// 0 = ephemeral.
    pub port: u16,
    /// Workspace directory (created if missing). `None` = a temp dir the handle keeps alive.
    pub data_dir: Option<PathBuf>,
    pub faults: FaultPlan,
    /// Enables the `/__admin/*` routes.
    pub test_mode: bool,
    pub auth: AuthMode,
    /// `/health` answers `state_ready:false` this many times first (scripted boot).
    pub boot_delay_reads: u32,
    /// Behave like an older MASC without workspace receipts: `/health` advertises no
    /// `admission`, and no response carries `X-MASC-Workspace-Receipt` (protocol.md §2.3:
    /// reads are then admitted in health mode, flagged on every result).
    pub legacy_no_receipts: bool,
    /// Play a whole older MASC release: its route set and shapes, no receipts ([`compat`]), so
    /// the client's tolerance of older servers is tested against a server.
    pub compat: Option<MascRelease>,
    /// Host names besides the listening address and `localhost` that requests may name in
    /// `Host` (`--allow-host`; docs/security.md). The port must still be the listening one.
    pub allowed_hosts: Vec<String>,
    /// Add a workspace at scale on top of the seed (`--scale`; docs/performance.md).
    pub scale: Option<store::scale::Scale>,
    /// Seed a calm workspace: no Keeper in error, no pending approval, no held call
    /// ([`store::calm`]; `demo --workspaces N` for every workspace after the first).
    pub calm: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            data_dir: None,
            faults: FaultPlan::none(),
            test_mode: false,
            auth: AuthMode::GeneratedToken,
            boot_delay_reads: 0,
            legacy_no_receipts: false,
            compat: None,
            allowed_hosts: Vec::new(),
            scale: None,
            calm: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("refusing to bind non-loopback host {0}")]
    NonLoopback(IpAddr),
    #[error("data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("store: {0}")]
    Store(#[from] store::StoreError),
    #[error("bind {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("startup task failed: {0}")]
    Task(String),
}

/// A started server. Dropping it without [`RunningServer::shutdown`] leaves the accept loop
/// running until the runtime ends.
pub struct RunningServer {
    addr: SocketAddr,
    token: Option<String>,
    state: AppState,
    shutdown: CancellationToken,
    task: JoinHandle<()>,
    _temp: Option<tempfile::TempDir>,
}

impl RunningServer {
    /// `http://host:port` (IPv6 bracketed), no trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bearer token, `None` with [`AuthMode::NoAuth`].
    pub fn token(&self) -> Option<String> {
        self.token.clone()
    }

    /// The `effective_base_path` currently served.
    pub fn base_path(&self) -> String {
        self.state.identity().base_path
    }

    /// The `effective_masc_root` currently served (the receipt value).
    pub fn masc_root(&self) -> String {
        self.state.identity().masc_root
    }

    /// Replace the fault plan (rule counters restart from zero).
    pub fn set_faults(&self, plan: FaultPlan) {
        self.state.set_faults(plan);
    }

    /// Requests seen for `method path` (path without query), faulted or not.
    pub fn request_count(&self, method: &str, path: &str) -> usize {
        self.state.request_count(method, path)
    }

    /// Serve another identity from now on (the "restart as another workspace" fault).
    pub fn switch_workspace(&self, base: &str, root: &str) {
        self.state.set_identity(Identity {
            base_path: base.to_string(),
            masc_root: root.to_string(),
        });
    }

    /// The shared state (for in-process tests that poke the store).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Stop accepting, close connections, wait for the accept loop.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        let _ = self.task.await;
    }
}

fn make_token() -> String {
    use rand::RngExt;
    let mut rng = rand::rng();
    let bytes: [u8; 24] = rng.random();
    format!("masc-tui-{}", hex::encode(bytes))
}

/// Start the server: open (and seed) the store, bind, spawn the accept loop.
pub async fn start(opts: ServeOptions) -> Result<RunningServer, ServerError> {
    if !opts.host.is_loopback() {
        return Err(ServerError::NonLoopback(opts.host));
    }
    let (dir, temp) = match &opts.data_dir {
        Some(p) => (p.clone(), None),
        None => {
            let t = tempfile::Builder::new()
                .prefix("masc-tui-workspace-")
                .tempdir()
                .map_err(|source| ServerError::DataDir {
                    path: std::env::temp_dir(),
                    source,
                })?;
            (t.path().to_path_buf(), Some(t))
        }
    };
    let io_err = |path: &PathBuf| {
        let path = path.clone();
        move |source| ServerError::DataDir { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let base = std::fs::canonicalize(&dir).map_err(io_err(&dir))?;
    let masc_root = base.join(".masc");
    std::fs::create_dir_all(&masc_root).map_err(io_err(&masc_root))?;
    let db_path = masc_root.join("masc-tui-server.sqlite3");
    // The store holds the whole workspace: owner-only (0600) before SQLite creates it; its
    // -wal and -shm files take the same mode.
    crate::private_file::ensure_private(&db_path).map_err(io_err(&db_path))?;
    let scale = opts.scale;
    let calm = opts.calm;
    let store = tokio::task::spawn_blocking(move || {
        let store = store::Store::open(&db_path)?;
        if calm {
            store.apply_calm()?;
        }
        if let Some(scale) = scale {
            let started = std::time::Instant::now();
            if store.apply_scale(&scale)? {
                tracing::info!(
                    keepers = scale.keepers,
                    tasks = scale.tasks,
                    chat_messages = scale.chat_messages,
                    ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    "workspace scaled"
                );
            }
        }
        Ok::<_, store::StoreError>(store)
    })
    .await
    .map_err(|e| ServerError::Task(e.to_string()))??;

    let token = match &opts.auth {
        AuthMode::NoAuth => None,
        AuthMode::Token(t) => Some(t.trim().to_string()),
        AuthMode::GeneratedToken => Some(make_token()),
    };
    let identity = Identity {
        base_path: base.to_string_lossy().into_owned(),
        masc_root: masc_root.to_string_lossy().into_owned(),
    };
    let bind = SocketAddr::new(opts.host, opts.port);
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .map_err(|source| ServerError::Bind { addr: bind, source })?;
    let addr = listener
        .local_addr()
        .map_err(|source| ServerError::Bind { addr: bind, source })?;
    let state = AppState::new(
        store,
        identity,
        AuthConfig {
            token: token.clone(),
        },
        opts.test_mode,
        opts.faults.clone(),
        opts.boot_delay_reads,
        Played {
            no_receipts: opts.legacy_no_receipts,
            release: opts.compat,
        },
        OriginPolicy::new(addr, &opts.allowed_hosts),
    );
    let app = routes::router(state.clone());
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(conn::serve(listener, app, shutdown.clone()));
    tracing::info!(
        %addr,
        base = %state.identity().base_path,
        release = %opts.compat.map(|r| r.to_string()).unwrap_or_else(|| "current".into()),
        "workspace server started"
    );
    Ok(RunningServer {
        addr,
        token,
        state,
        shutdown,
        task,
        _temp: temp,
    })
}
