#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Issue 28 item 1, the command palette `:`: one test per kind of entry (a surface, a pane, a
//! Keeper on the loaded page, a Keeper beyond it asked of the server, a key of what is in front,
//! an armed key), and the rules of the layer: nothing is done before `Enter`, `Esc` closes and
//! does nothing, what was chosen ranks first the next time, over a layer only its keys.

use crate::rig::{ScreensOf, screen_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::keeper_detail::{KeeperDetailCommand, Viewer};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{confirmed, roster, roster_observation, roster_ticket};
use masc_tui::view::screens::chat::ChatEvent;
use masc_tui::view::screens::journal::JournalLayer;
use masc_tui::view::screens::palette::PaletteLayer;
use masc_tui::view::screens::palette::entries::Act;
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::work::WorkPane;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;

fn ui(tab: Tab) -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 36),
        tab,
        ..Ui::default()
    }
}

/// A roster of `n` Keepers (`keeper-0000` …); `total` more on the server when larger.
fn model(n: usize, total: usize) -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    let mut page = roster(n);
    page.total = total as u64;
    page.truncated = total > n;
    crate::rig::dispatch(&mut m, roster_ticket(1, 1));
    crate::rig::observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), page, AdmissionMode::Receipt),
    )
    .unwrap();
    m
}

fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

/// `:` then `text` typed: the palette open with that filter.
fn palette(ui: &mut Ui, m: &Model, text: &str) {
    press(ui, m, KeyCode::Char(':'));
    for c in text.chars() {
        press(ui, m, KeyCode::Char(c));
    }
    assert!(ui.layer::<PaletteLayer>().is_some(), "the palette is open");
}

fn first_label(ui: &Ui) -> String {
    let p = ui.layer::<PaletteLayer>().unwrap();
    p.shown()
        .first()
        .map(|s| s.entry.label.clone())
        .unwrap_or_default()
}

#[test]
fn issue28_palette_goes_to_a_surface_and_to_a_pane() {
    let m = model(3, 3);
    let mut ui = ui(Tab::Keepers);
    palette(&mut ui, &m, "go board");
    assert_eq!(first_label(&ui), "go to Board");
    assert_eq!(press(&mut ui, &m, KeyCode::Enter), UiCommand::Repaint);
    assert_eq!(ui.tab, Tab::Board);
    assert!(ui.layer::<PaletteLayer>().is_none(), "Enter closes it");

    palette(&mut ui, &m, "sys conn");
    assert_eq!(first_label(&ui), "go to System › connectors");
    press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        (ui.tab, ui.system().pane),
        (Tab::System, SystemPane::Connectors)
    );

    palette(&mut ui, &m, "work tasks");
    press(&mut ui, &m, KeyCode::Enter);
    assert_eq!((ui.tab, ui.work().pane), (Tab::Work, WorkPane::Tasks));
}

#[test]
fn issue28_keeper_name_opens_its_chat_or_its_detail() {
    let m = model(5, 5);
    let mut ui = ui(Tab::Overview);
    palette(&mut ui, &m, "keeper keeper-0003 chat");
    assert_eq!(first_label(&ui), "keeper keeper-0003 · chat");
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        cmd.as_local::<ChatEvent>(),
        Some(&ChatEvent::Open {
            keeper: "keeper-0003".into()
        })
    );
    assert_eq!(ui.tab, Tab::Keepers);
    assert_eq!(ui.keepers().roster.selected, 3, "its row is selected");

    palette(&mut ui, &m, "keeper-0001 detail");
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::send(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "keeper-0001".into(),
        })
    );
    let roster = &ui.keepers().roster;
    assert!(roster.detail_open);
    assert_eq!(roster.detail.keeper.as_deref(), Some("keeper-0001"));
    assert_eq!(roster.selected, 1);
}

/// §4.1, §14.7: a name beyond the loaded page is asked of the server as `/` asks (the detail
/// read of that name, its row selected); a roster the server has no more of offers no such
/// entry.
#[test]
fn issue28_keeper_beyond_the_loaded_page_is_asked_of_the_server() {
    let m = model(3, 5_008);
    let mut ui = ui(Tab::Overview);
    palette(&mut ui, &m, "keeper k-02500");
    assert_eq!(
        first_label(&ui),
        "keeper k-02500 · chat (not loaded: ask the server)"
    );
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::Many(vec![
            UiCommand::send(KeeperDetailCommand::Watch {
                viewer: Viewer::Detail,
                keeper: "k-02500".into(),
            }),
            UiCommand::local(ChatEvent::Open {
                keeper: "k-02500".into()
            }),
        ])
    );
    assert_eq!(ui.keepers().roster.found.as_deref(), Some("k-02500"));
    assert_eq!(
        ui.keepers().roster.selected,
        3,
        "the found row after the page"
    );

    // Asked once, it stays offered for the session (recent, first).
    palette(&mut ui, &m, "");
    assert_eq!(
        first_label(&ui),
        "keeper k-02500 · chat (not loaded: ask the server)"
    );
    press(&mut ui, &m, KeyCode::Esc);

    let complete = model(3, 3);
    let mut ui = self::ui(Tab::Overview);
    palette(&mut ui, &complete, "keeper k-02500");
    let p = ui.layer::<PaletteLayer>().unwrap();
    assert!(
        p.shown()
            .iter()
            .all(|s| !matches!(&s.entry.act, Act::Keeper { name, .. } if name == "k-02500")),
        "no server look-up when the page holds every Keeper"
    );
}

