//! Keeper operations on the Keepers screen (protocol.md §9): Sandbox `d` / `m` / `s` in the
//! detail pane (H-8, H-9), the runtime picker `U` (H-10…H-13), and the words of each receipt
//! (§11 outcomes, each distinct; H-6, H-12). Keys only capture what was chosen: the save is
//! submitted by the view actor, never awaited here.

pub mod create;
pub mod create_doc;
pub mod lifecycle;
pub mod settings;
pub mod settings_conflict;
pub mod settings_doc;
pub mod settings_prep;

use crate::actors::keepers::ops::assignment::AssignmentIntent;
use crate::actors::keepers::ops::create::{CreateRoute, CreateSave, NAME_EXISTS, NAME_UNCONFIRMED};
use crate::actors::keepers::ops::describe;
use crate::actors::keepers::ops::lifecycle::LifecycleApplied;
use crate::actors::keepers::ops::sandbox::{SandboxIntent, profile_word};
use crate::actors::keepers::ops::{assignment::AssignmentSave, sandbox::SandboxSave};
use crate::actors::saves::SaveId;
use crate::protocol::keeper_config::SandboxProfile;
use crate::protocol::keeper_up::{CREATE_ONLY_NOT_SERVED, KEEPER_UP_NOT_SERVED};
use crate::protocol::keepers::KeeperRowSlot;
use crate::protocol::outcome::{
    DirectiveApplied, KeeperConfigApplied, OPERATOR_PAUSED, PowerApplied, ROUTE_NOT_SERVED,
    SaveOutcome,
};
use crate::view::command::UiCommand;
use crate::view::keepers::ops::LatestOp;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::screens::RosterUi;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

/// The `U` picker: the Keeper it was opened for (captured), and the highlighted choice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimePicker {
    pub keeper: String,
    /// 0 = back to the default; `i` = the catalogue's runtime `i - 1`.
    pub selected: usize,
    /// A choice was handed to the view actor; the picker closes once it is submitted, and
    /// stays open (selection kept) when its admission is refused (H-11).
    pub submitting: bool,
}

/// The Keeper name of roster row `index`, if the row names one.
pub fn row_name(model: &Model, index: usize) -> Option<String> {
    match model
        .keepers
        .roster
        .fetched
        .last()
        .and_then(|o| o.value.rows.get(index))
    {
        Some(KeeperRowSlot::Row(row)) => Some(row.name.clone()),
        Some(KeeperRowSlot::Undecodable { name, .. }) => name.clone(),
        None => None,
    }
}

/// The runtime ids the picker offers, as the catalogue (§9.1) lists them; `None` while the
/// catalogue is unread or undecodable.
pub fn runtime_choices(model: &Model) -> Option<Vec<String>> {
    let observed = model.runtime.catalogue.fetched.last()?;
    let catalogue = observed.value.catalogue.as_ref().ok()?;
    Some(catalogue.runtimes.iter().map(|r| r.id.clone()).collect())
}

/// `d` / `m` / `s` in the Keeper detail: the typed profile for the selected Keeper (H-8).
pub fn sandbox_key(roster: &RosterUi, model: &Model, code: KeyCode) -> Option<UiCommand> {
    let profile = match code {
        KeyCode::Char('d') => SandboxProfile::Docker,
        KeyCode::Char('m') => SandboxProfile::Microvm,
        KeyCode::Char('s') => SandboxProfile::RemoteSsh,
        _ => return None,
    };
    let keeper = row_name(model, roster.selected)?;
    Some(super::KeeperOp::command::<SandboxSave>(SandboxIntent {
        keeper,
        profile,
    }))
}

/// The runtime the roster shows `keeper` on.
fn current_runtime(model: &Model, keeper: &str) -> Option<String> {
    model
        .keepers
        .roster
        .fetched
        .last()?
        .value
        .keeper(keeper)?
        .runtime_id
        .clone()
}

/// `U`: opens the picker for the selected Keeper, on its current runtime.
pub fn open_picker(roster: &mut RosterUi, model: &Model) -> UiCommand {
    match row_name(model, roster.selected) {
        Some(keeper) => {
            // Opened on the Keeper's current runtime, so `Enter` without a move changes
            // nothing (and its preview says so).
            let current = current_runtime(model, &keeper);
            let selected = runtime_choices(model)
                .and_then(|ids| current.and_then(|c| ids.iter().position(|id| *id == c)))
                .map_or(0, |i| i + 1);
            roster.picker = Some(RuntimePicker {
                keeper,
                selected,
                submitting: false,
            });
            UiCommand::Repaint
        }
        None => UiCommand::None,
    }
}

