#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Binding writes in the connectors pane without a terminal or actors (protocol.md §7.3,
//! §7.4; sources.md D-7, D-14): the keys produce the save intents (armed unbind), the receipt
//! shows beside its row, the status re-read it is owed is its own stage.

use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::connectors::binding::ConnectorUnbind;
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorBind};
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::connectors::{NamesChain, NamesPageRead};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::connectors::{ConnectorRow, ConnectorStatusList, NameMapping, NameScope};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::system::bindings::BindingRow;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const ROW: &str = r#"{"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[{"channel_id":"111","keeper_name":"rondo"}]}"#;

fn status(row: &str) -> ConnectorStatusList {
    let body = format!(
        r#"{{"connectors":[{row}],"total":1,"active_count":1,"generated_at":"2026-09-20T10:00:00Z"}}"#
    );
    ConnectorStatusList::decode(body.as_bytes()).unwrap()
}

fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn ticket(slot: ConnectorsSlot, generation: u64) -> Ticket<ConnectorsSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane: SystemPane::Connectors,
        ..Default::default()
    })
}

fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn key(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn deliver_status(
    m: &mut Model,
    generation: u64,
    result: Result<Admitted<ConnectorStatusList>, ClientError>,
) {
    crate::rig::deliver(
        m,
        ticket(ConnectorsSlot::Status, generation),
        ConnectorsObservation::Status(result),
    );
}

/// What the save path does for a confirmed bind: register the save in the book.
fn submit_bind(m: &mut Model, intent: BindingIntent) -> SaveId {
    let id = SaveId::fresh();
    m.connectors
        .binds
        .submit(id.clone(), intent, sample::scope(1).workspace.0.clone());
    id
}

fn receipt(
    m: &mut Model,
    id: &SaveId,
    intent: BindingIntent,
    outcome: <ConnectorBind as masc_tui::actors::saves::SaveKind>::Receipt,
) {
    crate::rig::deliver(
        m,
        ticket(ConnectorsSlot::BindWrite(id.clone()), 1),
        ConnectorsObservation::Bind(Box::new(SaveEvent::<ConnectorBind> {
            save_id: id.clone(),
            intent,
            workspace: sample::scope(1).workspace.0.clone(),
            step: SaveStep::Ended(outcome),
        })),
    );
}

/// §7.4: `x` on a binding asks the unbind of exactly that binding (its Keeper); the save path
/// previews it before anything is sent and a second `x` confirms (tests/view/view_confirm.rs).
#[test]
fn s7_4_x_asks_the_unbind_of_the_selected_binding() {
    let mut m = model();
    let mut ui = ui();
    deliver_status(&mut m, 1, ok(status(ROW)));
    key(&mut ui, &m, KeyCode::Char('J'));
    key(&mut ui, &m, KeyCode::Char('J'));
    assert_eq!(
        ui.system().connectors.selected,
        Some(BindingRow {
            connector_id: "discord".into(),
            binding: Some(("111".into(), "rondo".into())),
        })
    );
    assert_eq!(
        key(&mut ui, &m, KeyCode::Char('x')),
        UiCommand::save::<ConnectorUnbind>(BindingIntent {
            connector_id: "discord".into(),
            channel_id: "111".into(),
            keeper_name: "rondo".into(),
        })
    );
}

/// §7.3: `b` opens the bind form on the selected connector; `Tab` moves to the Keeper;
/// `Enter` sends the bind; `Esc` keeps the draft for the next `b`.
#[test]
fn s7_3_the_bind_form_sends_a_bind_and_keeps_its_draft() {
    let mut m = model();
    let mut ui = ui();
    deliver_status(&mut m, 1, ok(status(ROW)));
    key(&mut ui, &m, KeyCode::Char('J'));
    key(&mut ui, &m, KeyCode::Char('b'));
    for c in "333".chars() {
        key(&mut ui, &m, KeyCode::Char(c));
    }
    key(&mut ui, &m, KeyCode::Esc);
    key(&mut ui, &m, KeyCode::Char('b'));
    key(&mut ui, &m, KeyCode::Tab);
    for c in "하늘".chars() {
        key(&mut ui, &m, KeyCode::Char(c));
    }
    assert!(screen(&m, &ui).contains("bind discord channel: 333"));
    assert_eq!(
        key(&mut ui, &m, KeyCode::Enter),
        UiCommand::save::<ConnectorBind>(BindingIntent {
            connector_id: "discord".into(),
            channel_id: "333".into(),
            keeper_name: "하늘".into(),
        })
    );
}

/// D-14 on screen, D-7: after a bind's receipt the status re-read is pending, then reading,
/// then failed with the last good observation, then settled by an admitted read; the bound
/// channel shows its receipt before the status lists it. Names arriving later move neither
/// the selection nor the receipt.
#[test]
fn d14_d7_the_reread_after_a_write_is_its_own_stage_and_names_reset_nothing() {
    let mut m = model();
    let mut ui = ui();
    deliver_status(&mut m, 1, ok(status(ROW)));
    let intent = BindingIntent {
        connector_id: "discord".into(),
        channel_id: "333".into(),
        keeper_name: "mira".into(),
    };
    ui.system_mut().connectors.selected = Some(BindingRow {
        connector_id: "discord".into(),
        binding: Some(("333".into(), "mira".into())),
    });
    let id = submit_bind(&mut m, intent.clone());
    let bound = ROW.replace(
        r#"[{"channel_id":"111","keeper_name":"rondo"}]"#,
        r#"[{"channel_id":"111","keeper_name":"rondo"},{"channel_id":"333","keeper_name":"mira"}]"#,
    );
    let row = ConnectorRow::decode(bound.as_bytes()).unwrap();
    receipt(
        &mut m,
        &id,
        intent,
        SaveOutcome::Applied {
            detail: row,
            warning: None,
        },
    );
    assert!(m.connectors.take_write_demand());
    let pending = screen(&m, &ui);
    assert!(
        pending.contains("status re-read pending after the binding write"),
        "{pending}"
    );
    assert!(
        pending.contains("333 (not in the last status) → mira · bind mira applied"),
        "{pending}"
    );
    // The follow-up read is dispatched, then fails: last good observation kept.
    let t2 = ticket(ConnectorsSlot::Status, 2);
    crate::rig::dispatch(&mut m, t2.clone());
    assert!(screen(&m, &ui).contains("reading the status after the binding write…"));
    crate::rig::observe(
        &mut m,
        masc_tui::actors::contract::SlotEvent::Observed(
            t2,
            ConnectorsObservation::Status(Err(ClientError::Status {
                status: 500,
                body: String::new(),
            })),
        ),
    )
    .unwrap();
    let failed = screen(&m, &ui);
    assert!(
        failed.contains("status re-read after the binding write failed (status_500)"),
        "{failed}"
    );
    assert!(failed.contains("111 (name unknown) → rondo"), "{failed}");
    deliver_status(&mut m, 3, ok(status(&bound)));
    let settled = screen(&m, &ui);
    assert!(!settled.contains("re-read"), "{settled}");
    assert!(
        settled.contains("› 333 (name unknown) → mira  · bind mira applied"),
        "{settled}"
    );
    // D-7: the channel names arrive; the selection and the receipt stay.
    let mut chain = NamesChain::fresh("discord", NameScope::Channel);
    chain.mappings = vec![NameMapping {
        id: "333".into(),
        name: "ops".into(),
    }];
    chain.pages_read = 1;
    chain.complete = true;
    crate::rig::deliver(
        &mut m,
        ticket(
            ConnectorsSlot::Names {
                connector: "discord".into(),
                scope: "channel".into(),
            },
            4,
        ),
        ConnectorsObservation::Names(Box::new(NamesPageRead {
            base: Arc::new(NamesChain::fresh("discord", NameScope::Channel)),
            result: ok(chain),
        })),
    );
    let named = screen(&m, &ui);
    assert!(
        named.contains("› #ops (333) → mira  · bind mira applied"),
        "{named}"
    );
}

/// D-13: a binding write's owed status re-read survives a reconfirm of the same workspace —
/// restarted: the read that covered it was withdrawn, so the next status read covers it — and
/// a confirmed different workspace clears it (no "re-read pending" there, nothing owed to its
/// Connectors source).
#[test]
fn d13_same_workspace_restarts_the_owed_reread_another_workspace_clears_it() {
    use masc_tui::actors::contract::IdentityState;
    use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
    let mut m = model();
    let ui = ui();
    deliver_status(&mut m, 1, ok(status(ROW)));
    let intent = BindingIntent {
        connector_id: "discord".into(),
        channel_id: "333".into(),
        keeper_name: "mira".into(),
    };
    let id = submit_bind(&mut m, intent.clone());
    let row = ConnectorRow::decode(ROW.as_bytes()).unwrap();
    receipt(
        &mut m,
        &id,
        intent,
        SaveOutcome::Applied {
            detail: row,
            warning: None,
        },
    );
    assert!(m.connectors.take_write_demand());
    crate::rig::dispatch(&mut m, ticket(ConnectorsSlot::Status, 2));
    assert!(screen(&m, &ui).contains("reading the status after the binding write…"));
    // The same workspace, a new epoch: the covering read was withdrawn; the demand restarts.
    m.on_identity(sample::confirmed(2, AdmissionMode::Receipt));
    let reread = m.connectors.reread.expect("still owed");
    assert_eq!(reread.covering, None, "restarted");
    assert!(
        screen(&m, &ui).contains("status re-read pending after the binding write"),
        "{}",
        screen(&m, &ui)
    );
    // Another workspace confirmed: the demand is cleared.
    let other = ReadScope {
        workspace: WorkspaceId("/srv/other/.masc".into()),
        epoch: 3,
    };
    m.on_identity(IdentityState::Confirmed {
        scope: other,
        base_path: "/".into(),
        mode: AdmissionMode::Receipt,
    });
    assert_eq!(m.connectors.reread, None);
    assert!(!m.connectors.take_write_demand());
    assert!(!screen(&m, &ui).contains("re-read"));
}

/// §7.4: an unbind's binding leaves the connectors list on the re-read, its receipt beside it;
/// so the receipt is said in the notice line when it lands, once.
#[test]
fn s7_4_an_unbind_receipt_is_said_when_its_binding_leaves() {
    use masc_tui::view::screens::react::{Seen, react_detached};
    let mut m = model();
    let mut ui = ui();
    let intent = BindingIntent {
        connector_id: "discord".into(),
        channel_id: "111".into(),
        keeper_name: "rondo".into(),
    };
    let id = SaveId::fresh();
    let ws = sample::scope(1).workspace.0.clone();
    m.connectors
        .unbinds
        .submit(id.clone(), intent.clone(), ws.clone());
    crate::rig::deliver(
        &mut m,
        ticket(ConnectorsSlot::UnbindWrite(id.clone()), 1),
        ConnectorsObservation::Unbind(Box::new(SaveEvent::<ConnectorUnbind> {
            save_id: id,
            intent,
            workspace: ws,
            step: SaveStep::Ended(SaveOutcome::Unchanged),
        })),
    );
    react_detached(&mut ui, &mut m, Seen::Delivered);
    let said = ui.notice.text.take().expect("the receipt is said");
    assert!(
        said.contains("unbind rondo from discord 111") && said.contains("unchanged"),
        "{said}"
    );
    react_detached(&mut ui, &mut m, Seen::Delivered);
    assert!(ui.notice.text.is_none(), "said once");
}
