#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The chat screen through ratatui's `TestBackend`: the demo's broken coop-report line never
//! shows its JSON (coop-report.md, issue 4), the status line names the chat target whatever the
//! roster cursor (C-57), keys open/close/send with drafts kept per Keeper and workspace, the
//! pending states (C-32…C-34) and the progress row (C-39…C-41). Assertions are on typed state
//! and on the absence of JSON, not on wording.

use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::chat::{ChatObservation, ChatSlot, SendStep};
use masc_tui::actors::contract::Ticket;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::chat::{
    ChatHistoryPage, ChatHistoryRow, ChatRole, ChatStreamEvent, OperationState,
};
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::keepers::KeeperRowSlot;
use masc_tui::server::store::chat::{FINAL_WITH_BROKEN_REPORT, FINAL_WITH_HIDDEN_REPORT};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_lines, buffer_text};
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::chat::{Activity, ChatEvent, ChatPane, Progress};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    OriginMode, PendingState, ScrollPosition, ToolVisibility, ViewModes,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const THEME: Theme = Theme::plain();

pub(crate) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub(crate) fn draw(model: &Model, ui: &Ui) -> ratatui::buffer::Buffer {
    let mut term = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(THEME);
    term.draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    term.backend().buffer().clone()
}

fn row(id: &str, role: ChatRole, content: &str, ts: f64) -> ChatHistoryRow {
    ChatHistoryRow {
        id: id.into(),
        role,
        content: content.into(),
        ts: Some(ts),
        kind: None,
        turn_ref: None,
        tool_call_id: None,
        tool_call_name: None,
        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
    }
}

/// A ticket of `keeper`'s history page slot.
pub(crate) fn chat_ticket(keeper: &str, generation: u64) -> Ticket<ChatSlot> {
    Ticket {
        slot: ChatSlot::History {
            keeper: keeper.into(),
        },
        generation,
        scope: sample::scope(1),
    }
}

/// A ticket of `keeper`'s send `request_id`.
fn send_ticket(keeper: &str, request_id: &str, generation: u64) -> Ticket<ChatSlot> {
    Ticket {
        slot: ChatSlot::Send {
            keeper: keeper.into(),
            request_id: request_id.into(),
        },
        generation,
        scope: sample::scope(1),
    }
}

pub(crate) fn page(rows: Vec<ChatHistoryRow>) -> ChatObservation {
    ChatObservation::HistoryPage {
        before: None,
        result: Ok(Admitted {
            value: Arc::new(ChatHistoryPage {
                dropped: Vec::new(),
                messages: rows,
                has_more: false,
                next_before: None,
                schema_sent: true,
            }),
            mode: AdmissionMode::Receipt,
            from_cache: false,
        }),
    }
}

/// A model with a confirmed epoch, a roster of five, and `keeper`'s chat open via the keys.
pub(crate) fn opened(keeper_index: usize) -> (Model, Ui, String) {
    let mut model = Model::default();
    model.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let t = sample::roster_ticket(1, 1);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(
        &mut model,
        sample::roster_observation(t, sample::roster(5), AdmissionMode::Receipt),
    )
    .unwrap();
    let mut ui = Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::Keepers,
        ..Ui::default()
    };
    ui.roster_mut().selected = keeper_index;
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Char('c')));
    let Some(ChatEvent::Open { keeper }) = cmd.as_local::<ChatEvent>().cloned() else {
        panic!("{cmd:?}");
    };
    let KeeperRowSlot::Row(r) =
        &model.keepers.roster.fetched.last().unwrap().value.rows[keeper_index]
    else {
        panic!()
    };
    assert_eq!(keeper, r.name, "c opens the selected row's Keeper");
    crate::rig::chat_event(
        ChatEvent::Open {
            keeper: keeper.clone(),
        },
        &mut model,
        &mut ui,
        None,
    );
    (model, ui, keeper)
}

