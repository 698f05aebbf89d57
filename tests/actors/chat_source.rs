#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Chat runtime against the embedded server with fault plans (protocol.md §4.3–§4.5, §11, §13;
//! sources.md G-2, G-6, G-7; chat-screen.md C-32…C-35). Each test drives the real chat hub,
//! chat source and send actors, feeds every view message into a real view `Model` (so the
//! admission verdicts are the view's own), and asserts typed state and traced stages — never
//! wording. Synchronisation is by view messages only.

use crate::chat_support::{Rig, STREAM, TOKEN, ViewMsg, rig};
use masc_tui::actors::chat::{
    ChatCommand, ChatObservation, ChatSlot, Reconciliation, ResumeStanding, SendOutcome, SendStep,
    UnknownCause,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::chat::OperationState;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::screens::chat::{ChatEffect, SendPhase};
use masc_tui::view::transcript::{EntryKind, Speaker};

const KEEPER: &str = "rondo";
const HISTORY: &str = "/api/v1/keepers/rondo/chat/history/page";

fn plan(rules: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rules}]}}"#)).unwrap()
}

async fn server(faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        faults,
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

async fn setup(faults: FaultPlan) -> (RunningServer, Rig, tempfile::TempDir) {
    let server = server(faults).await;
    let dir = tempfile::tempdir().unwrap();
    let rig = rig(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    (server, rig, dir)
}

fn ended(rig: &Rig, id: &str) -> Option<SendOutcome> {
    match &rig.pane().send(id)?.phase {
        SendPhase::Ended(o) => Some(o.clone()),
        _ => None,
    }
}

fn terminal_reconciliation(rig: &Rig, id: &str) -> Option<OperationState> {
    match rig.pane().send(id)?.reconciliation.as_ref()? {
        Reconciliation::Found(r) if r.progress.state().is_terminal() => Some(r.progress.state()),
        _ => None,
    }
}

async fn open_ready(rig: &mut Rig, keeper: &str) {
    rig.open(keeper);
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .is_some_and(|p| p.history == masc_tui::view::screens::chat::HistoryState::Ready)
    })
    .await;
}

/// §4.5 / A-2-style paging: PgUp at the top prepends the next older page; `has_more: false`
/// stops paging with no further GET (`refused{history_exhausted}`).
#[tokio::test]
async fn history_paging_prepends_older_pages_until_has_more_is_false() {
    let (server, mut rig, _dir) = setup(FaultPlan::none()).await;
    open_ready(&mut rig, KEEPER).await;
    let first_len = rig.pane().view().transcript().len();
    assert!(
        first_len > 0 && rig.pane().has_more,
        "rondo has several pages"
    );
    let mut pages = 1;
    while rig.pane().has_more {
        let before_len = rig.pane().view().transcript().len();
        let oldest_ts = rig.pane().view().transcript().entries()[0].ts.unwrap();
        rig.model.chat.pane.as_mut().unwrap().loading_older = true;
        rig.cast(ChatCommand::LoadOlder {
            keeper: KEEPER.into(),
        });
        rig.pump_until(|m| !m.chat.pane.as_ref().unwrap().loading_older)
            .await;
        let view = rig.pane().view();
        let t = view.transcript();
        assert!(t.len() > before_len, "older rows were prepended");
        let new_oldest = t.entries()[0].ts.unwrap();
        drop(view);
        assert!(new_oldest < oldest_ts, "the prepended rows are older");
        pages += 1;
        assert!(pages < 50, "paging must end");
    }
    assert!(pages >= 3, "several pages were read ({pages})");
    let gets = server.request_count("GET", HISTORY);
    assert_eq!(gets, pages, "one GET per page");
    // Exhausted: the next PgUp is refused by the source, and nothing is requested.
    rig.cast(ChatCommand::LoadOlder {
        keeper: KEEPER.into(),
    });
    let refused = rig
        .recorder
        .wait_for(|r| {
            r.stage == "refused"
                && r.source == "chat_history:rondo"
                && r.reason.as_deref() == Some("history_exhausted")
        })
        .await;
    assert!(refused.is_some());
    assert_eq!(server.request_count("GET", HISTORY), gets);
    // Every page was admitted with its ticket.
    let admits = rig
        .recorder
        .records_where(|r| r.stage == "admit" && r.source == "chat_history:rondo");
    assert!(admits.len() >= pages);
    rig.stop().await;
    server.shutdown().await;
}