/// A key while the picker is open (it takes every key).
pub fn picker_key(roster: &mut RosterUi, model: &Model, key: KeyEvent) -> UiCommand {
    let Some(picker) = roster.picker.as_mut() else {
        return UiCommand::None;
    };
    let choices = runtime_choices(model).unwrap_or_default();
    let len = choices.len() + 1;
    match key.code {
        KeyCode::Esc => {
            roster.picker = None;
            UiCommand::Repaint
        }
        KeyCode::Char('j') | KeyCode::Down => {
            picker.selected = (picker.selected + 1).min(len - 1);
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            picker.selected = picker.selected.saturating_sub(1);
            UiCommand::Repaint
        }
        KeyCode::Enter => {
            let runtime_id = match picker.selected {
                0 => None,
                i => match choices.get(i - 1) {
                    Some(id) => Some(id.clone()),
                    None => return UiCommand::None,
                },
            };
            picker.submitting = true;
            super::KeeperOp::command::<AssignmentSave>(AssignmentIntent {
                keeper: picker.keeper.clone(),
                runtime_id,
                only_at: None,
            })
        }
        _ => UiCommand::None,
    }
}

/// The verdict on a submitted operation: the picker closes once its choice is submitted and
/// keeps its selection when the admission was refused (H-11).
pub fn submitted(roster: &mut RosterUi, refused: bool) {
    if let Some(picker) = roster.picker.as_mut()
        && picker.submitting
    {
        if refused {
            picker.submitting = false;
        } else {
            roster.picker = None;
        }
    }
}

fn outcome_words<A, C>(
    outcome: &SaveOutcome<A, C>,
    applied: impl Fn(&A) -> String,
    unchanged: &str,
    conflict: &str,
) -> (String, Tone) {
    match outcome {
        SaveOutcome::NotSent { reason } => (format!("not sent: {}", describe(reason)), Tone::Warn),
        SaveOutcome::NotApplied { reason } => (format!("not applied: {reason}"), Tone::Bad),
        SaveOutcome::Applied { detail, warning } => match warning {
            Some(w) => (format!("{} · {w}", applied(detail)), Tone::Warn),
            None => (applied(detail), Tone::Good),
        },
        SaveOutcome::Unchanged => (unchanged.to_string(), Tone::Good),
        SaveOutcome::Conflict { .. } => (conflict.to_string(), Tone::Warn),
        SaveOutcome::OutcomeUnknown { reason } => (
            format!("outcome unknown: {reason} · not resent; re-read before retrying"),
            Tone::Bad,
        ),
    }
}

fn phase_words<R>(phase: &SavePhase<R>) -> Option<(String, Tone)> {
    match phase {
        SavePhase::Submitted | SavePhase::Written => Some(("queued".into(), Tone::Busy)),
        SavePhase::Sending => Some(("sending".into(), Tone::Busy)),
        SavePhase::Ended(_) | SavePhase::Restored(_) => None,
    }
}

/// The receipts of removals that landed since the last look, in words: a delete (its row
/// leaves the roster on the next read) and an unbind (its binding leaves the connectors list),
/// each said once. Receipts restored from an earlier run are shown where they were made.
pub fn removal_receipts(
    model: &Model,
    said: &mut std::collections::BTreeSet<crate::actors::saves::SaveId>,
) -> Option<String> {
    use crate::actors::keepers::ops::lifecycle::LifecycleAction;
    let deletes = model
        .keepers
        .ops
        .lifecycle
        .entries()
        .filter(|e| e.intent.action == LifecycleAction::Delete)
        .filter(|e| matches!(e.phase, SavePhase::Ended(_)))
        .filter(|e| said.insert(e.save_id.clone()))
        .map(|e| {
            format!(
                "{}: {}",
                sanitize(&e.intent.keeper),
                op_line(LatestOp::Lifecycle(e)).0
            )
        })
        .collect::<Vec<_>>();
    let unbinds = model
        .connectors
        .unbinds
        .entries()
        .filter(|e| matches!(e.phase, SavePhase::Ended(_)))
        .filter(|e| said.insert(e.save_id.clone()))
        .map(|e| {
            let i = &e.intent;
            let (words, _) = crate::view::screens::system::bindings::phase_words(
                &format!(
                    "unbind {} from {} {}",
                    i.keeper_name, i.connector_id, i.channel_id
                ),
                &e.phase,
            );
            sanitize(&words).into_owned()
        });
    let all: Vec<String> = deletes.into_iter().chain(unbinds).collect();
    (!all.is_empty()).then(|| all.join(" · "))
}

