#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! C-50: live and settled turns use one projection. The demo's `masc_task_list` call read
//! `↩ masc_task_list · in_progress` while streaming and `↩ masc_task_list` once the newest page was
//! reloaded, because a history tool row was read as the call's result while MASC persists the
//! call's arguments there (keeper_chat_store.ml). And the operator's row opened the bracket while
//! streaming but lost its rail once settled (a persisted user row has no `turn_ref`, §4.5): it is
//! bound to its turn only on exact evidence (`view::transcript::turn_bind`).

use crate::chat_screen::{chat_ticket, opened, page};
use masc_tui::actors::chat::{SendOutcome, SendStep};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::protocol::chat::{
    ChatHistoryRow, ChatRole, ChatStreamEvent, OperationState, ReplyDetails, ToolCallArgs,
    TurnOutcome,
};
use masc_tui::view::model::Model;
use masc_tui::view::transcript::{OriginMode, ScrollPosition, ToolVisibility, ViewModes};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

const A: &str = "tui-0190f5a0-0000-7000-8000-0000000000c5";
const TURN: &str = "trace-x#41";
const ASKED: &str = "task-1013 어디까지 됐어?";
const ARGS: &str = "{\"status\":\"in_progress\"}";
const REPLY: &str = "지금 진행 중인 작업은 7개예요.";

fn step(model: &mut Model, keeper: &str, step: SendStep) {
    crate::chat_screen::send_step(model, keeper, A, step);
}

/// The demo's live turn: one `masc_task_list` call, then the reply.
fn stream_turn(model: &mut Model, keeper: &str) {
    model.chat.pane.as_mut().unwrap().register_send(A, ASKED);
    let details = ReplyDetails {
        reply: REPLY.into(),
        turn_outcome: TurnOutcome("visible_reply".into()),
        turn_ref: TURN.into(),
    };
    let events = [
        ChatStreamEvent::RunStarted,
        ChatStreamEvent::ToolCallStart {
            tool_call_id: Some("tool-1".into()),
            tool_call_name: "masc_task_list".into(),
        },
        ChatStreamEvent::ToolCallArgs {
            tool_call_id: "tool-1".into(),
            args: ToolCallArgs::Delta(ARGS.into()),
        },
        ChatStreamEvent::ToolCallEnd {
            tool_call_id: "tool-1".into(),
        },
        ChatStreamEvent::ToolResultReady,
        ChatStreamEvent::TextStart {
            message_id: "m-1".into(),
        },
        ChatStreamEvent::TextDelta {
            message_id: "m-1".into(),
            delta: REPLY.into(),
        },
        ChatStreamEvent::TextEnd {
            message_id: "m-1".into(),
        },
        ChatStreamEvent::ReplyDetails(details.clone()),
        ChatStreamEvent::RunFinished,
    ];
    step(model, keeper, SendStep::Written);
    step(model, keeper, SendStep::Sending);
    step(
        model,
        keeper,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: None,
        },
    );
    for e in events {
        step(model, keeper, SendStep::Event(e));
    }
    step(
        model,
        keeper,
        SendStep::Ended(SendOutcome::Completed { reply: details }),
    );
}

fn history_row(id: &str, role: ChatRole, content: &str, turn: Option<&str>) -> ChatHistoryRow {
    ChatHistoryRow {
        id: id.into(),
        role,
        content: content.into(),
        ts: Some(1_787_000_000.0),
        kind: None,
        turn_ref: turn.map(str::to_string),
        tool_call_id: None,
        tool_call_name: None,
        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
    }
}

/// The same turn as MASC persists it: the user row (no `turn_ref`), the tool row (its
/// arguments), the reply.
fn reload(model: &mut Model, keeper: &str) {
    let mut tool = history_row("m-2", ChatRole::Tool, ARGS, Some(TURN));
    tool.tool_call_id = Some("tool-1".into());
    tool.tool_call_name = Some("masc_task_list".into());
    let rows = vec![
        history_row("m-1", ChatRole::User, ASKED, None),
        tool,
        history_row("m-3", ChatRole::Assistant, REPLY, Some(TURN)),
    ];
    let t = chat_ticket(keeper, 9);
    crate::rig::dispatch(model, t.clone());
    crate::rig::observe(model, SlotEvent::Observed(t, page(rows))).unwrap();
}

