//! The view actor: admits or rejects observations, updates the model, schedules and paints
//! frames. It never awaits I/O (architecture.md §1, §4.5): messages mark the model dirty and ask
//! the [`FrameSchedule`] for a frame; `FrameDue` (sent to itself, immediately or with
//! `send_after`) paints at most what the schedule allows; an unchanged frame writes nothing.

use super::fetched::SLOW_READ_BADGE_AFTER;
use super::keys::{ExitCause, UiCommand, handle_key};
use super::model::Model;
use super::presenter::{FrameSink, FrameStats, Presenter};
use super::schedule::{FrameDecision, FrameRequest, FrameSchedule};
use super::screens::{self, ProjectionCtx, Ui};
use super::theme::Theme;
use crate::actors::messages::{DemandKind, SourceCommand, ViewMsg};
use crate::actors::ticket::SourceKey;
use crate::view::admission::RejectReason;
use crossterm::event::Event;
use ractor::{Actor, ActorProcessingErr, ActorRef, SpawnErr};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// Suspends the process with the terminal restored (Ctrl-Z) and re-enters raw mode on resume.
pub trait Suspender: Send + Sync + 'static {
    /// Blocks until the process is continued (`fg`).
    fn suspend(&self);
}

/// What the view reports to an observer (tests, benches, the timeline): deterministic signals
/// instead of sleeps.
#[derive(Debug, Clone)]
pub enum ViewEvent {
    /// A frame was presented (`stats.cells == 0`: nothing was written).
    Frame { stats: FrameStats, buffer: Buffer },
    /// An observation was rejected and not applied.
    Rejected(RejectReason),
    /// A message was handled (after any frame it caused was requested).
    Handled(&'static str),
}

/// Everything the view actor starts with.
pub struct ViewArgs<B: FrameSink> {
    pub backend: B,
    /// Wrap frames in `CSI ?2026h … ?2026l` (T.4; see `presenter::sync_output_from_env`).
    pub sync_output: bool,
    pub theme: Theme,
    /// `None` in tests: Ctrl-Z is then ignored.
    pub suspender: Option<Arc<dyn Suspender>>,
    /// Receives the exit cause once when the view stops itself.
    pub exit: Option<oneshot::Sender<ExitCause>>,
    pub observer: Option<mpsc::UnboundedSender<ViewEvent>>,
}

impl<B: FrameSink> ViewArgs<B> {
    pub fn new(backend: B) -> Self {
        Self {
            backend,
            sync_output: true,
            theme: Theme::default(),
            suspender: None,
            exit: None,
            observer: None,
        }
    }
}

pub struct ViewState<B: FrameSink> {
    model: Model,
    ui: Ui,
    presenter: Presenter<B>,
    schedule: FrameSchedule,
    theme: Theme,
    sources: HashMap<SourceKey, ActorRef<SourceCommand>>,
    suspender: Option<Arc<dyn Suspender>>,
    exit: Option<oneshot::Sender<ExitCause>>,
    observer: Option<mpsc::UnboundedSender<ViewEvent>>,
    /// A `FrameDue` for "now" is in the mailbox.
    due_now: bool,
    /// The earliest `FrameDue` timer armed.
    due_at: Option<Instant>,
    /// The model or UI changed since the last painted frame.
    dirty: bool,
    /// Sources the user asked to refresh whose read has not been dispatched yet.
    asked_refresh: HashSet<SourceKey>,
}

/// The view actor, generic over the ratatui backend (tests use `TestBackend`).
pub struct ViewActor<B>(PhantomData<fn() -> B>);

impl<B> Default for ViewActor<B> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

/// Spawns the view actor (unsupervised: its end is the end of the TUI).
pub async fn spawn_view<B: FrameSink>(
    args: ViewArgs<B>,
) -> Result<(ActorRef<ViewMsg>, tokio::task::JoinHandle<()>), SpawnErr> {
    Actor::spawn(None, ViewActor::<B>::default(), args).await
}

impl<B: FrameSink> Actor for ViewActor<B> {
    type Msg = ViewMsg;
    type State = ViewState<B>;
    type Arguments = ViewArgs<B>;

