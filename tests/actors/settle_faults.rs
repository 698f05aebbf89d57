//! Every receipt settles, under fault plans on the re-read (issue 25 item 5; sources.md H-6,
//! K-2, N-3; §11): for each save family — pause, resume, sandbox, Keeper settings, runtime form,
//! connector bind, Board vote, Goal transition — the save is applied on the embedded server,
//! then the read that confirms it is
//! - delayed (1.5 s): it still confirms within the bound ("confirmed HH:MM:SS UTC");
//! - answering the old value (`stale_304`: the client's cached body from before the save):
//!   "not confirmed after 10 s — the server still shows …" naming what it shows;
//! - failing (500 on every re-read): "committed, re-read failed (status_500) …", kept apart
//!   from "not confirmed" — the change is neither confirmed nor refuted.
//!
//! And, on the save itself, the connection dropped after the server applied it: the receipt is
//! outcome unknown (never resent) and the re-read tells "the re-read shows it applied".
//!
//! The stage is driven as the view actor drives it (`ModelRig::settle`: its demands cast to the
//! sources); the bound is reached by passing the stage a later `now` rather than waiting.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::registry_entry;
use crate::model_rig::{ModelRig, keeper_sources};
use crate::surface_rig::hub_entry;
use masc_tui::actors::board::vote::{BoardVote, VoteIntent};
use masc_tui::actors::board::{BOARD, BoardCommand, BoardSpawner};
use masc_tui::actors::connectors::ConnectorsSpawner;
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorBind};
use masc_tui::actors::keeper_detail::KeeperDetailCommand;
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use masc_tui::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use masc_tui::actors::registry::SourceEntry;
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::runtime::{RUNTIME_CONFIG, RUNTIME_CONFIG_RAW_PATH, RuntimeConfigSpawner};
use masc_tui::actors::saves::{SaveId, SaveKind};
use masc_tui::actors::work::PlanningSpawner;
use masc_tui::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use masc_tui::protocol::board_vote::VoteDirection;
use masc_tui::protocol::goal_transition::GoalAction;
use masc_tui::protocol::keeper_config::SandboxProfile;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::admission::ViewMark;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::{SaveCompanion, SaveRequest};
use masc_tui::view::saves::{SaveEntry, Settle};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const KEEPER: &str = "sangsu";
const ROSTER_PATH: &str = "/api/v1/gate/keepers";
const SETTINGS_PATH: &str = "/api/v1/keepers/sangsu/config";
const CONNECTORS_PATH: &str = "/api/v1/gate/connectors";
const POST: &str = "post-1001";
const POST_PATH: &str = "/api/v1/board/post-1001";
const PLANNING_PATH: &str = "/api/v1/dashboard/planning";

/// What happens to the re-reads after the receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reread {
    Delayed,
    OldValue,
    Failing,
    /// Not a re-read fault: the save's own request is dropped after the server applied it.
    DroppedAfterApply,
}

impl Reread {
    fn fault(self) -> &'static str {
        match self {
            Self::Delayed => r#"{"delay_ms":1500}"#,
            Self::OldValue => r#"{"stale_304":true}"#,
            Self::Failing => r#"{"status":500,"body":{"error":"injected"}}"#,
            Self::DroppedAfterApply => r#"{"drop":"after_apply"}"#,
        }
    }
}

