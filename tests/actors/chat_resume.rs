#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Resume of a cut chat stream (protocol.md §4.3 `since_seq`, §11, §13):
//! the real chat hub and save hub against the embedded server's fault plans, every view message
//! fed into a real view `Model`; assertions on typed state and the traced timeline.

use crate::chat_support::{Rig, STREAM};
use masc_tui::actors::chat::{Reconciliation, ResumeStanding, SendOutcome, UnknownCause};
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::chat::OperationState;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::RunningServer;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::screens::chat::SendPhase;
use masc_tui::view::transcript::{EntryKind, Speaker};

const KEEPER: &str = "rondo";
/// The first stream is cut after this many events (the acceptance, `RUN_STARTED`, thinking,
/// the tool call's four events, `TEXT_MESSAGE_START` and two text deltas).
const CUT_AFTER: u64 = 10;

fn plan(rules: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rules}]}}"#)).unwrap()
}

/// The first chat stream POST is cut after [`CUT_AFTER`] events; `more` adds rules.
fn cut_first(more: &str) -> FaultPlan {
    plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{STREAM}"}},"when":{{"nth":1}},"fault":{{"sse_cut_after":{CUT_AFTER}}}}}{more}"#
    ))
}

async fn setup(
    faults: FaultPlan,
    compat: Option<masc_tui::server::compat::MascRelease>,
) -> (RunningServer, Rig, tempfile::TempDir) {
    let (server, mut rig, dir) = crate::chat_support::served_rig(faults, compat).await;
    rig.open_ready(KEEPER).await;
    (server, rig, dir)
}

fn ended(rig: &Rig, id: &str) -> Option<SendOutcome> {
    match &rig.pane().send(id)?.phase {
        SendPhase::Ended(o) => Some(o.clone()),
        _ => None,
    }
}

async fn until_ended(rig: &mut Rig, id: &str) -> SendOutcome {
    loop {
        if let Some(o) = ended(rig, id) {
            return o;
        }
        rig.pump_one().await;
    }
}

/// The rows of request `id` drawn as the Keeper's speech, and as a tool call.
fn turn_rows(rig: &Rig, id: &str) -> (Vec<String>, usize) {
    let pane = rig.pane();
    let view = pane.view();
    let rows: Vec<_> = view
        .transcript()
        .entries()
        .iter()
        .filter(|e| e.origin.request_id.as_deref() == Some(id))
        .cloned()
        .collect();
    let speech = rows
        .iter()
        .filter(|e| matches!(e.speaker, Speaker::Keeper { .. }) && e.kind == EntryKind::Utterance)
        .map(|e| e.text.clone())
        .collect();
    let tools = rows
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::ToolCall(_)))
        .count();
    (speech, tools)
}

/// §4.3: a stream cut mid-turn on a MASC that journals its events (`id:`)
/// is re-posted once with the same request id and `since_seq` = the last sequence seen; the
/// turn completes from the resumed stream; nothing is reconciled; each event is admitted once
/// (one reply row with the whole reply, one tool row, no "interrupted" row); the timeline
/// shows the resume admitted on the send's own ticket.
#[tokio::test]
async fn s4_3_a_cut_stream_resumes_with_since_seq_and_the_turn_completes_once() {
    let (server, mut rig, _dir) = setup(cut_first(""), None).await;
    let id = rig.send(KEEPER, "status of the decoder?");
    let outcome = until_ended(&mut rig, &id).await;
    let SendOutcome::Completed { reply } = outcome else {
        panic!("the resumed turn completes: {outcome:?}");
    };
    assert_eq!(
        server.request_count("POST", STREAM),
        2,
        "one resume re-POST"
    );
    let send = rig.pane().send(&id).unwrap().clone();
    assert_eq!(send.resumes, 1);
    let (speech, tools) = turn_rows(&rig, &id);
    assert_eq!(
        speech,
        vec![reply.reply.clone()],
        "one reply row, the reply"
    );
    assert_eq!(tools, 1, "the tool call once");
    assert!(
        rig.pane()
            .view()
            .transcript()
            .get(&format!("{id}:interrupted"))
            .is_none()
    );
    let op_path = format!("/api/v1/keepers/{KEEPER}/chat/operations/{id}");
    assert_eq!(
        server.request_count("GET", &op_path),
        0,
        "nothing reconciled"
    );
    // The resume is an admitted step of the send's own slot, with its `since_seq`.
    let resumed = rig.recorder.records_where(|r| {
        r.source == format!("save:chat_send:{KEEPER}")
            && r.stage == "observe"
            && r.outcome.as_deref() == Some("resumed")
    });
    assert_eq!(
        resumed.len(),
        1,
        "{:?}",
        rig.recorder
            .records_where(|r| r.source.starts_with("save:chat_send"))
    );
    assert!(
        rig.recorder
            .records_where(|r| r.stage == "reject" && r.reason.as_deref() == Some("duplicate_event"))
            .is_empty(),
        "a correct server replays nothing twice"
    );
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::Applied)
    );
    rig.stop().await;
    server.shutdown().await;
}