    async fn pre_start(
        &self,
        myself: ActorRef<ViewMsg>,
        args: ViewArgs<B>,
    ) -> Result<Self::State, ActorProcessingErr> {
        let presenter = Presenter::new(args.backend, args.sync_output);
        let ui = Ui {
            area: presenter.probe_size(),
            ..Ui::default()
        };
        let mut state = ViewState {
            model: Model::default(),
            ui,
            presenter,
            schedule: FrameSchedule::new(),
            theme: args.theme,
            sources: HashMap::new(),
            suspender: args.suspender,
            exit: args.exit,
            observer: args.observer,
            due_now: false,
            due_at: None,
            dirty: true,
            asked_refresh: HashSet::new(),
        };
        // The fresh schedule holds a pending Force: the first frame.
        state.arm(&myself);
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<ViewMsg>,
        msg: ViewMsg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let kind = msg_kind(&msg);
        match msg {
            ViewMsg::SourceUp { source, handle } => {
                let restarted = state.sources.insert(source.clone(), handle).is_some();
                if restarted && source == SourceKey::WorkDetail {
                    state.reopen_work_detail();
                }
            }
            ViewMsg::Dispatched(ticket) => {
                let source = ticket.source.clone();
                let changed = state.model.on_dispatched(ticket);
                state.on_dispatched(&myself, &source, changed);
            }
            ViewMsg::Observed(obs) => match state.model.on_observed(obs, Instant::now()) {
                Ok(()) => {
                    screens::chat::after_observed(&mut state.model, &mut state.ui);
                    state.changed(&myself, true)
                }
                Err(reason) => state.report(ViewEvent::Rejected(reason)),
            },
            ViewMsg::Retired(ticket) => {
                let changed = state.model.on_retired(&ticket);
                state.changed(&myself, changed);
            }
            ViewMsg::Identity(identity) => {
                let changed = state.model.on_identity(identity);
                state.changed(&myself, changed);
            }
            ViewMsg::SourceRestarted(source) => {
                let changed = state.model.on_source_restarted(&source);
                state.changed(&myself, changed);
            }
            ViewMsg::SourceStopped(source) => {
                state.sources.remove(&source);
                let changed = state.model.on_source_stopped(&source);
                state.changed(&myself, changed);
            }
            ViewMsg::Input(event) => state.on_input(&myself, event),
            ViewMsg::WorkPrepared(prepared) => {
                let changed = state.on_work_prepared(*prepared);
                state.changed(&myself, changed);
            }
            ViewMsg::FrameDue => state.on_frame_due(&myself),
            ViewMsg::ReadAged(source) => state.on_read_aged(&myself, &source),
            ViewMsg::Shutdown => state.finish(&myself, ExitCause::Shutdown),
        }
        state.schedule_work_prep(&myself);
        state.report(ViewEvent::Handled(kind));
        Ok(())
    }
}

/// The slots a demand of `source` reads (a multi-slot source's actor key names several).
fn slot_keys(source: &SourceKey) -> Vec<SourceKey> {
    match source {
        SourceKey::Board => vec![SourceKey::BoardPosts, SourceKey::HearthCensus],
        SourceKey::Connectors => vec![SourceKey::ConnectorsStatus],
        SourceKey::Tools => vec![
            SourceKey::ToolsInventory,
            SourceKey::SkillsCatalog,
            SourceKey::AsyncRequests,
        ],
        other => vec![other.clone()],
    }
}

fn msg_kind(msg: &ViewMsg) -> &'static str {
    match msg {
        ViewMsg::SourceUp { .. } => "source_up",
        ViewMsg::Dispatched(_) => "dispatched",
        ViewMsg::Observed(_) => "observed",
        ViewMsg::Retired(_) => "retired",
        ViewMsg::Identity(_) => "identity",
        ViewMsg::SourceRestarted(_) => "source_restarted",
        ViewMsg::SourceStopped(_) => "source_stopped",
        ViewMsg::Input(_) => "input",
        ViewMsg::WorkPrepared(_) => "work_prepared",
        ViewMsg::FrameDue => "frame_due",
        ViewMsg::ReadAged(_) => "read_aged",
        ViewMsg::Shutdown => "shutdown",
    }
}

impl<B: FrameSink> ViewState<B> {
    fn report(&self, event: ViewEvent) {
        if let Some(obs) = &self.observer {
            let _ = obs.send(event);
        }
    }

    fn changed(&mut self, myself: &ActorRef<ViewMsg>, changed: bool) {
        if changed {
            self.want(myself, FrameRequest::Background);
        }
    }