/// Every GET of `paths` answers with `reread`'s fault (every POST, for a dropped save).
fn plan(paths: &[&str], reread: Reread) -> FaultPlan {
    let method = match reread {
        Reread::DroppedAfterApply => "POST",
        _ => "GET",
    };
    let rules: Vec<String> = paths
        .iter()
        .map(|p| {
            format!(
                r#"{{"match":{{"method":"{method}","path":"{p}"}},"fault":{}}}"#,
                reread.fault()
            )
        })
        .collect();
    FaultPlan::from_json(&format!(r#"{{"rules":[{}]}}"#, rules.join(","))).unwrap()
}

/// One save family: its sources, the reads that confirm it, and a save ready to submit.
trait Family {
    type K: SaveCompanion;
    /// The sources the save and its re-read need (given the rig's outbox file).
    fn sources(outbox: &Path) -> Vec<SourceEntry>;
    /// The GET routes whose answers confirm the save (faulted from before the save).
    const REREADS: &'static [&'static str];
    /// Re-read routes the save's own worker reads first (faulted only after its receipt).
    const AFTER_RECEIPT: &'static [&'static str] = &[];
    /// The route the save's own write is POSTed to.
    const WRITE: &'static str;
    /// What "the server still shows" names when the re-read answers the old value.
    const OLD_SHOWN: &'static str;
    /// Reads what the save needs and returns its intent.
    async fn ready(rig: &mut ModelRig) -> <Self::K as SaveKind>::Intent;
    /// Whether a read dispatched after `mark` came back (with a value or a failure).
    fn reread_ended(model: &Model, mark: ViewMark) -> bool;
}

fn entry<'m, K: SaveCompanion>(model: &'m Model, id: &SaveId) -> &'m SaveEntry<K> {
    K::kept(model).unwrap().get(id).unwrap()
}

/// Applies a save of family `F` on the embedded server, faults its re-reads with `reread`, and
/// returns what the settle stage ends in and its words.
async fn settle_under<F: Family>(reread: Reread) -> (Settle, String) {
    let mut rig = ModelRig::start(FaultPlan::default(), F::sources).await;
    let intent = F::ready(&mut rig).await;
    let dropped = reread == Reread::DroppedAfterApply;
    rig.server.set_faults(if dropped {
        plan(&[F::WRITE], reread)
    } else {
        plan(F::REREADS, reread)
    });
    let id = rig
        .submit(SaveRequest::new::<F::K>(intent))
        .unwrap()
        .save_id;
    rig.pump_until(|r| entry::<F::K>(&r.model, &id).phase.receipt().is_some())
        .await;
    let landed = entry::<F::K>(&rig.model, &id);
    assert_eq!(
        landed.phase.class(),
        Some(if dropped {
            SaveClass::OutcomeUnknown
        } else {
            SaveClass::Applied
        }),
        "{}: {:?}",
        F::K::KIND,
        landed.phase
    );
    let all: Vec<&str> = F::REREADS.iter().chain(F::AFTER_RECEIPT).copied().collect();
    rig.server.set_faults(if dropped {
        FaultPlan::default()
    } else {
        plan(&all, reread)
    });
    let writes = rig.server.request_count("POST", F::WRITE);
    let gets_before: usize = all.iter().map(|p| rig.server.request_count("GET", p)).sum();
    let mark = landed.receipt_mark.expect("the receipt is marked");
    match reread {
        Reread::Delayed | Reread::DroppedAfterApply => {
            rig.settle_until(|r| !entry::<F::K>(&r.model, &id).settle.open())
                .await;
        }
        Reread::OldValue | Reread::Failing => {
            // The stage demands its re-reads; once one came back, the bound passes.
            rig.settle(Instant::now());
            rig.pump_until(|r| F::reread_ended(&r.model, mark)).await;
            rig.settle(Instant::now() + Duration::from_secs(11));
        }
    }
    let gets_after: usize = all.iter().map(|p| rig.server.request_count("GET", p)).sum();
    assert!(
        gets_after > gets_before,
        "{}: the stage re-read ({gets_before} → {gets_after})",
        F::K::KIND
    );
    assert_eq!(
        rig.server.request_count("POST", F::WRITE),
        writes,
        "{}: never resent",
        F::K::KIND
    );
    let done = entry::<F::K>(&rig.model, &id);
    let words = done.words();
    let settle = done.settle.clone();
    rig.stop().await;
    (settle, words)
}

