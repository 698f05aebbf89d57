#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The workspace picker `W`, its palette entries, the Overview's Fleet panel and the header's
//! workspace name (docs/audits/workspaces.md): each line shows only what its own workspace's
//! watch read (G-6), a failed round keeps the last counts beside it, and a hidden workspace's
//! pending approval is on its line.

use crate::rig::screen_text;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::fleet::{
    FleetConnection, FleetCount, FleetLine, FleetName, FleetObservation, FleetSlot,
};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::ErrorClass;
use masc_tui::view::fleet::{FleetMember, FleetRoster};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::screens::palette::PaletteLayer;
use masc_tui::view::screens::workspaces::WorkspacesLayer;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::time::Instant;

fn name(n: &str) -> FleetName {
    FleetName(n.into())
}

fn ui(tab: Tab) -> Ui {
    Ui {
        area: Rect::new(0, 0, 140, 30),
        tab,
        ..Ui::default()
    }
}

fn model() -> Model {
    let mut m = Model::default();
    m.fleet.roster = FleetRoster {
        members: vec![
            FleetMember {
                name: name("prod"),
                colour: Some(Color::Red),
            },
            FleetMember {
                name: name("staging"),
                colour: None,
            },
        ],
        active: Some(name("prod")),
    };
    m
}

fn line(root: &str, approvals: u64) -> FleetLine {
    FleetLine {
        connection: FleetConnection::Connected {
            root: WorkspaceId(root.into()),
            mode: AdmissionMode::Receipt,
        },
        keepers_in_error: FleetCount::Count(1),
        approvals: FleetCount::Count(approvals),
        gate_items: FleetCount::Count(0),
        asks: FleetCount::Failed(ErrorClass::Timeout),
    }
}

fn deliver(m: &mut Model, n: &str, round: u64, root: &str, line: FleetLine) {
    let ticket = Ticket {
        slot: FleetSlot::Line(name(n)),
        generation: round,
        scope: ReadScope {
            workspace: WorkspaceId(root.into()),
            epoch: round,
        },
    };
    let drained = m.deliver(
        SlotEvent::Observed(ticket, FleetObservation(line)),
        Instant::now(),
    );
    assert!(drained.rejected.is_empty(), "{drained:?}");
}

fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn row<'a>(text: &'a str, n: &str) -> &'a str {
    text.lines()
        .find(|l| {
            l.contains(&format!("{n} "))
                && (l.contains(" ago") || l.contains("not read yet") || l.contains("reading"))
        })
        .unwrap_or_else(|| panic!("no line for {n}:\n{text}"))
}

#[test]
fn g6_the_picker_shows_a_hidden_workspaces_pending_approval_on_its_own_line() {
    let mut m = model();
    deliver(&mut m, "staging", 1, "/s/.masc", line("/s/.masc", 3));
    let mut ui = ui(Tab::Keepers);
    press(&mut ui, &m, KeyCode::Char('W'));
    assert!(
        ui.layer::<WorkspacesLayer>().is_some(),
        "W opens the picker"
    );
    let text = screen_text(&m, &ui);
    assert!(text.contains("WORKSPACES"), "{text}");
    let staging = row(&text, "staging");
    assert!(staging.contains("connected"), "{staging}");
    assert!(staging.contains("approvals 3"), "{staging}");
    assert!(staging.contains("Keepers in error 1"), "{staging}");
    // A failed count says so; never a 0.
    assert!(staging.contains("asks ? (timeout)"), "{staging}");
    let prod = row(&text, "prod");
    assert!(prod.contains("(this session)"), "{prod}");
    assert!(prod.contains("not read yet"), "{prod}");
    assert!(
        !prod.contains("approvals 3"),
        "never another's count: {prod}"
    );
}

#[test]
fn a_failed_round_shows_the_last_counts_beside_it() {
    let mut m = model();
    deliver(&mut m, "staging", 1, "/s/.masc", line("/s/.masc", 2));
    let down = FleetLine::unread(FleetConnection::Unreachable {
        class: ErrorClass::Transport,
    });
    deliver(&mut m, "staging", 2, "", down);
    let mut ui = ui(Tab::Keepers);
    press(&mut ui, &m, KeyCode::Char('W'));
    let text = screen_text(&m, &ui);
    let staging = row(&text, "staging");
    assert!(staging.contains("unreachable (transport)"), "{staging}");
    assert!(staging.contains("last read"), "{staging}");
    assert!(staging.contains("approvals 2"), "{staging}");
}

#[test]
fn the_picker_moves_and_enter_on_another_workspace_changes_nothing_and_says_how() {
    let m = model();
    let mut ui = ui(Tab::Board);
    press(&mut ui, &m, KeyCode::Char('W'));
    assert_eq!(
        ui.layer::<WorkspacesLayer>().unwrap().selected,
        Some(name("prod")),
        "opens on the session's own"
    );
    press(&mut ui, &m, KeyCode::Char('j'));
    assert_eq!(
        ui.layer::<WorkspacesLayer>().unwrap().selected,
        Some(name("staging"))
    );
    press(&mut ui, &m, KeyCode::Enter);
    let notice = ui.notice.text.clone().unwrap_or_default();
    assert!(notice.contains("--workspace staging"), "{notice}");
    assert!(ui.layer::<WorkspacesLayer>().is_some());
    assert_eq!(m.fleet.roster.active, Some(name("prod")));
    press(&mut ui, &m, KeyCode::Char('k'));
    press(&mut ui, &m, KeyCode::Enter);
    assert!(
        ui.layer::<WorkspacesLayer>().is_none(),
        "Enter on this session's closes"
    );
    press(&mut ui, &m, KeyCode::Char('W'));
    press(&mut ui, &m, KeyCode::Esc);
    assert!(ui.layer::<WorkspacesLayer>().is_none());
    assert_eq!(ui.tab, Tab::Board);
}

#[test]
fn the_palette_offers_each_configured_workspace() {
    let m = model();
    let mut ui = ui(Tab::Keepers);
    press(&mut ui, &m, KeyCode::Char(':'));
    for c in "workspace staging".chars() {
        press(&mut ui, &m, KeyCode::Char(c));
    }
    let first = ui.layer::<PaletteLayer>().unwrap().shown()[0]
        .entry
        .label
        .clone();
    assert_eq!(first, "workspace staging");
    press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        ui.layer::<WorkspacesLayer>().unwrap().selected,
        Some(name("staging"))
    );
}

#[test]
fn the_header_names_the_sessions_workspace_and_the_overview_lists_the_fleet() {
    let mut m = model();
    deliver(&mut m, "staging", 1, "/s/.masc", line("/s/.masc", 4));
    let ui = ui(Tab::Overview);
    let text = screen_text(&m, &ui);
    assert!(text.contains("■ prod"), "{text}");
    assert!(text.contains("FLEET"), "{text}");
    let fleet_at = text.find("FLEET").unwrap();
    let decisions_at = text.find("DECISIONS").unwrap();
    assert!(fleet_at < decisions_at, "the Fleet panel comes first");
    assert!(row(&text, "staging").contains("approvals 4"), "{text}");

    // Without configured workspaces: no Fleet panel, no name in the header.
    let plain = screen_text(&Model::default(), &ui);
    assert!(!plain.contains("FLEET") && !plain.contains('■'), "{plain}");
}
