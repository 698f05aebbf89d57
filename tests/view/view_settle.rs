//! The settle stage on a model (issue: every receipt settles; sources.md H-6, K-2, N-3, §11,
//! §14.5): a receipt is "sent" until a read dispatched after it shows the change — then
//! "confirmed <time>" — or, at its bound, "not confirmed after N s — the server still shows …".
//! A read already in flight when the receipt landed never confirms it; a receipt that changed
//! nothing is final; the stage demands the re-reads a few times within the bound.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::decisions::held_call::{HeldCallDecision, HeldCallIntent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::keepers::ops::lifecycle::{
    LifecycleAction, LifecycleApplied, LifecycleIntent, LifecycleOutcome, LifecycleSave,
};
use masc_tui::actors::keepers::ops::{KeeperOpEvent, KeeperOpSlot};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot, ROSTER};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::held_calls::{HeldCallEffect, HeldToolCalls, ToolCallVerdict};
use masc_tui::protocol::keepers::{KeeperRowSlot, KeeperStatus};
use masc_tui::protocol::outcome::{DirectiveApplied, SaveOutcome};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::save_path::kinds;
use masc_tui::view::save_path::settle::Reread;
use masc_tui::view::saves::Settle;
use masc_tui::view::screens::keepers::operations::op_line;
use std::sync::Arc;
use std::time::{Duration, Instant};

const KEEPER: &str = "sangsu";

/// A model with a confirmed epoch and a roster whose only row is `sangsu` (running, not
/// paused) read by generation 1.
fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    roster_read(&mut m, 1, Some(false), Some(true));
    m
}

fn roster_ticket(generation: u64) -> Ticket<KeepersSlot> {
    sample::roster_ticket(generation, 1)
}

fn roster_with(
    paused: Option<bool>,
    running: Option<bool>,
) -> masc_tui::protocol::keepers::KeeperRoster {
    let mut row = sample::bare_row(KEEPER, KeeperStatus::Active);
    row.paused = paused;
    row.keepalive_running = running;
    sample::roster_of(vec![KeeperRowSlot::Row(Box::new(row))])
}

/// A roster read of `generation`, dispatched and answered at once.
fn roster_read(m: &mut Model, generation: u64, paused: Option<bool>, running: Option<bool>) {
    let t = roster_ticket(generation);
    crate::rig::dispatch(m, t.clone());
    crate::rig::observe(
        m,
        sample::roster_observation(t, roster_with(paused, running), AdmissionMode::Receipt),
    )
    .unwrap();
}

fn op_ticket(id: &SaveId) -> Ticket<KeepersSlot> {
    Ticket {
        slot: KeepersSlot::Op(KeeperOpSlot::Lifecycle(id.clone())),
        generation: 1,
        scope: sample::scope(1),
    }
}

fn lifecycle_event(
    id: &SaveId,
    action: LifecycleAction,
    step: SaveStep<LifecycleOutcome>,
) -> KeepersObservation {
    KeepersObservation::Op(Box::new(KeeperOpEvent::Lifecycle(SaveEvent::<
        LifecycleSave,
    > {
        save_id: id.clone(),
        intent: LifecycleIntent::new(KEEPER, action),
        workspace: sample::scope(1).workspace.0.clone(),
        step,
    })))
}

const SIGNALLED: LifecycleOutcome = SaveOutcome::Applied {
    detail: LifecycleApplied::Directive(DirectiveApplied::Signalled),
    warning: None,
};

/// Submits `action` on `sangsu` and lands `receipt` for it.
fn lifecycle_receipt(m: &mut Model, action: LifecycleAction, receipt: LifecycleOutcome) -> SaveId {
    let id = SaveId::fresh();
    let ws = sample::scope(1).workspace.0.clone();
    m.keepers
        .ops
        .lifecycle
        .submit(id.clone(), LifecycleIntent::new(KEEPER, action), ws);
    crate::rig::dispatch(m, op_ticket(&id));
    crate::rig::observe(
        m,
        SlotEvent::Observed(
            op_ticket(&id),
            lifecycle_event(&id, action, SaveStep::Ended(receipt)),
        ),
    )
    .unwrap();
    id
}