#[test]
fn broken_coop_report_json_never_shows_in_the_chat_screen() {
    let (mut model, mut ui, keeper) = opened(0);
    let pane = model.chat.pane.as_mut().unwrap();
    pane.apply(
        &chat_ticket(&keeper, 1),
        page(vec![
            row("m-1", ChatRole::User, "훅 설정 됐어?", 1_787_000_000.5),
            row(
                "m-2",
                ChatRole::Assistant,
                FINAL_WITH_BROKEN_REPORT,
                1_787_000_060.5,
            ),
            row("m-3", ChatRole::User, "디코더는?", 1_787_000_100.5),
            row(
                "m-4",
                ChatRole::Assistant,
                FINAL_WITH_HIDDEN_REPORT,
                1_787_000_160.5,
            ),
        ]),
    );
    for origin in [OriginMode::Bare, OriginMode::Inline, OriginMode::Row] {
        for tools in [
            ToolVisibility::Compact,
            ToolVisibility::Results,
            ToolVisibility::Full,
        ] {
            ui.layer_mut::<ChatUi>().unwrap().modes = ViewModes {
                origin,
                tools,
                ..ViewModes::default()
            };
            ui.layer_mut::<ChatUi>().unwrap().scroll = ScrollPosition::FromTop(0);
            let text = buffer_text(&draw(&model, &ui));
            assert!(
                text.contains("훅 설정 고쳤어"),
                "the prose stays visible\n{text}"
            );
            for json in ["coop_reports", "binding_id\"", "{\"", "\"outcome\""] {
                assert!(
                    !text.contains(json),
                    "{origin:?}/{tools:?}: report JSON {json:?} shown\n{text}"
                );
            }
        }
    }
}

#[test]
fn c57_status_line_names_the_chat_target_whatever_the_roster_cursor() {
    let (model, mut ui, keeper) = opened(2);
    let status_row = |ui: &Ui| {
        let lines = buffer_lines(&draw(&model, ui));
        // The chat's status line is the row above the footer.
        lines[lines.len() - 2].clone()
    };
    let before = status_row(&ui);
    assert!(before.contains(&keeper), "{before}");
    for cursor in [0, 4] {
        ui.roster_mut().selected = cursor;
        assert_eq!(
            status_row(&ui),
            before,
            "cursor {cursor} changed the target"
        );
    }
}

#[test]
fn esc_closes_and_drafts_are_kept_per_keeper_and_workspace() {
    let (mut model, mut ui, first) = opened(1);
    for c in "half-typed 초안".chars() {
        handle_key(&mut ui, &model, key(KeyCode::Char(c)));
    }
    // Esc does not leave a chat with a draft typed; closing keeps it.
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert!(cmd.as_local::<ChatEvent>().is_none(), "{cmd:?}");
    crate::rig::chat_event(
        ChatEvent::Close {
            keeper: first.clone(),
        },
        &mut model,
        &mut ui,
        None,
    );
    assert!(ui.layer::<ChatUi>().is_none() && model.chat.pane.is_none());
    // Another Keeper starts empty.
    ui.roster_mut().selected = 3;
    let Some(open) = handle_key(&mut ui, &model, key(KeyCode::Char('m')))
        .as_local::<ChatEvent>()
        .cloned()
    else {
        panic!()
    };
    crate::rig::chat_event(open, &mut model, &mut ui, None);
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "");
    // Back to the first: its draft is there.
    crate::rig::chat_event(
        ChatEvent::Open {
            keeper: first.clone(),
        },
        &mut model,
        &mut ui,
        None,
    );
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().composer.text(),
        "half-typed 초안"
    );
    // Enter takes the text out as a send of the chat target.
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    let Some(ChatEvent::Send {
        keeper: sent_to,
        text,
        ..
    }) = cmd.as_local::<ChatEvent>().cloned()
    else {
        panic!("{cmd:?}")
    };
    assert_eq!((&sent_to, text.as_str()), (&first, "half-typed 초안"));
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "");
    // No hub: the send is refused before anything leaves and the draft comes back.
    let Some(send) = cmd.as_local::<ChatEvent>().cloned() else {
        panic!()
    };
    let notice = crate::rig::chat_event(send, &mut model, &mut ui, None);
    assert!(notice.is_some());
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().composer.text(),
        "half-typed 초안"
    );
}

