//! The raw config save on the embedded server (protocol.md §9.2–§9.4, §11 runtime raw
//! save; sources.md J-1, J-3, J-4): the job previews the operator's whole text — the server
//! validates the TOML, an invalid one is the preview's own error and no commit — then commits
//! it with CAS on its base's path and revision; the receipt lands once in its own slot. A
//! dropped or 5xx commit is outcome unknown, sent once, never resent; a stale base is a
//! conflict carrying the current file; a second submit while one runs shares the job. Typed
//! receipts, request counts and the traced stages, never wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{plan, rig_with};
use crate::runtime_save_rig::{PREVIEW, SAVE, confirmed_scope, read_config, receipt, steps};
use masc_tui::actors::runtime::raw::{RawIntent, RuntimeRaw};
use masc_tui::protocol::outcome::{SaveClass, SaveOutcome};
use masc_tui::protocol::runtime::{RuntimeConfigRaw, runtime_source_revision};
use masc_tui::server::faults::FaultPlan;

async fn submit(
    rig: &mut crate::actor_support::Rig,
    intent: RawIntent,
    scope: masc_tui::protocol::admission::ReadScope,
) -> masc_tui::actors::saves::SaveId {
    crate::save_rig::submit::<RuntimeRaw>(rig, intent, scope).await
}

/// The operator's text on the base `raw` (what `e` then the editor hand to the save).
fn intent(raw: &RuntimeConfigRaw, text: &str) -> RawIntent {
    RawIntent {
        path: raw.path.clone(),
        revision: raw.source_revision.clone(),
        text: text.to_string(),
        base_text: None,
    }
}

fn commit_fault(fault: &str) -> FaultPlan {
    plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{SAVE}"}},"when":{{"every":true}},"fault":{fault}}}"#
    ))
}

fn edited(raw: &RuntimeConfigRaw, marker: &str) -> String {
    format!("{}\n# {marker}\n", raw.source_text)
}

/// J-1, §9.3/§9.4: the operator's text is previewed (once) then committed (once) with CAS on
/// its base; the file then is exactly that text; the steps are written → sending → applied.
#[tokio::test(flavor = "current_thread")]
async fn j1_a_raw_text_previews_then_commits_with_cas_on_its_base() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let text = edited(&raw, "raw edit");
    let id = submit(&mut rig, intent(&raw, &text), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(warning, None);
            assert_eq!(
                detail.commit.source_revision,
                runtime_source_revision(&text)
            );
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    let after = read_config(&mut rig).await;
    assert_eq!(after.source_text, text);
    let traced: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:runtime_raw" && r.stage == "worker_return")
        .iter()
        .map(|r| r.outcome.clone().unwrap_or_default())
        .collect();
    assert_eq!(traced.last().map(String::as_str), Some("ok"), "{traced:?}");
    rig.finish().await;
}