/// The line of the newest operation on one Keeper: what was asked, and where it stands.
/// The line of the newest operation on one Keeper: what was asked, where it stands, and
/// whether a re-read after its receipt confirmed it (the settle stage).
pub fn op_line(op: LatestOp<'_>) -> (String, Tone) {
    let (text, tone) = receipt_line(op);
    let (settle, class) = match op {
        LatestOp::Sandbox(e) => (&e.settle, e.phase.class()),
        LatestOp::Assignment(e) => (&e.settle, e.phase.class()),
        LatestOp::Lifecycle(e) => (&e.settle, e.phase.class()),
        LatestOp::Settings(e) => (&e.settle, e.phase.class()),
        LatestOp::Create(e) => (&e.settle, e.phase.class()),
    };
    match settle.words(class) {
        Some(words) => {
            let tone = match settle {
                s if s.unconfirmed() => Tone::Warn,
                _ => tone,
            };
            (format!("{text} · {words}"), tone)
        }
        None => (text, tone),
    }
}

fn receipt_line(op: LatestOp<'_>) -> (String, Tone) {
    match op {
        LatestOp::Sandbox(entry) => {
            let what = format!("sandbox → {}", profile_word(entry.intent.profile));
            let (state, tone) = phase_words(&entry.phase).unwrap_or_else(|| {
                let receipt = entry.phase.receipt().map(|r| {
                    outcome_words(
                        r,
                        |a| match a {
                            KeeperConfigApplied::Written(_) => "applied".into(),
                            KeeperConfigApplied::WrittenRuntimeNotSynced => "applied".into(),
                        },
                        "unchanged: already that profile, nothing sent",
                        "conflict: settings changed since read; press again to retry",
                    )
                });
                receipt.unwrap_or_else(|| ("?".into(), Tone::Dim))
            });
            (format!("{what}: {state}"), tone)
        }
        LatestOp::Assignment(entry) => {
            let what = format!("runtime → {}", entry.intent.choice());
            let (state, tone) = phase_words(&entry.phase).unwrap_or_else(|| {
                let receipt = entry.phase.receipt().map(|r| {
                    outcome_words(
                        r,
                        |_| "committed".into(),
                        "unchanged: already assigned, nothing written",
                        "verified revision conflict: assignment changed since read",
                    )
                });
                receipt.unwrap_or_else(|| ("?".into(), Tone::Dim))
            });
            (format!("{what}: {state}"), tone)
        }
        LatestOp::Settings(entry) => {
            let what = format!("settings {}", entry.intent.keys().join(", "));
            let (state, tone) = phase_words(&entry.phase).unwrap_or_else(|| {
                let receipt = entry.phase.receipt().map(|r| {
                    let (words, tone) = outcome_words(
                        r,
                        |a| match a {
                            KeeperConfigApplied::Written(_) => "saved".into(),
                            KeeperConfigApplied::WrittenRuntimeNotSynced => "saved".into(),
                        },
                        "unchanged: the server already had these values",
                        "conflict: changed since the editor opened",
                    );
                    if settings_failed(r) {
                        // H-7: the next `e` re-reads and puts back only these changes.
                        (format!("{words} · e restores your edit"), tone)
                    } else {
                        (words, tone)
                    }
                });
                receipt.unwrap_or_else(|| ("?".into(), Tone::Dim))
            });
            (format!("{what}: {state}"), tone)
        }
        LatestOp::Create(entry) => (
            format!("create: {}", create_words(entry).0),
            create_words(entry).1,
        ),
        LatestOp::Lifecycle(entry) => {
            let what = entry.intent.action.words();
            let (state, tone) = phase_words(&entry.phase).unwrap_or_else(|| {
                let receipt = entry.phase.receipt().map(|r| match r {
                    SaveOutcome::NotApplied { reason } if reason.starts_with(OPERATOR_PAUSED) => (
                        "not applied: operator-paused — p resumes it first, then p boots"
                            .to_string(),
                        Tone::Warn,
                    ),
                    SaveOutcome::NotApplied { reason } if reason == ROUTE_NOT_SERVED => (
                        "not applied: this MASC does not serve the route".to_string(),
                        Tone::Warn,
                    ),
                    other => outcome_words(
                        other,
                        lifecycle_words,
                        "unchanged: already so (nothing to do)",
                        "conflict: the lifecycle changed; re-read before retrying",
                    ),
                });
                receipt.unwrap_or_else(|| ("?".into(), Tone::Dim))
            });
            (format!("{what}: {state}"), tone)
        }
    }
}

