#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Every Keeper reachable and honest roster states: MASC's roster route lists at most 200
//! (§4.1, no offset), so the title says how many are loaded of how many and `/` asks the server
//! by name (§14.7) for a Keeper not on the loaded page; rows read before a disconnect are marked
//! stale with their age; with no token the Overview says where one comes from.

use crate::rig::{dispatch, observe};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::keeper_detail::{
    KeeperDetailCommand, KeeperDetailObservation, KeeperDetailSlot, Viewer,
};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::keeper_detail::KeeperStatus;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{
    self, buffer_text, confirmed, roster, roster_failure, roster_observation, roster_ticket,
};
use masc_tui::view::screens::chat::ChatEvent;
use masc_tui::view::screens::overview::NO_TOKEN;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn ui(tab: Tab) -> Ui {
    Ui {
        area: Rect::new(0, 0, 160, 50),
        tab,
        ..Ui::default()
    }
}

fn paint_at(model: &Model, ui: &Ui, now: Instant) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let mut ctx = ProjectionCtx::now(Theme::plain());
    ctx.now = now;
    t.draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn paint(model: &Model, ui: &Ui) -> String {
    paint_at(model, ui, Instant::now())
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}:\n{text}"))
}

/// Presses `code`; a Keeper detail command goes to the model as the view actor does.
fn press(ui: &mut Ui, m: &mut Model, code: KeyCode) -> UiCommand {
    let cmd = handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE));
    if let Some(c) = cmd.as_send::<KeeperDetailCommand>() {
        m.keeper_detail.on_command(c);
    }
    cmd
}

fn type_text(ui: &mut Ui, m: &mut Model, text: &str) {
    for c in text.chars() {
        press(ui, m, KeyCode::Char(c));
    }
}

/// The first 200 of 5,008 Keepers, as MASC's roster route lists them.
fn first_page() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    let mut page = roster(200);
    page.total = 5_008;
    page.limit = Some(200);
    page.truncated = true;
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), page, AdmissionMode::Receipt),
    )
    .unwrap();
    m
}

fn meta_ticket(name: &str) -> Ticket<KeeperDetailSlot> {
    Ticket {
        slot: KeeperDetailSlot::Meta(name.into()),
        generation: 1,
        scope: sample::scope(1),
    }
}

fn status(name: &str) -> KeeperStatus {
    let body = serde_json::json!({"name": name, "meta": {"schema":"masc.keeper_meta.v1",
        "name": name, "agent_name": name, "trace_id": format!("trace-{name}"), "generation": 3},
        "paused": true, "keepalive_running": false});
    KeeperStatus::decode_for(&serde_json::to_vec(&body).unwrap(), name).unwrap()
}

fn answer(m: &mut Model, name: &str, result: Result<KeeperStatus, ClientError>) {
    dispatch(m, meta_ticket(name));
    observe(
        m,
        SlotEvent::Observed(
            meta_ticket(name),
            KeeperDetailObservation::Meta(result.map(|s| Admitted {
                value: Arc::new(s),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            })),
        ),
    )
    .unwrap();
}

/// §4.1, §14.7: the title says 200 loaded of 5,008; `/k-02500` is not on the loaded page, so
/// `Enter` asks the server for that name and selects its row; the answer fills the row, and
/// `c` and `Enter` act on that Keeper.
#[test]
fn issue27_slash_asks_the_server_for_a_keeper_beyond_the_loaded_page() {
    let mut m = first_page();
    let mut ui = ui(Tab::Keepers);
    let text = paint(&m, &ui);
    let title = line_with(&text, "KEEPERS 200");
    assert!(title.contains("KEEPERS 200 loaded of 5008"), "{title}");
    assert!(title.contains("MASC lists at most 200"), "{title}");
    press(&mut ui, &mut m, KeyCode::Char('/'));
    type_text(&mut ui, &mut m, "k-02500");
    let cmd = press(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::send(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "k-02500".into(),
        }),
        "a name not on the loaded page is asked of the server"
    );
    let asking = paint(&m, &ui);
    assert!(
        line_with(&asking, "k-02500").contains("asking the server by name"),
        "{asking}"
    );
    answer(&mut m, "k-02500", Ok(status("k-02500")));
    let found = paint(&m, &ui);
    let row = line_with(&found, "◆ found");
    assert!(row.contains("k-02500") && row.contains("paused"), "{row}");
    let chat = press(&mut ui, &mut m, KeyCode::Char('c'));
    assert_eq!(
        chat.as_local::<ChatEvent>(),
        Some(&ChatEvent::Open {
            keeper: "k-02500".into()
        }),
        "the found row is the selected one"
    );
    let detail = press(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(
        detail.as_send::<KeeperDetailCommand>(),
        Some(&KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "k-02500".into(),
        })
    );
    let pane = paint(&m, &ui);
    assert!(pane.contains("KEEPER k-02500"), "{pane}");
    assert!(pane.contains("not on the loaded page"), "{pane}");
}