/// The three faults on family `F`, each asserted.
async fn every_fault<F: Family>() {
    let (settle, words) = settle_under::<F>(Reread::Delayed).await;
    assert!(
        matches!(settle, Settle::Confirmed { .. }),
        "{} delayed: {settle:?} {words}",
        F::K::KIND
    );
    assert!(words.contains("confirmed "), "{words}");

    let (settle, words) = settle_under::<F>(Reread::OldValue).await;
    assert!(
        matches!(settle, Settle::NotConfirmed { shown: Some(_), .. }),
        "{} old value: {settle:?} {words}",
        F::K::KIND
    );
    let still = format!(
        "not confirmed after 10 s — the server still shows {}",
        F::OLD_SHOWN
    );
    assert!(words.contains(&still), "{}: {words}", F::K::KIND);

    let (settle, words) = settle_under::<F>(Reread::Failing).await;
    assert!(
        matches!(settle, Settle::RereadFailed { ref failure, .. } if failure == "status_500"),
        "{} failing: {settle:?} {words}",
        F::K::KIND
    );
    assert!(
        words.contains("committed, re-read failed (status_500)"),
        "{words}"
    );
    assert!(!words.contains("not confirmed after"), "{words}");

    let (settle, words) = settle_under::<F>(Reread::DroppedAfterApply).await;
    assert!(
        matches!(settle, Settle::Confirmed { .. }),
        "{} dropped after apply: {settle:?} {words}",
        F::K::KIND
    );
    assert!(words.contains("the re-read shows it applied"), "{words}");
}

// --- the families -----------------------------------------------------------------------

fn roster_ended(model: &Model, mark: ViewMark) -> bool {
    let roster = &model.keepers.roster;
    roster.value_since(mark).is_some() || roster.failed_since(mark).is_some()
}

fn settings_ended(model: &Model, mark: ViewMark) -> bool {
    model.keeper_detail.of(KEEPER).is_some_and(|d| {
        d.settings.value_since(mark).is_some() || d.settings.failed_since(mark).is_some()
    })
}

async fn roster_paused(rig: &mut ModelRig, want: bool) {
    rig.pump_until(|r| {
        r.model
            .keepers
            .roster
            .fetched
            .last()
            .and_then(|o| o.value.keeper(KEEPER).and_then(|row| row.paused))
            == Some(want)
    })
    .await;
}

struct Pause;
impl Family for Pause {
    const WRITE: &'static str = "/api/v1/keepers/sangsu/directive";
    type K = LifecycleSave;
    const REREADS: &'static [&'static str] = &[ROSTER_PATH];
    const OLD_SHOWN: &'static str = "sangsu not paused";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        keeper_sources(outbox)
    }
    async fn ready(rig: &mut ModelRig) -> LifecycleIntent {
        roster_paused(rig, false).await;
        LifecycleIntent::new(KEEPER, LifecycleAction::Pause)
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        roster_ended(model, mark)
    }
}

struct Resume;
impl Family for Resume {
    const WRITE: &'static str = "/api/v1/keepers/sangsu/directive";
    type K = LifecycleSave;
    const REREADS: &'static [&'static str] = &[ROSTER_PATH];
    const OLD_SHOWN: &'static str = "sangsu paused";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        keeper_sources(outbox)
    }
    /// Paused first (a save of its own, seen by a roster re-read), then the resume.
    async fn ready(rig: &mut ModelRig) -> LifecycleIntent {
        roster_paused(rig, false).await;
        let pause =
            SaveRequest::new::<LifecycleSave>(LifecycleIntent::new(KEEPER, LifecycleAction::Pause));
        let id = rig.submit(pause).unwrap().save_id;
        rig.settle_until(|r| !entry::<LifecycleSave>(&r.model, &id).settle.open())
            .await;
        roster_paused(rig, true).await;
        LifecycleIntent::new(KEEPER, LifecycleAction::Resume)
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        roster_ended(model, mark)
    }
}