fn settle_of(m: &Model, id: &SaveId) -> Settle {
    m.keepers.ops.lifecycle.get(id).unwrap().settle.clone()
}

fn line(m: &Model) -> String {
    let ws = sample::scope(1).workspace.0.clone();
    op_line(m.keepers.ops.latest(KEEPER, &ws).unwrap()).0
}

/// "pause: sent" is confirmed by a roster read dispatched after the receipt that shows the
/// Keeper paused — never by the read that was in flight when the receipt landed, even when it
/// came back later showing the pause (it may have read the world before the write).
#[test]
fn n3_a_pause_is_confirmed_only_by_a_roster_read_dispatched_after_its_receipt() {
    let mut m = model();
    // A roster read is in flight when the receipt lands.
    let before = roster_ticket(2);
    crate::rig::dispatch(&mut m, before.clone());
    let id = lifecycle_receipt(&mut m, LifecycleAction::Pause, SIGNALLED);
    let now = Instant::now();
    let step = kinds::advance(&mut m, now);
    assert!(step.demands.contains(&Reread::Source(ROSTER)), "{step:?}");
    assert!(step.next.is_some(), "a wait is armed");
    assert!(matches!(settle_of(&m, &id), Settle::Awaiting { .. }));
    assert_eq!(line(&m), "pause: sent · confirming…");

    // The read in flight answers "paused": it does not count.
    crate::rig::observe(
        &mut m,
        sample::roster_observation(
            before,
            roster_with(Some(true), Some(true)),
            AdmissionMode::Receipt,
        ),
    )
    .unwrap();
    kinds::advance(&mut m, now);
    assert!(matches!(settle_of(&m, &id), Settle::Awaiting { .. }));

    // A read dispatched after the receipt shows the pause: confirmed.
    roster_read(&mut m, 3, Some(true), Some(true));
    let step = kinds::advance(&mut m, now + Duration::from_millis(300));
    assert!(step.changed);
    assert!(matches!(settle_of(&m, &id), Settle::Confirmed { .. }));
    let text = line(&m);
    assert!(text.starts_with("pause: sent · confirmed "), "{text}");
    assert!(text.ends_with(" UTC"), "{text}");
    // Settled: the stage leaves it alone and arms nothing more for it.
    let step = kinds::advance(&mut m, now + Duration::from_secs(60));
    assert_eq!(step.next, None);
    assert!(step.demands.is_empty());
}

/// "wake: sent" on a Keeper that stays stopped: the stage re-reads within its bound, then says
/// so — "not confirmed after 10 s — the server still shows sangsu stopped".
#[test]
fn n3_a_wake_that_never_shows_reads_not_confirmed_with_what_the_server_still_shows() {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    roster_read(&mut m, 1, Some(false), Some(false));
    let id = lifecycle_receipt(&mut m, LifecycleAction::Wake, SIGNALLED);
    let start = Instant::now();
    let first = kinds::advance(&mut m, start);
    assert_eq!(first.demands.len(), 1, "a re-read at once");
    roster_read(&mut m, 2, Some(false), Some(false));
    let step = kinds::advance(&mut m, start + Duration::from_secs(1));
    assert!(step.demands.is_empty(), "the next re-read waits its turn");
    assert!(matches!(
        settle_of(&m, &id),
        Settle::Awaiting { shown: Some(ref s), .. } if s == "sangsu stopped"
    ));
    let step = kinds::advance(&mut m, start + Duration::from_secs(3));
    assert!(
        step.demands.contains(&Reread::Source(ROSTER)),
        "re-read again"
    );
    let step = kinds::advance(&mut m, start + Duration::from_secs(11));
    assert!(step.changed);
    assert_eq!(
        settle_of(&m, &id),
        Settle::NotConfirmed {
            after: Duration::from_secs(10),
            shown: Some("sangsu stopped".into()),
        }
    );
    assert_eq!(
        line(&m),
        "wake: sent · not confirmed after 10 s — the server still shows sangsu stopped"
    );
}

