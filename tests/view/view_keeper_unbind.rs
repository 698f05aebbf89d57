//! Pause or shutdown of a Keeper with connector bindings offers `y` to unbind too (surfaces.md
//! Keepers row; protocol.md §14.1, §14.2, §7.4): the action is sent as before;
//! the bindings the last connectors status lists for the Keeper are captured then, and `y` next
//! submits one `connector_unbind` save per binding; any other key skips the offer. A Keeper
//! without bindings, or an unread status, is offered nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::keeper_ops_keys::{key, roster};
use crate::rig::ScreensOf;
use crossterm::event::KeyCode;
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::keepers::ops::lifecycle::LifecycleSave;
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent};
use masc_tui::actors::system::binding::BindingIntent;
use masc_tui::actors::system::binding::ConnectorUnbind;
use masc_tui::actors::system::{SystemObservation, SystemSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::connectors::ConnectorStatusList;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::keepers::KeeperOp;
use masc_tui::view::screens::keepers::lifecycle::unbind_offer;
use std::sync::Arc;

const BOUND: &str = "keeper-0001";

fn with_bindings(model: &mut Model) {
    let body = format!(
        r#"{{"connectors":[
            {{"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[{{"channel_id":"111","keeper_name":"{BOUND}"}},{{"channel_id":"222","keeper_name":"keeper-0003"}}]}},
            {{"connector_id":"slack","display_name":"Slack","status":"connected","available":true,"connected":true,"configured_bindings":[{{"channel_id":"C9","keeper_name":"{BOUND}"}}]}}],
            "total":2,"active_count":2,"generated_at":"2026-09-20T10:00:00Z"}}"#
    );
    let status = ConnectorStatusList::decode(body.as_bytes()).unwrap();
    crate::rig::deliver(
        model,
        Ticket {
            slot: SystemSlot::ConnectorsStatus,
            generation: 1,
            scope: sample::scope(1),
        },
        SystemObservation::ConnectorsStatus(Ok(Admitted {
            value: Arc::new(status),
            mode: AdmissionMode::Receipt,
            from_cache: false,
        })),
    );
}

fn lifecycle(keeper: &str, action: LifecycleAction) -> UiCommand {
    KeeperOp::command::<LifecycleSave>(LifecycleIntent::new(keeper, action))
}

fn unbind(connector: &str, channel: &str) -> UiCommand {
    UiCommand::save::<ConnectorUnbind>(BindingIntent {
        connector_id: connector.into(),
        channel_id: channel.into(),
        keeper_name: BOUND.into(),
    })
}

/// `p` on a bound Keeper pauses at once and offers; `y` unbinds each of its own bindings; any
/// other key skips the offer and does its job.
#[test]
fn pause_of_a_bound_keeper_offers_y_to_unbind_its_bindings_too() {
    let (mut model, mut ui) = roster();
    with_bindings(&mut model);
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('p'))),
        lifecycle(BOUND, LifecycleAction::Pause)
    );
    let offer = unbind_offer(ui.roster_mut(), true).expect("offered");
    assert!(offer.contains("2 connector binding(s)"), "{offer}");
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        UiCommand::Many(vec![unbind("discord", "111"), unbind("slack", "C9")])
    );
    assert!(ui.roster().pending.is_none());
    // Another key skips the offer and does its own job.
    handle_key(&mut ui, &model, key(KeyCode::Char('p')));
    handle_key(&mut ui, &model, key(KeyCode::Char('j')));
    assert!(ui.roster().pending.is_none());
    assert_eq!(ui.roster().selected, 2);
    // A pause the view did not submit withdraws its offer.
    ui.roster_mut().selected = 1;
    handle_key(&mut ui, &model, key(KeyCode::Char('p')));
    assert_eq!(unbind_offer(ui.roster_mut(), false), None);
    assert!(ui.roster().pending.is_none());
}

/// `s` `s` on a bound Keeper shuts it down and then offers `y`.
#[test]
fn shutdown_of_a_bound_keeper_offers_y_to_unbind_too() {
    let (mut model, mut ui) = roster();
    with_bindings(&mut model);
    ui.roster_mut().selected = 1;
    handle_key(&mut ui, &model, key(KeyCode::Char('s')));
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('s'))),
        lifecycle(BOUND, LifecycleAction::Shutdown)
    );
    assert!(unbind_offer(ui.roster_mut(), true).is_some());
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        UiCommand::Many(vec![unbind("discord", "111"), unbind("slack", "C9")])
    );
}

/// A Keeper without bindings, or a status not read yet, is offered nothing; `y` then is no
/// unbind.
#[test]
fn a_keeper_without_bindings_or_an_unread_status_is_offered_nothing() {
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('p'))),
        lifecycle(BOUND, LifecycleAction::Pause)
    );
    assert_eq!(unbind_offer(ui.roster_mut(), true), None, "status unread");
    with_bindings(&mut model);
    ui.roster_mut().selected = 2;
    handle_key(&mut ui, &model, key(KeyCode::Char('p')));
    assert_eq!(unbind_offer(ui.roster_mut(), true), None);
    assert!(!matches!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        UiCommand::Many(_)
    ));
}
