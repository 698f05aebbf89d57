#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Approvals view without a terminal (`TestBackend`; surfaces.md "Approvals / Ask";
//! protocol.md §10.5, §11 "Approval decision"; sources.md H-16, I-5, K-2, K-3): the scoped
//! title, the armed `y y` / `n n` and everything that disarms, the field-list detail with the
//! payload as inert text, the approval the server still lists after it expired, one distinct
//! rendering per receipt outcome, `R` only when offered, the ways in, and receipts across a
//! withdrawal and a workspace switch. Decisions reach the model the way the view actor feeds
//! it: registered at submit, then each step from the save's own ticket.

use crate::rig::{dispatch, observe, retire};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::operator::{
    Approval, ApprovalDecisionReply, Decision, DecisionResult, OperatorApprovals,
};
use masc_tui::protocol::outcome::{ApprovalDecisionOutcome, NoLongerPending, SaveOutcome};
use masc_tui::view::command::UiCommand;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, WORKSPACE, buffer_text};
use masc_tui::view::screens::approvals::{self, ApprovalsUi, keys::follow_list};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

type Outcome = ApprovalDecisionOutcome;

const OTHER_WORKSPACE: &str = "/srv/other/.masc";

/// Three approvals of this actor, one of another actor hidden: a keeper probe, a pause
/// whose payload carries an escape sequence and a bidi override, and a resume the server
/// still lists although it expired.
fn list_json(tokens: &[&str]) -> String {
    let item = |token: &str| match token {
        "opc_n0" => {
            r#"{"confirm_token":"opc_n0","trace_id":"ops_n0","actor":"masc-tui","action_type":"task_inject","target_type":"workspace","target_id":null,"payload":{"title":"new"},"delegated_tool":"masc_add_task","created_at":"2026-11-20T08:55:00Z","expires_at":null}"#
        }
        "opc_a1" => {
            r#"{"confirm_token":"opc_a1","trace_id":"ops_a1","actor":"masc-tui","action_type":"keeper_probe","target_type":"keeper","target_id":"rondo","payload":{},"delegated_tool":"masc_keeper_status","created_at":"2026-11-20T08:50:00Z","expires_at":"2099-01-01T00:00:00Z"}"#
        }
        "opc_b2" => {
            r#"{"confirm_token":"opc_b2","trace_id":"ops_b2","actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,"payload":{"reason":"\u001b[31mred\u001b[0m \u202eevil","n":1},"delegated_tool":"masc_pause","created_at":"2026-11-20T08:40:00Z","expires_at":"2099-01-01T00:00:00Z"}"#
        }
        "opc_x3" => {
            r#"{"confirm_token":"opc_x3","trace_id":"ops_x3","actor":"masc-tui","action_type":"namespace_resume","target_type":"workspace","target_id":null,"payload":{"reason":"after maintenance"},"delegated_tool":"masc_resume","created_at":"2020-08-21T12:00:00Z","expires_at":"2020-08-21T12:15:00Z"}"#
        }
        other => panic!("no sample approval {other}"),
    };
    let items: Vec<&str> = tokens.iter().map(|t| item(t)).collect();
    format!(
        r#"{{"pending_confirm_envelope":{{"items":[{}],"summary":{{"actor_filter":"masc-tui","filter_active":true,"visible_count":{},"hidden_count":1,"total_count":{},"hidden_actors":["release-bot"],"confirm_required_actions":[]}}}}}}"#,
        items.join(","),
        tokens.len(),
        tokens.len() + 1
    )
}

const ALL: [&str; 3] = ["opc_a1", "opc_b2", "opc_x3"];

static GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATION.fetch_add(1, Ordering::Relaxed)
}

fn scope_of(workspace: &str, epoch: u64) -> ReadScope {
    ReadScope {
        workspace: WorkspaceId(workspace.into()),
        epoch,
    }
}

fn confirmed(workspace: &str, epoch: u64) -> IdentityState {
    IdentityState::Confirmed {
        scope: scope_of(workspace, epoch),
        base_path: sample::BASE_PATH.into(),
        mode: AdmissionMode::Receipt,
    }
}

fn current(m: &Model) -> ReadScope {
    m.gate().current().cloned().unwrap()
}

fn approvals_ticket(m: &Model) -> Ticket<DecisionsSlot> {
    Ticket {
        slot: DecisionsSlot::Approvals,
        generation: next_generation(),
        scope: current(m),
    }
}

