#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! `/context` tabs `1:stack`, `2:request`, `3:proof` (surfaces.md "Overlays"; protocol.md
//! §14.11; sources.md K-15, K-17; C-58) on a `TestBackend`: the chat target's newest turn
//! record with components, usage and window; its serialized input; the proof (an
//! interpretation of MASC's `Input_map`); every read state in its own words; digits switch
//! tabs, scrolling and tab entry read nothing, `r` re-reads, `Esc` closes.

use super::chat_screen::{draw, key, opened, type_text};
use super::view_turn_inspector::{input, page, record};
use crate::rig::{admitted, dispatch, observe, ticket};
use crossterm::event::KeyCode;
use masc_tui::actors::asks::TurnTarget;
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::inspector::{InspectorObservation, InspectorSlot};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::outgoing::InspectorRequest;
use masc_tui::view::sample::buffer_text;
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::ChatOverlay;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::chat::overlay::open_over;

fn open_context(ui: &mut Ui, model: &Model) {
    type_text(ui, model, "/context");
    handle_key(ui, model, key(KeyCode::Enter));
    if !matches!(open_over(ui), Some(ChatOverlay::Context(_))) {
        handle_key(ui, model, key(KeyCode::Enter));
    }
    assert!(matches!(open_over(ui), Some(ChatOverlay::Context(_))));
}

fn text(model: &Model, ui: &Ui) -> String {
    buffer_text(&draw(model, ui))
}

fn records_of(m: &mut Model, keeper: &str, generation: u64, prompt: &str) {
    let slot = InspectorSlot::Records(keeper.into());
    dispatch(m, ticket(slot.clone(), generation));
    let p = page(
        keeper,
        vec![
            record(keeper, &format!("trace-{keeper}"), 4, prompt),
            record(keeper, &format!("trace-{keeper}"), 5, prompt),
        ],
    );
    observe(
        m,
        SlotEvent::Observed(
            ticket(slot, generation),
            InspectorObservation::Records(admitted(p)),
        ),
    )
    .unwrap();
}

