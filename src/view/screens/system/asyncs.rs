//! The async runs pane (surfaces.md "Tools"; protocol.md §6.3, §6.4; sources.md T-6…T-14,
//! the list with a selection held by identity, the request detail read by its
//! own single GET, and the source Task opened from the confirmed run.
//!
//! - The selection is the row's request id with its requester and target (T-6): a request
//!   leaving the list moves neither the selection nor the open detail (T-7). `J`/`K` walk the
//!   current rows from it; `Enter` opens that original.
//! - `o` looks up an explicit id: nothing is filled from the current Keeper (T-8); the draft
//!   is kept between lookups; with the workspace withdrawn no lookup starts.
//! - `t` opens the source Task only from the confirmed run of the admitted answer;
//!   `Esc` goes Task → request → list, and every open is a new read.
//! - Physical waiting/failure, the logical terminal decision and "logical unavailable" are
//!   drawn as different lines (T-10); an earlier logical observation kept after a logical
//!   failure says "not latest" and its age (T-13).

use super::slot_status_lines;
use crate::actors::tools::{HeldRequest, ToolsCommand};
use crate::actors::work::WorkCommand;
use crate::protocol::async_requests::{
    AsyncRequestList, AsyncRequestRow, AsyncRequestStatus, AsyncUnavailable, LogicalObservation,
    PhysicalState, TerminalDecisionKind, WorkerOwnership,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::widgets::annotation;
use crate::view::screens::work::WorkUi;
use crate::view::screens::{ProjectionCtx, Ui};
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use crate::view::tools::async_request::OpenRequest;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};
use std::time::Instant;

/// The selected row: its id with the requester and target it was listed with (T-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub request_id: String,
    pub held: HeldRequest,
}

/// The explicit id lookup field (`o`, T-8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    /// A one-line field: a kept draft reopens selected (typing replaces it, `End` edits it).
    pub draft: crate::view::field::Field,
    pub typing: bool,
}

/// Where the async runs pane is: the list, an open request, or its source Task on top.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AsyncUi {
    pub selected: Option<Selected>,
    /// The request open in the detail (its id); the model holds its read.
    pub open: Option<String>,
    /// The source Task opened from the open request (`t`).
    pub task: Option<String>,
    pub lookup: Lookup,
    /// Scroll of the request detail, in rows.
    pub detail_scroll: usize,
}

impl AsyncUi {
    pub fn typing(&self) -> bool {
        self.lookup.typing && self.open.is_none()
    }
}

fn rows(model: &Model) -> &[AsyncRequestRow] {
    match model.tools.asyncs.fetched.last().map(|o| o.value.as_ref()) {
        Some(AsyncRequestList::Ready { requests, .. }) => requests,
        _ => &[],
    }
}

fn selected_of(row: &AsyncRequestRow) -> Selected {
    Selected {
        request_id: row.request_id.clone(),
        held: HeldRequest {
            submitted_by: row.submitted_by.clone(),
            target_keeper: row.keeper_name.clone(),
        },
    }
}

/// `J`/`K`: the next or previous row from the selected request's place in the current list;
/// with the selection absent from the list, the first or last row.
fn step(ui: &mut AsyncUi, model: &Model, forward: bool) -> UiCommand {
    let rows = rows(model);
    if rows.is_empty() {
        return UiCommand::None;
    }
    let at = ui
        .selected
        .as_ref()
        .and_then(|s| rows.iter().position(|r| r.request_id == s.request_id));
    let next = match (at, forward) {
        (Some(i), true) => (i + 1).min(rows.len() - 1),
        (Some(i), false) => i.saturating_sub(1),
        (None, true) => 0,
        (None, false) => rows.len() - 1,
    };
    let chosen = selected_of(&rows[next]);
    if ui.selected.as_ref() == Some(&chosen) {
        return UiCommand::None;
    }
    ui.selected = Some(chosen);
    UiCommand::Repaint
}