/// The settings snapshot of `KEEPER`, read once through the Keeper detail source.
async fn settings_read(
    rig: &mut ModelRig,
) -> masc_tui::protocol::keeper_config::KeeperConfigSnapshot {
    rig.detail(KeeperDetailCommand::Confirm {
        keeper: KEEPER.into(),
    });
    rig.pump_until(|r| {
        r.model
            .keeper_detail
            .of(KEEPER)
            .is_some_and(|d| d.settings.fetched.last().is_some())
    })
    .await;
    let detail = rig.model.keeper_detail.of(KEEPER).unwrap();
    detail
        .settings
        .fetched
        .last()
        .unwrap()
        .value
        .as_ref()
        .clone()
}

struct Sandbox;
impl Family for Sandbox {
    const WRITE: &'static str = SETTINGS_PATH;
    type K = SandboxSave;
    // The roster is the second witness; the settings route is the worker's own first read.
    const REREADS: &'static [&'static str] = &[ROSTER_PATH];
    const AFTER_RECEIPT: &'static [&'static str] = &[SETTINGS_PATH];
    const OLD_SHOWN: &'static str = "sangsu on ";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        keeper_sources(outbox)
    }
    async fn ready(rig: &mut ModelRig) -> SandboxIntent {
        let now = settings_read(rig).await.sandbox_profile;
        SandboxIntent {
            keeper: KEEPER.into(),
            profile: if now == SandboxProfile::Microvm {
                SandboxProfile::Docker
            } else {
                SandboxProfile::Microvm
            },
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        settings_ended(model, mark)
    }
}

struct Settings;
impl Family for Settings {
    const WRITE: &'static str = SETTINGS_PATH;
    type K = SettingsSave;
    const REREADS: &'static [&'static str] = &[SETTINGS_PATH];
    const OLD_SHOWN: &'static str = "other values of autoboot_enabled";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        keeper_sources(outbox)
    }
    async fn ready(rig: &mut ModelRig) -> SettingsIntent {
        let snapshot = settings_read(rig).await;
        let fields = snapshot.patch_fields();
        let now = fields
            .get("autoboot_enabled")
            .and_then(Value::as_bool)
            .expect("autoboot reported");
        let mut patch = Map::new();
        patch.insert("autoboot_enabled".into(), json!(!now));
        let mut before = Map::new();
        before.insert("autoboot_enabled".into(), json!(now));
        SettingsIntent {
            keeper: KEEPER.into(),
            expected: snapshot.config_revision.composite().unwrap().clone(),
            patch,
            confirm_context_shrink: false,
            before,
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        settings_ended(model, mark)
    }
}

struct Form;
impl Family for Form {
    const WRITE: &'static str = RUNTIME_CONFIG_RAW_PATH;
    type K = RuntimeForm;
    const REREADS: &'static [&'static str] = &[RUNTIME_CONFIG_RAW_PATH];
    const OLD_SHOWN: &'static str = "runtime.toml at ";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        vec![registry_entry(RuntimeConfigSpawner), hub_entry(outbox)]
    }
    async fn ready(rig: &mut ModelRig) -> FormIntent {
        rig.pump_until(|r| r.handles.contains_key(&RUNTIME_CONFIG))
            .await;
        rig.demand(RUNTIME_CONFIG);
        rig.pump_until(|r| r.model.runtime.config.fetched.last().is_some())
            .await;
        let raw = rig
            .model
            .runtime
            .config
            .fetched
            .last()
            .unwrap()
            .value
            .clone();
        FormIntent {
            path: raw.path.clone(),
            opening_revision: raw.source_revision.clone(),
            source_text: raw.source_text.clone(),
            edit: FormEdit::SetContextOverride {
                runtime_id: "openai.gpt-5".into(),
                value: 300_000,
            },
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        let slot = &model.runtime.config;
        slot.value_since(mark).is_some() || slot.failed_since(mark).is_some()
    }
}

