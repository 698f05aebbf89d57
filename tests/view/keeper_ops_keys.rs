//! Keeper operation keys and receipts on the Keepers screen (surfaces.md
//! "Keepers roster" / "Keeper detail"; sources.md H-6, H-8, H-9, H-10, H-11): Sandbox
//! `d`/`m`/`s` in the detail, the `U` runtime picker, one operation per Keeper at a time, and
//! receipts admitted only in their own slot and workspace.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use masc_tui::actors::keepers::ops::lifecycle::LifecycleSave;
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use masc_tui::actors::keepers::ops::{KeeperOpEvent, KeeperOpSlot};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::keeper_config::SandboxProfile;
use masc_tui::protocol::keeper_ops::ToolApprovalMode;
use masc_tui::protocol::keepers::KeeperRowSlot;
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::keepers::ops::LatestOp;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::keepers::KeeperOp;
use masc_tui::view::screens::keepers::operations::{op_line, submitted};
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;

pub(crate) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A model with a confirmed epoch and a roster of five, on the Keepers tab.
pub(crate) fn roster() -> (Model, Ui) {
    let mut model = Model::default();
    model.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let t = sample::roster_ticket(1, 1);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(
        &mut model,
        sample::roster_observation(t, sample::roster(5), AdmissionMode::Receipt),
    )
    .unwrap();
    let ui = Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::Keepers,
        ..Ui::default()
    };
    (model, ui)
}

fn name_of(model: &Model, index: usize) -> String {
    match &model.keepers.roster.fetched.last().unwrap().value.rows[index] {
        KeeperRowSlot::Row(r) => r.name.clone(),
        other => panic!("{other:?}"),
    }
}

/// H-8, surfaces.md Keeper detail: `d`/`m`/`s` capture the typed profile for the selected
/// Keeper, only inside the detail (on the roster `s` is shutdown, not a sandbox key).
#[test]
fn h8_detail_d_m_s_capture_the_typed_profile_of_the_selected_keeper() {
    let (model, mut ui) = roster();
    ui.roster_mut().selected = 2;
    let keeper = name_of(&model, 2);
    assert!(matches!(
        handle_key(&mut ui, &model, key(KeyCode::Char('s'))),
        UiCommand::Local(_)
    ));
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert!(ui.roster().detail_open);
    for (c, profile) in [
        ('d', SandboxProfile::Docker),
        ('m', SandboxProfile::Microvm),
        ('s', SandboxProfile::RemoteSsh),
    ] {
        assert_eq!(
            handle_key(&mut ui, &model, key(KeyCode::Char(c))),
            KeeperOp::command::<SandboxSave>(SandboxIntent {
                keeper: keeper.clone(),
                profile,
            })
        );
    }
}

/// H-10, H-11: `U` opens the picker for the selected Keeper (captured); Enter hands over the
/// choice (here "back to default": no catalogue read) and the picker stays open until the
/// view actor submits it; a refused admission keeps the picker and its selection open; Esc
/// closes it without sending.
#[test]
fn h10_h11_u_picker_captures_the_keeper_and_a_refused_admission_keeps_it_open() {
    let (model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let keeper = name_of(&model, 1);
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('U'))),
        UiCommand::Repaint
    );
    assert_eq!(ui.roster().picker.as_ref().unwrap().keeper, keeper);
    // The picker takes every key: `j` does not move the roster.
    handle_key(&mut ui, &model, key(KeyCode::Char('j')));
    assert_eq!(ui.roster().selected, 1);
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert_eq!(
        cmd,
        KeeperOp::command::<AssignmentSave>(AssignmentIntent {
            keeper: keeper.clone(),
            runtime_id: None,
            only_at: None,
        })
    );
    // Refused (H-11: another operation on this keeper is in flight).
    submitted(ui.roster_mut(), true);
    let picker = ui.roster().picker.as_ref().expect("kept open (H-11)");
    assert!(!picker.submitting);
    assert_eq!(picker.keeper, keeper);
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    submitted(ui.roster_mut(), false);
    assert!(ui.roster().picker.is_none(), "closed once submitted");
    handle_key(&mut ui, &model, key(KeyCode::Char('U')));
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Esc)),
        UiCommand::Repaint
    );
    assert!(ui.roster().picker.is_none());
}

