#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! A reopened chat tells the same story (chat-screen.md C-65, C-44; protocol.md §4.4, §11): a
//! send the server never recorded is reconciled once. Its "not recorded" row comes back on
//! every open — after closing the chat and after a restart on the same state directory — read
//! from the outbox's marks, without asking §4.4 again; and a text given back to the draft is
//! never given back a second time (`Ctrl-O` once, across reopens and restarts).

use crate::chat_support::{Rig, STREAM, TOKEN, held_chat_posts, rig, rig_with, token_server};
use masc_tui::actors::chat::{
    ChatCommand, ChatMark, ChatSourceConfig, InterruptAim, InterruptIntent, Reconciliation,
    SendMarks, SendOutcome, TurnInterrupt, UnknownWindow,
};
use masc_tui::actors::saves::hub::Save;
use masc_tui::actors::saves::{SaveCommand, SaveId};
use masc_tui::protocol::client::ClientConfig;
use masc_tui::server::RunningServer;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::chat::UnknownStanding;
use masc_tui::view::screens::chat::ChatEffect;
use masc_tui::view::screens::chat::{HistoryState, SendPhase};
use masc_tui::view::transcript::ScrollPosition;
use std::path::Path;
use std::time::Duration;

const KEEPER: &str = "rondo";
const TEXT: &str = "never recorded · 기록 없음";

fn gave_back(effects: &[ChatEffect], text: &str) -> usize {
    effects
        .iter()
        .filter(|e| matches!(e, ChatEffect::RestoreDraft { text: t, .. } if t == text))
        .count()
}

/// Opens the chat (a fresh pane, as the chat screen does) and waits until the outbox restore
/// has given it the send `id`.
async fn open_with_send(rig: &mut Rig, id: &str) {
    rig.open(KEEPER);
    rig.pump_until(|m| {
        m.chat.pane.as_ref().is_some_and(|p| {
            p.send(id).is_some() && p.history == masc_tui::view::screens::chat::HistoryState::Ready
        })
    })
    .await;
}

/// What the reopened pane shows for `id`: not recorded, at once, with its status row and no
/// pending row; taken back already when `taken_back`.
fn assert_not_recorded(rig: &Rig, id: &str, taken_back: bool) {
    let send = rig.pane().send(id).unwrap();
    assert!(
        matches!(send.reconciliation, Some(Reconciliation::Absent { .. })),
        "read back, not learned again: {:?}",
        send.reconciliation
    );
    assert!(matches!(
        send.unknown_standing(),
        Some(UnknownStanding::NotRecorded { taken_back: t, .. }) if t == taken_back
    ));
    assert_eq!(send.pending_state(), None, "no 전송 확인 중 after a reopen");
    assert_eq!(send.may_take_back(), !taken_back);
    let view = rig.pane().view();
    assert!(view.transcript().get(id).is_none(), "no pending row");
    let row = view.transcript().get(&format!("{id}:unconfirmed")).unwrap();
    assert!(
        row.text.starts_with("not recorded by the server after"),
        "{}",
        row.text
    );
}

/// The §4.4 reads of `id` so far, after giving a (wrong) re-check time to arrive.
async fn reconciliations(server: &RunningServer, id: &str) -> usize {
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.request_count(
        "GET",
        &format!("/api/v1/keepers/{KEEPER}/chat/operations/{id}"),
    )
}

fn marks(path: &Path, id: &str) -> SendMarks {
    let outbox = masc_tui::outbox::Outbox::open_path(path).unwrap();
    SendMarks::read(
        outbox
            .chat_marks(&[id])
            .unwrap()
            .get(id)
            .map_or(&[][..], |m| m),
    )
}