/// J-1, §9.3: an invalid TOML is refused by the server's preview — its own parse error is the
/// reason — and no commit is sent; the file is untouched.
#[tokio::test(flavor = "current_thread")]
async fn j1_an_invalid_toml_is_the_previews_error_and_no_commit() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let broken = format!("{}\n[[models]\nruntime_id = \n", raw.source_text);
    let id = submit(&mut rig, intent(&raw, &broken), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::NotApplied { reason } => {
            assert!(
                reason.contains("runtime config parse failed"),
                "the server's preview error: {reason}"
            );
        }
        other => panic!("not refused by the preview: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 0);
    let after = read_config(&mut rig).await;
    assert_eq!(after.source_revision, raw.source_revision);
    rig.finish().await;
}

/// J-3, §11: a commit whose connection drops before the server applied it is outcome unknown
/// (the client cannot tell); it was sent once, never resent, and only the re-read shows that
/// nothing was applied.
#[tokio::test(flavor = "current_thread")]
async fn j3_a_commit_dropped_before_apply_is_unknown_and_not_applied() {
    let mut rig = rig_with(commit_fault(r#"{"drop":"before_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let text = edited(&raw, "dropped before");
    let id = submit(&mut rig, intent(&raw, &text), scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await.save_class(),
        SaveClass::OutcomeUnknown
    );
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    let after = read_config(&mut rig).await;
    assert_eq!(after.source_revision, raw.source_revision, "not applied");
    assert_eq!(rig.server.request_count("POST", SAVE), 1, "never resent");
    rig.finish().await;
}

/// J-3, §11: a commit whose connection drops after the server applied it is outcome unknown,
/// sent (and applied) exactly once; the re-read shows the text landed.
#[tokio::test(flavor = "current_thread")]
async fn j3_a_commit_dropped_after_apply_is_unknown_with_one_apply() {
    let mut rig = rig_with(commit_fault(r#"{"drop":"after_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let text = edited(&raw, "dropped after");
    let id = submit(&mut rig, intent(&raw, &text), scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await.save_class(),
        SaveClass::OutcomeUnknown
    );
    let after = read_config(&mut rig).await;
    assert_eq!(after.source_text, text, "applied once");
    assert_eq!(rig.server.request_count("POST", SAVE), 1, "never resent");
    rig.finish().await;
}

/// §11: a commit answered 5xx is outcome unknown (a 5xx may follow an applied write), sent
/// once; a preview answered 5xx sends no commit at all.
#[tokio::test(flavor = "current_thread")]
async fn j3_a_5xx_commit_is_unknown_and_a_5xx_preview_sends_no_commit() {
    let mut rig = rig_with(commit_fault(
        r#"{"status":503,"body":{"error":"store unavailable"}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let id = submit(&mut rig, intent(&raw, &edited(&raw, "5xx")), scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await.save_class(),
        SaveClass::OutcomeUnknown
    );
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    rig.finish().await;

    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{PREVIEW}"}},"when":{{"every":true}},"fault":{{"status":500,"body":{{"error":"boom"}}}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let id = submit(&mut rig, intent(&raw, &edited(&raw, "5xx preview")), scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await.save_class(),
        SaveClass::NotApplied
    );
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 0);
    rig.finish().await;
}

/// J-4, §9.4: a text saved on a base another writer has moved past is a revision conflict
/// carrying the current file (its revision recomputed from its text), never a commit over it.
#[tokio::test(flavor = "current_thread")]
async fn j4_a_stale_base_is_a_revision_conflict_with_the_current_file() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let other = edited(&raw, "another writer");
    let first = submit(&mut rig, intent(&raw, &other), scope.clone()).await;
    assert_eq!(
        receipt(&mut rig, &first).await.save_class(),
        SaveClass::Applied
    );
    let stale = submit(&mut rig, intent(&raw, &edited(&raw, "mine")), scope).await;
    match receipt(&mut rig, &stale).await {
        SaveOutcome::Conflict { current } => {
            assert_eq!(current.source_text, other);
            assert_eq!(current.source_revision, runtime_source_revision(&other));
            assert_eq!(current.source_path, raw.path);
        }
        other => panic!("not a conflict: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", SAVE), 2);
    rig.finish().await;
}

/// J-1: a second submit of the same file while the first is in flight shares the job: one
/// preview, one commit, one receipt; the second is traced as refused `duplicate_intent` and
/// has no steps of its own.
#[tokio::test(flavor = "current_thread")]
async fn j1_a_double_submit_shares_the_job() {
    let mut rig = rig_with(commit_fault(r#"{"delay_ms":300}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let raw = read_config(&mut rig).await;
    let text = edited(&raw, "double");
    let first = submit(&mut rig, intent(&raw, &text), scope.clone()).await;
    let second = submit(&mut rig, intent(&raw, &text), scope).await;
    assert_eq!(
        receipt(&mut rig, &first).await.save_class(),
        SaveClass::Applied
    );
    assert_eq!(rig.server.request_count("POST", PREVIEW), 1);
    assert_eq!(rig.server.request_count("POST", SAVE), 1);
    let refused = rig
        .recorder
        .records_where(|r| r.source == "save:runtime_raw" && r.stage == "refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].reason.as_deref(), Some("duplicate_intent"));
    assert!(steps(&mut rig, &second).is_empty(), "no job of its own");
    rig.finish().await;
}
