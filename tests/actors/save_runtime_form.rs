//! The model/account form save on the embedded server (issue 11; protocol.md §9.2–§9.4, §11
//! runtime raw save and form; sources.md I-1, I-2, F-2): the job previews the exact edited text,
//! commits with CAS on the opening revision, and the receipt lands once in its own slot; a
//! refused or unanswered preview sends no commit; a dropped commit is outcome unknown and never
//! resent. Typed receipts and the traced stages, never wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with};
use masc_tui::actors::contract::{
    DemandKind, IdentityState, SlotEvent, SourceControl, SourceEvent,
};
use masc_tui::actors::saves::hub::Save;
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveId, SaveStep};
use masc_tui::actors::system::runtime_form::{FormIntent, RuntimeForm};
use masc_tui::actors::system::{RUNTIME_CONFIG, SystemObservation, SystemSlot};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::outcome::{RuntimeRawSaveOutcome, SaveOutcome};
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::protocol::runtime::{ModelTable, RuntimeConfigRaw};
use masc_tui::server::faults::FaultPlan;
use std::sync::Arc;

type Event = SlotEvent<SystemSlot, SystemObservation>;

const PREVIEW: &str = "/api/v1/runtime/config/raw/preview";
const SAVE: &str = "/api/v1/runtime/config/raw";
const MODEL: &str = "openai.gpt-5";

async fn confirmed_scope(rig: &mut Rig) -> ReadScope {
    match rig
        .view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await
    {
        Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => scope.clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

/// Reads the raw config through its own source (what a form opens on), the `nth` read.
async fn read_config(rig: &mut Rig) -> Arc<RuntimeConfigRaw> {
    let source = rig.source_handle(RUNTIME_CONFIG).await;
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    match rig
        .view
        .wait_slot(|e: &Event| {
            matches!(e, SlotEvent::Observed(t, SystemObservation::RuntimeConfig(_)) if t.slot == SystemSlot::RuntimeConfig)
        })
        .await
    {
        Some(SlotEvent::Observed(_, SystemObservation::RuntimeConfig(Ok(a)))) => a.value.clone(),
        other => panic!("no config read: {other:?}"),
    }
}

fn intent(raw: &RuntimeConfigRaw, edit: FormEdit) -> FormIntent {
    FormIntent {
        path: raw.path.clone(),
        opening_revision: raw.source_revision.clone(),
        source_text: raw.source_text.clone(),
        edit,
    }
}

async fn submit(rig: &mut Rig, intent: FormIntent, scope: ReadScope) -> SaveId {
    let hub = rig
        .source_handle(SAVES)
        .await
        .commands::<SaveCommand>()
        .expect("the save hub takes SaveCommand");
    let id = SaveId::fresh();
    hub.send_message(SaveCommand::Submit(Save::<RuntimeForm>::submission(
        id.clone(),
        intent,
        scope,
    )))
    .unwrap();
    id
}

async fn receipt(rig: &mut Rig, id: &SaveId) -> RuntimeRawSaveOutcome {
    let ended = rig
        .view
        .wait_slot::<SystemSlot, SystemObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, SystemObservation::RuntimeForm(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(t, SystemObservation::RuntimeForm(ev))) => {
            assert_eq!(t.slot, SystemSlot::RuntimeForm(id.clone()), "its own slot");
            match &ev.step {
                SaveStep::Ended(r) => r.clone(),
                other => panic!("not a receipt: {other:?}"),
            }
        }
        other => panic!("no receipt: {other:?}"),
    }
}

fn override_of(raw: &RuntimeConfigRaw, id: &str) -> Option<u64> {
    match &raw.model_table {
        ModelTable::Ready(b) => b
            .iter()
            .find(|b| b.runtime_id == id)
            .and_then(|b| b.max_context_override),
        other => panic!("model table: {other:?}"),
    }
}

/// I-1, §9.3/§9.4: the edit is previewed (once) then committed (once) with CAS on the opening
/// revision; the file then says it; the traced steps are written → sending → applied.
#[tokio::test(flavor = "current_thread")]
async fn i1_a_form_edit_previews_then_commits_with_cas_on_the_opening_revision() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    assert_eq!(override_of(&raw, MODEL), None);
    let edit = FormEdit::SetContextOverride {
        runtime_id: MODEL.into(),
        value: 300_000,
    };
    let id = submit(&mut rig, intent(&raw, edit), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(warning, None);
            assert_ne!(detail.commit.source_revision, raw.source_revision);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    let after = read_config(&mut rig).await;
    assert_eq!(override_of(&after, MODEL), Some(300_000));
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:runtime_form" && r.stage == "worker_return")
        .iter()
        .map(|r| r.outcome.clone().unwrap_or_default())
        .collect();
    assert_eq!(stages.last().map(String::as_str), Some("ok"), "{stages:?}");
    rig.finish().await;
}

/// I-2, §9.3: a preview that refuses the text is "not applied" and no commit is sent.
#[tokio::test(flavor = "current_thread")]
async fn i2_a_refused_preview_sends_no_commit() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{PREVIEW}"}},"when":{{"every":true}},"fault":{{"status":400,"body":{{"error":"runtime config parse failed: line 3"}}}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let edit = FormEdit::ClearContextOverride {
        runtime_id: "anthropic.claude-sonnet-4".into(),
    };
    let id = submit(&mut rig, intent(&raw, edit), scope).await;
    assert!(matches!(
        receipt(&mut rig, &id).await,
        SaveOutcome::NotApplied { .. }
    ));
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 0);
    rig.finish().await;
}

