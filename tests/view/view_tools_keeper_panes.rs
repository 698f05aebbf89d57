#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Keeper panes of Tools (surfaces.md "Tools": `available`, `receipts`, `usage`)
//! without a terminal and without actors: each pane has its own pending and failure,
//! and not requested, loading, warming, failed with the last data, not served, unavailable and
//! a normal empty answer are different typed values (G-5) and different words on screen; a
//! result for a Keeper no longer selected is never applied (G-7); entering and leaving the
//! panes selects and stops the `?keeper=` read.

use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::tools::{KeeperSurfaceRead, ToolsCommand, ToolsObservation, ToolsSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::skills::SkillsSnapshotRead;
use masc_tui::protocol::tools::ToolsInventoryRead;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::react::{Seen, react_detached};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::{Tab, Ui};
use masc_tui::view::tools::panes::{self, PaneState};
use ratatui::layout::Rect;

const SURFACE: &str = r#"{"status":"available","runtime_id":"ollama.qwen3","tools":[{"name":"masc_board_post","origin":{"kind":"registered"}}],
  "instruction_skills":[{"identity":{"source_id":"s","package_id":"p","name":"nightly-verification"},"content_revision":"r1"}],
  "composition_skills":[],"skills_left_out":[]}"#;
const LEDGER: &str = r#"{"status":"available","ledger":[{"skill":"nightly-verification","activations":3,"last_activated_at":"2026-12-01T10:00:00Z"}]}"#;

fn inventory(surface: Option<&str>, activations: Option<&str>) -> ToolsInventoryRead {
    let mut body = String::from(
        r#"{"generated_at":"2026-12-01T10:00:00Z","tool_inventory":{"count":0,"tools":[],"surface_summary":{}},"tool_usage":{}"#,
    );
    if let Some(s) = surface {
        body.push_str(&format!(r#","effective_keeper_surface":{s}"#));
    }
    if let Some(a) = activations {
        body.push_str(&format!(r#","skill_activations":{a}"#));
    }
    body.push('}');
    ToolsInventoryRead::decode(body.as_bytes()).unwrap()
}

use crate::rig::admitted as ok;

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn with_roster(m: &mut Model, n: usize) {
    let t = sample::roster_ticket(1, 1);
    crate::rig::dispatch(m, t.clone());
    crate::rig::observe(
        m,
        sample::roster_observation(t, sample::roster(n), AdmissionMode::Receipt),
    )
    .unwrap();
}

fn ticket(keeper: &str, generation: u64) -> Ticket<ToolsSlot> {
    Ticket {
        slot: ToolsSlot::KeeperSurface(keeper.into()),
        generation,
        scope: sample::scope(1),
    }
}

fn read(
    keeper: &str,
    result: Result<Admitted<ToolsInventoryRead>, ClientError>,
) -> ToolsObservation {
    ToolsObservation::KeeperSurface(Box::new(KeeperSurfaceRead {
        keeper: keeper.into(),
        result,
    }))
}

fn select(m: &mut Model, keeper: Option<&str>) {
    m.tools.on_command(&ToolsCommand::SelectKeeper {
        keeper: keeper.map(str::to_string),
    });
}

fn ui(pane: SystemPane) -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane,
        ..Default::default()
    })
}

fn screen(m: &Model, ui: &Ui) -> String {
    crate::rig::screen_text(m, ui)
}

fn key(ui: &mut Ui, m: &mut Model, code: KeyCode) -> UiCommand {
    let cmd = handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE));
    if let Some(c) = cmd.as_send::<ToolsCommand>() {
        m.tools.on_command(c);
    }
    cmd
}

