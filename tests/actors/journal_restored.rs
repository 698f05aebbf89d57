//! Every save an earlier run left unsettled is in the saves journal after a restart, whatever
//! became of its draft, form or target (sources.md H-16, N-3; protocol.md §11): a Board post and
//! a runtime form killed mid-POST (no book of this session holds them: the compose draft and the
//! form are gone with the process), an Ask answer whose Ask is no longer open and a connector
//! unbind whose binding is gone. The restore reports each as outcome unknown and resends none;
//! the journal's read of the outbox lists all four, unsettled, with the inputs they were sent
//! with.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::crash_rig::stages_in;
use crate::model_rig::ModelRig;
use crate::surface_rig::hub_entry;
use masc_tui::actors::board::compose::{BoardPost, PostIntent};
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorUnbind};
use masc_tui::actors::decisions::ask_answer::{AnswerIntent, AskAnswer};
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::saves::{SAVES, SaveKind};
use masc_tui::outbox::{NewSave, Outbox, SaveRowState};
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::server::faults::FaultPlan;
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::view::save_path::journal::Stage;
use masc_tui::view::save_path::kinds::journal_rows;

/// One row of kind `K` as the hub writes it: (kind, target, the inputs as JSON).
fn row_of<K: SaveKind>(intent: K::Intent) -> (&'static str, String, String) {
    (
        K::KIND,
        K::target(&intent),
        serde_json::to_string(&intent).unwrap(),
    )
}

/// The rows an earlier run left `sending`.
fn left_rows() -> Vec<(&'static str, String, String)> {
    vec![
        row_of::<BoardPost>(PostIntent {
            title: "deploy notes".into(),
            hearth: String::new(),
            body: "rolled out".into(),
            draft_id: "draft-earlier".into(),
        }),
        row_of::<RuntimeForm>(FormIntent {
            path: "runtime.toml".into(),
            opening_revision: "rev-earlier".into(),
            source_text: "[runtime]\n".into(),
            edit: FormEdit::ClearContextOverride {
                runtime_id: "model-a".into(),
            },
        }),
        row_of::<AskAnswer>(AnswerIntent {
            keeper: "rondo".into(),
            ask_id: "ask-gone".into(),
            answers: Vec::new(),
        }),
        row_of::<ConnectorUnbind>(BindingIntent {
            connector_id: "discord".into(),
            channel_id: "channel-gone".into(),
            keeper_name: "rondo".into(),
        }),
    ]
}

/// Writes `rows` into the outbox at `path` as an earlier run would have left them: written,
/// then sending, then the process gone.
fn leave(workspace: &str, path: &std::path::Path, rows: &[(&'static str, String, String)]) {
    let earlier = Outbox::open_path(path).unwrap();
    for (i, (kind, target, intent)) in rows.iter().enumerate() {
        let save_id = format!("save-earlier-{i}");
        earlier
            .save_written(&NewSave {
                save_id: save_id.clone(),
                kind: (*kind).into(),
                workspace: workspace.into(),
                target: target.clone(),
                intent_key: target.clone(),
                intent: intent.clone(),
                epoch: 1,
                generation: 1,
            })
            .unwrap();
        earlier
            .save_state(&save_id, SaveRowState::Sending, None)
            .unwrap();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn h16_n3_every_row_an_earlier_run_left_is_in_the_journal_whatever_became_of_its_target() {
    let rows = left_rows();
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let mut rig = ModelRig::start_after(
        FaultPlan::default(),
        |server, path| leave(&server.masc_root(), path, &rows),
        |path| vec![hub_entry(path)],
    )
    .await;
    // The restore settles each left row as outcome unknown in the outbox (never resent).
    let outbox = Outbox::open_path(&rig.outbox_path).unwrap();
    let settled = |outbox: &Outbox| {
        (0..rows.len()).all(|i| {
            outbox
                .save_row(&format!("save-earlier-{i}"))
                .unwrap()
                .is_some_and(|r| r.state == SaveRowState::Settled(SaveClass::OutcomeUnknown))
        })
    };
    for _ in 0..500 {
        if settled(&outbox) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        settled(&outbox),
        "every left row settled as outcome unknown"
    );
    // `L`: the journal reads the outbox back.
    rig.demand(SAVES);
    rig.pump_until(|r| r.model.journal.outbox_rows().len() >= rows.len())
        .await;

    let listed = journal_rows(&rig.model);
    for (i, (kind, target, intent)) in rows.iter().enumerate() {
        let save_id = format!("save-earlier-{i}");
        let row = listed
            .iter()
            .find(|r| r.save_id == save_id)
            .unwrap_or_else(|| panic!("{kind} is not in the journal: {listed:?}"));
        assert_eq!(row.kind, *kind);
        assert_eq!(&row.target, target);
        assert!(row.unsettled, "{kind}: an unknown outcome stays unsettled");
        assert_eq!(
            row.stage,
            Stage::Earlier(SaveClass::OutcomeUnknown),
            "{kind}"
        );
        assert!(
            intent.starts_with(row.inputs.trim_end_matches('…')),
            "{kind}: the inputs it was sent with ({})",
            row.inputs
        );
        // Restored, never run: no operation of it entered a worker in this runtime.
        let stages = stages_in(&recorder, &format!("save:{kind}"));
        assert!(
            !stages.iter().any(|s| s.starts_with("worker_enter")),
            "{kind}: {stages:?}"
        );
    }
    // Unsettled rows are listed first.
    assert!(listed.iter().take(rows.len()).all(|r| r.unsettled));
    for route in [
        "/api/v1/tools/masc_board_post",
        "/api/v1/keepers/ask-answer",
        "/api/v1/gate/connector/unbind",
        "/api/v1/runtime/config/raw",
    ] {
        assert_eq!(rig.server.request_count("POST", route), 0, "{route} resent");
    }
    rig.stop().await;
}