/// §4.3 / §11 on an older MASC (v0.24.0: no `id:` journal sequences, no `since_seq`): a
/// stream cut mid-turn (after acceptance and two text deltas) is "interrupted": outcome
/// unknown, not resumed (`ResumeStanding::NotOffered`: detected, not assumed), the partial
/// text is never a reply, the exact id is reconciled, and the POST is never repeated.
#[tokio::test]
async fn sse_cut_mid_turn_is_interrupted_and_partial_text_is_never_a_reply() {
    let faults = plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"sse_cut_after":10}}}}"#
    ));
    let (server, mut rig, _dir) = crate::chat_support::served_rig(
        faults,
        Some(masc_tui::server::compat::MascRelease::V0_24_0),
    )
    .await;
    open_ready(&mut rig, KEEPER).await;
    let id = rig.send(KEEPER, "status of the decoder?");
    // Read until the send ended (through the model).
    loop {
        if ended(&rig, &id).is_some() {
            break;
        }
        rig.pump_one().await;
    }
    let outcome = ended(&rig, &id).unwrap();
    let SendOutcome::OutcomeUnknown {
        cause:
            UnknownCause::StreamInterrupted {
                partial_text_len,
                resume: ResumeStanding::NotOffered,
            },
        accepted: true,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert!(
        partial_text_len > 0,
        "text deltas were received before the cut"
    );
    // No Keeper utterance of this turn exists: partial text is not a reply.
    let pane = rig.pane();
    let keeper_rows = pane
        .view()
        .transcript()
        .entries()
        .iter()
        .filter(|e| {
            e.origin.request_id.as_deref() == Some(id.as_str())
                && matches!(e.speaker, Speaker::Keeper { .. })
                && e.kind == EntryKind::Utterance
        })
        .count();
    assert_eq!(keeper_rows, 0);
    assert!(
        pane.view()
            .transcript()
            .get(&format!("{id}:interrupted"))
            .is_some()
    );
    assert!(pane.send(&id).unwrap().outcome_unknown());
    // Reconciled by the exact id until the operation's real terminal state.
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| s.reconciliation.is_some() && !s.outcome_unknown())
    })
    .await;
    assert_eq!(
        terminal_reconciliation(&rig, &id),
        Some(OperationState::Succeeded)
    );
    let op_path = format!("/api/v1/keepers/rondo/chat/operations/{id}");
    assert!(server.request_count("GET", &op_path) >= 1);
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::Applied)
    );
    rig.stop().await;
    server.shutdown().await;
}

/// §11: 403 before the stream = not applied; the draft goes back to the composer; the outbox
/// row says not applied; the refusal is its own error row (C-35), never a pending row.
#[tokio::test]
async fn forbidden_before_acceptance_is_not_applied_and_keeps_the_draft() {
    let faults = plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"status":403,"body":{{"error":"forbidden","auth_error_code":"insufficient_role"}}}}}}"#
    ));
    let (server, mut rig, _dir) = setup(faults).await;
    open_ready(&mut rig, KEEPER).await;
    let id = rig.send(KEEPER, "please deploy 🚀");
    loop {
        if ended(&rig, &id).is_some() {
            break;
        }
        rig.pump_one().await;
    }
    assert_eq!(
        ended(&rig, &id),
        Some(SendOutcome::NotApplied {
            cause: "status_403".into(),
            detail: Some("forbidden".into()),
        })
    );
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::RestoreDraft { keeper, text, .. } if keeper == KEEPER && text == "please deploy 🚀")));
    {
        let t = rig.pane().view();
        assert!(t.transcript().get(&id).is_none(), "no pending row remains");
        let refused = t.transcript().get(&format!("{id}:refused")).unwrap();
        assert!(matches!(refused.kind, EntryKind::Failure(_)));
    }
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::NotApplied)
    );
    assert_eq!(server.request_count("POST", STREAM), 1);
    rig.stop().await;
    server.shutdown().await;
}