struct Bind;
impl Family for Bind {
    const WRITE: &'static str = "/api/v1/gate/connector/bind";
    type K = ConnectorBind;
    const REREADS: &'static [&'static str] = &[CONNECTORS_PATH];
    const OLD_SHOWN: &'static str = "990001 not bound to rondo";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        vec![
            registry_entry(ConnectorsSpawner::new(Duration::from_secs(3600))),
            hub_entry(outbox),
        ]
    }
    async fn ready(rig: &mut ModelRig) -> BindingIntent {
        rig.pump_until(|r| r.model.connectors.status.fetched.last().is_some())
            .await;
        BindingIntent {
            connector_id: "discord".into(),
            channel_id: "990001".into(),
            keeper_name: "rondo".into(),
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        let slot = &model.connectors.status;
        slot.value_since(mark).is_some() || slot.failed_since(mark).is_some()
    }
}

struct Vote;
impl Family for Vote {
    const WRITE: &'static str = "/api/v1/tools/masc_board_vote";
    type K = BoardVote;
    const REREADS: &'static [&'static str] = &[POST_PATH];
    const OLD_SHOWN: &'static str = "your vote none (score ";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        vec![
            registry_entry(BoardSpawner::new(Duration::from_secs(3600))),
            hub_entry(outbox),
        ]
    }
    async fn ready(rig: &mut ModelRig) -> VoteIntent {
        rig.pump_until(|r| r.handles.contains_key(&BOARD)).await;
        let open = BoardCommand::OpenPost {
            post_id: POST.into(),
        };
        rig.model.board.on_command(&open);
        rig.send(BOARD, open);
        rig.pump_until(|r| {
            r.model
                .board
                .post
                .as_ref()
                .is_some_and(|p| p.detail.fetched.last().is_some())
        })
        .await;
        VoteIntent {
            post_id: POST.into(),
            direction: VoteDirection::Up,
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        model.board.post.as_ref().is_some_and(|p| {
            p.detail.value_since(mark).is_some() || p.detail.failed_since(mark).is_some()
        })
    }
}

struct Goal;
impl Family for Goal {
    const WRITE: &'static str = "/api/v1/tools/masc_goal_transition";
    type K = GoalTransition;
    const REREADS: &'static [&'static str] = &[PLANNING_PATH];
    const OLD_SHOWN: &'static str = "the goal executing";
    fn sources(outbox: &Path) -> Vec<SourceEntry> {
        vec![
            registry_entry(PlanningSpawner {
                cadence: Duration::from_secs(3600),
            }),
            hub_entry(outbox),
        ]
    }
    async fn ready(rig: &mut ModelRig) -> TransitionIntent {
        rig.pump_until(|r| r.model.work.planning.fetched.last().is_some())
            .await;
        TransitionIntent {
            goal_id: "goal-1".into(),
            action: GoalAction::RequestComplete,
            note: None,
        }
    }
    fn reread_ended(model: &Model, mark: ViewMark) -> bool {
        let slot = &model.work.planning;
        slot.value_since(mark).is_some() || slot.failed_since(mark).is_some()
    }
}

/// N-3 under faults: pause.
#[tokio::test]
async fn n3_a_pause_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Pause>().await;
}

/// N-3 under faults: resume.
#[tokio::test]
async fn n3_a_resume_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Resume>().await;
}

/// H-6 under faults: a sandbox save (the settings snapshot, the roster as second witness).
#[tokio::test]
async fn h6_a_sandbox_save_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Sandbox>().await;
}

/// H-6 under faults: a Keeper settings save.
#[tokio::test]
async fn h6_a_settings_save_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Settings>().await;
}

/// I-1 under faults: a runtime form commit (the raw config re-read's revision).
#[tokio::test]
async fn i1_a_runtime_form_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Form>().await;
}

/// §7.3 under faults: a connector bind (the connectors status re-read).
#[tokio::test]
async fn s7_3_a_bind_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Bind>().await;
}

/// §15.6 under faults: a Board vote (the open post's detail re-read, `own_vote`).
#[tokio::test]
async fn s15_6_a_vote_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Vote>().await;
}

/// §15.4 under faults: a Goal transition (the Planning re-read's phase).
#[tokio::test]
async fn s15_4_a_goal_transition_settles_under_reread_faults_and_a_drop_after_apply() {
    every_fault::<Goal>().await;
}