/// Keys of the async runs pane. `None`: not this pane's key (the System keys get it).
pub fn handle(
    system: &mut super::SystemUi,
    ui: &mut Ui,
    model: &Model,
    key: KeyEvent,
    page_rows: u32,
) -> Option<UiCommand> {
    if system.asyncs.task.is_some() {
        return Some(task_key(system, ui, key));
    }
    if system.asyncs.open.is_some() {
        return request_key(system, ui, model, key, page_rows);
    }
    let asyncs = &mut system.asyncs;
    match key.code {
        KeyCode::Char('J') => Some(step(asyncs, model, true)),
        KeyCode::Char('K') => Some(step(asyncs, model, false)),
        KeyCode::Enter | KeyCode::Right => {
            let selected = asyncs.selected.clone()?;
            asyncs.open = Some(selected.request_id.clone());
            asyncs.detail_scroll = 0;
            Some(UiCommand::send(ToolsCommand::OpenRequest {
                request_id: selected.request_id,
                held: Some(selected.held),
            }))
        }
        KeyCode::Char('o') => {
            asyncs.lookup.typing = true;
            let kept = asyncs.lookup.draft.text().to_string();
            asyncs.lookup.draft.set(kept);
            Some(UiCommand::Repaint)
        }
        _ => None,
    }
}

fn request_key(
    system: &mut super::SystemUi,
    ui: &mut Ui,
    model: &Model,
    key: KeyEvent,
    page_rows: u32,
) -> Option<UiCommand> {
    let asyncs = &mut system.asyncs;
    match key.code {
        KeyCode::Esc | KeyCode::Left => {
            asyncs.open = None;
            Some(UiCommand::send(ToolsCommand::CloseRequest))
        }
        KeyCode::Char('t') => {
            let open = model.tools.request.as_ref();
            match open.and_then(OpenRequest::source_task) {
                Some((task, _)) => {
                    let task = task.to_string();
                    asyncs.task = Some(task.clone());
                    // The one Task detail now shows this Task; Work's own detail closes.
                    if let Some(work) = ui.screen_mut::<WorkUi>() {
                        work.tasks.open = None;
                        work.tasks.history_scroll = 0;
                        work.tasks.body_scroll = 0;
                    }
                    Some(UiCommand::send(WorkCommand::OpenTask {
                        task_id: task,
                        page_rows,
                    }))
                }
                None => {
                    ui.notice.text = Some("no confirmed run with a source Task".into());
                    Some(UiCommand::Repaint)
                }
            }
        }
        KeyCode::Char('j') | KeyCode::Down => {
            asyncs.detail_scroll += 1;
            Some(UiCommand::Repaint)
        }
        KeyCode::Char('k') | KeyCode::Up => {
            asyncs.detail_scroll = asyncs.detail_scroll.saturating_sub(1);
            Some(UiCommand::Repaint)
        }
        // A pane change closes the request (T-12).
        KeyCode::Char('p') | KeyCode::Char('P') => {
            use crate::view::screens::widgets::Ring;
            asyncs.open = None;
            let pane = system.pane;
            system.pane = if key.code == KeyCode::Char('p') {
                pane.next()
            } else {
                pane.previous()
            };
            Some(UiCommand::send(ToolsCommand::CloseRequest))
        }
        _ => Some(UiCommand::None),
    }
}

/// Keys of the source Task shown here: its scrolls are the Work detail's (one Task detail).
fn task_key(system: &mut super::SystemUi, ui: &mut Ui, key: KeyEvent) -> UiCommand {
    let page_rows = crate::view::screens::work::state::page_rows_for(ui.area);
    match key.code {
        KeyCode::Esc | KeyCode::Left => {
            system.asyncs.task = None;
            return UiCommand::send(WorkCommand::CloseTask);
        }
        KeyCode::Char('H') => return UiCommand::send(WorkCommand::OlderHistory { page_rows }),
        _ => {}
    }
    let Some(work) = ui.screen_mut::<WorkUi>() else {
        return UiCommand::None;
    };
    let tasks = &mut work.tasks;
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            tasks.history_scroll += 1;
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            tasks.history_scroll = tasks.history_scroll.saturating_sub(1);
            UiCommand::Repaint
        }
        KeyCode::Char('J') => {
            tasks.body_scroll += 1;
            UiCommand::Repaint
        }
        KeyCode::Char('K') => {
            tasks.body_scroll = tasks.body_scroll.saturating_sub(1);
            UiCommand::Repaint
        }
        _ => UiCommand::None,
    }
}

