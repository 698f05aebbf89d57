//! Every receipt settles, one truth on every screen, undo where exact — on the embedded server
//! with the real sources feeding one view model (`model_rig`): a pause is confirmed by the
//! roster re-read after its receipt (N-3) and undone by a resume; a sandbox save is confirmed
//! by the settings snapshot (§9.5, H-6) and then shows on the detail's metadata (§14.7) and the
//! roster (§4.1) alike; its undo is a settings patch against the revision it produced, refused
//! in the view once the settings moved again (H-8's CAS).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::model_rig::{ModelRig, keeper_sources};
use masc_tui::actors::keeper_detail::{KeeperDetailCommand, Viewer};
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave, profile_word};
use masc_tui::actors::keepers::ops::settings::SettingsSave;
use masc_tui::actors::saves::{SaveId, SaveKind};
use masc_tui::protocol::keeper_config::SandboxProfile;
use masc_tui::protocol::keepers::KeeperRowSlot;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::SaveRequest;
use masc_tui::view::save_path::kinds::find_undo;
use masc_tui::view::save_path::undo::Undo;
use masc_tui::view::saves::Settle;
use masc_tui::view::screens::keepers::operations::op_line;

const KEEPER: &str = "sangsu";

fn lifecycle_settle(m: &Model, id: &SaveId) -> Settle {
    m.keepers.ops.lifecycle.get(id).unwrap().settle.clone()
}

fn ended(settle: &Settle) -> bool {
    matches!(
        settle,
        Settle::Confirmed { .. } | Settle::NotConfirmed { .. } | Settle::Final
    )
}

fn roster_paused(m: &Model) -> Option<bool> {
    m.keepers
        .roster
        .fetched
        .last()?
        .value
        .rows
        .iter()
        .find_map(|s| match s {
            KeeperRowSlot::Row(r) if r.name == KEEPER => r.paused,
            _ => None,
        })
}

fn roster_sandbox(m: &Model) -> Option<String> {
    m.keepers
        .roster
        .fetched
        .last()?
        .value
        .rows
        .iter()
        .find_map(|s| match s {
            KeeperRowSlot::Row(r) if r.name == KEEPER => r.sandbox_profile().map(str::to_string),
            _ => None,
        })
}

fn pause_or_resume(action: LifecycleAction) -> SaveRequest {
    SaveRequest::new::<LifecycleSave>(LifecycleIntent::new(KEEPER, action))
}

/// N-3: "pause: sent" becomes "confirmed <time>" once the roster re-read the settle stage
/// demanded after the receipt shows the Keeper paused; its undo is a resume, submitted through
/// the one save path and confirmed the same way.
#[tokio::test]
async fn n3_a_pause_is_confirmed_by_the_roster_re_read_and_undone_by_a_resume() {
    let mut rig = ModelRig::start(FaultPlan::default(), keeper_sources).await;
    rig.pump_until(|r| roster_paused(&r.model) == Some(false))
        .await;
    let pause = rig
        .submit(pause_or_resume(LifecycleAction::Pause))
        .unwrap()
        .save_id;
    rig.settle_until(|r| ended(&lifecycle_settle(&r.model, &pause)))
        .await;
    assert!(
        matches!(
            lifecycle_settle(&rig.model, &pause),
            Settle::Confirmed { .. }
        ),
        "{:?}",
        lifecycle_settle(&rig.model, &pause)
    );
    assert_eq!(roster_paused(&rig.model), Some(true));
    let ws = rig.model.gate().current().unwrap().workspace.0.clone();
    let (line, _) = op_line(rig.model.keepers.ops.latest(KEEPER, &ws).unwrap());
    assert!(line.contains("confirmed "), "{line}");

    // The undo: a resume, made from the settled pause.
    let undo = find_undo(&rig.model, LifecycleSave::KIND, &pause).unwrap();
    let Undo::Exact { request, writes } = undo else {
        panic!("a confirmed pause has an exact undo: {undo:?}");
    };
    assert!(writes.contains(KEEPER), "{writes}");
    let resume = rig.submit(request).unwrap().save_id;
    assert_eq!(
        rig.model
            .keepers
            .ops
            .lifecycle
            .get(&resume)
            .unwrap()
            .intent
            .action,
        LifecycleAction::Resume
    );
    rig.settle_until(|r| ended(&lifecycle_settle(&r.model, &resume)))
        .await;
    assert!(matches!(
        lifecycle_settle(&rig.model, &resume),
        Settle::Confirmed { .. }
    ));
    assert_eq!(roster_paused(&rig.model), Some(false));
    // Undone already: the pause's undo is refused from what the roster shows now; the resume's
    // undo is a pause again (they undo each other).
    match find_undo(&rig.model, LifecycleSave::KIND, &pause).unwrap() {
        Undo::NotNow(why) => assert!(why.contains("not paused already"), "{why}"),
        other => panic!("an undone pause has no undo now: {other:?}"),
    }
    assert!(matches!(
        find_undo(&rig.model, LifecycleSave::KIND, &resume).unwrap(),
        Undo::Exact { .. }
    ));
    rig.stop().await;
}