/// G-5: the `available` and `receipts` panes walk no Keeper → not requested →
/// loading → shown → failed with the last data kept, each a different typed value and
/// different words; the two parts of the one read are projected each on its own.
#[test]
fn tools_item2_g5_keeper_pane_states_are_distinct_values() {
    let mut m = model();
    assert_eq!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::NoKeeper
    );
    let shown = screen(&m, &ui(SystemPane::Available));
    assert!(
        shown.contains("available surface: no Keeper selected"),
        "{shown}"
    );
    select(&mut m, Some("rondo"));
    assert_eq!(
        panes::receipts(m.tools.surface.as_ref()),
        PaneState::NotRequested
    );
    crate::rig::dispatch(&mut m, ticket("rondo", 1));
    assert_eq!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::Loading
    );
    assert!(screen(&m, &ui(SystemPane::Receipts)).contains("Skill receipts: reading…"));
    crate::rig::observe(
        &mut m,
        SlotEvent::Observed(
            ticket("rondo", 1),
            read("rondo", ok(inventory(Some(SURFACE), Some(LEDGER)))),
        ),
    )
    .unwrap();
    let PaneState::Shown {
        value: surface,
        reading: false,
        ..
    } = panes::available(m.tools.surface.as_ref())
    else {
        panic!("surface shown");
    };
    assert_eq!(surface.runtime_id, "ollama.qwen3");
    let PaneState::Shown { value: rows, .. } = panes::receipts(m.tools.surface.as_ref()) else {
        panic!("ledger shown");
    };
    assert_eq!(rows[0].activations, Some(3));
    let available = screen(&m, &ui(SystemPane::Available));
    assert!(
        available.contains("runtime ollama.qwen3 · 1 tools"),
        "{available}"
    );
    assert!(available.contains("nightly-verification"));
    let receipts = screen(&m, &ui(SystemPane::Receipts));
    assert!(
        receipts.contains("SKILL RECEIPTS  1 in the activation ledger"),
        "{receipts}"
    );
    assert!(receipts.contains("3 activations · last 2026-12-01T10:00:00Z"));

    // A failed re-read keeps the last data beside the failure (G-4).
    crate::rig::dispatch(&mut m, ticket("rondo", 2));
    crate::rig::observe(
        &mut m,
        SlotEvent::Observed(ticket("rondo", 2), read("rondo", Err(ClientError::Timeout))),
    )
    .unwrap();
    match panes::available(m.tools.surface.as_ref()) {
        PaneState::Failed { last: Some(s), .. } => assert_eq!(s.runtime_id, "ollama.qwen3"),
        other => panic!("failed with the last surface: {other:?}"),
    }
    let failed = screen(&m, &ui(SystemPane::Available));
    assert!(
        failed.contains("available surface: read failed (timeout)"),
        "{failed}"
    );
    assert!(failed.contains("last observation below") && failed.contains("ollama.qwen3"));
}