/// §11 / §13 "drop after applying": the connection is lost after the server took the request:
/// outcome unknown, then reconciliation by the exact id shows the operation's real state (the
/// server's own record), and no second POST happens.
#[tokio::test]
async fn dropped_after_send_is_unknown_then_reconciled_by_exact_id() {
    let faults = plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"drop":"after_apply"}}}}"#
    ));
    let (server, mut rig, _dir) = setup(faults).await;
    open_ready(&mut rig, KEEPER).await;
    let id = rig.send(KEEPER, "run the nightly checks");
    loop {
        if ended(&rig, &id).is_some() {
            break;
        }
        rig.pump_one().await;
    }
    assert!(matches!(
        ended(&rig, &id),
        Some(SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Transport,
            ..
        })
    ));
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| !s.outcome_unknown())
    })
    .await;
    let seen = terminal_reconciliation(&rig, &id).unwrap();
    let rid = id.clone();
    let stored = server
        .state()
        .store()
        .read(move |c| masc_tui::server::store::chat::operation(c, &rid))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.as_str(), stored.state, "the operation's real state");
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    rig.stop().await;
    server.shutdown().await;
}

/// G-2 / G-7: after switching to another Keeper, the first Keeper's late stream events are
/// rejected at admission (`other_target`) and traced; the send itself runs on (H-5) and its
/// outcome lands in the outbox.
#[tokio::test]
async fn late_stream_events_after_switching_keeper_are_rejected_and_traced() {
    let (server, mut rig, _dir) = setup(FaultPlan::none()).await;
    open_ready(&mut rig, KEEPER).await;
    let id = rig.send(KEEPER, "long question");
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| s.promoted)
    })
    .await;
    // Switch the chat target.
    open_ready(&mut rig, "sangsu").await;
    let before = rig.verdicts.len();
    // Read until the rondo send's end arrives (it is rejected, but it arrives).
    loop {
        let done = rig.verdicts[before..].iter().any(|(rid, v)| {
            rid.as_deref() == Some(id.as_str()) && *v == Err(RejectReason::OtherTarget)
        }) && rig.log.seen.iter().any(|m| {
            matches!(m, ViewMsg::Slot(SlotEvent::Observed(_, ChatObservation::Send {
                request_id, step: SendStep::Ended(_) })) if *request_id == id)
        });
        if done {
            break;
        }
        rig.pump_one().await;
    }
    let late: Vec<_> = rig.verdicts[before..]
        .iter()
        .filter(|(rid, _)| rid.as_deref() == Some(id.as_str()))
        .collect();
    assert!(!late.is_empty());
    assert!(
        late.iter()
            .all(|(_, v)| *v == Err(RejectReason::OtherTarget)),
        "{late:?}"
    );
    assert!(
        !rig.recorder
            .records_where(|r| r.stage == "reject"
                && r.source == "save:chat_send:rondo"
                && r.reason.as_deref() == Some("other_target"))
            .is_empty()
    );
    // The open chat shows nothing of rondo's turn.
    assert!(rig.pane().send(&id).is_none());
    assert!(
        rig.pane()
            .view()
            .transcript()
            .entries()
            .iter()
            .all(|e| e.origin.request_id.as_deref() != Some(id.as_str()))
    );
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::Applied),
        "navigation is not cancellation"
    );
    rig.stop().await;
    server.shutdown().await;
}

/// A clean turn settles from its own stream: confirmed in the outbox, no reconciliation, no
/// second POST, and the operator's input appears exactly once.
#[tokio::test]
async fn a_clean_turn_is_confirmed_from_its_stream_without_reconciliation() {
    let (server, mut rig, _dir) = setup(FaultPlan::none()).await;
    open_ready(&mut rig, KEEPER).await;
    let id = rig.send(KEEPER, "one clean question");
    loop {
        if ended(&rig, &id).is_some() {
            break;
        }
        rig.pump_one().await;
    }
    assert!(matches!(
        ended(&rig, &id),
        Some(SendOutcome::Completed { .. })
    ));
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::Applied)
    );
    // Stop the runtime first so any late reconciliation would have been counted.
    let inputs = rig
        .pane()
        .view()
        .transcript()
        .entries()
        .iter()
        .filter(|e| e.speaker == Speaker::Operator && e.text == "one clean question")
        .count();
    assert_eq!(inputs, 1);
    rig.stop().await;
    let op = format!("/api/v1/keepers/rondo/chat/operations/{id}");
    assert_eq!(server.request_count("GET", &op), 0);
    assert_eq!(server.request_count("POST", STREAM), 1);
    server.shutdown().await;
}