    /// T.2: an idle view writes nothing, so a background re-read that keeps the last value on
    /// screen changes nothing visible: its "reading" badge appears only once the read is slow
    /// (`SLOW_READ_BADGE_AFTER`, checked by a `ReadAged` message then), whatever else paints
    /// meanwhile. A first load and a read the user asked for paint at once.
    fn on_dispatched(&mut self, myself: &ActorRef<ViewMsg>, source: &SourceKey, changed: bool) {
        let asked = self.asked_refresh.remove(source);
        if !changed {
            return;
        }
        match self.model.read_badge(source) {
            Some(badge) if badge.is_refreshing() => {
                if asked {
                    badge.mark_asked();
                    self.want(myself, FrameRequest::Background);
                } else {
                    let source = source.clone();
                    myself.send_after(SLOW_READ_BADGE_AFTER, move || ViewMsg::ReadAged(source));
                }
            }
            _ => self.want(myself, FrameRequest::Background),
        }
    }

    /// A background re-read may have become slow: paint if it is still in flight (the
    /// presenter writes nothing when its badge was already shown or the rows are unchanged).
    fn on_read_aged(&mut self, myself: &ActorRef<ViewMsg>, source: &SourceKey) {
        if self.model.is_refreshing(source) {
            self.want(myself, FrameRequest::Background);
        }
    }

    fn want(&mut self, myself: &ActorRef<ViewMsg>, kind: FrameRequest) {
        self.dirty = true;
        self.schedule.request(kind);
        self.arm(myself);
    }

    /// Makes sure a `FrameDue` arrives when the schedule wants to paint.
    fn arm(&mut self, myself: &ActorRef<ViewMsg>) {
        let now = Instant::now();
        match self.schedule.peek(now) {
            FrameDecision::Idle => {}
            FrameDecision::Render(_) => {
                // A cast, not an inline paint: input already queued behind us coalesces.
                if !self.due_now && myself.cast(ViewMsg::FrameDue).is_ok() {
                    self.due_now = true;
                }
            }
            FrameDecision::WaitUntil(at) => {
                if self.due_at.is_none_or(|d| d > at) {
                    self.due_at = Some(at);
                    myself.send_after(at.saturating_duration_since(now), || ViewMsg::FrameDue);
                }
            }
        }
    }

    fn on_frame_due(&mut self, myself: &ActorRef<ViewMsg>) {
        let now = Instant::now();
        self.due_now = false;
        if self.due_at.is_some_and(|d| d <= now) {
            self.due_at = None;
        }
        match self.schedule.take(now) {
            FrameDecision::Idle => {}
            FrameDecision::WaitUntil(_) => self.arm(myself),
            FrameDecision::Render(kind) => self.paint(kind),
        }
    }

    fn paint(&mut self, kind: FrameRequest) {
        if kind == FrameRequest::Force {
            self.presenter.invalidate();
        } else if !self.dirty {
            return;
        }
        self.dirty = false;
        let area = self.ui.area;
        let mut buffer = Buffer::empty(area);
        let ctx = ProjectionCtx::now(self.theme);
        let cursor = screens::render_with_cursor(&self.model, &self.ui, &ctx, area, &mut buffer);
        match self.presenter.present_with_cursor(&buffer, cursor) {
            Ok(stats) => self.report(ViewEvent::Frame { stats, buffer }),
            Err(err) => {
                tracing::warn!(target: "masc_tui::view", error = %err, "frame write failed")
            }
        }
    }

    fn on_input(&mut self, myself: &ActorRef<ViewMsg>, event: Event) {
        match event {
            Event::Resize(width, height) => {
                // T.5: the event carries the new size; nothing re-probes it.
                self.ui.area = Rect::new(0, 0, width, height);
                self.want(myself, FrameRequest::Force);
            }
            Event::Key(key) => match handle_key(&mut self.ui, &self.model, key) {
                UiCommand::None => {}
                UiCommand::Repaint => self.want(myself, FrameRequest::Input),
                UiCommand::Refresh(source) => {
                    self.ui.notice = Some(self.demand(&source).into());
                    self.want(myself, FrameRequest::Input);
                }
                UiCommand::Chat(cmd) => {
                    let hub = self.sources.get(&SourceKey::ChatHub);
                    self.ui.notice = screens::chat::dispatch(
                        cmd,
                        &mut self.model,
                        &mut self.ui,
                        hub,
                        self.theme,
                    );
                    self.want(myself, FrameRequest::Input);
                }
                UiCommand::Work(cmd) => {
                    self.model.work.on_command(&cmd);
                    if let Some(notice) = self.work_command(cmd) {
                        self.ui.notice = Some(notice.into());
                    }
                    self.want(myself, FrameRequest::Input);
                }
                UiCommand::Board(cmd) => {
                    self.model.board.on_command(&cmd);
                    if let Some(notice) = self.board_command(cmd) {
                        self.ui.notice = Some(notice.into());
                    }
                    self.want(myself, FrameRequest::Input);
                }
                UiCommand::Quit(cause) => self.finish(myself, cause),
                UiCommand::Suspend => self.suspend(myself),
            },
            Event::Paste(text) => {
                if super::keys::handle_paste(&mut self.ui, &self.model, &text) {
                    self.want(myself, FrameRequest::Input);
                }
            }
            Event::FocusGained | Event::FocusLost | Event::Mouse(_) => {}
        }
    }