#[test]
fn c34_receipt_is_not_processing_and_c39_progress_follows_observed_deltas() {
    let mut pane = ChatPane::new("rondo", Some(sample::scope(1).workspace), THEME);
    let id = "tui-0190f5a0-0000-7000-8000-000000000001";
    let t = send_ticket("rondo", id, 7);
    pane.register_send(id, "status?");
    // C-33: the progress row says what the pending label says (`전송 대기` until `Sending`).
    assert_eq!(pane.progress(), Progress::Waiting);
    let step = |pane: &mut ChatPane, step: SendStep| {
        pane.apply(
            &t,
            ChatObservation::Send {
                request_id: id.into(),
                step,
            },
        );
    };
    step(&mut pane, SendStep::Written);
    step(&mut pane, SendStep::Sending);
    assert_eq!(
        pane.send(id).unwrap().pending_state(),
        Some(PendingState::Sending)
    );
    assert_eq!(pane.progress(), Progress::Sending);
    step(
        &mut pane,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: None,
        },
    );
    // Receipt: still pending (처리 대기), not in the conversation (C-34).
    assert_eq!(
        pane.send(id).unwrap().pending_state(),
        Some(PendingState::WaitingToProcess)
    );
    assert!(
        pane.view()
            .transcript()
            .get(&format!("{id}:input"))
            .is_none()
    );
    assert_eq!(pane.progress(), Progress::Queued);
    step(&mut pane, SendStep::Event(ChatStreamEvent::RunStarted));
    assert!(
        pane.view().transcript().get(id).is_none(),
        "pending row gone"
    );
    assert!(
        pane.view()
            .transcript()
            .get(&format!("{id}:input"))
            .is_some()
    );
    // C-39: working until a delta is actually received.
    assert_eq!(pane.progress(), Progress::Active(Activity::Working));
    step(
        &mut pane,
        SendStep::Event(ChatStreamEvent::ThinkingDelta {
            delta: Some("hm".into()),
        }),
    );
    assert_eq!(pane.progress(), Progress::Active(Activity::Thinking));
    step(
        &mut pane,
        SendStep::Event(ChatStreamEvent::TextStart {
            message_id: "msg-1".into(),
        }),
    );
    step(
        &mut pane,
        SendStep::Event(ChatStreamEvent::TextDelta {
            message_id: "msg-1".into(),
            delta: "partial".into(),
        }),
    );
    assert_eq!(pane.progress(), Progress::Active(Activity::Streaming));
    // C-41: the chunk closing does not end the response.
    step(
        &mut pane,
        SendStep::Event(ChatStreamEvent::TextEnd {
            message_id: "msg-1".into(),
        }),
    );
    assert_eq!(pane.progress(), Progress::Active(Activity::Working));
    // Not admitted for another Keeper's pane (G-2): a ticket of rondo never fits sangsu.
    let mut other = ChatPane::new("sangsu", Some(sample::scope(1).workspace), THEME);
    let mut gate = masc_tui::view::admission::EpochGate::default();
    gate.confirm(sample::scope(1));
    assert!(!other.dispatched(&t, &gate));
    assert_eq!(
        other.judge(
            &t,
            &ChatObservation::Send {
                request_id: id.into(),
                step: SendStep::Sending
            },
            &gate
        ),
        Err(masc_tui::view::admission::RejectReason::OtherTarget)
    );
}

#[test]
fn a_newest_page_reload_keeps_only_inputs_still_pending() {
    let mut pane = ChatPane::new("rondo", Some(sample::scope(1).workspace), THEME);
    let (done, waiting) = (
        "tui-0190f5a0-0000-7000-8000-00000000000a",
        "tui-0190f5a0-0000-7000-8000-00000000000b",
    );
    let sent = send_ticket("rondo", done, 3);
    let history = chat_ticket("rondo", 3);
    pane.register_send(done, "processed");
    pane.register_send(waiting, "still waiting");
    pane.apply(
        &sent,
        ChatObservation::Send {
            request_id: done.into(),
            step: SendStep::Event(ChatStreamEvent::RunStarted),
        },
    );
    // The reload holds the persisted input of the processed send.
    pane.apply(
        &history,
        page(vec![row("m-done-user", ChatRole::User, "processed", 1.5)]),
    );
    let view = pane.view();
    let texts: Vec<&str> = view
        .transcript()
        .entries()
        .iter()
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(texts, ["processed", "still waiting"], "no duplicate input");
    assert!(view.transcript().get(waiting).is_some(), "pending row kept");
}

