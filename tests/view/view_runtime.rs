#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Runtime pane and Overview on the shared joined load (sources.md F-1, F-5, F-7, P-1,
//! P-2): parts applied each to its own slot, lanes joined to the probe by exact runtime id,
//! the freshness badge, and the load header (received / failed / partial / interrupted /
//! unfinished).

use crate::rig::{dispatch, retire};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::runtime::RuntimeLoad;
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::runtime::{RuntimeProbe, RuntimeResolved};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const RESOLVED: &str = r#"{"generated_at_iso":"2026-11-20T09:00:00Z","source":"/api/v1/runtime/resolved","config_path":"/srv/config/runtime.toml",
 "default_runtime":null,
 "runtimes":[
  {"id":"acme.big","provider":"Acme","provider_id":"acme","model":"big","effective_max_context":200000,"max_output_tokens":null,"is_local":false,"is_default":false,"quota_exhausted":false,"rate_limited":false,"quota_scope":"account:acme","quota_resets_at":null,"rate_limit_resets_at":null},
  {"id":"acme.big-cli","provider":"Acme","provider_id":"acme","model":"big","effective_max_context":200000,"max_output_tokens":null,"is_local":false,"is_default":false,"quota_exhausted":false,"rate_limited":false,"quota_scope":"account:acme","quota_resets_at":null,"rate_limit_resets_at":null},
  {"id":"zed.small","provider":"Zed","provider_id":"zed","model":"small","effective_max_context":32000,"max_output_tokens":null,"is_local":true,"is_default":false,"quota_exhausted":false,"rate_limited":false,"quota_scope":null,"quota_resets_at":null,"rate_limit_resets_at":null}],
 "lanes":[{"id":"primary","runtime_ids":["acme.big","acme.big-cli","zed.small"],"declared":true}],
 "assignments":[],"media_failover":[],"provider_usage_windows_since":1790179140.2,"provider_usage_windows":[]}"#;

fn probe_body(state: &str) -> String {
    format!(
        r#"{{"generated_at":"2026-11-20T09:00:00Z","cache_age_sec":3.0,"cache_hit":true,"refresh_state":"{state}",
        "probe":{{"source":"runtime.toml","status":"degraded","probe_ok":false,
        "providers":[{{"runtime_id":"acme.big","provider_id":"acme","status":"reachable","reachable":true,"latency_ms":120.0}},
                     {{"runtime_id":"acme.big-cli","provider_id":"acme","status":"skipped_cli","reachable":null}},
                     {{"runtime_id":"zed.small-2","provider_id":"zed","status":"network_error","reachable":false}}],
        "errors":[]}}}}"#
    )
}

fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn ticket(generation: u64) -> Ticket<RuntimeSlot> {
    Ticket {
        slot: RuntimeSlot::Catalogue,
        generation,
        scope: sample::scope(1),
    }
}

fn load(
    resolved: Result<Admitted<RuntimeResolved>, ClientError>,
    probe: Result<Admitted<RuntimeProbe>, ClientError>,
    forced: bool,
) -> RuntimeObservation {
    RuntimeObservation::Catalogue(Box::new(RuntimeLoad {
        resolved,
        probe,
        forced,
    }))
}

fn resolved() -> Result<Admitted<RuntimeResolved>, ClientError> {
    ok(RuntimeResolved::decode(RESOLVED.as_bytes()).unwrap())
}

fn probe(state: &str) -> Result<Admitted<RuntimeProbe>, ClientError> {
    ok(RuntimeProbe::decode(probe_body(state).as_bytes()).unwrap())
}