/// G-5: a part this MASC release does not send is not served, a
/// surface the server says it cannot compute is unavailable with its reason, a warming
/// answer is warming and an empty ledger is empty — four values, none of them "0".
#[test]
fn tools_item2_g5_not_served_unavailable_warming_and_empty_differ() {
    let mut m = model();
    select(&mut m, Some("rondo"));
    crate::rig::deliver(
        &mut m,
        ticket("rondo", 1),
        read("rondo", ok(inventory(None, None))),
    );
    assert!(matches!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::NotServed { .. }
    ));
    assert!(
        screen(&m, &ui(SystemPane::Receipts))
            .contains("Skill receipts: not served by this MASC — skill_activations")
    );

    crate::rig::deliver(
        &mut m,
        ticket("rondo", 2),
        read(
            "rondo",
            ok(inventory(
                Some(
                    r#"{"status":"unavailable","reason":"keeper_not_running","detail":"keeper status is offline"}"#,
                ),
                Some(r#"{"status":"available","ledger":[]}"#),
            )),
        ),
    );
    assert_eq!(panes::receipts(m.tools.surface.as_ref()), PaneState::Empty);
    let PaneState::Unavailable(u) = panes::available(m.tools.surface.as_ref()) else {
        panic!("unavailable");
    };
    assert_eq!(u.reason, "keeper_not_running");
    let shown = screen(&m, &ui(SystemPane::Available));
    assert!(
        shown.contains(
            "available surface: unavailable (keeper_not_running) — keeper status is offline"
        ),
        "{shown}"
    );
    assert!(
        screen(&m, &ui(SystemPane::Receipts))
            .contains("Skill receipts: none (the server answered, empty)")
    );

    crate::rig::deliver(
        &mut m,
        ticket("rondo", 3),
        read(
            "rondo",
            ok(inventory(Some(r#"{"status":"warming"}"#), Some("null"))),
        ),
    );
    assert_eq!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::Warming
    );
    assert!(matches!(
        panes::receipts(m.tools.surface.as_ref()),
        PaneState::Unavailable(_)
    ));
}

/// G-7, T-11 (the same rule for the Keeper read): once another Keeper is selected, the old
/// Keeper's answer is withdrawn, never applied to the new one; an answer naming another
/// Keeper than its slot is `other_target`.
#[test]
fn tools_item2_g7_an_answer_for_a_keeper_no_longer_selected_is_never_applied() {
    let mut m = model();
    select(&mut m, Some("rondo"));
    crate::rig::dispatch(&mut m, ticket("rondo", 1));
    select(&mut m, Some("sangsu"));
    assert_eq!(m.tools.surface_keeper(), Some("sangsu"));
    let late = crate::rig::observe(
        &mut m,
        SlotEvent::Observed(
            ticket("rondo", 1),
            read("rondo", ok(inventory(Some(SURFACE), Some(LEDGER)))),
        ),
    );
    assert_eq!(late, Err(RejectReason::Withdrawn));
    assert_eq!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::NotRequested
    );
    crate::rig::dispatch(&mut m, ticket("sangsu", 2));
    let mixed = crate::rig::observe(
        &mut m,
        SlotEvent::Observed(
            ticket("sangsu", 2),
            read("rondo", ok(inventory(Some(SURFACE), Some(LEDGER)))),
        ),
    );
    assert_eq!(mixed, Err(RejectReason::OtherTarget));
    assert_eq!(
        panes::available(m.tools.surface.as_ref()),
        PaneState::Loading
    );
}

/// surfaces.md Tools keys: `p` into `available` selects the roster's
/// selected Keeper at the Tools source; `J` the next one; `receipts` keeps it; `usage` (which
/// reads the Skills catalogue, not the Keeper) stops the Keeper read.
#[test]
fn tools_item2_entering_the_keeper_panes_selects_the_keeper_and_leaving_stops_it() {
    let mut m = model();
    with_roster(&mut m, 3);
    let mut ui = ui(SystemPane::Connectors);
    assert_eq!(
        key(&mut ui, &mut m, KeyCode::Char('p')),
        UiCommand::send(ToolsCommand::SelectKeeper {
            keeper: Some("keeper-0000".into())
        })
    );
    assert_eq!(ui.system().pane, SystemPane::Available);
    assert_eq!(
        key(&mut ui, &mut m, KeyCode::Char('J')),
        UiCommand::send(ToolsCommand::SelectKeeper {
            keeper: Some("keeper-0001".into())
        })
    );
    assert!(screen(&m, &ui).contains("KEEPER  keeper-0001"));
    // receipts: the same Keeper, nothing new to ask.
    assert_eq!(key(&mut ui, &mut m, KeyCode::Char('p')), UiCommand::Repaint);
    assert_eq!(ui.system().pane, SystemPane::Receipts);
    assert_eq!(
        key(&mut ui, &mut m, KeyCode::Char('p')),
        UiCommand::send(ToolsCommand::SelectKeeper { keeper: None })
    );
    assert_eq!(ui.system().pane, SystemPane::Usage);
    assert!(m.tools.surface.is_none());
}

/// §6.2, G-5: the `usage` pane is the Skills catalogue's cross-Keeper usage,
/// with the catalogue slot's own states: not loaded, a catalogue that is not initialised
/// (unavailable, never "no usage"), usage rows per Keeper, and a failure keeping them.
#[test]
fn tools_item2_usage_has_the_catalogue_slots_states() {
    let mut m = model();
    assert_eq!(
        panes::usage(&m.tools.skills.fetched),
        PaneState::NotRequested
    );
    assert!(screen(&m, &ui(SystemPane::Usage)).contains("Skill usage: (not loaded yet)"));
    let skills_ticket = |generation| Ticket {
        slot: ToolsSlot::SkillsCatalog,
        generation,
        scope: sample::scope(1),
    };
    crate::rig::deliver(
        &mut m,
        skills_ticket(1),
        ToolsObservation::SkillsCatalog(ok(SkillsSnapshotRead::decode(
            br#"{"schema":"masc.skill-snapshot/v1","state":"uninitialized"}"#,
        )
        .unwrap())),
    );
    assert!(matches!(
        panes::usage(&m.tools.skills.fetched),
        PaneState::Unavailable(u) if u.reason == "uninitialized"
    ));
    let ready = r#"{"schema":"masc.skill-snapshot/v1","state":"ready",
      "snapshot":{"snapshot_revision":"s1","catalog_revision":"c1","config":{},"sources":[],"skills":[],"effective_skills":[],"shadows":[],"rejections":[]},
      "surfaces":[{"reference":{"identity":{"source_id":"s","package_id":"p","name":"nightly-verification"},"content_revision":"r1"},"kind":"instruction",
        "usage":[{"keeper":"rondo","invocations":7,"deliveries":6,"actions":2,"last_used_at":"2026-12-01T09:00:00Z"},
                 {"keeper":"sangsu","invocations":1,"deliveries":1,"actions":0,"last_used_at":null}],
        "profile":{}}],
      "usage_coverage":{"ledgers_loaded":2,"unavailable":["하늘"]}}"#;
    crate::rig::deliver(
        &mut m,
        skills_ticket(2),
        ToolsObservation::SkillsCatalog(ok(SkillsSnapshotRead::decode(ready.as_bytes()).unwrap())),
    );
    let PaneState::Shown { value: usage, .. } = panes::usage(&m.tools.skills.fetched) else {
        panic!("usage shown");
    };
    assert_eq!(usage.rows.len(), 2);
    assert_eq!(usage.coverage, Some((2, vec!["하늘".to_string()])));
    let shown = screen(&m, &ui(SystemPane::Usage));
    assert!(shown.contains("ledgers unavailable: 하늘"), "{shown}");
    assert!(
        shown.contains("rondo") && shown.contains("never"),
        "{shown}"
    );
    crate::rig::dispatch(&mut m, skills_ticket(3));
    crate::rig::observe(
        &mut m,
        SlotEvent::Observed(
            skills_ticket(3),
            ToolsObservation::SkillsCatalog(Err(ClientError::Timeout)),
        ),
    )
    .unwrap();
    assert!(matches!(
        panes::usage(&m.tools.skills.fetched),
        PaneState::Failed { last: Some(u), .. } if u.rows.len() == 2
    ));
    // §6.2 `usage: null` (the usage ledger not read yet, MASC's TUI test "keeps the profile
    // while usage and flow are empty"): said so, never "no usage".
    let unread = ready.replace(
        r#""usage":[{"keeper":"rondo","invocations":7,"deliveries":6,"actions":2,"last_used_at":"2026-12-01T09:00:00Z"},
                 {"keeper":"sangsu","invocations":1,"deliveries":1,"actions":0,"last_used_at":null}]"#,
        r#""usage":null"#,
    );
    assert_ne!(unread, ready);
    crate::rig::deliver(
        &mut m,
        skills_ticket(4),
        ToolsObservation::SkillsCatalog(ok(SkillsSnapshotRead::decode(unread.as_bytes()).unwrap())),
    );
    let PaneState::Shown { value: usage, .. } = panes::usage(&m.tools.skills.fetched) else {
        panic!("usage shown");
    };
    assert_eq!(usage.unreported, vec!["nightly-verification".to_string()]);
    let shown = screen(&m, &ui(SystemPane::Usage));
    assert!(shown.contains("usage not reported yet"), "{shown}");
}