fn list_payload(tokens: &[&str]) -> DecisionsObservation {
    DecisionsObservation::Approvals(Ok(Admitted {
        value: Arc::new(OperatorApprovals::decode(list_json(tokens).as_bytes()).unwrap()),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }))
}

/// A read of the list: dispatched now, observed by the caller later.
fn dispatch_list(m: &mut Model) -> Ticket<DecisionsSlot> {
    let t = approvals_ticket(m);
    dispatch(m, t.clone());
    t
}

fn observe_list(m: &mut Model, t: Ticket<DecisionsSlot>, tokens: &[&str]) {
    observe(m, SlotEvent::Observed(t, list_payload(tokens))).expect("admitted");
}

fn read_list(m: &mut Model, tokens: &[&str]) {
    let t = dispatch_list(m);
    observe_list(m, t, tokens);
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(WORKSPACE, 1));
    read_list(&mut m, &ALL);
    m
}

fn approval(m: &Model, token: &str) -> Approval {
    approvals::listed(m)
        .iter()
        .find(|a| a.confirm_token == token)
        .cloned()
        .unwrap_or_else(|| panic!("{token} not listed"))
}

fn intent(m: &Model, token: &str, decision: Decision) -> DecisionIntent {
    approvals::intent_of(&approval(m, token), decision)
}

fn reply(m: &Model, token: &str, result: DecisionResult) -> ApprovalDecisionReply {
    let a = approval(m, token);
    ApprovalDecisionReply {
        trace_id: a.trace_id.clone(),
        tool_name: a.delegated_tool.clone(),
        executed_action: a,
        result,
    }
}

fn step_event(
    id: &SaveId,
    intent: &DecisionIntent,
    workspace: &str,
    step: SaveStep<Outcome>,
) -> DecisionsObservation {
    DecisionsObservation::Decision(Box::new(SaveEvent::<ApprovalDecision> {
        save_id: id.clone(),
        intent: intent.clone(),
        workspace: workspace.into(),
        step,
    }))
}

/// A decision as the view sees it: registered at submit (in the current workspace), its
/// dispatch, then its steps from that ticket. Returns the id and the ticket.
fn submit(m: &mut Model, intent: &DecisionIntent) -> (SaveId, Ticket<DecisionsSlot>) {
    let scope = current(m);
    let id = SaveId::fresh();
    m.decisions
        .decisions
        .submit(id.clone(), intent.clone(), scope.workspace.0.clone());
    let t = Ticket {
        slot: DecisionsSlot::Decision(id.clone()),
        generation: next_generation(),
        scope,
    };
    dispatch(m, t.clone());
    for step in [SaveStep::Written, SaveStep::Sending] {
        step_on(m, &t, &id, intent, step).expect("admitted");
    }
    (id, t)
}

fn step_on(
    m: &mut Model,
    t: &Ticket<DecisionsSlot>,
    id: &SaveId,
    intent: &DecisionIntent,
    step: SaveStep<Outcome>,
) -> Result<(), masc_tui::view::admission::RejectReason> {
    observe(
        m,
        SlotEvent::Observed(
            t.clone(),
            step_event(id, intent, &t.scope.workspace.0, step),
        ),
    )
}

/// A decision submitted and ended with `receipt`.
fn decided(m: &mut Model, intent: &DecisionIntent, receipt: Outcome) -> SaveId {
    let (id, t) = submit(m, intent);
    step_on(m, &t, &id, intent, SaveStep::Ended(receipt)).expect("admitted");
    id
}

/// A save an earlier run left, read back by the hub: announced by its dispatch, then posted
/// once as `Restored`.
fn restored(m: &mut Model, intent: &DecisionIntent, receipt: Outcome) -> SaveId {
    let id = SaveId::fresh();
    let t = Ticket {
        slot: DecisionsSlot::Decision(id.clone()),
        generation: next_generation(),
        scope: current(m),
    };
    dispatch(m, t.clone());
    step_on(m, &t, &id, intent, SaveStep::Restored(receipt)).expect("admitted");
    id
}

fn open(tab: Tab) -> Ui {
    Ui {
        // Wide enough for the longest receipt on an approval's row.
        area: Rect::new(0, 0, 240, 30),
        tab,
        ..Ui::default()
    }
    .with_layer(ApprovalsUi::new(tab))
}

fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn ch(ui: &mut Ui, m: &Model, c: char) -> UiCommand {
    press(ui, m, KeyCode::Char(c))
}