/// A receipt that changed nothing (not applied) is final as it is: no re-read, no words.
#[test]
fn s11_a_receipt_that_changed_nothing_is_final() {
    let mut m = model();
    let id = lifecycle_receipt(
        &mut m,
        LifecycleAction::Boot,
        SaveOutcome::NotApplied {
            reason: "dispatch returned None".into(),
        },
    );
    let step = kinds::advance(&mut m, Instant::now());
    assert!(step.demands.is_empty());
    assert_eq!(settle_of(&m, &id), Settle::Final);
    assert!(!line(&m).contains("confirm"), "{}", line(&m));
}

/// An outcome-unknown receipt is never resent; the re-read only says whether it applied.
#[test]
fn s11_an_unknown_outcome_is_told_by_the_re_read_never_resent() {
    let mut m = model();
    let id = lifecycle_receipt(
        &mut m,
        LifecycleAction::Pause,
        SaveOutcome::OutcomeUnknown {
            reason: "connection_reset".into(),
        },
    );
    let now = Instant::now();
    kinds::advance(&mut m, now);
    roster_read(&mut m, 2, Some(true), Some(true));
    kinds::advance(&mut m, now);
    assert!(matches!(settle_of(&m, &id), Settle::Confirmed { .. }));
    let text = line(&m);
    assert!(text.contains("the re-read shows it applied"), "{text}");
    assert!(text.contains("not resent"), "{text}");
}

fn held_ticket(slot: DecisionsSlot, generation: u64) -> Ticket<DecisionsSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

/// §14.5: a held call approved in chat reads "승인됨 · 적용 예정" until a re-read of the list
/// after the answer no longer lists it; then the wait is confirmed over.
#[test]
fn s14_5_a_held_call_answer_is_confirmed_once_the_call_leaves_the_list() {
    let mut m = model();
    let call = serde_json::json!([{"keeper": KEEPER, "tool_call_id": "tc-1", "tool": "masc_task_list",
        "args": "{}", "question": "읽어도 될까요?", "because": null, "asked_at": 1.0, "timeout_sec": 60.0}]);
    let decode = |v: serde_json::Value| {
        <HeldToolCalls as masc_tui::protocol::decode::WireDecode>::decode(
            serde_json::to_vec(&serde_json::json!({ "pending": v }))
                .unwrap()
                .as_slice(),
        )
        .unwrap()
    };
    let listed = |m: &mut Model, generation: u64, list: HeldToolCalls| {
        let t = held_ticket(DecisionsSlot::HeldCalls, generation);
        crate::rig::dispatch(m, t.clone());
        crate::rig::observe(
            m,
            SlotEvent::Observed(
                t,
                DecisionsObservation::HeldCalls(Ok(Admitted {
                    value: Arc::new(list),
                    mode: AdmissionMode::Receipt,
                    from_cache: false,
                })),
            ),
        )
        .unwrap();
    };
    listed(&mut m, 1, decode(call.clone()));
    let intent = HeldCallIntent {
        keeper: KEEPER.into(),
        tool_call_id: "tc-1".into(),
        tool: "masc_task_list".into(),
        decision: ToolCallVerdict::Approve,
    };
    let id = SaveId::fresh();
    let ws = sample::scope(1).workspace.0.clone();
    m.decisions
        .held_answers
        .submit(id.clone(), intent.clone(), ws.clone());
    let t = held_ticket(DecisionsSlot::HeldCallDecision(id.clone()), 1);
    crate::rig::dispatch(&mut m, t.clone());
    let receipt = SaveOutcome::Applied {
        detail: masc_tui::protocol::held_calls::HeldCallDecisionReply {
            effect: HeldCallEffect::Released,
            decision: ToolCallVerdict::Approve,
        },
        warning: None,
    };
    crate::rig::observe(
        &mut m,
        SlotEvent::Observed(
            t,
            DecisionsObservation::HeldCallDecision(Box::new(SaveEvent::<HeldCallDecision> {
                save_id: id.clone(),
                intent,
                workspace: ws,
                step: SaveStep::Ended(receipt),
            })),
        ),
    )
    .unwrap();
    let now = Instant::now();
    kinds::advance(&mut m, now);
    assert!(matches!(
        m.decisions.held_answers.get(&id).unwrap().settle,
        Settle::Awaiting { .. }
    ));
    // Re-read after the answer: still listed, then gone.
    listed(&mut m, 2, decode(call));
    kinds::advance(&mut m, now);
    assert!(matches!(
        m.decisions.held_answers.get(&id).unwrap().settle,
        Settle::Awaiting { shown: Some(ref s), .. } if s == "the call still waiting"
    ));
    listed(&mut m, 3, decode(serde_json::json!([])));
    kinds::advance(&mut m, now);
    assert!(matches!(
        m.decisions.held_answers.get(&id).unwrap().settle,
        Settle::Confirmed { .. }
    ));
}