/// What the view actor sends after a key, a delivery or an identity change:
/// the Tools source's `SelectKeeper` when what is in front changed it, applied to the model as
/// the actor does.
fn settled(ui: &mut Ui, m: &mut Model) -> Option<ToolsCommand> {
    let reaction = react_detached(ui, m, Seen::Key);
    let cmd = reaction
        .commands
        .iter()
        .find_map(|c| c.as_send::<ToolsCommand>().cloned());
    if let Some(c) = &cmd {
        m.tools.on_command(c);
    }
    cmd
}

/// surfaces.md "Tools", G-7: the Keeper panes' read follows what is in front,
/// not the next System key — switching tabs onto `available` selects the Keeper at once; a
/// roster read that arrives while the pane is shown selects its first row; leaving the System
/// tab stops the read; moving the roster's selection on the Keepers tab selects nothing; coming
/// back selects the Keeper that is now chosen.
#[test]
fn tools_item2_a_tab_switch_alone_selects_the_keeper_and_leaving_the_tab_stops_the_read() {
    let mut m = model();
    let mut ui = ui(SystemPane::Available);
    ui.tab = Tab::Keepers;
    assert_eq!(
        settled(&mut ui, &mut m),
        None,
        "not in front: nothing to read"
    );

    // Keepers → Board → System: the pane was left on `available`; no roster read yet.
    key(&mut ui, &mut m, KeyCode::Tab);
    key(&mut ui, &mut m, KeyCode::Tab);
    assert_eq!(ui.tab, Tab::System);
    assert_eq!(
        settled(&mut ui, &mut m),
        None,
        "no Keeper to choose before the roster"
    );
    with_roster(&mut m, 3);
    assert_eq!(
        settled(&mut ui, &mut m),
        Some(ToolsCommand::SelectKeeper {
            keeper: Some("keeper-0000".into())
        }),
        "the roster read arriving selects its first row"
    );
    assert_eq!(
        settled(&mut ui, &mut m),
        None,
        "settled: nothing more to send"
    );

    // Leaving the tab stops the read.
    key(&mut ui, &mut m, KeyCode::BackTab);
    assert_eq!(ui.tab, Tab::Board);
    assert_eq!(
        settled(&mut ui, &mut m),
        Some(ToolsCommand::SelectKeeper { keeper: None })
    );
    assert!(m.tools.surface.is_none());

    // On the Keepers tab a roster move selects nothing; back on System, the new row is read.
    key(&mut ui, &mut m, KeyCode::BackTab);
    assert_eq!(ui.tab, Tab::Keepers);
    key(&mut ui, &mut m, KeyCode::Char('j'));
    assert_eq!(ui.roster().selected, 1);
    assert_eq!(settled(&mut ui, &mut m), None);
    key(&mut ui, &mut m, KeyCode::Tab);
    key(&mut ui, &mut m, KeyCode::Tab);
    assert_eq!(
        settled(&mut ui, &mut m),
        Some(ToolsCommand::SelectKeeper {
            keeper: Some("keeper-0001".into())
        })
    );
}