/// The keys of what is in front, made from its binding tables: choosing one does what the key
/// does (`w` wake on the roster), and an armed key (`s s` shutdown) asks exactly what its first
/// press asks — the save the confirmation stage previews before anything is sent.
#[test]
fn issue28_a_key_of_the_surface_does_what_the_key_does_and_armed_keys_stay_armed() {
    let m = model(3, 3);
    let direct = |code| {
        let mut ui = ui(Tab::Keepers);
        press(&mut ui, &m, code)
    };
    let mut ui = ui(Tab::Keepers);
    palette(&mut ui, &m, "wake");
    let p = ui.layer::<PaletteLayer>().unwrap();
    let first = p.shown().first().cloned().unwrap();
    assert_eq!(first.entry.keys.as_deref(), Some("w"));
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    assert_ne!(cmd, UiCommand::None);
    assert_eq!(cmd, direct(KeyCode::Char('w')));

    let mut ui = self::ui(Tab::Keepers);
    palette(&mut ui, &m, "shutdown");
    assert_eq!(
        ui.layer::<PaletteLayer>().unwrap().shown()[0]
            .entry
            .keys
            .as_deref(),
        Some("s s")
    );
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    assert!(format!("{cmd:?}").contains("Shutdown"), "{cmd:?}");
    assert_eq!(cmd, direct(KeyCode::Char('s')));
}

/// Nothing is done before `Enter`: a whole command typed changes only the palette; `Esc`
/// closes it and does nothing; `Enter` with no match does nothing.
#[test]
fn issue28_nothing_acts_without_enter_and_esc_closes() {
    let m = model(3, 3);
    let mut ui = ui(Tab::Keepers);
    let state = |ui: &Ui| {
        (
            ui.tab,
            format!("{:?}", ui.keepers().roster),
            ui.system().pane,
            ui.work().pane,
        )
    };
    let before = state(&ui);
    palette(&mut ui, &m, "go to System");
    assert_eq!(ui.tab, Tab::Keepers);
    assert_eq!(state(&ui), before);
    let text = screen_text(&m, &ui);
    assert!(text.contains(": go to System"), "{text}");
    assert!(text.contains("go to System › Runtime"), "{text}");
    assert_eq!(press(&mut ui, &m, KeyCode::Esc), UiCommand::Repaint);
    assert!(ui.layer::<PaletteLayer>().is_none());
    assert_eq!(ui.tab, Tab::Keepers);
    assert_eq!(state(&ui), before);

    palette(&mut ui, &m, "zzzzqqq");
    assert!(screen_text(&m, &ui).contains("no match"));
    assert_eq!(press(&mut ui, &m, KeyCode::Enter), UiCommand::None);
    assert!(ui.layer::<PaletteLayer>().is_some(), "still open");
}

/// What was chosen this session is listed first on an empty filter and wins ties after.
#[test]
fn issue28_recent_commands_first() {
    let m = model(3, 3);
    let mut ui = ui(Tab::Keepers);
    palette(&mut ui, &m, "");
    let natural = first_label(&ui);
    press(&mut ui, &m, KeyCode::Esc);
    palette(&mut ui, &m, "sys sources");
    press(&mut ui, &m, KeyCode::Enter);
    palette(&mut ui, &m, "go board");
    press(&mut ui, &m, KeyCode::Enter);
    palette(&mut ui, &m, "");
    let p = ui.layer::<PaletteLayer>().unwrap();
    let labels: Vec<String> = p.shown().iter().map(|s| s.entry.label.clone()).collect();
    assert_eq!(labels[0], "go to Board");
    assert_eq!(labels[1], "go to System › sources");
    assert_ne!(natural, labels[0]);
    // `Down` then `Enter` takes the second.
    press(&mut ui, &m, KeyCode::Down);
    press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        (ui.tab, ui.system().pane),
        (Tab::System, SystemPane::Sources)
    );
}

/// Over a layer (the saves journal) the palette offers that layer's keys and the ring's, not
/// surfaces or Keepers; choosing one acts on the layer.
#[test]
fn issue28_over_a_layer_only_its_keys() {
    let m = model(3, 3);
    let mut ui = ui(Tab::Keepers);
    press(&mut ui, &m, KeyCode::Char('L'));
    assert!(ui.layer::<JournalLayer>().is_some());
    palette(&mut ui, &m, "");
    let p = ui.layer::<PaletteLayer>().unwrap();
    assert!(
        p.shown()
            .iter()
            .all(|s| matches!(s.entry.act, Act::Press(_))),
        "only keys"
    );
    press(&mut ui, &m, KeyCode::Esc);
    palette(&mut ui, &m, "close");
    press(&mut ui, &m, KeyCode::Enter);
    assert!(ui.layer::<JournalLayer>().is_none(), "the journal closed");
}