#[tokio::test]
async fn c65_a_send_never_recorded_is_not_reconciled_or_given_back_again_after_reopen_or_restart() {
    // Every chat POST held far past the client's timeout and never handled: nothing recorded.
    let server = token_server(held_chat_posts()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("chat-outbox.sqlite3");
    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, TEXT);
    rig.pump_until_send(&id, |s| {
        matches!(s.reconciliation, Some(Reconciliation::Absent { .. }))
    })
    .await;
    assert_not_recorded(&rig, &id, false);
    let asked = reconciliations(&server, &id).await;
    assert!(asked >= 1, "reconciled by its exact id");
    assert!(
        marks(&path, &id).settled_reconciliation().is_some(),
        "recorded durably: {:?}",
        marks(&path, &id)
    );

    // Closed and reopened: the same story at once, §4.4 not asked again.
    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, false);
    assert_eq!(
        reconciliations(&server, &id).await,
        asked,
        "not asked again"
    );

    // Ctrl-O once; the fact is kept.
    let pane = rig.model.chat.pane.as_mut().unwrap();
    assert_eq!(pane.take_back().as_deref(), Some(TEXT));
    rig.apply_effects();
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::Mark { request_id, mark: ChatMark::DraftReturned } if *request_id == id)));

    // Reopened again: taken back already — never offered again, never put in the draft.
    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    let before = gave_back(&rig.effects, TEXT);
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, true);
    assert_eq!(rig.model.chat.pane.as_mut().unwrap().take_back(), None);
    assert_eq!(gave_back(&rig.effects, TEXT), before);
    rig.stop().await;

    // A restart on the same state directory: the same.
    assert!(marks(&path, &id).draft_returned);
    let mut rig = crate::chat_support::rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, true);
    assert_eq!(rig.model.chat.pane.as_mut().unwrap().take_back(), None);
    assert_eq!(
        gave_back(&rig.effects, TEXT),
        0,
        "nothing given back after the restart"
    );
    assert_eq!(
        reconciliations(&server, &id).await,
        asked,
        "not asked after the restart"
    );
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    rig.stop().await;
    server.shutdown().await;
}

/// One step of a generated chat session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// A send the Keeper answers.
    Answered,
    /// A send the server refuses (409 with its reason).
    Refused,
    /// A send whose POST is held and never handled: outcome unknown, then not recorded.
    Lost,
    /// A newest-page reload of the open chat.
    Reload,
    /// A send whose long reply the operator stops mid-stream (`/interrupt`).
    Stopped,
}

/// The steps of `seed` (a linear congruential generator: the same seed, the same session).
fn session(seed: u64, len: usize) -> Vec<Step> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            match (x >> 33) % 5 {
                0 => Step::Answered,
                1 => Step::Refused,
                2 => Step::Lost,
                3 => Step::Stopped,
                _ => Step::Reload,
            }
        })
        .collect()
}

