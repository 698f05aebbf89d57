//! Pause or shutdown of a Keeper with connector bindings offers to unbind them too (surfaces.md
//! Keepers row; protocol.md §14.1, §14.2, §7.4), as a confirmation of its own: once the action
//! was sent, a layer names every binding the last connectors status lists for the Keeper; `y`
//! submits one `connector_unbind` save per binding, confirmed; any other key leaves them. A
//! `y` typed right after a pause (before any offer) unbinds nothing. A Keeper without
//! bindings, or an unread status, is offered nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::keeper_ops_keys::{key, roster};
use crate::rig::ScreensOf;
use crossterm::event::KeyCode;
use masc_tui::actors::connectors::binding::BindingIntent;
use masc_tui::actors::connectors::binding::ConnectorUnbind;
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::keepers::ops::lifecycle::LifecycleSave;
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::connectors::ConnectorStatusList;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::keepers::KeeperOp;
use masc_tui::view::screens::keepers::operations::lifecycle::unbind_offer;
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
            slot: ConnectorsSlot::Status,
            generation: 1,
            scope: sample::scope(1),
        },
        ConnectorsObservation::Status(Ok(Admitted {
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

/// The offer names each binding; `y` unbinds each of them (their saves confirmed: they commit
/// without a preview of their own); any other key closes it and unbinds nothing.
#[test]
fn the_unbind_offer_names_each_binding_and_y_unbinds_them_all() {
    use masc_tui::actors::connectors::binding::ConnectorUnbind;
    use masc_tui::view::save_path::{Refused, SaveRequest};
    use masc_tui::view::screens::confirm::{self, ConfirmLayer};
    let (mut model, mut ui) = roster();
    with_bindings(&mut model);
    let offer = unbind_offer(&model, BOUND).expect("offered");
    let text = offer.preview.text();
    assert!(text.contains("2 connector binding(s)"), "{text}");
    assert!(
        text.contains("discord channel 111") && text.contains("slack channel C9"),
        "{text}"
    );
    assert!(!text.contains("222"), "another Keeper's binding: {text}");
    confirm::open(&mut ui, offer.clone());
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        UiCommand::Many(vec![unbind("discord", "111"), unbind("slack", "C9")])
    );
    // The unbinds `y` runs commit at once: no second preview.
    let request = SaveRequest::new::<ConnectorUnbind>(BindingIntent {
        connector_id: "discord".into(),
        channel_id: "111".into(),
        keeper_name: BOUND.into(),
    });
    let sent = confirm::submit(
        &mut ui,
        &mut model,
        None,
        request,
        confirm::Asking::new(None, UiCommand::None),
    );
    assert!(
        matches!(&sent, Err(r) if matches!(r.why, Refused::NoHub { .. })),
        "committed (no hub here): {sent:?}"
    );
    // Any other key leaves the bindings.
    confirm::open(&mut ui, offer);
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('j'))),
        UiCommand::Repaint
    );
    assert!(ui.layer::<ConfirmLayer>().is_none());
}

/// A `y` right after `p` (the pause only asked, not confirmed, no offer open) is no unbind.
#[test]
fn a_y_after_a_pause_unbinds_nothing_without_the_offer() {
    let (mut model, mut ui) = roster();
    with_bindings(&mut model);
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('p'))),
        lifecycle(BOUND, LifecycleAction::Pause)
    );
    assert!(!matches!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        UiCommand::Many(_)
    ));
}

/// A Keeper without bindings, or a status not read yet, is offered nothing.
#[test]
fn a_keeper_without_bindings_or_an_unread_status_is_offered_nothing() {
    let (mut model, _ui) = roster();
    assert!(unbind_offer(&model, BOUND).is_none(), "status unread");
    with_bindings(&mut model);
    assert!(unbind_offer(&model, "keeper-0002").is_none());
}
