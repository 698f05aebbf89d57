#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Activity layer (protocol-15-operator.md §15.2; issue 28 item 2) without a server: `A`
//! opens it on every surface; rows newest first as MASC's TUI draws them; `f` scopes (actions
//! hide the quiet rows); scrolling off the newest freezes (`N new above`) and `g` goes live;
//! a dropped feed says so and what it will ask again, a missing token says so, undecodable
//! events and missed ids are counted — never an empty "no activity"; a feed of an old epoch is
//! not admitted.

use crate::rig::{SurfaceSlot, dispatch, observe, screen_text, ticket};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::activity::{ActivityObservation, ActivitySlot, FeedLink};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::observer::{ObserverEvent, decode_event};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::confirmed;
use masc_tui::view::screens::activity::ActivityLayer;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;
use std::time::Duration;

impl SurfaceSlot for ActivitySlot {
    type Payload = ActivityObservation;
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, ticket(ActivitySlot::Feed, 1));
    m
}

fn step(m: &mut Model, generation: u64, obs: ActivityObservation) -> Result<(), RejectReason> {
    observe(
        m,
        SlotEvent::Observed(ticket(ActivitySlot::Feed, generation), obs),
    )
}

fn event(m: &mut Model, id: u64, data: &str) {
    step(
        m,
        1,
        ActivityObservation::Event(Box::new(decode_event(Some(&id.to_string()), data))),
    )
    .unwrap();
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 130, 30),
        tab: Tab::Board,
        ..Ui::default()
    }
}

fn press(ui: &mut Ui, m: &Model, code: KeyCode) {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE));
}

fn seeded(m: &mut Model) {
    step(
        m,
        1,
        ActivityObservation::Link(FeedLink::Open {
            session: "s".into(),
            resumed_after: None,
        }),
    )
    .unwrap();
    event(
        m,
        1,
        r#"{"type":"agent_core:tool_called","event_type":"tool_called","ts_unix":1,"agent_name":"rondo","tool_name":"web_fetch"}"#,
    );
    event(
        m,
        2,
        r#"{"type":"keeper_heartbeat","name":"mira","generation":1,"ts_unix":1,"phase":"turn_running"}"#,
    );
    event(
        m,
        3,
        r#"{"type":"keeper_turn_complete","name":"rondo","ts_unix":1,"turn":2,"input_tokens":10,"output_tokens":5,"cost_usd":0.001,"tool_calls_made":1}"#,
    );
}

#[test]
fn s15_2_a_opens_activity_rows_newest_first_and_f_scopes_the_quiet_ones() {
    let mut m = model();
    seeded(&mut m);
    let mut ui = ui();
    press(&mut ui, &m, KeyCode::Char('A'));
    assert!(ui.layer::<ActivityLayer>().is_some());
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("ACTIVITY · live · scope actions · 3 rows"),
        "{text}"
    );
    let settled = text.find("turn settled").expect(&text);
    let call = text.find("▶ call").expect(&text);
    assert!(settled < call, "newest first: {text}");
    assert!(
        !text.contains("heartbeat"),
        "actions hide quiet rows: {text}"
    );
    press(&mut ui, &m, KeyCode::Char('f'));
    press(&mut ui, &m, KeyCode::Char('f'));
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("scope everything") && text.contains("heartbeat"),
        "{text}"
    );
    press(&mut ui, &m, KeyCode::Char('A'));
    assert!(ui.layer::<ActivityLayer>().is_none());
}

#[test]
fn s15_2_scrolling_freezes_the_view_and_g_goes_live() {
    let mut m = model();
    seeded(&mut m);
    let mut ui = ui();
    press(&mut ui, &m, KeyCode::Char('A'));
    press(&mut ui, &m, KeyCode::Char('j'));
    event(
        &mut m,
        4,
        r#"{"type":"agent_core:agent_failed","event_type":"agent_failed","ts_unix":1,"agent_name":"sangsu"}"#,
    );
    let text = screen_text(&m, &ui);
    assert!(text.contains("frozen · 1 new above"), "{text}");
    assert!(!text.contains("agent failed"), "{text}");
    press(&mut ui, &m, KeyCode::Char('g'));
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("agent failed") && !text.contains("frozen"),
        "{text}"
    );
}

#[test]
fn s15_2_a_dropped_feed_a_missing_token_and_bad_events_are_said_never_empty() {
    let mut m = model();
    seeded(&mut m);
    event(&mut m, 4, "not json");
    step(
        &mut m,
        1,
        ActivityObservation::Link(FeedLink::Missed { from: 5, to: 7 }),
    )
    .unwrap();
    step(
        &mut m,
        1,
        ActivityObservation::Link(FeedLink::Lost {
            why: "stream ended: cut_mid_event".into(),
            retry_in: Duration::from_secs(2),
            last_id: Some(4),
        }),
    )
    .unwrap();
    let mut ui = ui();
    press(&mut ui, &m, KeyCode::Char('A'));
    let text = screen_text(&m, &ui);
    for words in [
        "disconnected · reconnecting in",
        "the feed dropped (stream ended: cut_mid_event); events after id 4 are asked again",
        "missed 3",
        "1 undecodable",
        "turn settled",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }

    let mut m = model();
    step(&mut m, 1, ActivityObservation::Link(FeedLink::NeedsToken)).unwrap();
    let mut token_ui = self::ui();
    press(&mut token_ui, &m, KeyCode::Char('A'));
    let text = screen_text(&m, &token_ui);
    assert!(
        text.contains("needs a token") && text.contains("requires a token"),
        "{text}"
    );
    assert!(!text.contains("no activity"), "{text}");
    assert!(matches!(
        decode_event(Some("1"), "{}"),
        ObserverEvent::Undecodable { .. }
    ));
}

#[test]
fn g6_g7_a_feed_of_an_older_epoch_or_generation_is_not_admitted() {
    let mut m = model();
    dispatch(&mut m, ticket(ActivitySlot::Feed, 2));
    assert_eq!(
        step(&mut m, 1, ActivityObservation::Link(FeedLink::NeedsToken)),
        Err(RejectReason::Superseded)
    );
    m.on_identity(confirmed(2, AdmissionMode::Receipt));
    assert!(step(&mut m, 2, ActivityObservation::Link(FeedLink::NeedsToken)).is_err());
}