// ---- The saves journal layer (`L` on every surface) and undo from it. ----

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::save_path::journal::Stage;
use masc_tui::view::screens::journal::{JournalLayer, is_open};
use masc_tui::view::screens::{Tab, Ui};

fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

/// `L` opens the journal on every surface and asks the save hub for the outbox rows; the
/// session's saves are listed unsettled first (a pause awaiting its re-read before a boot that
/// changed nothing), `f` keeps only the unsettled, `t` filters by kind, `Enter` shows one whole.
#[test]
fn journal_lists_every_save_unsettled_first_with_filters_and_detail() {
    let mut m = model();
    let boot = lifecycle_receipt(
        &mut m,
        LifecycleAction::Boot,
        SaveOutcome::NotApplied {
            reason: "dispatch returned None".into(),
        },
    );
    let pause = lifecycle_receipt(&mut m, LifecycleAction::Pause, SIGNALLED);
    kinds::advance(&mut m, Instant::now());
    for tab in [Tab::Overview, Tab::Keepers, Tab::System] {
        let mut ui = Ui {
            tab,
            ..Ui::default()
        };
        let cmd = press(&mut ui, &m, KeyCode::Char('L'));
        assert_eq!(cmd, UiCommand::Refresh(masc_tui::actors::saves::SAVES));
        assert!(is_open(&ui), "{tab:?}");
    }
    let mut ui = Ui::default();
    press(&mut ui, &m, KeyCode::Char('L'));
    let layer = ui.layer::<JournalLayer>().unwrap();
    let rows = layer.rows(&m);
    let ids: Vec<&str> = rows.iter().map(|r| r.save_id.as_str()).collect();
    assert_eq!(ids, [pause.0.as_str(), boot.0.as_str()], "unsettled first");
    assert!(rows[0].unsettled);
    assert_eq!(rows[0].settle.as_deref(), Some("confirming…"));
    assert_eq!(rows[0].target, KEEPER);
    assert!(rows[0].inputs.contains("pause"), "{}", rows[0].inputs);
    assert_eq!(
        rows[1].stage,
        Stage::Receipt(masc_tui::protocol::outcome::SaveClass::NotApplied)
    );
    assert_eq!(rows[1].reason.as_deref(), Some("dispatch returned None"));
    press(&mut ui, &m, KeyCode::Char('f'));
    let only: Vec<String> = ui
        .layer::<JournalLayer>()
        .unwrap()
        .rows(&m)
        .into_iter()
        .map(|r| r.save_id)
        .collect();
    assert_eq!(only, std::slice::from_ref(&pause.0));
    press(&mut ui, &m, KeyCode::Char('f'));
    press(&mut ui, &m, KeyCode::Char('t'));
    let layer = ui.layer::<JournalLayer>().unwrap();
    assert_eq!(layer.filter().kind.as_deref(), Some("keeper_lifecycle"));
    assert_eq!(layer.rows(&m).len(), 2);
    // A journal of a kind with no saves lists nothing; the cycle ends back at every kind.
    press(&mut ui, &m, KeyCode::Char('t'));
    assert_eq!(ui.layer::<JournalLayer>().unwrap().filter().kind, None);
    // Enter shows the selected save whole; Esc goes back, Esc again closes.
    press(&mut ui, &m, KeyCode::Enter);
    ui.area = ratatui::layout::Rect::new(0, 0, 100, 24);
    let text = crate::rig::screen_text(&m, &ui);
    assert!(text.contains(&format!("SAVE {}", pause.0)), "{text}");
    assert!(
        text.contains("no undo now: not confirmed yet: no roster re-read since its receipt"),
        "{text}"
    );
    press(&mut ui, &m, KeyCode::Esc);
    assert!(is_open(&ui));
    press(&mut ui, &m, KeyCode::Esc);
    assert!(!is_open(&ui));
}