/// A key while the lookup field is active (T-8).
pub fn typing_key(
    asyncs: &mut AsyncUi,
    notice: &mut Option<String>,
    model: &Model,
    key: KeyEvent,
) -> UiCommand {
    let lookup = &mut asyncs.lookup;
    match key.code {
        KeyCode::Esc => {
            // The draft stays for the next `o`.
            lookup.typing = false;
            UiCommand::Repaint
        }
        KeyCode::Enter => {
            let id = lookup.draft.text().trim().to_string();
            if id.is_empty() {
                return UiCommand::None;
            }
            if model.gate().current().is_none() {
                // A withdrawn input starts no lookup; the draft stays.
                *notice = Some("no lookup: workspace not confirmed".into());
                return UiCommand::Repaint;
            }
            lookup.typing = false;
            asyncs.open = Some(id.clone());
            asyncs.detail_scroll = 0;
            UiCommand::send(ToolsCommand::OpenRequest {
                request_id: id,
                held: None,
            })
        }
        // T.7: only printable scalars enter the field (`view::field`).
        _ if lookup.draft.key(key) => UiCommand::Repaint,
        _ => UiCommand::None,
    }
}

/// `r` on this pane: the open Task, the open request, or the three Tools lists.
pub fn refresh(asyncs: &AsyncUi, area: ratatui::layout::Rect) -> Option<UiCommand> {
    if asyncs.task.is_some() {
        return Some(UiCommand::send(WorkCommand::RefreshTask {
            page_rows: crate::view::screens::work::state::page_rows_for(area),
        }));
    }
    asyncs
        .open
        .as_ref()
        .map(|_| UiCommand::send(ToolsCommand::RefreshRequest))
}

pub fn footer(ui: &AsyncUi, theme: Theme) -> Vec<Span<'static>> {
    if ui.typing() {
        return vec![
            Span::styled("request id: ", theme.style(Tone::Accent)),
            Span::raw(ui.lookup.draft.shown(true)),
            Span::styled("  Enter look up · Esc keep draft", theme.style(Tone::Dim)),
        ];
    }
    Vec::new()
}

fn status_word(s: AsyncRequestStatus) -> (&'static str, Tone) {
    match s {
        AsyncRequestStatus::Queued => ("queued", Tone::Dim),
        AsyncRequestStatus::Running => ("running", Tone::Busy),
        AsyncRequestStatus::Cancelling => ("cancelling", Tone::Warn),
        AsyncRequestStatus::Done => ("done", Tone::Good),
        AsyncRequestStatus::Error => ("error", Tone::Bad),
        AsyncRequestStatus::Lost => ("lost", Tone::Bad),
        AsyncRequestStatus::Cancelled => ("cancelled", Tone::Dim),
        AsyncRequestStatus::PersistenceFailed => ("persistence_failed", Tone::Bad),
    }
}

fn fit(text: &str, width: usize) -> String {
    fit_width(text, width).into_owned()
}

/// The pane's lines: the Task is drawn by the caller; here the request detail or the list.
pub fn lines(model: &Model, ui: &AsyncUi, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    match (&ui.open, model.tools.request.as_ref()) {
        (Some(id), Some(open)) if &open.request_id == id => detail_lines(open, ctx, width),
        _ => list_lines(model, ui, ctx, width),
    }
}