/// C-58, K-15, K-17: the three tabs on the chat target, each read state in its own words,
/// digits switching tabs with no read, `r` re-reading both, `Esc` closing.
#[test]
fn c58_k15_k17_context_tabs_stack_request_proof() {
    let (mut model, mut ui, keeper) = opened(0);
    open_context(&mut ui, &model);
    let shown = text(&model, &ui);
    assert!(shown.contains("[1:stack] 2:request 3:proof"), "{shown}");
    assert!(
        shown.contains("chat target"),
        "the observed summary stays first\n{shown}"
    );
    assert!(shown.contains("turn records  not loaded"), "{shown}");
    let slot = InspectorSlot::Records(keeper.clone());
    dispatch(&mut model, ticket(slot, 1));
    assert!(text(&model, &ui).contains("turn records  reading (조회 중)"));
    let prompt = "keeper instructions";
    records_of(&mut model, &keeper, 1, prompt);
    let shown = text(&model, &ui);
    let newest = format!("trace-{keeper}#5");
    assert!(shown.contains(&format!("newest turn {newest}")), "{shown}");
    assert!(shown.contains("tokens in 1000 (per_request)"), "{shown}");
    assert!(
        shown.contains("context window 200000 · this request used 0.5%"),
        "{shown}"
    );
    assert!(shown.contains("message_user"), "{shown}");
    // Digits switch tabs and read nothing (K-17).
    for code in [KeyCode::Char('2'), KeyCode::Char('j'), KeyCode::PageDown] {
        let cmd = handle_key(&mut ui, &model, key(code));
        assert_eq!(cmd, UiCommand::Repaint, "{code:?}");
    }
    let shown = text(&model, &ui);
    assert!(shown.contains("1:stack [2:request] 3:proof"), "{shown}");
    handle_key(&mut ui, &model, key(KeyCode::PageUp));
    handle_key(&mut ui, &model, key(KeyCode::PageUp));
    let shown = text(&model, &ui);
    assert!(
        shown.contains(&format!("serialized input of {newest}  not loaded")),
        "{shown}"
    );
    let target = TurnTarget {
        keeper: keeper.clone(),
        turn_ref: newest.clone(),
    };
    let islot = InspectorSlot::Input(target.clone());
    dispatch(&mut model, ticket(islot.clone(), 1));
    observe(
        &mut model,
        SlotEvent::Observed(
            ticket(islot.clone(), 1),
            InspectorObservation::Input(Err(ClientError::NotServed {
                route: RouteFamily::ProviderInput,
            })),
        ),
    )
    .unwrap();
    assert!(text(&model, &ui).contains("not served by this MASC"));
    dispatch(&mut model, ticket(islot.clone(), 2));
    observe(
        &mut model,
        SlotEvent::Observed(
            ticket(islot, 2),
            InspectorObservation::Input(admitted(input(
                &keeper,
                &format!("trace-{keeper}"),
                5,
                prompt,
            ))),
        ),
    )
    .unwrap();
    let shown = text(&model, &ui);
    assert!(shown.contains("request body 400 bytes · sha256"), "{shown}");
    assert!(shown.contains("system prompt ·"), "{shown}");
    assert!(shown.contains("tool schema #0 masc_status"), "{shown}");
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('3'))),
        UiCommand::Repaint
    );
    let shown = text(&model, &ui);
    assert!(shown.contains("1:stack 2:request [3:proof]"), "{shown}");
    assert!(shown.contains("interpretation"), "{shown}");
    assert!(shown.contains("VERIFIED"), "{shown}");
    assert!(shown.contains("SERIALIZED"), "{shown}");
    assert!(
        shown.contains("recorded 19 B = serialized 19 B  ✓"),
        "{shown}"
    );
    assert!(
        shown.contains("components account for 125 B of 400 B"),
        "{shown}"
    );
    assert!(shown.contains("275 bytes unattributed"), "{shown}");
    assert!(
        shown.contains("✓ the record and the serialized request agree"),
        "{shown}"
    );
    match handle_key(&mut ui, &model, key(KeyCode::Char('r'))) {
        UiCommand::Many(cmds) => {
            assert!(cmds.contains(&UiCommand::send(InspectorRequest::Reread(
                InspectorSlot::Records(keeper.clone())
            ))));
            assert!(cmds.contains(&UiCommand::send(InspectorRequest::Reread(
                InspectorSlot::Input(target)
            ))));
        }
        other => panic!("{other:?}"),
    }
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert_eq!(open_over(&ui), None);
    assert!(
        ui.layer::<ChatUi>().is_some(),
        "Esc closed the overlay, not the chat"
    );
}

/// K-15: a records read denied (403) or failed is its own words; an empty page is "no turn
/// records", never a zero context.
#[test]
fn k15_context_denied_failed_and_empty_are_distinct() {
    let (mut model, mut ui, keeper) = opened(0);
    open_context(&mut ui, &model);
    let slot = InspectorSlot::Records(keeper.clone());
    let cases: Vec<(
        Result<Admitted<masc_tui::protocol::inspector::TurnRecordsPage>, ClientError>,
        &str,
    )> = vec![
        (
            Err(ClientError::Unauthorized {
                status: 403,
                code: None,
            }),
            "turn records  permission denied (status 403)",
        ),
        (
            Err(ClientError::Timeout),
            "turn records  unavailable (조회 불가): read failed (timeout)",
        ),
        (
            admitted(page(&keeper, Vec::new())),
            "turn records  received · no turn records (health stale)",
        ),
    ];
    for (generation, (result, words)) in (1u64..).zip(cases) {
        dispatch(&mut model, ticket(slot.clone(), generation));
        observe(
            &mut model,
            SlotEvent::Observed(
                ticket(slot.clone(), generation),
                InspectorObservation::Records(result),
            ),
        )
        .unwrap();
        let shown = text(&model, &ui);
        assert!(shown.contains(words), "{words}\n{shown}");
    }
    handle_key(&mut ui, &model, key(KeyCode::Char('3')));
    assert!(text(&model, &ui).contains("no turn record to account for"));
}