fn op_ticket(slot: KeeperOpSlot, scope: ReadScope) -> Ticket<KeepersSlot> {
    Ticket {
        slot: KeepersSlot::Op(slot),
        generation: 1,
        scope,
    }
}

fn sandbox_event(
    id: &SaveId,
    keeper: &str,
    workspace: &str,
    step: SaveStep<masc_tui::protocol::outcome::KeeperConfigOutcome>,
) -> KeepersObservation {
    KeepersObservation::Op(Box::new(KeeperOpEvent::Sandbox(SaveEvent::<SandboxSave> {
        save_id: id.clone(),
        intent: SandboxIntent {
            keeper: keeper.into(),
            profile: SandboxProfile::Microvm,
        },
        workspace: workspace.into(),
        step,
    })))
}

/// H-11: while a Sandbox save of one Keeper is in flight, that Keeper is busy for Settings,
/// Sandbox and assignment; another Keeper is not. H-6: the receipt is admitted only from its
/// own ticket and workspace, lands once, frees the Keeper, asks for a roster re-read, and its
/// line names the outcome.
#[test]
fn h11_h6_one_operation_per_keeper_and_receipts_land_once_in_their_own_slot() {
    let (mut model, _) = roster();
    let scope = sample::scope(1);
    let ws = scope.workspace.0.clone();
    let id = SaveId::fresh();
    model.keepers.ops.sandbox.submit(
        id.clone(),
        SandboxIntent {
            keeper: "alpha".into(),
            profile: SandboxProfile::Microvm,
        },
        ws.clone(),
    );
    assert_eq!(model.keepers.ops.busy("alpha", &ws), Some("sandbox"));
    assert_eq!(model.keepers.ops.busy("beta", &ws), None, "independent");
    let ticket = op_ticket(KeeperOpSlot::Sandbox(id.clone()), scope.clone());
    crate::rig::dispatch(&mut model, ticket.clone());

    // Another workspace's event never touches it (I-5).
    let other = ReadScope {
        workspace: WorkspaceId("/elsewhere/.masc".into()),
        epoch: 1,
    };
    assert_eq!(
        crate::rig::observe(
            &mut model,
            SlotEvent::Observed(
                op_ticket(KeeperOpSlot::Sandbox(id.clone()), other),
                sandbox_event(&id, "alpha", "/elsewhere/.masc", SaveStep::Sending),
            ),
        ),
        Err(RejectReason::OtherTarget)
    );
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket.clone(),
            sandbox_event(&id, "alpha", &ws, SaveStep::Sending),
        ),
    )
    .unwrap();
    let (line, _) = op_line(model.keepers.ops.latest("alpha", &ws).unwrap());
    assert_eq!(line, "sandbox → microvm: sending");

    let conflict = SaveStep::Ended(SaveOutcome::Conflict {
        current: masc_tui::protocol::keeper_config::RevisionConflict {
            expected: masc_tui::protocol::keeper_config::ConfigRevision::Unavailable {
                detail: "x".into(),
            },
            observed: masc_tui::protocol::keeper_config::ConfigRevision::Unavailable {
                detail: "y".into(),
            },
        },
    });
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket.clone(),
            sandbox_event(&id, "alpha", &ws, conflict.clone()),
        ),
    )
    .unwrap();
    assert_eq!(model.keepers.ops.busy("alpha", &ws), None);
    let latest = model.keepers.ops.latest("alpha", &ws).unwrap();
    assert!(matches!(latest, LatestOp::Sandbox(_)));
    let (line, _) = op_line(latest);
    assert!(line.starts_with("sandbox → microvm: conflict"), "{line}");
    // The receipt lands once (K-1).
    assert_eq!(
        crate::rig::observe(
            &mut model,
            SlotEvent::Observed(ticket, sandbox_event(&id, "alpha", &ws, conflict)),
        ),
        Err(RejectReason::Withdrawn)
    );

    // A later assignment of the same Keeper is the newest line.
    let a = SaveId::fresh();
    model.keepers.ops.assignment.submit(
        a,
        AssignmentIntent {
            keeper: "alpha".into(),
            runtime_id: Some("openai.gpt-5".into()),
            only_at: None,
        },
        ws.clone(),
    );
    assert_eq!(
        model.keepers.ops.busy("alpha", &ws),
        Some("runtime assignment")
    );
    let (line, _) = op_line(model.keepers.ops.latest("alpha", &ws).unwrap());
    assert_eq!(line, "runtime → openai.gpt-5: queued");
    let _ = std::marker::PhantomData::<AssignmentSave>;
}

