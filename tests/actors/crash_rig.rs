//! The rig of the saves-across-a-real-process-death tests (sources.md H-15, H-16, I-2, K-3): the
//! embedded server of the parent, a child process (this test binary re-run with `--exact <child
//! test> --ignored`) that submits one save whose POST the server holds (a long delay fault) and
//! reports it once its outbox row says `sending`, the SIGKILL of that child (no cleanup runs), and
//! a fresh runtime on the same outbox file. Each save kind's crash test brings its own child test
//! and its own assertions. Kinds of the Decisions surface run on `decisions_rig`; the others on
//! `surface_rig` (the save hub alone, the kind's surface fed into a real view model).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::plan;
use crate::decisions_rig::{DecisionsRig, FaultWatch, client, decisions_rig};
use crate::surface_rig::{SurfaceRig, surface_rig};
use masc_tui::actors::contract::SlotKey;
use masc_tui::actors::saves::SaveId;
use masc_tui::outbox::{Outbox, SaveRow, SaveRowState};
use masc_tui::protocol::client::WorkspaceClient;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::timeline::capture::StageRecorder;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

const ENV_URL: &str = "SAVE_CRASH_CHILD_URL";
const ENV_PATH: &str = "SAVE_CRASH_CHILD_OUTBOX";
const TOKEN: &str = "save-crash-token";
/// The line a child prints once its save is `sending`, followed by the save id.
const SENDING: &str = "SENDING ";

/// The child test `name` of the module `module` (its `module_path!()`) as the harness lists
/// it: the module path without the crate.
pub fn child_test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, rest)) if !rest.is_empty() => format!("{rest}::{name}"),
        _ => name.to_string(),
    }
}

pub async fn server(faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        faults,
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

/// A fresh runtime (save hub + Decisions source) on `outbox`, as after a restart.
pub async fn restarted(server: &RunningServer, outbox: &Path) -> DecisionsRig {
    decisions_rig(
        client(&server.base_url(), TOKEN, Duration::from_secs(10)),
        outbox.to_path_buf(),
    )
    .await
}

/// In the child: a client of the parent's server (a long timeout: the POST is held) and the
/// parent's outbox file, or `None` in a normal run (no parent environment).
fn child_env() -> Option<(WorkspaceClient, PathBuf)> {
    let (Ok(url), Ok(path)) = (std::env::var(ENV_URL), std::env::var(ENV_PATH)) else {
        return None;
    };
    Some((
        client(&url, TOKEN, Duration::from_secs(600)),
        PathBuf::from(path),
    ))
}

/// In the child: the rig on the parent's server and outbox, or `None` in a normal run.
pub async fn child_rig() -> Option<DecisionsRig> {
    let (client, path) = child_env()?;
    Some(decisions_rig(client, path).await)
}

/// A fresh runtime with only the save hub on `outbox`, its surface `(S, P)` fed into a real
/// view model, as after a restart.
pub async fn restarted_surface<S, P>(server: &RunningServer, outbox: &Path) -> SurfaceRig<S, P>
where
    S: SlotKey,
    P: Clone + Send + std::fmt::Debug + 'static,
{
    surface_rig(
        client(&server.base_url(), TOKEN, Duration::from_secs(10)),
        outbox.to_path_buf(),
    )
    .await
}

/// In the child: the save hub alone on the parent's server and outbox, or `None` in a normal
/// run.
pub async fn child_surface_rig<S, P>() -> Option<SurfaceRig<S, P>>
where
    S: SlotKey,
    P: Clone + Send + std::fmt::Debug + 'static,
{
    let (client, path) = child_env()?;
    Some(surface_rig(client, path).await)
}

/// A JSON read of `path` from `base` with the rig's token (what a save's inputs are based on).
async fn read_json(base: &str, path: &str) -> serde_json::Value {
    let response = reqwest::Client::new()
        .get(format!("{base}{path}"))
        .bearer_auth(TOKEN)
        .header("X-MASC-Agent", "masc-tui")
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "GET {path}: {}",
        response.status()
    );
    response.json().await.unwrap()
}

/// In the child: a JSON read of `path` from the parent's server.
pub async fn child_get(path: &str) -> serde_json::Value {
    read_json(&std::env::var(ENV_URL).unwrap(), path).await
}