fn list_lines(
    model: &Model,
    ui: &AsyncUi,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let fetched = &model.tools.asyncs.fetched;
    let mut out = Vec::new();
    out.extend(slot_status_lines("async requests", fetched, ctx, width));
    if !ui.lookup.draft.is_empty() && !ui.lookup.typing {
        out.push(Line::styled(
            fit(
                &format!(
                    "lookup draft: {} (o to edit)",
                    sanitize(ui.lookup.draft.text())
                ),
                width,
            ),
            theme.style(Tone::Dim),
        ));
    }
    let Some(observed) = fetched.last() else {
        return out;
    };
    match observed.value.as_ref() {
        AsyncRequestList::Unavailable { error, .. } => {
            let why = match error {
                AsyncUnavailable::AccessRejected { reason } => {
                    format!("access rejected: {}", sanitize(reason))
                }
                AsyncUnavailable::DirectoryRejected => "request directory rejected".into(),
                AsyncUnavailable::DirectoryReadFailed { reason } => {
                    format!("request directory read failed: {}", sanitize(reason))
                }
            };
            out.push(Line::styled(
                format!("async requests unavailable — {why} (not an empty queue)"),
                theme.style(Tone::Bad),
            ));
        }
        AsyncRequestList::Ready {
            summary,
            requests,
            record_errors,
            ..
        } => {
            out.push(Line::styled(
                format!(
                    "ASYNC RUNS  {} active · {} runtime-owned · {} ownership unknown · {} record errors",
                    summary.active,
                    summary.runtime_owned,
                    summary.ownership_unknown,
                    summary.record_errors
                ),
                theme.style(Tone::Strong),
            ));
            if requests.is_empty() {
                out.push(Line::styled(
                    "no active async requests",
                    theme.style(Tone::Dim),
                ));
            }
            let selected = ui.selected.as_ref();
            for r in requests {
                let (word, tone) = status_word(r.status);
                let owner = match r.worker_ownership {
                    WorkerOwnership::RuntimeOwned => "runtime",
                    WorkerOwnership::DiskOnlyOwnershipUnknown => "ownership unknown",
                };
                let mark = if selected.is_some_and(|s| s.request_id == r.request_id) {
                    "›"
                } else {
                    " "
                };
                // T-6: the row keeps who submitted it, its id and its target keeper.
                let text = format!(
                    "{mark} {} {:<11} {} → {} · {:.0}s · {owner}",
                    pad_to(&fit_width(&sanitize(&r.request_id), 28), 28),
                    word,
                    sanitize(&r.submitted_by),
                    sanitize(&r.keeper_name),
                    r.elapsed_sec
                );
                out.push(Line::styled(fit(&text, width), theme.style(tone)));
            }
            // T-7: a selected request that left the list stays selected, said so.
            if let Some(s) = selected
                && !requests.iter().any(|r| r.request_id == s.request_id)
            {
                out.push(Line::styled(
                    fit(
                        &format!(
                            "› {} ({} → {}) is no longer in the active list — Enter still opens it",
                            sanitize(&s.request_id),
                            sanitize(&s.held.submitted_by),
                            sanitize(&s.held.target_keeper)
                        ),
                        width,
                    ),
                    theme.style(Tone::Warn),
                ));
            }
            for e in record_errors {
                out.push(Line::styled(
                    fit(
                        &format!(
                            "  record error {}: {}",
                            e.request_id
                                .as_deref()
                                .map(|i| sanitize(i).into_owned())
                                .unwrap_or_else(|| "(no request id)".into()),
                            sanitize(&e.kind)
                        ),
                        width,
                    ),
                    theme.style(Tone::Bad),
                ));
            }
        }
    }
    out
}

fn age(at: Instant, now: Instant) -> String {
    format!("{}s ago", now.saturating_duration_since(at).as_secs())
}

fn compact_json(v: &serde_json::Value) -> String {
    sanitize(&v.to_string()).into_owned()
}