fn armed(ui: &Ui) -> Option<(String, Decision)> {
    ui.layer::<ApprovalsUi>().and_then(|v| v.armed.clone())
}

fn row_of<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?} in\n{text}"))
}

/// §10.5, surfaces.md: the list is scoped to the acting actor and says so:
/// `(n/m, hidden h, actor …)`; every listed approval has a row.
#[test]
fn s10_5_the_title_gives_visible_total_hidden_and_the_actor() {
    let m = model();
    let text = screen(&m, &open(Tab::Overview));
    assert!(
        text.contains("APPROVALS  (3/4, hidden 1, actor masc-tui)"),
        "{text}"
    );
    for tool in ["masc_keeper_status", "masc_pause", "masc_resume"] {
        row_of(&text, tool);
    }
}

/// §10.5: the first `y` arms, the second sends a decision of the selected approval, with
/// exactly what it was listed as; `n` `n` denies.
#[test]
fn s10_5_y_y_confirms_and_n_n_denies_the_selected_approval() {
    let m = model();
    let mut ui = open(Tab::Overview);
    assert_eq!(ch(&mut ui, &m, 'y'), UiCommand::Repaint);
    assert_eq!(armed(&ui), Some(("opc_a1".into(), Decision::Confirm)));
    assert!(screen(&m, &ui).contains("press y again to CONFIRM"));
    let expected = DecisionIntent {
        confirm_token: "opc_a1".into(),
        decision: Decision::Confirm,
        action_type: masc_tui::protocol::operator::ActionType::KeeperProbe,
        target_id: Some("rondo".into()),
        expires_at: Some("2099-01-01T00:00:00Z".into()),
    };
    assert_eq!(
        ch(&mut ui, &m, 'y'),
        UiCommand::save::<ApprovalDecision>(expected)
    );
    assert_eq!(armed(&ui), None, "sending disarms");

    ch(&mut ui, &m, 'j');
    assert_eq!(ch(&mut ui, &m, 'n'), UiCommand::Repaint);
    assert_eq!(armed(&ui), Some(("opc_b2".into(), Decision::Deny)));
    assert_eq!(
        ch(&mut ui, &m, 'n'),
        UiCommand::save::<ApprovalDecision>(intent(&m, "opc_b2", Decision::Deny))
    );
}

/// surfaces.md: the first press arms; any other key — including the other decision's key,
/// movement, Enter, Esc, `?`, `q` — or a surface change (Tab) disarms, and nothing is sent.
#[test]
fn s10_5_any_other_key_or_a_surface_change_disarms() {
    let m = model();
    let others = [
        KeyCode::Char('x'),
        KeyCode::Char('j'),
        KeyCode::Char('k'),
        KeyCode::Char('r'),
        KeyCode::Char('R'),
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Char('?'),
        KeyCode::Char('q'),
        KeyCode::Tab,
        KeyCode::BackTab,
    ];
    for code in others {
        let mut ui = open(Tab::Work);
        ch(&mut ui, &m, 'y');
        assert!(armed(&ui).is_some());
        let cmd = press(&mut ui, &m, code);
        assert!(
            cmd.as_save::<ApprovalDecision>().is_none(),
            "{code:?} sent {cmd:?}"
        );
        assert_eq!(armed(&ui), None, "{code:?} disarms");
        if matches!(code, KeyCode::Tab | KeyCode::BackTab) {
            assert!(
                ui.layer::<ApprovalsUi>().is_none(),
                "a surface change closes the view"
            );
        }
        if code == KeyCode::Esc {
            assert!(
                ui.layer::<ApprovalsUi>().is_some(),
                "Esc while armed only disarms"
            );
        }
    }
    // `y` then `n`: the deny is armed, the confirm is not sent.
    let mut ui = open(Tab::Work);
    ch(&mut ui, &m, 'y');
    assert_eq!(ch(&mut ui, &m, 'n'), UiCommand::Repaint);
    assert_eq!(armed(&ui), Some(("opc_a1".into(), Decision::Deny)));
    // Moving after arming and pressing `y`: arms the new row, sends nothing.
    let mut ui = open(Tab::Work);
    ch(&mut ui, &m, 'y');
    ch(&mut ui, &m, 'j');
    assert_eq!(ch(&mut ui, &m, 'y'), UiCommand::Repaint);
    assert_eq!(armed(&ui), Some(("opc_b2".into(), Decision::Confirm)));
}