    fn demand(&mut self, source: &SourceKey) -> &'static str {
        match self.sources.get(source) {
            Some(handle) => match handle.cast(SourceCommand::Demand(DemandKind::Explicit)) {
                Ok(()) => {
                    // A read already in flight may take the demand (coalesce): its badge is
                    // now one the user asked for.
                    for slot in slot_keys(source) {
                        if let Some(badge) = self.model.read_badge(&slot) {
                            badge.mark_asked();
                        }
                        self.asked_refresh.insert(slot);
                    }
                    "refresh requested"
                }
                Err(_) => "refresh not sent: source stopped",
            },
            None => "refresh not sent: source not running",
        }
    }

    /// Sends a Board command; `Some(notice)` when it could not be sent.
    fn board_command(&self, cmd: crate::actors::board::BoardCommand) -> Option<&'static str> {
        match self.sources.get(&SourceKey::Board) {
            Some(handle) => handle
                .cast(SourceCommand::Board(cmd))
                .err()
                .map(|_| "not sent: board source stopped"),
            None => Some("not sent: board source not running"),
        }
    }

    /// Sends a Work detail command; `Some(notice)` when it could not be sent.
    /// A restarted Work detail source lost its open objects: open them again (new tickets).
    fn reopen_work_detail(&mut self) {
        let rows = super::screens::work::state::page_rows_for(self.ui.area);
        for cmd in self.model.work.reopen_commands(rows) {
            if let Some(notice) = self.work_command(cmd) {
                self.ui.notice = Some(notice.into());
            }
        }
    }

    fn work_command(&self, cmd: crate::actors::work::WorkCommand) -> Option<&'static str> {
        match self.sources.get(&SourceKey::WorkDetail) {
            Some(handle) => handle
                .cast(SourceCommand::Work(cmd))
                .err()
                .map(|_| "not sent: work detail source stopped"),
            None => Some("not sent: work detail source not running"),
        }
    }

    /// starts the Work detail preparations the model needs at the current pane width,
    /// on the blocking pool; results come back as `ViewMsg::WorkPrepared`.
    fn schedule_work_prep(&mut self, myself: &ActorRef<ViewMsg>) {
        let width = super::screens::work::state::prep_width_for(self.ui.area);
        let work = &mut self.model.work;
        for job in work.prep.jobs(work.task.as_ref(), width) {
            let view = myself.clone();
            tokio::task::spawn_blocking(move || {
                let prepared = job.run();
                let _ = view.cast(ViewMsg::WorkPrepared(Box::new(prepared)));
            });
        }
    }

    fn on_work_prepared(&mut self, prepared: crate::view::work::Prepared) -> bool {
        let width = super::screens::work::state::prep_width_for(self.ui.area);
        let work = &mut self.model.work;
        work.prep.on_prepared(prepared, work.task.as_ref(), width)
    }

    fn suspend(&mut self, myself: &ActorRef<ViewMsg>) {
        let Some(suspender) = self.suspender.clone() else {
            return;
        };
        suspender.suspend();
        // T.6: on resume, re-probe once and force a complete repaint.
        self.ui.area = self.presenter.probe_size();
        self.want(myself, FrameRequest::Force);
    }

    fn finish(&mut self, myself: &ActorRef<ViewMsg>, cause: ExitCause) {
        tracing::info!(target: "masc_tui::view", exit = %cause, "view ends");
        if let Some(tx) = self.exit.take() {
            let _ = tx.send(cause);
        }
        myself.stop(None);
    }
}