/// Where a create stands (H-14: confirming, sending, terminal), each outcome in its own words.
fn create_words(entry: &SaveEntry<CreateSave>) -> (String, Tone) {
    let (words, tone) = match &entry.phase {
        SavePhase::Submitted | SavePhase::Written => {
            return ("confirming the workspace".into(), Tone::Busy);
        }
        SavePhase::Sending => return ("sending".into(), Tone::Busy),
        SavePhase::Ended(r) | SavePhase::Restored(r) => match r {
            SaveOutcome::Applied { warning: None, .. } => {
                return (
                    "created; the roster lists it after the re-read".into(),
                    Tone::Good,
                );
            }
            SaveOutcome::Applied {
                warning: Some(w), ..
            } => return (format!("created · {w}"), Tone::Warn),
            SaveOutcome::Unchanged => return ("unchanged".into(), Tone::Good),
            // §15.11: through `/up` an existing Keeper is reconfigured, not refused.
            SaveOutcome::Conflict { .. } if entry.intent.route == CreateRoute::UpAfterCheck => {
                return (
                    format!(
                        "{} already existed when MASC applied this: it was reconfigured and its lane restarted · not resent",
                        entry.intent.name
                    ),
                    Tone::Bad,
                );
            }
            SaveOutcome::Conflict { .. } => (
                "rejected: a keeper with this name exists (nothing changed)".to_string(),
                Tone::Bad,
            ),
            SaveOutcome::NotApplied { reason } if reason == CREATE_ONLY_NOT_SERVED => (
                "not applied: this MASC has no create-only route · a offers MASC's create-or-update /up after an existence check"
                    .to_string(),
                Tone::Warn,
            ),
            SaveOutcome::NotApplied { reason } if reason == KEEPER_UP_NOT_SERVED => (
                "not applied: this MASC serves neither the create-only route nor /up".to_string(),
                Tone::Bad,
            ),
            SaveOutcome::NotApplied { reason } => (format!("rejected: {reason}"), Tone::Bad),
            SaveOutcome::NotSent { reason } if reason == NAME_EXISTS => (
                format!(
                    "not sent: a Keeper named {} already exists",
                    entry.intent.name
                ),
                Tone::Warn,
            ),
            SaveOutcome::NotSent { reason } if reason.starts_with(NAME_UNCONFIRMED) => (
                format!(
                    "not sent: could not confirm that {} is new: {}",
                    entry.intent.name,
                    reason
                        .strip_prefix(NAME_UNCONFIRMED)
                        .unwrap_or_default()
                        .trim_start_matches(':')
                ),
                Tone::Warn,
            ),
            SaveOutcome::NotSent { reason } => {
                (format!("not sent: {}", describe(reason)), Tone::Warn)
            }
            SaveOutcome::OutcomeUnknown { reason } => (
                format!(
                    "result unconfirmed: {reason} · not resent; the roster shows whether it exists"
                ),
                Tone::Bad,
            ),
        },
    };
    (format!("{words} · a reopens your declaration"), tone)
}

/// The line's operation for the selected `keeper`: its newest operation, or the newest create
/// (any name) when that is newer. The name it is about comes with it.
fn line_op<'a>(model: &'a Model, keeper: &str, workspace: &str) -> Option<(String, LatestOp<'a>)> {
    let ops = &model.keepers.ops;
    let own = ops.latest(keeper, workspace);
    let create = ops.latest_create(workspace);
    let own_id = own.map(latest_id);
    match create {
        Some(c) if own_id.is_none_or(|id| c.save_id > *id) => {
            Some((c.intent.name.clone(), LatestOp::Create(c)))
        }
        _ => own.map(|op| (keeper.to_string(), op)),
    }
}