/// I-2: a preview whose answer never comes sends no commit: not sent (a preview writes nothing).
#[tokio::test(flavor = "current_thread")]
async fn i2_an_unanswered_preview_is_not_sent() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{PREVIEW}"}},"when":{{"every":true}},"fault":{{"drop":"before_apply"}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let edit = FormEdit::AddAccount {
        integration_id: "google-lab".into(),
        group: None,
        email: Some("lab@masc.example".into()),
    };
    let id = submit(&mut rig, intent(&raw, edit), scope).await;
    assert!(matches!(
        receipt(&mut rig, &id).await,
        SaveOutcome::NotSent { .. }
    ));
    assert_eq!(rig.server.request_count("POST", SAVE), 0);
    rig.finish().await;
}

/// I-2, §11: a commit whose connection drops after the server applied it is outcome unknown,
/// sent once and never resent.
#[tokio::test(flavor = "current_thread")]
async fn i2_a_dropped_commit_is_outcome_unknown_and_never_resent() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{SAVE}"}},"when":{{"every":true}},"fault":{{"drop":"after_apply"}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let edit = FormEdit::SetContextOverride {
        runtime_id: MODEL.into(),
        value: 123_456,
    };
    let id = submit(&mut rig, intent(&raw, edit), scope).await;
    assert!(matches!(
        receipt(&mut rig, &id).await,
        SaveOutcome::OutcomeUnknown { .. }
    ));
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    // The commit did land: only a re-read can say so.
    let after = read_config(&mut rig).await;
    assert_eq!(override_of(&after, MODEL), Some(123_456));
    rig.finish().await;
}

/// I-1, §9.4: a form opened on an older revision is a conflict carrying the current file
/// (its revision self-consistent), not a commit over the newer text.
#[tokio::test(flavor = "current_thread")]
async fn i1_a_form_opened_on_an_older_revision_is_a_conflict_with_the_current_file() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    // Another client changes the file after the form opened.
    let first = FormEdit::AddAccount {
        integration_id: "other-client".into(),
        group: None,
        email: None,
    };
    let id = submit(&mut rig, intent(&raw, first), scope.clone()).await;
    assert!(matches!(
        receipt(&mut rig, &id).await,
        SaveOutcome::Applied { .. }
    ));
    let stale = FormEdit::SetContextOverride {
        runtime_id: MODEL.into(),
        value: 200_000,
    };
    let id = submit(&mut rig, intent(&raw, stale), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Conflict { current } => {
            assert_ne!(current.source_revision, raw.source_revision);
            assert!(current.source_text.contains("other-client"));
        }
        other => panic!("not a conflict: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", SAVE), 2);
    rig.finish().await;
}