/// surfaces.md "request completion disarms": the armed approval leaving the list (a re-read
/// without it: decided elsewhere, expired and swept) disarms, and the selection stays inside
/// the list.
#[test]
fn s10_5_the_approval_leaving_the_list_disarms() {
    let mut m = model();
    let mut ui = open(Tab::Overview);
    ch(&mut ui, &m, 'j');
    ch(&mut ui, &m, 'j');
    ch(&mut ui, &m, 'y');
    assert_eq!(armed(&ui), Some(("opc_x3".into(), Decision::Confirm)));
    // Another approval leaving keeps it armed (and selected, one row up now).
    read_list(&mut m, &["opc_a1", "opc_x3"]);
    follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m);
    assert_eq!(armed(&ui), Some(("opc_x3".into(), Decision::Confirm)));
    assert_eq!(ui.layer::<ApprovalsUi>().unwrap().selected, 1);
    read_list(&mut m, &["opc_a1"]);
    assert!(follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m));
    assert_eq!(armed(&ui), None);
    assert_eq!(ui.layer::<ApprovalsUi>().unwrap().selected, 0);
    // The next `y` arms again; it never sends on the first press.
    assert_eq!(ch(&mut ui, &m, 'y'), UiCommand::Repaint);
}

/// §10.5 one decision in flight per approval; surfaces.md "request completion disarms": a
/// decision of the armed approval that starts or ends meanwhile (here one an earlier run left,
/// read back after a reconnect) disarms; `y` on an approval whose decision is in flight does
/// not arm.
#[test]
fn s10_5_a_decision_of_the_armed_approval_ending_disarms() {
    let mut m = model();
    let mut ui = open(Tab::Overview);
    ch(&mut ui, &m, 'y');
    assert!(armed(&ui).is_some());
    let earlier = intent(&m, "opc_a1", Decision::Confirm);
    restored(
        &mut m,
        &earlier,
        SaveOutcome::OutcomeUnknown {
            reason: "left by an earlier run".into(),
        },
    );
    assert!(follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m));
    assert_eq!(armed(&ui), None, "its decision ended meanwhile");

    // In flight: `y` does not arm.
    let deny = intent(&m, "opc_a1", Decision::Deny);
    let (id, t) = submit(&mut m, &deny);
    assert_eq!(ch(&mut ui, &m, 'y'), UiCommand::Repaint);
    assert_eq!(armed(&ui), None);
    // Another approval armed while the first decision is in flight stays armed when that
    // decision ends: it is not its decision.
    ch(&mut ui, &m, 'j');
    ch(&mut ui, &m, 'n');
    assert_eq!(armed(&ui), Some(("opc_b2".into(), Decision::Deny)));
    let denied = reply(&m, "opc_a1", DecisionResult::Denied);
    step_on(
        &mut m,
        &t,
        &id,
        &deny,
        SaveStep::Ended(SaveOutcome::Applied {
            detail: denied,
            warning: None,
        }),
    )
    .unwrap();
    follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m);
    assert_eq!(armed(&ui), Some(("opc_b2".into(), Decision::Deny)));
}

/// The selection and an open detail follow the approval, not its row: a re-read that puts a
/// new approval on top or drops one above never moves `y y` (or the detail) onto another
/// approval; when the selected approval leaves the list its detail closes.
#[test]
fn s10_5_the_selection_and_an_open_detail_follow_the_approval_across_rereads() {
    let mut m = model();
    // Opened from the Overview: the first approval listed is selected.
    let mut ui = Ui {
        area: Rect::new(0, 0, 240, 30),
        tab: Tab::Overview,
        ..Ui::default()
    };
    press(&mut ui, &m, KeyCode::Enter);
    assert_eq!(
        ui.layer::<ApprovalsUi>().unwrap().anchor.as_deref(),
        Some("opc_a1")
    );
    // A newer approval arrives on top before the operator decides.
    read_list(&mut m, &["opc_n0", "opc_a1", "opc_b2", "opc_x3"]);
    assert!(follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m));
    assert_eq!(ui.layer::<ApprovalsUi>().unwrap().selected, 1);
    ch(&mut ui, &m, 'y');
    assert_eq!(
        ch(&mut ui, &m, 'y'),
        UiCommand::save::<ApprovalDecision>(intent(&m, "opc_a1", Decision::Confirm)),
        "the approval the operator had selected"
    );
    // An open detail stays on its approval when one above leaves.
    ch(&mut ui, &m, 'j');
    press(&mut ui, &m, KeyCode::Enter);
    read_list(&mut m, &["opc_b2", "opc_x3"]);
    follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m);
    let view = ui.layer::<ApprovalsUi>().unwrap();
    assert!(view.detail_open);
    assert_eq!(view.selected, 0);
    assert!(row_of(&screen(&m, &ui), "confirm_token").contains("opc_b2"));
    // Its approval leaves: the detail closes; the nearest row is selected.
    read_list(&mut m, &["opc_x3"]);
    assert!(follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m));
    let view = ui.layer::<ApprovalsUi>().unwrap();
    assert!(!view.detail_open);
    assert_eq!(view.anchor.as_deref(), Some("opc_x3"));
}

