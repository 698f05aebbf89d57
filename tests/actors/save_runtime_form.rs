//! The model/account form save on the embedded server (protocol.md §9.2–§9.4, §11
//! runtime raw save and form; sources.md I-1, I-2, F-2): the job previews the exact edited text,
//! commits with CAS on the opening revision, and the receipt lands once in its own slot; a
//! refused or unanswered preview sends no commit; a dropped commit is outcome unknown and never
//! resent. Typed receipts and the traced stages, never wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with};
use crate::runtime_save_rig::{PREVIEW, SAVE, confirmed_scope, read_config, receipt};
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::saves::SaveId;
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::protocol::runtime::{ModelTable, RuntimeConfigRaw};
use masc_tui::server::faults::FaultPlan;

const MODEL: &str = "openai.gpt-5";

fn intent(raw: &RuntimeConfigRaw, edit: FormEdit) -> FormIntent {
    FormIntent {
        path: raw.path.clone(),
        opening_revision: raw.source_revision.clone(),
        source_text: raw.source_text.clone(),
        edit,
    }
}

async fn submit(rig: &mut Rig, intent: FormIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<RuntimeForm>(rig, intent, scope).await
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