/// In the parent: a JSON read of `path` from `server`.
pub async fn get_json(server: &RunningServer, path: &str) -> serde_json::Value {
    read_json(&server.base_url(), path).await
}

/// In the child: tells the parent the save is `sending`, then holds until killed.
pub async fn report_sending_and_hold(id: &SaveId) {
    println!("{SENDING}{id}");
    std::future::pending::<()>().await;
}

/// Starts the child test `name` against `server` and `outbox`; returns the child and the save
/// id it reported once its save was `sending`.
pub async fn spawn_child(name: &str, server: &RunningServer, outbox: &Path) -> (Child, SaveId) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--nocapture"])
        .env(ENV_URL, server.base_url())
        .env(ENV_PATH, outbox)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let id = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if let Some(id) = line.strip_prefix(SENDING) {
                return Some(SaveId(id.to_string()));
            }
        }
        None
    })
    .await
    .unwrap()
    .expect("the child reported its save");
    (child, id)
}

/// SIGKILL: no cleanup runs in the child.
pub fn kill(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A save killed mid-flight: the server that holds its POST, the outbox the child left, the
/// save's id and its row as the child left it (`sending`).
pub struct Killed {
    pub server: RunningServer,
    pub path: PathBuf,
    pub id: SaveId,
    pub before: SaveRow,
}

/// What must live as long as the test: the outbox's directory and the fault watch's trace.
pub struct Held {
    _dir: tempfile::TempDir,
    _trace: tracing::subscriber::DefaultGuard,
}

/// The outbox row of `id` in `outbox`, read through a handle of its own.
pub fn row_of(outbox: &Path, id: &SaveId) -> SaveRow {
    Outbox::open_path(outbox)
        .unwrap()
        .save_row(&id.0)
        .unwrap()
        .expect("the save's row")
}

/// Runs the child test `child` (of the calling module) against a server that holds every
/// `POST post`, waits until its POST is at the server and its row says `sending`, then kills
/// it with SIGKILL; nothing settles the row.
pub async fn kill_mid_save(post: &str, child: &str) -> (Killed, Held) {
    let watch = FaultWatch::default();
    let trace =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(watch.clone()));
    let server = server(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{post}"}},"fault":{{"delay_ms":600000}}}}"#
    )))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("outbox.sqlite3");
    let (process, id) = spawn_child(child, &server, &path).await;
    // The POST is at the server, held by its delay (the fault fired on arrival).
    watch.wait_for(1).await;
    // On disk: `sending`, written by the child's session.
    let before = row_of(&path, &id);
    assert_eq!(before.state, SaveRowState::Sending);
    kill(process);
    assert_eq!(
        row_of(&path, &id).state,
        SaveRowState::Sending,
        "nothing settled it"
    );
    (
        Killed {
            server,
            path,
            id,
            before,
        },
        Held {
            _dir: dir,
            _trace: trace,
        },
    )
}

/// What every crash test checks of a save restored after the restart: its entry in the view's
/// book is outcome unknown with the inputs and workspace the child's row holds, and the row
/// is settled outcome unknown with the same inputs.
pub fn assert_restored_unknown<K: masc_tui::actors::saves::SaveKind>(
    entry: &masc_tui::view::saves::SaveEntry<K>,
    before: &SaveRow,
    after: &SaveRow,
) where
    K::Intent: PartialEq + std::fmt::Debug,
{
    use masc_tui::protocol::outcome::SaveClass;
    let written: K::Intent = serde_json::from_str(&before.intent).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::OutcomeUnknown));
    assert_eq!(entry.intent, written, "same inputs");
    assert_eq!(entry.workspace, before.workspace);
    assert_eq!(
        after.state,
        SaveRowState::Settled(SaveClass::OutcomeUnknown)
    );
    assert_eq!(after.intent, before.intent);
}

/// The `stage:outcome` pairs traced for `source` in `rig` (a restored save: `dispatch:`,
/// `worker_return:outcome_unknown`, `admit:` — no worker entered).
pub fn stages_of(rig: &DecisionsRig, source: &str) -> Vec<String> {
    stages_in(&rig.recorder, source)
}

/// [`stages_of`] from any rig's recorder.
pub fn stages_in(recorder: &StageRecorder, source: &str) -> Vec<String> {
    recorder
        .records_where(|r| r.source == source)
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect()
}