/// Undo: `u` submits the companion's undo armed by `u` (the confirmation stage previews it and
/// `u` again commits it: a resume for a pause); a kind the server keeps no earlier value for
/// says so plainly and submits nothing.
#[test]
fn journal_u_submits_the_companions_undo_armed_by_u_and_says_why_there_is_none() {
    let mut m = model();
    let pause = lifecycle_receipt(&mut m, LifecycleAction::Pause, SIGNALLED);
    let wake = lifecycle_receipt(&mut m, LifecycleAction::Wake, SIGNALLED);
    // The roster re-read after both receipts shows the pause: its undo is exact.
    roster_read(&mut m, 2, Some(true), Some(true));
    let mut ui = Ui::default();
    press(&mut ui, &m, KeyCode::Char('L'));
    let rows = ui.layer::<JournalLayer>().unwrap().rows(&m);
    let at = |id: &SaveId| rows.iter().position(|r| r.save_id == id.0).unwrap();
    // Select the wake: no undo, nothing submitted.
    let (first, second) = (at(&wake), at(&pause));
    for _ in 0..first {
        press(&mut ui, &m, KeyCode::Char('j'));
    }
    assert_eq!(press(&mut ui, &m, KeyCode::Char('u')), UiCommand::Repaint);
    let notice = ui.notice.text.clone().unwrap();
    assert!(
        notice.contains("no undo: a wake signal cannot be taken back"),
        "{notice}"
    );
    // Select the pause: its undo is a resume, asked by `u` (not confirmed yet).
    press(&mut ui, &m, KeyCode::Char('k'));
    for _ in 0..second {
        press(&mut ui, &m, KeyCode::Char('j'));
    }
    let cmd = press(&mut ui, &m, KeyCode::Char('u'));
    let UiCommand::Save(request) = &cmd else {
        panic!("an exact undo is a save: {cmd:?}");
    };
    assert!(!request.is_confirmed(), "previewed before it is committed");
    assert_eq!(request.key(), KeyCode::Char('u'));
    let intent = cmd.as_save::<LifecycleSave>().expect("a lifecycle save");
    assert_eq!(intent.action, LifecycleAction::Resume);
    assert_eq!(intent.keeper, KEEPER);
    // What each kind's undo is, in the journal's words.
    let rows = kinds::journal_rows(&m);
    let words: Vec<String> = rows
        .iter()
        .filter_map(|r| r.undo.as_ref())
        .map(|u| u.words())
        .collect();
    assert!(
        words.iter().any(|w| w == "u undoes: resume sangsu"),
        "{words:?}"
    );
}