/// surfaces.md "a surface change disarms", K-5: a decision armed in one workspace is never
/// sent in another — after a workspace change (or while withdrawn) the second press arms
/// again instead, and the settled view drops the armed state.
#[test]
fn k5_a_workspace_change_disarms() {
    let mut m = model();
    let mut ui = open(Tab::Overview);
    ch(&mut ui, &m, 'y');
    m.on_identity(IdentityState::Unconfirmed {
        reason: "health read failed".into(),
    });
    assert_eq!(
        ch(&mut ui, &m, 'y'),
        UiCommand::Repaint,
        "withdrawn: armed again"
    );
    m.on_identity(confirmed(OTHER_WORKSPACE, 2));
    read_list(&mut m, &ALL);
    assert!(
        follow_list(ui.layer_mut::<ApprovalsUi>().unwrap(), &m),
        "disarmed"
    );
    assert_eq!(armed(&ui), None);
    ch(&mut ui, &m, 'y');
    m.on_identity(confirmed(WORKSPACE, 3));
    read_list(&mut m, &ALL);
    assert_eq!(
        ch(&mut ui, &m, 'y'),
        UiCommand::Repaint,
        "not sent across workspaces"
    );
    assert_eq!(
        ch(&mut ui, &m, 'y'),
        UiCommand::save::<ApprovalDecision>(intent(&m, "opc_a1", Decision::Confirm)),
        "armed and sent within one workspace"
    );
}