fn latest_id<'a>(op: LatestOp<'a>) -> &'a SaveId {
    match op {
        LatestOp::Sandbox(e) => &e.save_id,
        LatestOp::Assignment(e) => &e.save_id,
        LatestOp::Lifecycle(e) => &e.save_id,
        LatestOp::Settings(e) => &e.save_id,
        LatestOp::Create(e) => &e.save_id,
    }
}

/// A settings receipt after which `e` restores the operator's changes (H-7).
pub fn settings_failed<A, C>(outcome: &SaveOutcome<A, C>) -> bool {
    matches!(
        outcome,
        SaveOutcome::NotSent { .. }
            | SaveOutcome::NotApplied { .. }
            | SaveOutcome::Conflict { .. }
            | SaveOutcome::OutcomeUnknown { .. }
    )
}

fn lifecycle_words(applied: &LifecycleApplied) -> String {
    match applied {
        LifecycleApplied::Directive(DirectiveApplied::Signalled) => "sent".into(),
        LifecycleApplied::Directive(DirectiveApplied::Resumed { .. }) => "resumed".into(),
        LifecycleApplied::Power(PowerApplied::Booted) => "booted".into(),
        LifecycleApplied::Power(PowerApplied::ShutDown) => "shut down".into(),
        LifecycleApplied::Power(PowerApplied::ShutDownPauseNotLatched) => "shut down".into(),
        LifecycleApplied::DeleteAccepted(a) => format!(
            "deletion accepted ({}); deleted once the roster no longer lists it",
            a.operation_id
        ),
        LifecycleApplied::ToolGate(mode) => format!("tool gate now {}", mode.as_str()),
    }
}

/// Whether `keeper` has an operation line (an operation this session, in this workspace).
pub fn has_line(model: &Model, keeper: &str) -> bool {
    model
        .gate()
        .current()
        .is_some_and(|scope| line_op(model, keeper, &scope.workspace.0).is_some())
}

/// The operation line of the selected Keeper, drawn on the last row of `area`.
pub fn render_op_line(model: &Model, keeper: &str, theme: Theme, area: Rect, buf: &mut Buffer) {
    let Some(scope) = model.gate().current() else {
        return;
    };
    let Some((keeper, op)) = line_op(model, keeper, &scope.workspace.0) else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let (text, tone) = op_line(op);
    let row = Rect::new(area.x, area.y + area.height - 1, area.width, 1);
    Clear.render(row, buf);
    let text = format!("{}: {}", sanitize(&keeper), sanitize(&text));
    Line::styled(
        fit_width(&text, area.width as usize).into_owned(),
        theme.style(tone),
    )
    .render(row, buf);
}

/// The picker, centred over `area`.
pub fn render_picker(
    model: &Model,
    picker: &RuntimePicker,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let choices = runtime_choices(model);
    let mut lines = vec![Line::styled(
        "stored assignment (not the current turn's runtime)",
        theme.style(Tone::Dim),
    )];
    let mut names = vec!["default runtime".to_string()];
    names.extend(choices.clone().unwrap_or_default());
    for (i, name) in names.iter().enumerate() {
        let mark = if i == picker.selected { "› " } else { "  " };
        let mut line = Line::from(vec![
            Span::raw(mark),
            Span::raw(sanitize(name).into_owned()),
        ]);
        if i == picker.selected {
            line = line.patch_style(theme.selected());
        }
        lines.push(line);
    }
    if choices.is_none() {
        lines.push(Line::styled(
            "runtime catalogue not loaded",
            theme.style(Tone::Warn),
        ));
    }
    lines.push(Line::styled(
        "Enter assign · Esc close",
        theme.style(Tone::Dim),
    ));
    let width = area.width.min(60);
    let height = (lines.len() as u16 + 2).min(area.height);
    let pane = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let title = format!(" RUNTIME · {} ", sanitize(&picker.keeper));
    Clear.render(pane, buf);
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .title(fit_width(&title, pane.width.saturating_sub(2) as usize).into_owned()),
        )
        .render(pane, buf);
}