/// Every event admitted once: a server whose resumed stream replays the
/// turn from its first event (`resume_overlap`) — every event at or below the last sequence
/// already admitted is dropped and traced `reject{duplicate_event}` on the send's ticket; the
/// transcript has one reply row and one tool row, as without the cut.
#[tokio::test]
async fn s4_3_replayed_events_of_a_resumed_stream_are_admitted_once() {
    let overlap = format!(
        r#",{{"match":{{"method":"POST","path":"{STREAM}"}},"when":{{"nth":2}},"fault":{{"resume_overlap":true}}}}"#
    );
    let (server, mut rig, _dir) = setup(cut_first(&overlap), None).await;
    let id = rig.send(KEEPER, "status of the decoder?");
    let outcome = until_ended(&mut rig, &id).await;
    let SendOutcome::Completed { reply } = outcome else {
        panic!("{outcome:?}");
    };
    let (speech, tools) = turn_rows(&rig, &id);
    assert_eq!(speech, vec![reply.reply.clone()]);
    assert_eq!(tools, 1);
    let dropped = rig.recorder.records_where(|r| {
        r.source == format!("save:chat_send:{KEEPER}")
            && r.stage == "reject"
            && r.reason.as_deref() == Some("duplicate_event")
    });
    assert_eq!(
        dropped.len() as u64,
        CUT_AFTER,
        "the {CUT_AFTER} events seen before the cut came again and were dropped"
    );
    assert_eq!(server.request_count("POST", STREAM), 2);
    rig.stop().await;
    server.shutdown().await;
}

/// §4.3 fallback: a resume refused by the server (400, as a MASC that does not
/// declare `since_seq` answers) leaves the send "outcome unknown" — never "not applied": the
/// input was accepted — with `ResumeStanding::Refused{status_400}`, reconciled by its exact id
/// to the record's terminal state; one resume POST, nothing else re-posted.
#[tokio::test]
async fn s4_3_a_refused_resume_falls_back_to_reconciliation_never_not_applied() {
    let refuse = format!(
        r#",{{"match":{{"method":"POST","path":"{STREAM}"}},"when":{{"nth":2}},"fault":{{"status":400,"body":{{"error":{{"message":"request body field since_seq is undeclared"}}}}}}}}"#
    );
    let (server, mut rig, _dir) = setup(cut_first(&refuse), None).await;
    let id = rig.send(KEEPER, "status of the decoder?");
    let outcome = until_ended(&mut rig, &id).await;
    let SendOutcome::OutcomeUnknown {
        cause: UnknownCause::StreamInterrupted { resume, .. },
        accepted: true,
    } = &outcome
    else {
        panic!("{outcome:?}");
    };
    assert_eq!(
        resume,
        &ResumeStanding::Refused {
            class: "status_400".into()
        }
    );
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| {
                matches!(&s.reconciliation, Some(Reconciliation::Found(r))
                    if r.progress.state().is_terminal())
            })
    })
    .await;
    let state = match &rig.pane().send(&id).unwrap().reconciliation {
        Some(Reconciliation::Found(r)) => r.progress.state(),
        other => panic!("{other:?}"),
    };
    assert_eq!(state, OperationState::Succeeded);
    assert_eq!(
        server.request_count("POST", STREAM),
        2,
        "one resume, no more"
    );
    assert!(
        rig.effects.iter().all(|e| !matches!(
            e,
            masc_tui::view::screens::chat::ChatEffect::RestoreDraft { .. }
        )),
        "an accepted input never goes back to the draft"
    );
    rig.stop().await;
    server.shutdown().await;
}

/// §4.3 on an older MASC (v0.24.0 writes no `id:` lines and refuses `since_seq`):
/// the cut stream is never re-posted (`ResumeStanding::NotOffered`) and is reconciled as
/// today; one POST.
#[tokio::test]
async fn s4_3_an_older_masc_without_journal_sequences_is_never_resumed() {
    let (server, mut rig, _dir) = setup(
        cut_first(""),
        Some(masc_tui::server::compat::MascRelease::V0_24_0),
    )
    .await;
    let id = rig.send(KEEPER, "status of the decoder?");
    let outcome = until_ended(&mut rig, &id).await;
    assert!(
        matches!(
            &outcome,
            SendOutcome::OutcomeUnknown {
                cause: UnknownCause::StreamInterrupted {
                    resume: ResumeStanding::NotOffered,
                    ..
                },
                accepted: true,
            }
        ),
        "{outcome:?}"
    );
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| !s.outcome_unknown())
    })
    .await;
    assert_eq!(server.request_count("POST", STREAM), 1, "never re-posted");
    assert_eq!(rig.pane().send(&id).unwrap().resumes, 0);
    rig.stop().await;
    server.shutdown().await;
}