/// §10.5, T.7: `Enter` lists every field of the selected approval; the payload is inert,
/// sanitised text (no escape sequence or bidi override reaches the terminal); `Esc` closes.
#[test]
fn s10_5_enter_shows_every_field_and_the_payload_as_inert_text() {
    let m = model();
    let mut ui = open(Tab::Overview);
    ch(&mut ui, &m, 'j');
    assert_eq!(press(&mut ui, &m, KeyCode::Enter), UiCommand::Repaint);
    let text = screen(&m, &ui);
    for (field, value) in [
        ("confirm_token", "opc_b2"),
        ("trace_id", "ops_b2"),
        ("actor", "masc-tui"),
        ("action_type", "namespace_pause"),
        ("target_type", "workspace"),
        ("target_id", "(none)"),
        ("delegated_tool", "masc_pause"),
        ("created_at", "2026-11-20T08:40:00Z"),
        ("expires_at", "2099-01-01T00:00:00Z"),
    ] {
        let line = row_of(&text, field);
        assert!(line.contains(value), "{field}: {line}");
    }
    assert!(text.contains("payload"));
    assert!(text.contains(r#""n": 1"#), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert!(
        text.contains(r"\u001b[31mred"),
        "the escape shown, not obeyed: {text}"
    );
    assert!(
        text.contains(r"\u202E"),
        "the bidi override shown escaped: {text}"
    );
    // Keys do nothing to the list while the detail is open; Esc closes it.
    assert_eq!(ch(&mut ui, &m, 'y'), UiCommand::None);
    assert_eq!(armed(&ui), None);
    assert_eq!(press(&mut ui, &m, KeyCode::Esc), UiCommand::Repaint);
    assert!(!ui.layer::<ApprovalsUi>().unwrap().detail_open);
}

/// §10.5 "an approval may still be listed after it expired": it is marked on its row; one
/// that has not expired is not.
#[test]
fn s10_5_an_approval_the_server_still_lists_after_it_expired_is_marked() {
    let m = model();
    let text = screen(&m, &open(Tab::Overview));
    let expired = row_of(&text, "masc_resume");
    assert!(
        expired.contains("expired 12:15 (still listed by the server)"),
        "{expired}"
    );
    let live = row_of(&text, "masc_pause");
    assert!(
        live.contains("expires ") && !live.contains("expired"),
        "{live}"
    );
}

/// §11 "Approval decision": every outcome reads differently — the action ran, deferred,
/// consumed with the action failing, denied, no longer pending, expired, not permitted, not
/// sent, outcome unknown, and the two restored ones — on the approval's row while it is
/// listed, and under "decisions this session" once it has left the list.
#[test]
fn s11_each_receipt_outcome_renders_distinctly() {
    let base = model();
    let confirm = intent(&base, "opc_a1", Decision::Confirm);
    let deny = intent(&base, "opc_a1", Decision::Deny);
    let outcomes: Vec<(&str, DecisionIntent, Outcome, bool)> = vec![
        (
            "ran",
            confirm.clone(),
            SaveOutcome::Applied {
                detail: reply(
                    &base,
                    "opc_a1",
                    DecisionResult::Ran {
                        result: serde_json::json!({}),
                    },
                ),
                warning: None,
            },
            false,
        ),
        (
            "deferred",
            confirm.clone(),
            SaveOutcome::Applied {
                detail: reply(
                    &base,
                    "opc_a1",
                    DecisionResult::Deferred {
                        result: serde_json::json!({}),
                    },
                ),
                warning: Some("delivery pending".into()),
            },
            false,
        ),
        (
            "failed",
            confirm.clone(),
            SaveOutcome::Applied {
                detail: reply(
                    &base,
                    "opc_a1",
                    DecisionResult::Failed {
                        detail: "lane not restarted".into(),
                    },
                ),
                warning: Some("approval consumed; the action reported failure".into()),
            },
            false,
        ),
        (
            "denied",
            deny.clone(),
            SaveOutcome::Applied {
                detail: reply(&base, "opc_a1", DecisionResult::Denied),
                warning: None,
            },
            false,
        ),
        (
            "no longer pending",
            confirm.clone(),
            SaveOutcome::Conflict {
                current: NoLongerPending,
            },
            false,
        ),
        (
            "expired",
            confirm.clone(),
            SaveOutcome::NotApplied {
                reason: "HTTP 400: pending confirmation expired".into(),
            },
            false,
        ),
        (
            "not permitted",
            confirm.clone(),
            SaveOutcome::NotApplied {
                reason: "HTTP 400: actor is not allowed to confirm this action".into(),
            },
            false,
        ),
        (
            "not sent",
            confirm.clone(),
            SaveOutcome::NotSent {
                reason: "health pre-check failed (timeout)".into(),
            },
            false,
        ),
        (
            "outcome unknown",
            confirm.clone(),
            SaveOutcome::OutcomeUnknown {
                reason: "timed out waiting for the response".into(),
            },
            false,
        ),
        (
            "restored unknown",
            confirm.clone(),
            SaveOutcome::OutcomeUnknown {
                reason: "left by an earlier run".into(),
            },
            true,
        ),
        (
            "restored not sent",
            confirm.clone(),
            SaveOutcome::NotSent {
                reason: "left by an earlier run".into(),
            },
            true,
        ),
    ];
    let mut words = Vec::new();
    for (name, intent, receipt, from_earlier_run) in outcomes {
        let mut m = model();
        let id = if from_earlier_run {
            restored(&mut m, &intent, receipt)
        } else {
            decided(&mut m, &intent, receipt)
        };
        let entry = m.decisions.decisions.get(&id).unwrap();
        let (text, _tone) = approvals::decision_words(entry);
        // While listed: on the approval's own row.
        let listed = screen(&m, &open(Tab::Overview));
        assert!(
            row_of(&listed, "masc_keeper_status").contains(&text),
            "{name}: {listed}"
        );
        // Gone from the list: under the decisions of this session.
        read_list(&mut m, &["opc_b2", "opc_x3"]);
        let gone = screen(&m, &open(Tab::Overview));
        assert!(gone.contains("DECISIONS THIS SESSION"), "{name}: {gone}");
        assert!(
            row_of(&gone, "keeper_probe rondo").contains(&text),
            "{name}: {gone}"
        );
        words.push((name, text));
    }
    for (i, (a, wa)) in words.iter().enumerate() {
        for (b, wb) in &words[i + 1..] {
            assert_ne!(wa, wb, "{a} and {b} read the same");
        }
    }
    // In flight reads differently from any receipt.
    let mut m = model();
    let (id, _) = submit(&mut m, &confirm);
    let (sending, _) = approvals::decision_words(m.decisions.decisions.get(&id).unwrap());
    assert!(words.iter().all(|(_, w)| *w != sending));
}

/// §11 "an unknown outcome … requires a re-read before any retry": `R` is offered for an
/// unknown outcome only once a read of the list dispatched after the receipt landed still
/// lists the approval — a read already in flight when the receipt landed does not count;
/// not sent is offered at once; applied, conflict and not applied never; the footer says
/// `R` only when offered, and `R` sends the same decision.
#[test]
fn s11_retry_is_offered_only_after_a_reread_made_after_the_receipt() {
    let mut m = model();
    let confirm = intent(&m, "opc_a1", Decision::Confirm);
    let a = approval(&m, "opc_a1");
    let (id, t) = submit(&mut m, &confirm);
    let in_flight = dispatch_list(&mut m);
    step_on(
        &mut m,
        &t,
        &id,
        &confirm,
        SaveStep::Ended(SaveOutcome::OutcomeUnknown {
            reason: "connection closed".into(),
        }),
    )
    .unwrap();
    assert_eq!(approvals::retry_offered(&m, &a), None, "no re-read yet");
    let mut ui = open(Tab::Overview);
    assert!(!screen(&m, &ui).contains("R retry"));
    assert_eq!(ch(&mut ui, &m, 'R'), UiCommand::None);
    // The read in flight during the POST arrives after the receipt: it may show the list
    // from before the decision, so it does not count.
    observe_list(&mut m, in_flight, &ALL);
    assert_eq!(
        approvals::retry_offered(&m, &a),
        None,
        "read dispatched before"
    );
    // A read dispatched after the receipt that still lists it.
    read_list(&mut m, &ALL);
    assert_eq!(approvals::retry_offered(&m, &a), Some(confirm.clone()));
    assert!(screen(&m, &ui).contains("R retry"));
    assert_eq!(
        ch(&mut ui, &m, 'R'),
        UiCommand::save::<ApprovalDecision>(confirm.clone())
    );

    // Not sent: nothing can have run; offered at once.
    let mut m = model();
    let b = approval(&m, "opc_b2");
    let deny = intent(&m, "opc_b2", Decision::Deny);
    decided(
        &mut m,
        &deny,
        SaveOutcome::NotSent {
            reason: "no_epoch".into(),
        },
    );
    assert_eq!(approvals::retry_offered(&m, &b), Some(deny.clone()));
    // Applied, conflict, not applied: never, whatever is read later.
    for receipt in [
        SaveOutcome::Conflict {
            current: NoLongerPending,
        },
        SaveOutcome::NotApplied {
            reason: "HTTP 400: actor is not allowed to confirm this action".into(),
        },
        SaveOutcome::Applied {
            detail: reply(&m, "opc_b2", DecisionResult::Denied),
            warning: None,
        },
    ] {
        let mut m = model();
        decided(&mut m, &deny, receipt);
        read_list(&mut m, &ALL);
        assert_eq!(approvals::retry_offered(&m, &b), None);
    }
}

/// H-16, I-5, K-3: a receipt survives an identity withdrawal — still shown beside the list
/// the screen keeps, with no authority (nothing is offered to send) — and the same workspace
/// confirmed again shows it as before; under another workspace it is never shown (nor
/// offered), although the book keeps it for its own workspace. A late step of that save
/// arriving while another workspace is current is still admitted for its own workspace only.
#[test]
fn h16_receipts_survive_withdrawal_and_are_never_shown_under_another_workspace() {
    let mut m = model();
    let confirm = intent(&m, "opc_a1", Decision::Confirm);
    let a = approval(&m, "opc_a1");
    let id = decided(
        &mut m,
        &confirm,
        SaveOutcome::NotSent {
            reason: "health pre-check failed (timeout)".into(),
        },
    );
    let (words, _) = approvals::decision_words(m.decisions.decisions.get(&id).unwrap());
    let ui = open(Tab::Overview);
    assert!(row_of(&screen(&m, &ui), "masc_keeper_status").contains(&words));
    assert!(approvals::retry_offered(&m, &a).is_some());

    // Withdrawn: the list stays (G-6), and so does the receipt beside it; nothing offered.
    m.on_identity(IdentityState::Unconfirmed {
        reason: "health read failed".into(),
    });
    assert!(m.gate().current().is_none());
    let withdrawn = screen(&m, &ui);
    assert!(
        row_of(&withdrawn, "masc_keeper_status").contains(&words),
        "{withdrawn}"
    );
    assert_eq!(
        approvals::retry_offered(&m, &a),
        None,
        "no authority to send"
    );

    // The same workspace again (a new epoch): shown and offered again.
    m.on_identity(confirmed(WORKSPACE, 2));
    read_list(&mut m, &ALL);
    assert!(row_of(&screen(&m, &ui), "masc_keeper_status").contains(&words));
    assert!(approvals::latest(&m, "opc_a1").is_some_and(|e| e.save_id == id));

    // Another workspace: its list has the same token; no receipt of ours on it.
    m.on_identity(confirmed(OTHER_WORKSPACE, 3));
    read_list(&mut m, &ALL);
    let other = screen(&m, &ui);
    assert!(
        !row_of(&other, "masc_keeper_status").contains(&words),
        "{other}"
    );
    assert!(!other.contains("DECISIONS THIS SESSION"), "{other}");
    assert!(approvals::latest(&m, "opc_a1").is_none());
    assert_eq!(approvals::retry_offered(&m, &approval(&m, "opc_a1")), None);
    assert!(
        m.decisions.decisions.get(&id).is_some(),
        "kept for its own workspace"
    );
}

/// I-5, K-5: a save submitted in the first workspace whose receipt arrives after another
/// workspace was confirmed lands in its own slot for its own workspace, never shown in the
/// new one; a step claiming another workspace than its ticket is rejected; a second receipt
/// for the same save is rejected (stored once, K-1).
#[test]
fn i5_a_late_receipt_lands_for_its_own_workspace_only_and_once() {
    let mut m = model();
    let confirm = intent(&m, "opc_a1", Decision::Confirm);
    let (id, t) = submit(&mut m, &confirm);
    m.on_identity(confirmed(OTHER_WORKSPACE, 2));
    read_list(&mut m, &ALL);
    let unknown = SaveOutcome::OutcomeUnknown {
        reason: "timed out waiting for the response".into(),
    };
    // A step naming another workspace than its ticket: rejected.
    let forged = SlotEvent::Observed(
        t.clone(),
        step_event(
            &id,
            &confirm,
            OTHER_WORKSPACE,
            SaveStep::Ended(unknown.clone()),
        ),
    );
    assert!(observe(&mut m, forged).is_err());
    step_on(&mut m, &t, &id, &confirm, SaveStep::Ended(unknown.clone())).expect("admitted");
    let entry = m.decisions.decisions.get(&id).unwrap();
    assert_eq!(entry.workspace, WORKSPACE);
    assert!(
        approvals::latest(&m, "opc_a1").is_none(),
        "not in the new workspace"
    );
    assert!(
        step_on(&mut m, &t, &id, &confirm, SaveStep::Ended(unknown)).is_err(),
        "the receipt lands once"
    );
    // A retire of its ticket after the receipt changes nothing.
    retire(&mut m, t);
    assert!(
        m.decisions
            .decisions
            .get(&id)
            .unwrap()
            .phase
            .receipt()
            .is_some()
    );
}

/// surfaces.md: `p` from Work and `Enter` on the Overview open the view over the surface it
/// came from; `Esc` goes back there. The Overview's Decisions never decide (surfaces.md:
/// "It never decides a request"): `y y`, `n n` and `Enter` there send nothing, and the view
/// opens unarmed.
#[test]
fn the_overview_enter_and_work_p_open_approvals_and_esc_returns() {
    let m = model();
    for (tab, code) in [
        (Tab::Overview, KeyCode::Enter),
        (Tab::Work, KeyCode::Char('p')),
    ] {
        let mut ui = Ui {
            area: Rect::new(0, 0, 120, 30),
            tab,
            ..Ui::default()
        };
        let never_decides: &[char] = if tab == Tab::Overview {
            &['y', 'y', 'n', 'n']
        } else {
            &[]
        };
        for &c in never_decides {
            assert!(
                ch(&mut ui, &m, c).as_save::<ApprovalDecision>().is_none(),
                "{c} on {tab:?} decided"
            );
            assert!(
                ui.layer::<ApprovalsUi>().is_none(),
                "{c} on {tab:?} opened approvals"
            );
        }
        assert_eq!(press(&mut ui, &m, code), UiCommand::Repaint);
        assert_eq!(armed(&ui), None, "opens unarmed");
        let view = ui.layer::<ApprovalsUi>().expect("opened");
        assert_eq!(view.opened_from, tab);
        assert!(screen(&m, &ui).contains("APPROVALS  (3/4"));
        assert_eq!(press(&mut ui, &m, KeyCode::Esc), UiCommand::Repaint);
        assert!(ui.layer::<ApprovalsUi>().is_none());
        assert_eq!(ui.tab, tab);
    }
}