fn status(code: u16) -> ClientError {
    ClientError::Status {
        status: code,
        body: String::new(),
    }
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn deliver(m: &mut Model, generation: u64, payload: RuntimeObservation) {
    crate::rig::deliver(m, ticket(generation), payload);
}

fn screen(m: &Model, tab: Tab) -> String {
    let ui = Ui {
        area: Rect::new(0, 0, 120, 40),
        tab,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane: SystemPane::Runtime,
        ..Default::default()
    });
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, &ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

/// F-7: lane candidates in order, each joined to the probe by its exact runtime id — a
/// prefix (`acme.big` vs `acme.big-cli`) or a near id (`zed.small` vs `zed.small-2`) never
/// borrows another row; not probed is not unreachable; the freshness badge is shown.
#[test]
fn f7_lanes_join_the_probe_by_exact_runtime_id_with_a_freshness_badge() {
    let mut m = model();
    deliver(&mut m, 1, load(resolved(), probe("fresh"), false));
    let text = screen(&m, Tab::System);
    assert!(text.contains("PROBE  [fresh] degraded · age 3s"), "{text}");
    assert!(line_with(&text, "1. acme.big ").contains("reachable 120ms"));
    assert!(line_with(&text, "2. acme.big-cli").contains("not probed (skipped_cli)"));
    let zed = line_with(&text, "3. zed.small");
    assert!(zed.contains("no probe row"), "{zed}");
    assert!(!zed.contains("network_error"), "{zed}");
    assert!(line_with(&text, "LOAD").contains("received · received: catalogue, usage, probe"));
}

/// The badge words: `recent` for a forced hit inside the rate limit, `stale` for a served
/// stale value, `warming` for a cold start's placeholder.
#[test]
fn f7_freshness_badges_recent_stale_warming() {
    for (state, badge) in [
        ("recent", "[recent]"),
        ("served_stale", "[stale]"),
        ("warming_up", "[warming]"),
    ] {
        let mut m = model();
        deliver(&mut m, 1, load(resolved(), probe(state), true));
        let text = screen(&m, Tab::System);
        assert!(line_with(&text, "PROBE").contains(badge), "{state}: {text}");
        assert!(line_with(&text, "LOAD").contains("forced probe"));
    }
}

/// F-7, P-1, P-2: a probe failure alone keeps the lanes with the last good probe (marked),
/// and the header names the received and the failed parts together as `partial`.
#[test]
fn f7_p1_a_probe_failure_alone_keeps_the_lanes_and_the_last_probe() {
    let mut m = model();
    deliver(&mut m, 1, load(resolved(), probe("fresh"), false));
    deliver(&mut m, 2, load(resolved(), Err(status(503)), false));
    let text = screen(&m, Tab::System);
    let header = line_with(&text, "LOAD");
    assert!(header.contains("partial"), "{header}");
    assert!(header.contains("received: catalogue, usage"), "{header}");
    assert!(header.contains("failed: probe (status_503)"), "{header}");
    assert!(line_with(&text, "PROBE").contains("last probe kept, re-read failed: status_503"));
    assert!(line_with(&text, "1. acme.big ").contains("reachable 120ms"));
}

/// F-7: with no probe ever received, the lanes still show, each `unobserved` — never
/// "unreachable".
#[test]
fn f7_a_probe_never_received_is_unobserved() {
    let mut m = model();
    deliver(
        &mut m,
        1,
        load(resolved(), Err(ClientError::Timeout), false),
    );
    let text = screen(&m, Tab::System);
    assert!(line_with(&text, "PROBE").contains("unobserved · failed: timeout"));
    assert!(line_with(&text, "1. acme.big ").contains("unobserved"));
    assert!(!text.contains("✗"), "{text}");
}

/// F-5, F-7: a catalogue failure keeps the last joined rows under the error.
#[test]
fn f7_a_catalogue_failure_keeps_the_last_joined_rows_under_the_error() {
    let mut m = model();
    deliver(&mut m, 1, load(resolved(), probe("fresh"), false));
    deliver(&mut m, 2, load(Err(status(500)), probe("recent"), false));
    let text = screen(&m, Tab::System);
    assert!(
        line_with(&text, "LOAD").contains("failed: catalogue (status_500), usage (status_500)")
    );
    assert!(text.contains("runtime catalogue:"), "{text}");
    assert!(
        text.contains("status_500") || text.contains("500"),
        "{text}"
    );
    assert!(line_with(&text, "1. acme.big ").contains("reachable 120ms"));
    assert!(line_with(&text, "PROBE").contains("[recent]"));
}

/// P-2: a load cancelled before it returned is `interrupted` (the previous parts stay, none
/// invented); a source that stopped with a load in flight is `unfinished` — not the same.
#[test]
fn p2_interrupted_is_not_unfinished() {
    let mut m = model();
    deliver(&mut m, 1, load(resolved(), probe("fresh"), false));
    dispatch(&mut m, ticket(2));
    assert!(line_with(&screen(&m, Tab::System), "LOAD").contains("re-reading"));
    retire(&mut m, ticket(2));
    let text = screen(&m, Tab::System);
    assert!(line_with(&text, "LOAD").contains("interrupted"), "{text}");
    assert!(line_with(&text, "1. acme.big ").contains("reachable 120ms"));

    let mut m = model();
    deliver(&mut m, 1, load(resolved(), probe("fresh"), false));
    dispatch(&mut m, ticket(2));
    assert!(m.on_source_restarted(masc_tui::actors::runtime::RUNTIME));
    let text = screen(&m, Tab::System);
    assert!(line_with(&text, "LOAD").contains("unfinished"), "{text}");
    assert!(!line_with(&text, "LOAD").contains("interrupted"));
}

/// F-1, F-4: the Runtime pane and the Overview read the one observation: one delivery fills
/// both; the Overview's quota line comes from the same response.
#[test]
fn f1_runtime_and_overview_show_the_one_shared_observation() {
    let mut m = model();
    let t = ticket(1);
    dispatch(&mut m, t.clone());
    crate::rig::observe(
        &mut m,
        SlotEvent::Observed(t, load(resolved(), probe("fresh"), false)),
    )
    .unwrap();
    let runtime = screen(&m, Tab::System);
    assert!(runtime.contains("CATALOGUE  3 runtimes"), "{runtime}");
    let overview = screen(&m, Tab::Overview);
    assert!(
        overview.contains("0 of 0 provider scopes reported"),
        "{overview}"
    );
}