/// The steps of a send MASC accepted as queued: written, sending, accepted.
pub(crate) fn queued_steps() -> [SendStep; 3] {
    [
        SendStep::Written,
        SendStep::Sending,
        SendStep::Accepted {
            state: masc_tui::protocol::chat::OperationState::Queued,
            interactive: None,
        },
    ]
}

/// Applies `step` of send `request_id` to the open pane, with the send's own ticket (as the
/// save hub posts it).
pub(crate) fn send_step(
    model: &mut Model,
    keeper: &str,
    request_id: &str,
    step: masc_tui::actors::chat::SendStep,
) {
    let ticket = send_ticket(keeper, request_id, 1);
    model.chat.pane.as_mut().unwrap().apply(
        &ticket,
        ChatObservation::Send {
            request_id: request_id.into(),
            step,
        },
    );
}

pub(crate) fn type_text(ui: &mut Ui, model: &Model, text: &str) {
    for c in text.chars() {
        handle_key(ui, model, key(KeyCode::Char(c)));
    }
}

#[test]
fn c66_an_unknown_slash_word_shows_the_typed_error_and_is_never_sent() {
    let (model, mut ui, _) = opened(0);
    type_text(&mut ui, &model, "/frobnicate now");
    // Past the command word: no menu, Enter submits the draft as a command.
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert!(
        !matches!(cmd.as_local::<ChatEvent>(), Some(ChatEvent::Send { .. })),
        "an unknown command was sent: {cmd:?}"
    );
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().composer.text(),
        "/frobnicate now",
        "the draft stays for correction"
    );
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("/frobnicate"),
        "typed error on the footer\n{text}"
    );
    assert!(text.contains('✗'), "shown as a failure (C-64)\n{text}");
}

#[test]
fn c60_slash_commands_map_to_screen_behaviour_and_c59_menu_is_drawn() {
    let (model, mut ui, _) = opened(0);
    type_text(&mut ui, &model, "/too");
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("/tools"), "menu candidate shown\n{text}");
    // Tab inserts the candidate; an argument and Enter run it.
    handle_key(&mut ui, &model, key(KeyCode::Tab));
    ui.layer_mut::<ChatUi>()
        .unwrap()
        .composer
        .set_text("/tools full");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert_eq!(cmd, UiCommand::Repaint);
    let chat = ui.layer::<ChatUi>().unwrap();
    assert_eq!(chat.modes.tools, ToolVisibility::Full);
    assert_eq!(
        chat.composer.text(),
        "",
        "a run command leaves the composer"
    );
    // A valid command with no screen behaviour yet is reported, not sent.
    type_text(&mut ui, &model, "/cost");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    let cmd = if cmd == UiCommand::Repaint && !ui.layer::<ChatUi>().unwrap().composer.is_empty() {
        // The first Enter only completed the menu candidate.
        handle_key(&mut ui, &model, key(KeyCode::Enter))
    } else {
        cmd
    };
    assert!(!matches!(
        cmd.as_local::<ChatEvent>(),
        Some(ChatEvent::Send { .. })
    ));
}