/// The ticket of the next history-page `Retired` or `Observed` the view handles, pumping the
/// model as it goes.
async fn page_end(rig: &mut Rig, keeper: &str) -> (Ticket<ChatSlot>, bool) {
    let history = ChatSlot::History {
        keeper: keeper.into(),
    };
    let from = rig.log.seen.len();
    loop {
        let end = rig.log.seen[from..].iter().find_map(|m| match m {
            ViewMsg::Slot(SlotEvent::Retired(t)) if t.slot == history => Some((t.clone(), false)),
            ViewMsg::Slot(SlotEvent::Observed(t, _)) if t.slot == history => {
                Some((t.clone(), true))
            }
            _ => None,
        });
        if let Some(end) = end {
            return end;
        }
        rig.pump_one().await;
    }
}

/// G-7: a history-page worker that panics is caught in the worker. Its read
/// is retired — the page is not left in flight, the chat source and the hub keep running —
/// and the next PgUp (`LoadOlder`) reads the older page, without reopening the chat.
#[tokio::test]
async fn g7_a_panicking_page_worker_is_caught_and_pgup_loads_the_older_page_again() {
    let (server, mut rig, _dir) = setup(FaultPlan::none()).await;
    open_ready(&mut rig, KEEPER).await;
    assert!(rig.pane().has_more, "rondo has older pages");
    let newest_len = rig.pane().view().transcript().len();
    let oldest_ts = rig.pane().view().transcript().entries()[0].ts.unwrap();
    let gets = server.request_count("GET", HISTORY);
    assert_eq!(gets, 1, "the newest page");

    // The next page worker panics inside the worker.
    rig.page_panics
        .store(1, std::sync::atomic::Ordering::SeqCst);
    rig.model.chat.pane.as_mut().unwrap().loading_older = true;
    rig.cast(ChatCommand::LoadOlder {
        keeper: KEEPER.into(),
    });
    let (panicked, observed) = page_end(&mut rig, KEEPER).await;
    assert!(
        !observed,
        "the panicked page read ends retired, without a result"
    );
    assert_eq!(rig.page_panics.load(std::sync::atomic::Ordering::SeqCst), 0);
    let stages: Vec<_> = rig.recorder.records_where(|r| {
        r.source == "chat_history:rondo" && r.generation == Some(panicked.generation)
    });
    assert!(
        stages
            .iter()
            .any(|r| r.stage == "worker_return" && r.outcome.as_deref() == Some("worker_panicked")),
        "{stages:?}"
    );
    assert!(
        stages
            .iter()
            .any(|r| r.stage == "retire" && r.reason.as_deref() == Some("worker_panicked")),
        "{stages:?}"
    );
    assert!(
        stages.iter().any(|r| r.stage == "unregistered"),
        "the page read is no longer registered in flight: {stages:?}"
    );
    // The view is not left waiting for it; what was shown stays.
    assert!(!rig.pane().loading_older);
    assert!(rig.pane().has_more);
    assert_eq!(rig.pane().view().transcript().len(), newest_len);
    assert_eq!(
        server.request_count("GET", HISTORY),
        gets,
        "it died before its GET"
    );

    // PgUp again, on the same open chat: the older page is read and prepended.
    rig.model.chat.pane.as_mut().unwrap().loading_older = true;
    rig.cast(ChatCommand::LoadOlder {
        keeper: KEEPER.into(),
    });
    // The source answers with a new page read, not a refusal (`page_in_flight` if the
    // panicked read had been left registered).
    let answer = rig
        .recorder
        .wait_for(|r| {
            r.source == "chat_history:rondo"
                && ((r.stage == "dispatch" && r.generation > Some(panicked.generation))
                    || (r.stage == "refused" && r.reason.as_deref() != Some("no_epoch")))
        })
        .await
        .expect("the second PgUp was answered");
    assert_eq!(answer.stage, "dispatch", "{answer:?}");
    let (page, observed) = page_end(&mut rig, KEEPER).await;
    assert!(observed, "the older page was read");
    assert!(page.generation > panicked.generation);
    assert_eq!(page.scope, panicked.scope, "same epoch, same chat");
    rig.pump_until(|m| !m.chat.pane.as_ref().unwrap().loading_older)
        .await;
    {
        let view = rig.pane().view();
        let t = view.transcript();
        assert!(t.len() > newest_len, "older rows were prepended");
        assert!(
            t.entries()[0].ts.unwrap() < oldest_ts,
            "the prepended rows are older"
        );
    }
    assert_eq!(rig.pane().older_failure, None);
    assert_eq!(
        server.request_count("GET", HISTORY),
        gets + 1,
        "one GET: the older page"
    );
    assert!(
        rig.recorder
            .records_where(|r| r.source == "chat_history:rondo"
                && r.reason.as_deref() == Some("page_in_flight"))
            .is_empty(),
        "the panicked read was not left in flight"
    );
    // Nothing restarted: the panic stayed in its worker.
    assert!(
        !rig.log
            .seen
            .iter()
            .any(|m| matches!(m, ViewMsg::SourceRestarted(_)))
    );
    assert!(
        rig.recorder
            .records_where(|r| r.stage == "restart")
            .is_empty()
    );
    rig.stop().await;
    server.shutdown().await;
}

