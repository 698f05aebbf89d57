//! The shared rig of the server-driven actor tests: an embedded server with a fault plan, the
//! real client, the whole runtime reporting to a collecting view, and a stage recorder.
//! Install order matters: the recorder is the thread's default subscriber for the rig's life,
//! so tests run on the current-thread runtime.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test rig

use masc_tui::actors::messages::{Observation, ViewMsg};
use masc_tui::actors::read::testing::{ViewLog, collecting_view};
use masc_tui::actors::supervisor::{RestartPolicy, RuntimeConfig, RuntimeHandle, start_runtime};
use masc_tui::actors::ticket::SourceKey;
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::timeline::capture::StageRecorder;
use std::time::Duration;

const TOKEN: &str = "actor-test-token";

pub struct Rig {
    pub server: RunningServer,
    pub runtime: RuntimeHandle,
    pub log: ViewLog,
    pub recorder: StageRecorder,
    _trace: tracing::subscriber::DefaultGuard,
}

/// A fault plan from the JSON of its rules.
pub fn plan(rules: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rules}]}}"#)).unwrap()
}

/// Starts the rig. `expected_base: None` expects the server's own base; `request_timeout`
/// overrides the client's 10 s (timeout scenarios). The roster reads once per epoch and on
/// explicit demand only (no cadence reads in between); `/health` is polled every 20 ms.
pub async fn start_rig(
    serve: ServeOptions,
    expected_base: Option<&str>,
    request_timeout: Option<Duration>,
) -> Rig {
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let server = start(ServeOptions {
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..serve
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = TokenSource::Fixed(TOKEN.into());
    if let Some(timeout) = request_timeout {
        cc.request_timeout = timeout;
    }
    let client = WorkspaceClient::new(cc).unwrap();
    let (view, log) = collecting_view().await.unwrap();
    let cfg = RuntimeConfig {
        expected_base: Some(expected_base.map_or_else(|| server.base_path(), str::to_string)),
        health_interval: Duration::from_millis(20),
        keepers_roster_interval: Duration::from_secs(3600),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        },
        fault_drills: true,
    };
    let runtime = start_runtime(client, view, cfg).await.unwrap();
    Rig {
        server,
        runtime,
        log,
        recorder,
        _trace: trace,
    }
}

/// The rig on the default server with `faults` (the client's own timeouts).
pub async fn rig_with(faults: FaultPlan) -> Rig {
    start_rig(
        ServeOptions {
            faults,
            ..ServeOptions::default()
        },
        None,
        None,
    )
    .await
}

impl Rig {
    /// The observation of `key`: one already received (the slots of one source arrive in any
    /// order, E-1/T-1), else the next one.
    pub async fn observed_of(&mut self, key: &SourceKey) -> Observation {
        let is_it = |m: &ViewMsg| matches!(m, ViewMsg::Observed(o) if o.ticket.source == *key);
        if let Some(ViewMsg::Observed(o)) = self.log.last_seen(is_it) {
            return o.clone();
        }
        match self.log.wait_for(is_it).await {
            Some(ViewMsg::Observed(o)) => o.clone(),
            other => panic!("no observation of {key}: {other:?}"),
        }
    }

    /// Stops the runtime, then the server.
    pub async fn finish(self) {
        self.runtime.stop().await;
        self.server.shutdown().await;
    }
}