#[test]
fn ctrl_j_newline_paste_and_unhandled_keys_reach_the_screen() {
    let (model, mut ui, keeper) = opened(0);
    type_text(&mut ui, &model, "one");
    handle_key(
        &mut ui,
        &model,
        KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL),
    );
    // C-68: CRLF becomes LF; a small paste goes into the text as is.
    assert!(masc_tui::view::keys::handle_paste(
        &mut ui,
        &model,
        "two\r\nthree"
    ));
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().composer.text(),
        "one\ntwo\nthree"
    );
    // Ctrl-D is the tools toggle, not a composer key.
    let before = ui.layer::<ChatUi>().unwrap().modes.tools;
    handle_key(
        &mut ui,
        &model,
        KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL),
    );
    assert_ne!(ui.layer::<ChatUi>().unwrap().modes.tools, before);
    // The terminal cursor sits at the end of the draft, on the composer's last text row.
    let mut buf = ratatui::buffer::Buffer::empty(ui.area);
    let cursor = masc_tui::view::screens::render_with_cursor(
        &model,
        &ui,
        &ProjectionCtx::now(THEME),
        ui.area,
        &mut buf,
    )
    .expect("cursor shown while composing");
    let lines = buffer_lines(&buf);
    let row = &lines[usize::from(cursor.1)];
    assert!(row.trim_end().ends_with("three"), "{row:?}");
    assert_eq!(usize::from(cursor.0), 2 + "three".len());
    // Enter sends the whole multi-line draft.
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    let Some(ChatEvent::Send {
        keeper: k, text, ..
    }) = cmd.as_local::<ChatEvent>().cloned()
    else {
        panic!("{cmd:?}")
    };
    assert_eq!((k, text.as_str()), (keeper, "one\ntwo\nthree"));
}

/// C-65: Up/Down past the draft's edges recall this Keeper's inputs — pending first, then
/// sent, newest first — and give the typed draft back; an edit ends the walk; after PgUp the
/// same keys scroll the transcript one line and leave the composer alone.
#[test]
fn c65_up_down_recall_pending_then_sent_and_return_the_draft() {
    let (mut model, mut ui, keeper) = opened(0);
    let pane = model.chat.pane.as_mut().unwrap();
    pane.apply(
        &chat_ticket(&keeper, 1),
        page(vec![
            row("m-1", ChatRole::User, "first", 1_787_000_000.5),
            row("m-2", ChatRole::Assistant, "an answer", 1_787_000_010.5),
            row("m-3", ChatRole::User, "second", 1_787_000_020.5),
        ]),
    );
    pane.register_send("tui-0190f5a0-0000-7000-8000-00000000000a", "queued");
    type_text(&mut ui, &model, "draft 한글");
    let text = |ui: &Ui| ui.layer::<ChatUi>().unwrap().composer.text().to_string();
    let press = |ui: &mut Ui, code: KeyCode| handle_key(ui, &model, key(code));
    let mut walked = Vec::new();
    for _ in 0..4 {
        press(&mut ui, KeyCode::Up);
        walked.push(text(&ui));
    }
    assert_eq!(walked, ["queued", "second", "first", "first"]);
    let mut back = Vec::new();
    for _ in 0..4 {
        press(&mut ui, KeyCode::Down);
        back.push(text(&ui));
    }
    assert_eq!(back, ["second", "queued", "draft 한글", "draft 한글"]);
    // An edited recall is the draft: Down past it does not swap it away.
    press(&mut ui, KeyCode::Up);
    press(&mut ui, KeyCode::Char('!'));
    press(&mut ui, KeyCode::Down);
    assert_eq!(text(&ui), "queued!");
    // After PgUp, Up/Down scroll one line; the composer is untouched.
    ui.layer_mut::<ChatUi>().unwrap().scroll = ScrollPosition::Back(5);
    press(&mut ui, KeyCode::Up);
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().scroll,
        ScrollPosition::Back(6)
    );
    press(&mut ui, KeyCode::Down);
    press(&mut ui, KeyCode::Down);
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().scroll,
        ScrollPosition::Back(4)
    );
    assert_eq!(text(&ui), "queued!");
}