/// §15.9: opening a chat reads the bare-array history once, in its own slot
/// beside the newest page; its autonomous turns join the transcript (`ops-bot`'s seed holds two,
/// one with `content: null` and no blocks). A bare array that is an object is that read's
/// decode failure only: the page stays, the chat is not blank, and the title says so.
#[tokio::test]
async fn s15_9_the_bare_array_is_read_once_per_open_and_its_failure_is_its_own() {
    use masc_tui::view::chat::AutonomousTurns;
    const ARRAY: &str = "/api/v1/keepers/ops-bot/chat/history";
    let (server, mut rig, _dir) = setup(FaultPlan::none()).await;
    open_ready(&mut rig, "ops-bot").await;
    rig.pump_until(|m| {
        matches!(
            m.chat.pane.as_ref().map(|p| &p.autonomous),
            Some(AutonomousTurns::Read(_))
        )
    })
    .await;
    {
        let pane = rig.pane();
        let AutonomousTurns::Read(rows) = &pane.autonomous else {
            panic!()
        };
        assert_eq!(rows.len(), 2);
        let view = pane.view();
        let t = view.transcript();
        for id in ["autonomous:trace-ops-bot#5", "autonomous:trace-ops-bot#8"] {
            assert!(t.get(id).is_some(), "{id} joined the transcript");
        }
        assert!(
            t.entries()
                .iter()
                .any(|e| matches!(e.speaker, Speaker::Autonomous { .. }))
        );
    }
    assert_eq!(server.request_count("GET", ARRAY), 1);
    server.shutdown().await;

    let (server, mut rig, _dir) = setup(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{ARRAY}"}},"fault":{{"status":200,"body":{{"rows":[]}}}}}}"#
    )))
    .await;
    open_ready(&mut rig, "ops-bot").await;
    rig.pump_until(|m| {
        matches!(
            m.chat.pane.as_ref().map(|p| &p.autonomous),
            Some(AutonomousTurns::Failed { .. })
        )
    })
    .await;
    let pane = rig.pane();
    assert!(pane.history_facts().contains("autonomous turns failed"));
    assert!(pane.view().transcript().len() > 5, "the page is shown");
    let admitted = rig
        .recorder
        .wait_for(|r| r.source == "chat_autonomous:ops-bot" && r.stage == "admit")
        .await;
    assert!(admitted.is_some(), "the read is traced on its own slot");
    server.shutdown().await;
}