fn detail_lines(open: &OpenRequest, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut out = Vec::new();
    let context = match &open.held {
        Some(h) => format!(
            "opened from the list: {} → {}",
            sanitize(&h.submitted_by),
            sanitize(&h.target_keeper)
        ),
        None => "looked up by id".to_string(),
    };
    out.push(Line::styled(
        fit(
            &format!("REQUEST {}  ({context})", sanitize(&open.request_id)),
            width,
        ),
        theme.style(Tone::Strong),
    ));
    let fetched = &open.detail.fetched;
    out.extend(slot_status_lines("request", fetched, ctx, width));
    let Some(observed) = fetched.last() else {
        return out;
    };
    if let Some((text, tone)) = annotation(fetched, ctx.now) {
        out.push(Line::styled(text, theme.style(tone)));
    }
    let d = observed.value.as_ref();
    if open.held.is_none() {
        // An explicit lookup shows the server's requester and target; nothing was filled in.
        out.push(Line::raw(fit(
            &format!(
                "requester {} · target {}",
                sanitize(&d.submitted_by),
                sanitize(&d.target_keeper)
            ),
            width,
        )));
    }
    out.push(Line::styled(
        format!("observed {}", age(observed.observed_at, ctx.now)),
        theme.style(Tone::Dim),
    ));
    // T-10: the physical side: waiting, running, failed, completed.
    let (physical, tone) = match d.physical.state {
        PhysicalState::Pending => ("physical: waiting (pending)", Tone::Dim),
        PhysicalState::Running => ("physical: running", Tone::Busy),
        PhysicalState::Failed => ("physical: failed", Tone::Bad),
        PhysicalState::Completed => ("physical: completed", Tone::Good),
    };
    out.push(Line::styled(physical, theme.style(tone)));
    if let Some(result) = &d.physical.result {
        out.push(Line::raw(fit(
            &format!("  result {}", compact_json(result)),
            width,
        )));
    }
    match &d.run {
        Some(run) => out.push(Line::raw(fit(
            &format!(
                "run {} · source Task {}",
                sanitize(&run.run_id),
                run.source_task_id
                    .as_deref()
                    .map(|t| format!("{} (t opens it)", sanitize(t)))
                    .unwrap_or_else(|| "none".into())
            ),
            width,
        ))),
        None => out.push(Line::styled(
            "run: not confirmed yet (no source Task to open)",
            theme.style(Tone::Dim),
        )),
    }
    if let Some(shown) = &open.logical {
        out.extend(logical_lines(shown, ctx, width));
    }
    out
}

fn logical_lines(
    shown: &crate::view::tools::async_request::ShownLogical,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut out = Vec::new();
    if let Some(reason) = &shown.unavailable_now {
        out.push(Line::styled(
            fit(
                &format!("logical: unobservable now ({})", sanitize(reason)),
                width,
            ),
            theme.style(Tone::Warn),
        ));
    }
    let prefix = if shown.latest {
        "logical".to_string()
    } else {
        format!(
            "logical (not latest, observed {})",
            age(shown.observed_at, ctx.now)
        )
    };
    let (text, tone) = match &shown.logical {
        LogicalObservation::Observed {
            owner,
            terminal_decision: None,
        } => (
            format!(
                "{prefix}: owner {} · no terminal decision yet",
                sanitize(owner)
            ),
            Tone::Normal,
        ),
        LogicalObservation::Observed {
            owner,
            terminal_decision: Some(t),
        } => {
            let (word, tone) = match t.decision {
                TerminalDecisionKind::Completed => ("completed", Tone::Good),
                TerminalDecisionKind::Failed => ("failed", Tone::Bad),
                TerminalDecisionKind::Cancelled => ("cancelled", Tone::Dim),
            };
            (
                format!(
                    "{prefix}: owner {} · terminal decision {word} · {}",
                    sanitize(owner),
                    compact_json(&t.reason)
                ),
                tone,
            )
        }
        LogicalObservation::Unavailable { reason } => (
            format!("{prefix}: unobservable ({})", sanitize(reason)),
            Tone::Warn,
        ),
    };
    let tone = if shown.latest { tone } else { Tone::Dim };
    out.push(Line::styled(fit(&text, width), theme.style(tone)));
    out
}