/// A roster of three: `run` (fiber running), `stopped` (no fiber), `held` (operator-paused).
fn lifecycle_roster() -> (Model, Ui) {
    use masc_tui::protocol::keepers::KeeperStatus;
    let mut model = Model::default();
    model.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let row = |name: &str, running: bool, paused: bool| {
        let mut r = sample::bare_row(name, KeeperStatus::Active);
        r.keepalive_running = Some(running);
        r.paused = Some(paused);
        KeeperRowSlot::Row(Box::new(r))
    };
    let rows = vec![
        row("run", true, false),
        row("stopped", false, false),
        row("held", true, true),
    ];
    let t = sample::roster_ticket(1, 1);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(
        &mut model,
        sample::roster_observation(t, sample::roster_of(rows), AdmissionMode::Receipt),
    )
    .unwrap();
    let ui = Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::Keepers,
        ..Ui::default()
    };
    (model, ui)
}

fn lifecycle(keeper: &str, action: LifecycleAction) -> UiCommand {
    KeeperOp::command::<LifecycleSave>(LifecycleIntent::new(keeper, action))
}

/// §14.2, §14.3: `s` asks the shutdown and `x` the delete of the selected Keeper at once (the
/// save path previews either before anything is sent: tests/view/view_confirm.rs); `x` is
/// offered only while no fiber runs.
#[test]
fn s14_2_s14_3_s_and_x_ask_their_action_and_x_only_without_a_running_fiber() {
    let (model, mut ui) = lifecycle_roster();
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('x'))),
        UiCommand::Repaint
    );
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap()
            .contains("shut it down first")
    );
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('s'))),
        lifecycle("run", LifecycleAction::Shutdown)
    );
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('x'))),
        lifecycle("stopped", LifecycleAction::Delete)
    );
}

/// §14.1, §14.2: `p` pauses a running Keeper and boots one with no fiber; on an
/// operator-paused Keeper it resumes (an operation id minted per press, never the same twice);
/// `w` wakes.
#[test]
fn s14_1_p_pauses_or_boots_and_w_wakes() {
    let (model, mut ui) = lifecycle_roster();
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('p'))),
        lifecycle("run", LifecycleAction::Pause)
    );
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('p'))),
        lifecycle("stopped", LifecycleAction::Boot)
    );
    ui.roster_mut().selected = 2;
    let mut minted = Vec::new();
    for _ in 0..2 {
        match crate::rig::keeper_op::<LifecycleSave>(&handle_key(
            &mut ui,
            &model,
            key(KeyCode::Char('p')),
        )) {
            Some(LifecycleIntent {
                keeper,
                action: LifecycleAction::Resume,
                operation_id: Some(op),
            }) => {
                assert_eq!(keeper, "held");
                assert!(op.starts_with("tui-resume-"), "{op}");
                minted.push(op);
            }
            other => panic!("not a resume: {other:?}"),
        }
    }
    assert_ne!(minted[0], minted[1], "one operation id per press");
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('w'))),
        lifecycle("held", LifecycleAction::Wake)
    );
}