fn paint(model: &Model, modes: ViewModes) -> Vec<String> {
    let pane = model.chat.pane.as_ref().unwrap();
    let mut view = pane.view();
    view.set_modes(modes);
    let area = Rect::new(0, 0, 100, 20);
    let mut buf = Buffer::empty(area);
    view.render_into(&mut buf, area, ScrollPosition::Newest);
    (0..area.height)
        .map(|y| {
            let mut out = String::new();
            let mut x = 0;
            while x < area.width {
                let sym = buf[(x, y)].symbol();
                out.push_str(sym);
                x += (sym.width() as u16).max(1);
            }
            out.trim_end().to_string()
        })
        .filter(|r| !r.is_empty())
        .collect()
}

fn tool_rows(rows: &[String]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.contains("masc_task_list") || r.contains("in_progress"))
        .cloned()
        .collect()
}

/// The rail cells (first 5 columns) of the operator row, the tool row and the reply.
fn rails(rows: &[String]) -> Vec<String> {
    [ASKED, "masc_task_list", REPLY]
        .iter()
        .map(|needle| {
            let row = rows
                .iter()
                .find(|r| r.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in {rows:#?}"));
            row.chars().take(5).collect()
        })
        .collect()
}

#[test]
fn c50_the_tool_row_reads_the_same_live_and_settled_in_every_tools_mode() {
    let (mut model, _ui, keeper) = opened(0);
    stream_turn(&mut model, &keeper);
    let modes = |tools| ViewModes {
        tools,
        ..ViewModes::default()
    };
    let all = [
        ToolVisibility::Compact,
        ToolVisibility::Results,
        ToolVisibility::Full,
    ];
    let live: Vec<Vec<String>> = all
        .iter()
        .map(|t| tool_rows(&paint(&model, modes(*t))))
        .collect();
    assert_eq!(
        live[0],
        vec!["   ↩ masc_task_list · in_progress".to_string()],
        "the live compact row names the call's argument"
    );
    reload(&mut model, &keeper);
    let settled: Vec<Vec<String>> = all
        .iter()
        .map(|t| tool_rows(&paint(&model, modes(*t))))
        .collect();
    for (i, tools) in all.iter().enumerate() {
        assert!(!live[i].is_empty(), "{tools:?}");
        assert_eq!(
            live[i], settled[i],
            "{tools:?}: one projection, live and settled"
        );
    }
}

#[test]
fn c50_c13_the_operator_row_keeps_its_rail_after_a_reload() {
    let (mut model, _ui, keeper) = opened(0);
    stream_turn(&mut model, &keeper);
    let inline = ViewModes {
        origin: OriginMode::Inline,
        ..ViewModes::default()
    };
    let live = rails(&paint(&model, inline));
    assert!(
        live[0].contains('╭'),
        "the operator row opens the turn: {live:?}"
    );
    assert!(live[2].contains('╰'), "the reply closes it: {live:?}");
    reload(&mut model, &keeper);
    let settled = rails(&paint(&model, inline));
    assert_eq!(live, settled, "same rails live and settled");
}

#[test]
fn c50_m2_an_operator_row_whose_text_differs_gets_no_guessed_rail() {
    let (mut model, _ui, keeper) = opened(0);
    stream_turn(&mut model, &keeper);
    // MASC redacted part of the text: the persisted row is not byte-for-byte the send.
    let t = chat_ticket(&keeper, 9);
    let rows = vec![
        history_row("m-1", ChatRole::User, "task-1013 [redacted]", None),
        history_row("m-3", ChatRole::Assistant, REPLY, Some(TURN)),
    ];
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(&mut model, SlotEvent::Observed(t, page(rows))).unwrap();
    let inline = ViewModes {
        origin: OriginMode::Inline,
        ..ViewModes::default()
    };
    let rows = paint(&model, inline);
    let operator = rows.iter().find(|r| r.contains("[redacted]")).unwrap();
    let rail: String = operator.chars().take(5).collect();
    assert_eq!(rail.trim(), "", "no rail is guessed: {rows:#?}");
}