/// The fault plan that makes the session's POSTs answer, refuse or hold as its steps say.
fn plan_of(steps: &[Step]) -> FaultPlan {
    let mut rules = Vec::new();
    for (k, step) in steps.iter().filter(|s| **s != Step::Reload).enumerate() {
        let nth = k + 1;
        let fault = match step {
            Step::Refused => format!(r#"{{"status":409,"body":{{"error":"turn busy {nth}"}}}}"#),
            Step::Lost => r#"{"delay_ms":600000}"#.to_string(),
            Step::Answered | Step::Stopped | Step::Reload => continue,
        };
        rules.push(format!(
            r#"{{"match":{{"method":"POST","path":"{STREAM}"}},"when":{{"nth":{nth}}},"fault":{fault}}}"#
        ));
    }
    FaultPlan::from_json(&format!(r#"{{"rules":[{}]}}"#, rules.join(","))).unwrap()
}

/// The open chat as painted at every width from 41 to 200 columns, the whole transcript.
fn painted(rig: &Rig) -> Vec<Vec<String>> {
    let mut view = rig.pane().view();
    (41u16..=200)
        .map(|w| {
            let rows = view.total_rows(w);
            view.render(w, u16::try_from(rows).unwrap(), ScrollPosition::FromTop(0))
                .iter()
                .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect()
        })
        .collect()
}

/// A newest-page reload of the open chat, waited for.
async fn reload(rig: &mut Rig) {
    rig.model.chat.pane.as_mut().unwrap().history = HistoryState::Loading;
    rig.cast(ChatCommand::Open {
        keeper: KEEPER.into(),
    });
    rig.pump_until_ready().await;
}

/// What a session left that the history never holds: the sends (by request id) and the
/// turn control rows (by transcript id).
#[derive(Default)]
struct Local {
    sends: Vec<String>,
    controls: Vec<String>,
}

/// Runs `steps`.
async fn run(rig: &mut Rig, steps: &[Step]) -> Local {
    let mut local = Local::default();
    for (i, step) in steps.iter().enumerate() {
        if *step == Step::Reload {
            reload(rig).await;
            continue;
        }
        let text = match step {
            Step::Stopped => format!("step {i} long reply · 단계"),
            _ => format!("step {i} {step:?} · 단계"),
        };
        let id = rig.send(KEEPER, &text);
        match step {
            Step::Stopped => {
                rig.pump_until_send(&id, |s| {
                    matches!(s.activity, Some(masc_tui::view::chat::Activity::Streaming))
                })
                .await;
                let save_id = submit_interrupt(rig, &id);
                rig.pump_until_send(&id, |s| matches!(s.phase, SendPhase::Ended(_)))
                    .await;
                let row = format!("{}:interrupt", save_id.0);
                rig.pump_until(|m| {
                    m.chat.pane.as_ref().is_some_and(|p| {
                        p.view()
                            .transcript()
                            .get(&row)
                            .is_some_and(|e| e.text.contains("the turn stopped at your request"))
                    })
                })
                .await;
                local.controls.push(row);
            }
            Step::Answered => {
                rig.pump_until_send(&id, |s| {
                    matches!(s.phase, SendPhase::Ended(SendOutcome::Completed { .. }))
                })
                .await
            }
            Step::Refused => {
                rig.pump_until_send(&id, |s| {
                    matches!(s.phase, SendPhase::Ended(SendOutcome::NotApplied { .. }))
                })
                .await
            }
            Step::Lost => {
                rig.pump_until_send(&id, |s| {
                    matches!(s.reconciliation, Some(Reconciliation::Absent { .. }))
                })
                .await
            }
            Step::Reload => {}
        }
        if matches!(step, Step::Refused | Step::Lost) {
            local.sends.push(id);
        }
    }
    local
}

async fn reopened(rig: &mut Rig, local: &Local) {
    rig.open(KEEPER);
    rig.pump_until(|m| {
        m.chat.pane.as_ref().is_some_and(|p| {
            let view = p.view();
            p.history == HistoryState::Ready
                && local.sends.iter().all(|id| p.send(id).is_some())
                && local
                    .controls
                    .iter()
                    .all(|row| view.transcript().get(row).is_some())
        })
    })
    .await;
}

/// C-31, C-8, C-35, C-65, C-44: generated sessions of answered, refused, lost and stopped
/// sends and reloads paint the same rows in the same order after a reload, after closing and
/// reopening the chat, and after a restart on the same state directory, at every width from
/// 41 to 200; a refused send's row (its 409 and the server's reason) is found after the
/// reopen; a stop's interrupt row, its turn's tool row and "interrupted" row come back in
/// place after the restart (the interrupt books are in memory: rebuilt from the receipt
/// kept beside the save).
#[tokio::test]
async fn c31_c8_generated_sessions_tell_the_same_story_after_reopen_and_restart() {
    for seed in [7u64, 26, 65] {
        let steps = session(seed, 6);
        assert!(
            [7u64, 26, 65]
                .iter()
                .any(|s| session(*s, 6).contains(&Step::Stopped)),
            "the seeds cover a stop"
        );
        let server = token_server(plan_of(&steps)).await;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("chat-outbox.sqlite3");
        let tune = |client: &mut ClientConfig, source: &mut ChatSourceConfig| {
            client.request_timeout = Duration::from_millis(800);
            source.unknown_window = Some(UnknownWindow(Duration::from_millis(300)));
        };
        let mut rig = rig_with(&server.base_url(), Some(TOKEN), path.clone(), tune).await;
        rig.open_ready(KEEPER).await;
        let local = run(&mut rig, &steps).await;
        reload(&mut rig).await;
        let before = painted(&rig);

        rig.cast(ChatCommand::Close {
            keeper: KEEPER.into(),
        });
        reopened(&mut rig, &local).await;
        assert_same(&before, &painted(&rig), seed, &steps, "reopen");
        if let Some(refused) = steps.iter().position(|s| *s == Step::Refused) {
            let text = painted(&rig)[159].join("\n");
            assert!(
                text.contains("HTTP 409") && text.contains("turn busy"),
                "seed {seed}: step {refused}'s refusal row after the reopen:\n{text}"
            );
        }
        rig.stop().await;

        let mut rig = rig_with(&server.base_url(), Some(TOKEN), path.clone(), tune).await;
        reopened(&mut rig, &local).await;
        assert_same(&before, &painted(&rig), seed, &steps, "restart");
        rig.stop().await;
        server.shutdown().await;
    }
}

fn assert_same(
    before: &[Vec<String>],
    after: &[Vec<String>],
    seed: u64,
    steps: &[Step],
    when: &str,
) {
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        assert!(
            b == a,
            "seed {seed} {steps:?}: width {} differs after the {when}:\n--- before\n{}\n--- after\n{}",
            41 + i,
            b.join("\n"),
            a.join("\n")
        );
    }
}

/// C-44: a stop confirmed before the chat closed still reads "interrupted · the turn stopped
/// at your request" after it reopens — how the send's turn ended is kept beside it in the
/// outbox (`ended`), not learned again (before, the reopened chat said the end was not
/// observed).
#[tokio::test]
async fn c44_a_confirmed_stop_still_reads_confirmed_after_a_reopen() {
    let server = token_server(FaultPlan::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.sqlite3");
    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, "write me a long reply");
    rig.pump_until_send(&id, |s| s.phase == SendPhase::Running)
        .await;
    let save_id = submit_interrupt(&rig, &id);
    let row_id = format!("{}:interrupt", save_id.0);
    let stopped = |m: &masc_tui::view::model::Model| {
        m.chat.pane.as_ref().is_some_and(|p| {
            p.view()
                .transcript()
                .get(&row_id)
                .is_some_and(|e| e.text.contains("the turn stopped at your request"))
        })
    };
    rig.pump_until(stopped).await;
    rig.pump_until_send(&id, |s| matches!(s.phase, SendPhase::Ended(_)))
        .await;

    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    rig.open(KEEPER);
    rig.pump_until_ready().await;
    rig.pump_until(stopped).await;
    let text = rig
        .pane()
        .view()
        .transcript()
        .get(&row_id)
        .unwrap()
        .text
        .clone();
    assert!(!text.contains("not observed"), "{text}");
    rig.stop().await;
    server.shutdown().await;
}

/// Submits `/interrupt` of the send `id`'s turn, as the chat screen does.
fn submit_interrupt(rig: &Rig, id: &str) -> SaveId {
    let save_id = SaveId(masc_tui::outbox::new_request_id());
    let scope = rig.model.gate().current().cloned().unwrap();
    let intent = InterruptIntent {
        keeper: KEEPER.into(),
        aim: InterruptAim::Request {
            request_id: id.to_string(),
        },
    };
    rig.saves
        .as_ref()
        .unwrap()
        .send_message(SaveCommand::Submit(Save::<TurnInterrupt>::submission(
            save_id.clone(),
            intent,
            scope,
        )))
        .unwrap();
    save_id
}

/// The painted lines at 80 columns that hold `needle`.
fn lines_with(rig: &Rig, needle: &str) -> Vec<String> {
    painted(rig)[80 - 41]
        .iter()
        .filter(|l| l.contains(needle))
        .cloned()
        .collect()
}

/// C-44, C-8 (issue 25, "interrupted turns stay interrupted after a restart"): the tool row
/// of a turn stopped at the operator's request says so — live, after a reload, after closing
/// and reopening the chat and after a restart on the same outbox — and the stopped turn's
/// "interrupted" row comes back right after its rows. The send kept the call ids its stream
/// announced (`tool_calls`) and how its turn ended (`ended`); before, the rebuilt chat showed
/// the call as any finished one and no "interrupted" row at all.
#[tokio::test]
async fn c44_c8_a_stopped_turn_s_tool_row_stays_interrupted_after_reload_reopen_and_restart() {
    let server = token_server(FaultPlan::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.sqlite3");
    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, "write me a long reply");
    rig.pump_until_send(&id, |s| {
        matches!(s.activity, Some(masc_tui::view::chat::Activity::Streaming))
    })
    .await;
    submit_interrupt(&rig, &id);
    rig.pump_until_send(&id, |s| matches!(s.phase, SendPhase::Ended(_)))
        .await;
    let call = format!("tool-{id}-1");
    let outbox = masc_tui::outbox::Outbox::open_path(&path).unwrap();
    let kept = outbox.chat_marks(&[id.as_str()]).unwrap();
    let kept: Vec<(&str, Option<&str>)> = kept[&id]
        .iter()
        .map(|m| (m.mark.as_str(), m.value.as_deref()))
        .collect();
    assert!(
        kept.contains(&("tool_calls", Some(call.as_str()))),
        "{kept:?}"
    );
    assert!(kept.contains(&("ended", Some("cancelled"))), "{kept:?}");
    drop(outbox);

    let tool_row = |rig: &Rig| lines_with(rig, "masc_task_list · in_progress · turn interrupted");
    let stopped_row =
        |rig: &Rig| lines_with(rig, "interrupted · the turn was stopped before its reply");
    let live = tool_row(&rig);
    assert_eq!(live.len(), 1, "{live:?}");
    assert!(live[0].contains("turn interrupted"), "live: {live:?}");
    assert_eq!(stopped_row(&rig).len(), 1);

    reload(&mut rig).await;
    let reloaded = (tool_row(&rig), stopped_row(&rig));
    assert_eq!(reloaded.0, live, "after a reload");
    assert_eq!(reloaded.1.len(), 1, "the interrupted row after a reload");
    let order = |rig: &Rig| {
        let lines = painted(rig)[80 - 41].clone();
        let tool = lines
            .iter()
            .position(|l| l.contains("masc_task_list · in_progress · turn interrupted"));
        let stop = lines
            .iter()
            .position(|l| l.contains("the turn was stopped before its reply"));
        (tool, stop)
    };
    let (tool, stop) = order(&rig);
    assert!(tool < stop, "the interrupted row after the turn's tool row");

    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    rig.open(KEEPER);
    rig.pump_until_ready().await;
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .is_some_and(|p| p.view().transcript().get(&format!("{id}:error")).is_some())
    })
    .await;
    assert_eq!(
        (tool_row(&rig), stopped_row(&rig)),
        reloaded,
        "after a reopen"
    );
    rig.stop().await;

    let mut rig = crate::chat_support::rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open(KEEPER);
    rig.pump_until_ready().await;
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .is_some_and(|p| p.view().transcript().get(&format!("{id}:error")).is_some())
    })
    .await;
    assert_eq!(
        (tool_row(&rig), stopped_row(&rig)),
        reloaded,
        "after a restart"
    );
    assert!(order(&rig).0 < order(&rig).1);
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    rig.stop().await;
    server.shutdown().await;
}