/// §14.4: `g` then `y` / `a` sets the tool gate; any other key cancels.
#[test]
fn s14_4_g_then_y_or_a_sets_the_tool_gate() {
    let (model, mut ui) = lifecycle_roster();
    handle_key(&mut ui, &model, key(KeyCode::Char('g')));
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('y'))),
        lifecycle("run", LifecycleAction::ToolGate(ToolApprovalMode::Yolo))
    );
    handle_key(&mut ui, &model, key(KeyCode::Char('g')));
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('a'))),
        lifecycle("run", LifecycleAction::ToolGate(ToolApprovalMode::Auto))
    );
    handle_key(&mut ui, &model, key(KeyCode::Char('g')));
    assert!(!matches!(
        handle_key(&mut ui, &model, key(KeyCode::Char('k'))),
        UiCommand::Local(_)
    ));
    assert!(ui.roster().pending.is_none());
}

/// H-6: the selected Keeper's operation line takes its own row; it never covers a roster row,
/// the selected one included (here the last row of a roster that fills the pane).
#[test]
fn h6_the_operation_line_never_covers_the_selected_row() {
    use masc_tui::view::screens::{ProjectionCtx, render};
    use masc_tui::view::theme::Theme;
    let mut model = Model::default();
    model.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let t = sample::roster_ticket(1, 1);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(
        &mut model,
        sample::roster_observation(t, sample::roster(40), AdmissionMode::Receipt),
    )
    .unwrap();
    let area = Rect::new(0, 0, 100, 20);
    let mut ui = Ui {
        area,
        tab: Tab::Keepers,
        ..Ui::default()
    };
    ui.roster_mut().selected = 39;
    let keeper = name_of(&model, 39);
    let ws = sample::scope(1).workspace.0;
    model.keepers.ops.sandbox.submit(
        SaveId::fresh(),
        SandboxIntent {
            keeper: keeper.clone(),
            profile: SandboxProfile::Microvm,
        },
        ws,
    );
    let mut buf = ratatui::buffer::Buffer::empty(area);
    render(
        &model,
        &ui,
        &ProjectionCtx::now(Theme::plain()),
        area,
        &mut buf,
    );
    let text = sample::buffer_text(&buf);
    let line = format!("{keeper}: sandbox → microvm: queued");
    assert!(text.contains(&line), "{text}");
    let rows_with_name = text.lines().filter(|l| l.contains(&keeper)).count();
    assert_eq!(
        rows_with_name, 2,
        "its roster row and its operation line:\n{text}"
    );
}

/// §14.3: a deleted Keeper's row leaves the roster (and its operation line with it), so its
/// receipt is said in the notice line when it lands — once, not again on the next look.
#[test]
fn s14_3_a_delete_receipt_is_said_when_the_row_leaves() {
    use masc_tui::actors::keepers::ops::lifecycle::LifecycleApplied;
    use masc_tui::protocol::outcome::PurgeAccepted;
    use masc_tui::view::screens::react::{Seen, react_detached};
    let (mut model, mut ui) = lifecycle_roster();
    let scope = sample::scope(1);
    let ws = scope.workspace.0.clone();
    let id = SaveId::fresh();
    let intent = LifecycleIntent::new("stopped", LifecycleAction::Delete);
    model
        .keepers
        .ops
        .lifecycle
        .submit(id.clone(), intent.clone(), ws.clone());
    let ticket = op_ticket(KeeperOpSlot::Lifecycle(id.clone()), scope);
    crate::rig::dispatch(&mut model, ticket.clone());
    react_detached(&mut ui, &mut model, Seen::Delivered);
    assert!(ui.notice.text.is_none(), "nothing said before the receipt");
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket,
            KeepersObservation::Op(Box::new(KeeperOpEvent::Lifecycle(SaveEvent {
                save_id: id,
                intent,
                workspace: ws,
                step: SaveStep::Ended(SaveOutcome::Applied {
                    detail: LifecycleApplied::DeleteAccepted(PurgeAccepted {
                        operation_id: "purge-7".into(),
                    }),
                    warning: None,
                }),
            }))),
        ),
    )
    .unwrap();
    react_detached(&mut ui, &mut model, Seen::Delivered);
    let said = ui.notice.text.take().expect("the receipt is said");
    assert!(
        said.contains("stopped: delete") && said.contains("deletion accepted (purge-7)"),
        "{said}"
    );
    react_detached(&mut ui, &mut model, Seen::Delivered);
    assert!(ui.notice.text.is_none(), "said once");
}