/// C-65: Ctrl-G opens the next Keeper's chat in roster order (wrapping at the end), but not
/// while this chat's turn is in flight: then it is refused on the footer (C-64), not queued.
#[test]
fn c65_ctrl_g_next_keeper_not_while_a_turn_is_in_flight() {
    let ctrl_g = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL);
    let names: Vec<String> = {
        let (model, _, _) = opened(0);
        let roster = &model.keepers.roster.fetched.last().unwrap().value;
        roster.keepers().map(|r| r.name.clone()).collect()
    };
    let (mut model, mut ui, keeper) = opened(0);
    assert_eq!(keeper, names[0]);
    let cmd = handle_key(&mut ui, &model, ctrl_g);
    assert_eq!(
        cmd,
        UiCommand::local(ChatEvent::Open {
            keeper: names[1].clone()
        })
    );
    let (_, mut last_ui, last) = opened(names.len() - 1);
    let cmd = handle_key(&mut last_ui, &model, ctrl_g);
    assert_ne!(last, names[0]);
    assert!(
        matches!(cmd.as_local::<ChatEvent>(), Some(ChatEvent::Open { keeper }) if *keeper == names[0]),
        "wraps to the first: {cmd:?}"
    );
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send("tui-0190f5a0-0000-7000-8000-00000000000b", "busy?");
    // Typed, not yet on the wire: `전송 대기`, as its pending label says (C-33).
    assert_eq!(
        model.chat.pane.as_ref().unwrap().progress(),
        Progress::Waiting
    );
    let cmd = handle_key(&mut ui, &model, ctrl_g);
    assert_eq!(cmd, UiCommand::Repaint, "refused, not switched");
    let chat = ui.layer::<ChatUi>().unwrap();
    assert_eq!(chat.keeper, keeper);
    assert!(chat.composer.notice(std::time::Instant::now()).is_some());
}

/// C-57, §14.4: the status line's mode is the chat target's tool approval mode — an
/// on-demand Keeper (every sample row) is not left without one: `mode not loaded` until the
/// modes are read, then `YOLO` for its override, `AUTO` for the default; an older MASC says
/// it does not serve them. Never the roster's activation, never guessed.
#[test]
fn c57_status_line_shows_yolo_and_auto_of_the_chat_target_for_an_on_demand_keeper() {
    use masc_tui::actors::contract::SlotEvent;
    use masc_tui::actors::keeper_detail::{KeeperDetailObservation, KeeperDetailSlot};
    use masc_tui::protocol::client::ClientError;
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::keeper_ops::ToolApprovalModes;
    use masc_tui::protocol::routes::RouteFamily;
    let (mut model, ui, keeper) = opened(2);
    let status_row = |model: &Model| {
        let lines = buffer_lines(&draw(model, &ui));
        lines[lines.len() - 2].clone()
    };
    let before = status_row(&model);
    assert!(before.contains(" · mode not loaded · "), "{before}");
    assert!(
        !before.contains("AUTO") && !before.contains("ON-DEMAND"),
        "{before}"
    );
    let ticket = |generation| masc_tui::actors::contract::Ticket {
        slot: KeeperDetailSlot::ToolModes,
        generation,
        scope: sample::scope(1),
    };
    let body = format!(r#"{{"overrides":[{{"keeper":"{keeper}","mode":"yolo"}}]}}"#);
    crate::rig::deliver(
        &mut model,
        ticket(1),
        KeeperDetailObservation::ToolModes(crate::rig::admitted(
            ToolApprovalModes::decode(body.as_bytes()).unwrap(),
        )),
    );
    let yolo = status_row(&model);
    assert!(yolo.contains(" · YOLO · "), "{yolo}");
    crate::rig::deliver(
        &mut model,
        ticket(2),
        KeeperDetailObservation::ToolModes(crate::rig::admitted(
            ToolApprovalModes::decode(br#"{"overrides":[{"keeper":"other","mode":"yolo"}]}"#)
                .unwrap(),
        )),
    );
    let auto = status_row(&model);
    assert!(auto.contains(" · AUTO · "), "{auto}");
    // A read that fails after a value keeps it, marked.
    crate::rig::dispatch(&mut model, ticket(3));
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket(3),
            KeeperDetailObservation::ToolModes(Err(ClientError::Timeout)),
        ),
    )
    .unwrap();
    let kept = status_row(&model);
    assert!(kept.contains(" · AUTO (last) · "), "{kept}");
    // An older MASC (never served): said so, never AUTO.
    let (mut model, _, _) = opened(2);
    crate::rig::dispatch(&mut model, ticket(1));
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket(1),
            KeeperDetailObservation::ToolModes(Err(ClientError::NotServed {
                route: RouteFamily::ToolApprovalMode,
            })),
        ),
    )
    .unwrap();
    let older = status_row(&model);
    assert!(older.contains(" · mode not served by this MASC"), "{older}");
    assert!(!older.contains("AUTO"), "{older}");
}