/// One truth (§9.5, §14.7, §4.1): a sandbox save is confirmed by the settings snapshot read
/// after its receipt, and then the detail's metadata and the roster show the same sandbox and
/// network; its undo puts the old profile back against the revision it produced, and once the
/// settings moved again the older save's undo is refused with the reason.
#[tokio::test]
async fn h6_a_sandbox_save_shows_on_every_screen_and_undoes_against_its_revision() {
    let mut rig = ModelRig::start(FaultPlan::default(), keeper_sources).await;
    rig.detail(KeeperDetailCommand::Watch {
        viewer: Viewer::Detail,
        keeper: KEEPER.into(),
    });
    rig.pump_until(|r| {
        r.model
            .keeper_detail
            .of(KEEPER)
            .is_some_and(|d| d.settings.fetched.last().is_some() && d.meta.fetched.last().is_some())
    })
    .await;
    let before = rig.model.keeper_detail.of(KEEPER).unwrap();
    let old = before
        .settings
        .fetched
        .last()
        .unwrap()
        .value
        .sandbox_profile;
    // The seed's one record: metadata and settings agree before any save.
    assert_eq!(
        before
            .meta
            .fetched
            .last()
            .unwrap()
            .value
            .sandbox_profile
            .as_deref(),
        Some(profile_word(old))
    );
    let new = if old == SandboxProfile::Microvm {
        SandboxProfile::Docker
    } else {
        SandboxProfile::Microvm
    };
    let id = rig
        .submit(SaveRequest::new::<SandboxSave>(SandboxIntent {
            keeper: KEEPER.into(),
            profile: new,
        }))
        .unwrap()
        .save_id;
    rig.settle_until(|r| ended(&r.model.keepers.ops.sandbox.get(&id).unwrap().settle))
        .await;
    let entry = rig.model.keepers.ops.sandbox.get(&id).unwrap();
    assert!(
        matches!(entry.settle, Settle::Confirmed { .. }),
        "{:?}",
        entry.settle
    );
    let mark = entry.receipt_mark.unwrap();
    // The detail's metadata re-read (`r`) and the roster re-read say the same as the settings.
    rig.detail(KeeperDetailCommand::Refresh {
        keeper: KEEPER.into(),
    });
    rig.pump_until(|r| {
        r.model
            .keeper_detail
            .of(KEEPER)
            .unwrap()
            .meta
            .value_since(mark)
            .is_some()
            && r.model
                .keeper_detail
                .of(KEEPER)
                .unwrap()
                .settings
                .value_since(mark)
                .is_some()
            && r.model.keepers.roster.value_since(mark).is_some()
    })
    .await;
    let detail = rig.model.keeper_detail.of(KEEPER).unwrap();
    let settings = detail.settings.value_since(mark).unwrap().clone();
    let meta = detail.meta.value_since(mark).unwrap();
    assert_eq!(settings.sandbox_profile, new);
    assert_eq!(meta.sandbox_profile.as_deref(), Some(profile_word(new)));
    assert_eq!(
        meta.network_mode.as_deref(),
        Some(settings.network_mode.as_str())
    );
    assert_eq!(
        roster_sandbox(&rig.model).as_deref(),
        Some(profile_word(new))
    );

    // The undo: a settings patch of the old profile against the revision the save produced.
    let Undo::Exact { request, writes } = find_undo(&rig.model, SandboxSave::KIND, &id).unwrap()
    else {
        panic!("an applied sandbox save has an exact undo");
    };
    assert!(writes.contains(profile_word(old)), "{writes}");
    let back = rig.submit(request).unwrap().save_id;
    rig.settle_until(|r| ended(&r.model.keepers.ops.settings.get(&back).unwrap().settle))
        .await;
    let undone = rig.model.keepers.ops.settings.get(&back).unwrap();
    assert!(
        matches!(undone.settle, Settle::Confirmed { .. }),
        "{:?} {:?}",
        undone.phase,
        undone.settle
    );
    let now = rig.model.keeper_detail.of(KEEPER).unwrap();
    assert_eq!(
        now.settings.fetched.last().unwrap().value.sandbox_profile,
        old
    );
    // The settings moved since the sandbox save: its undo is refused, with the reason.
    match find_undo(&rig.model, SandboxSave::KIND, &id).unwrap() {
        Undo::NotNow(why) => assert!(why.contains("changed again"), "{why}"),
        other => panic!("the older save's undo must be refused: {other:?}"),
    }
    // The undo's own undo puts the new profile back (a settings save records what it replaced).
    assert!(matches!(
        find_undo(&rig.model, SettingsSave::KIND, &back).unwrap(),
        Undo::Exact { .. }
    ));
    rig.stop().await;
}