/// A name the server does not know reads "no Keeper of this name" (§14.7's 404), and a name on
/// the loaded page is found there without asking.
#[test]
fn issue27_unknown_name_says_so_and_a_loaded_name_is_not_asked() {
    let mut m = first_page();
    let mut ui = ui(Tab::Keepers);
    press(&mut ui, &mut m, KeyCode::Char('/'));
    type_text(&mut ui, &mut m, "keeper-0150");
    let cmd = press(&mut ui, &mut m, KeyCode::Enter);
    assert!(cmd.as_send::<KeeperDetailCommand>().is_none(), "{cmd:?}");
    press(&mut ui, &mut m, KeyCode::Esc);
    press(&mut ui, &mut m, KeyCode::Char('/'));
    type_text(&mut ui, &mut m, "nobody");
    press(&mut ui, &mut m, KeyCode::Enter);
    answer(
        &mut m,
        "nobody",
        Err(ClientError::Status {
            status: 404,
            body: r#"{"error":"unknown keeper: nobody"}"#.into(),
        }),
    );
    let text = paint(&m, &ui);
    let row = line_with(&text, "nobody");
    assert!(
        row.contains("✗ unknown") && row.contains("no Keeper of this name"),
        "{row}"
    );
}

/// Rows read before a disconnect are marked stale with the read's age (`≈`), the title says
/// since when, and the turn age (which would keep counting) is not shown; reconnected rows
/// carry no mark.
#[test]
fn issue27_rows_read_before_a_disconnect_are_marked_stale_with_their_age() {
    let mut m = first_page();
    let ui = ui(Tab::Keepers);
    let current = paint(&m, &ui);
    assert!(!current.contains('≈'), "{current}");
    m.on_identity(IdentityState::Unconfirmed {
        reason: "connection refused".into(),
    });
    let later = Instant::now() + Duration::from_secs(125);
    let stale = paint_at(&m, &ui, later);
    assert!(
        line_with(&stale, "KEEPERS 200").contains("stale: rows read 2m ago, before the disconnect"),
        "{stale}"
    );
    let busy = line_with(&stale, "keeper-0001");
    assert!(busy.contains("≈2m busy"), "{busy}");
    assert!(!busy.contains("● busy"), "{busy}");
    // A failed re-read while connected marks the rows too.
    let mut failed = first_page();
    dispatch(&mut failed, roster_ticket(2, 1));
    observe(
        &mut failed,
        roster_failure(roster_ticket(2, 1), ClientError::Timeout),
    )
    .unwrap();
    let text = paint(&failed, &ui);
    assert!(
        line_with(&text, "KEEPERS 200").contains("before the failed re-read"),
        "{text}"
    );
    assert!(
        line_with(&text, "keeper-0001").contains("≈0s busy"),
        "{text}"
    );
}

/// With no token the Overview's Keepers count says where a token comes from, not
/// "0 · data unreliable".
#[test]
fn issue27_no_token_overview_says_where_a_token_comes_from() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_failure(roster_ticket(1, 1), ClientError::NoToken),
    )
    .unwrap();
    let text = paint(&m, &ui(Tab::Overview));
    assert!(text.contains(NO_TOKEN), "{text}");
    assert!(
        !line_with(&text, "no token").contains("data unreliable"),
        "{text}"
    );
}
