//! The view actor: admits or rejects observations, updates the model, schedules and paints
//! frames. It never awaits I/O (architecture.md §1, §4.5): messages mark the model dirty and ask
//! the [`FrameSchedule`] for a frame; `FrameDue` (sent to itself, immediately or with
//! `send_after`) paints at most what the schedule allows; an unchanged frame writes nothing.

use super::fetched::SLOW_READ_BADGE_AFTER;
use super::frame::{FramePainter, Tracked};
use super::keys::{ExitCause, UiCommand, handle_key};
use super::model::Model;
use super::msg::ViewMsg;
use super::screens::react::Seen;
use super::screens::{self, ProjectionCtx, Ui};
use super::terminal::presenter::{FrameSink, FrameStats, Presenter};
use super::terminal::schedule::{FrameDecision, FrameRequest, FrameSchedule};
use super::theme::Theme;
use crate::actors::contract::{Inboxes, SourceControl, SourceEvent, SourceHandle, SourceKey};
use crate::view::admission::RejectReason;
use crossterm::event::Event;
use ractor::{Actor, ActorProcessingErr, ActorRef, SpawnErr};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

mod commands;
mod edit;
mod react;
mod settle;

/// Suspends the process with the terminal restored (Ctrl-Z) and re-enters raw mode on resume;
/// hands the terminal to another program (the operator's `$EDITOR`) and takes it back.
pub trait Suspender: Send + Sync + 'static {
    /// Blocks until the process is continued (`fg`).
    fn suspend(&self);

    /// Parks the terminal reader once every byte it already read has been handed on (H-3).
    /// Blocks (call it off the actor) for about the reader's poll interval; `false` when it
    /// did not park (the terminal is then not handed over, and the reader reads on).
    fn park_input(&self) -> bool;

    /// Wakes a parked reader.
    fn resume_input(&self);

    /// Restores the terminal's modes for another program (the reader stays parked).
    fn release(&self);

    /// Takes the terminal back (raw mode, alternate screen, paste mode, hidden cursor).
    fn reclaim(&self);
}

/// What the view reports to an observer (tests, benches, the timeline): deterministic signals
/// instead of sleeps.
#[derive(Debug, Clone)]
pub enum ViewEvent {
    /// A frame was presented (`stats.cells == 0`: nothing was written).
    Frame { stats: FrameStats, buffer: Buffer },
    /// An observation was rejected and not applied.
    Rejected(RejectReason),
    /// A `/find` result searched off the actor was rejected, not applied (its layout or query
    /// is no longer the one it was searched for).
    FindRejected(&'static str),
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
    /// The inboxes the model drains; the runtime started for this view posts into the same.
    pub inboxes: Inboxes,
    /// The editor for `$EDITOR` handoffs; `None`: `VISUAL`, `EDITOR`, then `vi`, read at each
    /// edit.
    pub editor: Option<crate::view::editor::EditorCommand>,
    /// A read-only session's banner (no outbox, no saves), shown in the header.
    pub read_only: Option<String>,
    /// The surface in front at start (`--start`, the config file's `defaults.start`).
    pub start: crate::view::screens::Tab,
    /// The configured workspaces and the one this session reads (the picker `W`, the header's
    /// colour).
    pub fleet: crate::view::fleet::FleetRoster,
}

impl<B: FrameSink> ViewArgs<B> {
    pub fn new(backend: B) -> Self {
        Self {
            inboxes: Inboxes::new(),
            backend,
            sync_output: true,
            theme: Theme::default(),
            suspender: None,
            exit: None,
            observer: None,
            editor: None,
            read_only: None,
            start: Ui::default().tab,
            fleet: Default::default(),
        }
    }
}

pub struct ViewState<B: FrameSink> {
    /// Every mutable access counts as a change: a frame may be repainted in part only while
    /// the count has not moved (`crate::view::frame`).
    model: Tracked<Model>,
    ui: Ui,
    presenter: Presenter<B>,
    /// Paints frames, whole or (when nothing but the UI moved) in part: a frame that only the UI moved costs the rows it changed.
    frame: FramePainter,
    schedule: FrameSchedule,
    theme: Theme,
    sources: HashMap<SourceKey, SourceHandle>,
    /// The sources the screen on display reads, as last told to the sources (a hidden source polls slower).
    shown: &'static [SourceKey],
    suspender: Option<Arc<dyn Suspender>>,
    exit: Option<oneshot::Sender<ExitCause>>,
    observer: Option<mpsc::UnboundedSender<ViewEvent>>,
    /// A `FrameDue` for "now" is in the mailbox.
    due_now: bool,
    /// The earliest `FrameDue` timer armed.
    due_at: Option<Instant>,
    /// The model or UI changed since the last painted frame.
    dirty: bool,
    /// The `$EDITOR` handoff in progress (`edit.rs`).
    edit: Option<edit::EditFlow>,
    /// Numbers each handoff: a late step of an earlier one is ignored.
    edit_seq: u64,
    editor: Option<crate::view::editor::EditorCommand>,
    /// The confirmation stage of the command running now (the key that asked for it, the
    /// saves it previews): a save whose preview opens is confirmed by that key, which runs
    /// the command again (`screens::confirm`).
    stage: Option<crate::view::save_path::SubmitStage>,
    /// The earliest `SettleDue` armed (the settle stage's next look).
    settle_at: Option<Instant>,
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
            tab: args.start,
            ..Ui::default()
        };
        let shown = screens::shown_sources(&ui);
        let mut model = Model::new(args.inboxes);
        model.read_only = args.read_only;
        model.fleet.roster = args.fleet;
        let mut state = ViewState {
            model: Tracked::new(model),
            ui,
            shown,
            presenter,
            frame: FramePainter::default(),
            schedule: FrameSchedule::new(),
            theme: args.theme,
            sources: HashMap::new(),
            suspender: args.suspender,
            exit: args.exit,
            observer: args.observer,
            due_now: false,
            due_at: None,
            dirty: true,
            edit: None,
            edit_seq: 0,
            editor: args.editor,
            stage: None,
            settle_at: None,
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
        // A key changes the model only through `&mut` access (counted); any other message
        // may change it otherwise (a chat pane's measured rows, a clock-driven badge): the
        // next frame is a whole one.
        if !matches!(msg, ViewMsg::Input(Event::Key(_)) | ViewMsg::FrameDue) {
            state.model.touch();
        }
        match msg {
            ViewMsg::Source(event) => state.on_source_event(&myself, event),
            ViewMsg::Input(event) => state.on_input(&myself, event),
            ViewMsg::WorkLaidOut(laid_out) => {
                let changed = state.on_work_laid_out(*laid_out);
                state.changed(&myself, changed);
            }
            ViewMsg::ChatMeasured(measured) => {
                let changed = state
                    .model
                    .chat
                    .pane
                    .as_ref()
                    .is_some_and(|pane| pane.view().apply_measured(*measured));
                state.changed(&myself, changed);
            }
            ViewMsg::ChatFound(found) => state.on_chat_found(&myself, *found),
            ViewMsg::FrameDue => state.on_frame_due(&myself),
            ViewMsg::ReadAged(inbox) => state.on_read_aged(&myself, inbox),
            ViewMsg::SettleDue => state.on_settle_due(&myself),
            ViewMsg::Edit(step) => state.on_edit_msg(&myself, step),
            ViewMsg::Shutdown => state.finish(&myself, ExitCause::Shutdown),
        }
        state.schedule_work_layouts(&myself);
        state.schedule_chat_measure(&myself);
        state.report(ViewEvent::Handled(kind));
        Ok(())
    }
}

fn msg_kind(msg: &ViewMsg) -> &'static str {
    match msg {
        ViewMsg::Source(SourceEvent::SourceUp { .. }) => "source_up",
        ViewMsg::Source(SourceEvent::Delivered { .. }) => "delivered",
        ViewMsg::Source(SourceEvent::Identity(_)) => "identity",
        ViewMsg::Source(SourceEvent::SourceRestarted(_)) => "source_restarted",
        ViewMsg::Source(SourceEvent::SourceStopped(_)) => "source_stopped",
        ViewMsg::Input(_) => "input",
        ViewMsg::WorkLaidOut(_) => "work_laid_out",
        ViewMsg::ChatMeasured(_) => "chat_measured",
        ViewMsg::ChatFound(_) => "chat_found",
        ViewMsg::FrameDue => "frame_due",
        ViewMsg::ReadAged(_) => "read_aged",
        ViewMsg::SettleDue => "settle_due",
        ViewMsg::Edit(crate::view::editor::EditMsg::Parked { .. }) => "editor_parked",
        ViewMsg::Edit(crate::view::editor::EditMsg::Exited { .. }) => "editor_exited",
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

    fn on_source_event(&mut self, myself: &ActorRef<ViewMsg>, event: SourceEvent) {
        match event {
            SourceEvent::Delivered { inbox, upto } => {
                let drained = self.model.on_delivered(inbox, upto, Instant::now());
                for reason in &drained.rejected {
                    self.report(ViewEvent::Rejected(*reason));
                }
                if drained.changed {
                    self.react(myself, Seen::Delivered);
                    // A first value or an asked re-read is what the operator waits for: its
                    // frame preempts the deadline (T.1). Background re-reads wait for it.
                    self.want(
                        myself,
                        if drained.awaited {
                            FrameRequest::Awaited
                        } else {
                            FrameRequest::Background
                        },
                    );
                    // A receipt or a re-read landed: judge the receipts waiting on one.
                    self.settle(myself);
                }
                // What applied events call for (e.g. the approvals list after a receipt,
                // §10.5); a re-read never replaces the receipt.
                for source in drained.demands {
                    let _ = self.demand(&source);
                }
                self.follow_answers();
                // D-10: a settled binding write asks the Connectors source for a status read
                // after it (the source merges it with a read in flight).
                if self.model.connectors.take_write_demand() {
                    use crate::actors::connectors::ConnectorsCommand;
                    let _ = self.command(
                        crate::actors::connectors::CONNECTORS,
                        ConnectorsCommand::BindingWritten,
                    );
                }
                // T.2: an idle view writes nothing, so a background re-read that keeps the
                // last value on screen changes nothing visible: its "reading" badge appears
                // only once the read is slow (`SLOW_READ_BADGE_AFTER`, checked by a
                // `ReadAged` message then), whatever else paints meanwhile. A first load and
                // a read the user asked for paint at once.
                if drained.background_reread {
                    myself.send_after(SLOW_READ_BADGE_AFTER, move || ViewMsg::ReadAged(inbox));
                }
            }
            SourceEvent::Identity(identity) => {
                let changed = self.model.on_identity(identity);
                self.changed(myself, changed);
                // Withdrawal cancels a preparation (H-2); a new epoch: an open inspector reads
                // again.
                self.react(myself, Seen::Identity);
            }
            SourceEvent::SourceUp { source, handle } => {
                // A (re)started source polls as if shown: tell it when it is not.
                if !self.shown.contains(&source) {
                    handle.send_control(SourceControl::Visible(false));
                }
                let restarted = self.sources.insert(source, handle).is_some();
                if restarted {
                    // A restarted source lost what it was asked to keep open.
                    self.react(myself, Seen::Restarted(source));
                }
            }
            SourceEvent::SourceRestarted(source) => {
                let changed = self.model.on_source_restarted(source);
                self.changed(myself, changed);
            }
            SourceEvent::SourceStopped(source) => {
                self.sources.remove(&source);
                let changed = self.model.on_source_stopped(source);
                self.changed(myself, changed);
            }
        }
    }

    /// A background re-read may have become slow: paint if it is still in flight (the
    /// presenter writes nothing when its badge was already shown or the rows are unchanged).
    fn on_read_aged(
        &mut self,
        myself: &ActorRef<ViewMsg>,
        inbox: crate::actors::contract::InboxId,
    ) {
        if self.model.any_refreshing(inbox) {
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
        if self.terminal_handed_over() {
            // The editor owns the terminal; the frame after it comes back is a full one.
            self.dirty = true;
            return;
        }
        if kind == FrameRequest::Force {
            self.presenter.invalidate();
        } else if !self.dirty {
            return;
        }
        self.dirty = false;
        self.sync_visibility();
        self.ui.settle_notice(std::time::Instant::now());
        let ctx = ProjectionCtx::now(self.theme);
        // Painted into the kept frame buffers: no frame is allocated or copied; an
        // observer (tests, benches) gets a copy of the frame after the write.
        let changes = self.model.changes();
        match self
            .frame
            .paint(&mut self.presenter, &self.model, changes, &self.ui, &ctx)
        {
            Ok(crate::view::frame::Painted { stats, .. }) => {
                if self.observer.is_some() {
                    let buffer = self.presenter.last_frame().clone();
                    self.report(ViewEvent::Frame { stats, buffer });
                }
            }
            Err(err) => {
                tracing::warn!(target: "masc_tui::view", error = %err, "frame write failed")
            }
        }
    }

    /// Tells the sources whose visibility changed with the screen: each source
    /// whose slots the screen on display reads is shown, every other one hidden. Runs before
    /// each painted frame, so a screen change reaches the sources with the frame that shows it.
    fn sync_visibility(&mut self) {
        let shown = screens::shown_sources(&self.ui);
        if std::ptr::eq(shown, self.shown) || shown == self.shown {
            self.shown = shown;
            return;
        }
        for (source, handle) in &self.sources {
            let now = shown.contains(source);
            if now != self.shown.contains(source) {
                handle.send_control(SourceControl::Visible(now));
            }
        }
        self.shown = shown;
    }

    fn on_input(&mut self, myself: &ActorRef<ViewMsg>, event: Event) {
        match event {
            Event::Resize(width, height) => {
                // T.5: the event carries the new size; nothing re-probes it.
                self.ui.area = Rect::new(0, 0, width, height);
                self.want(myself, FrameRequest::Force);
            }
            Event::Key(key) => {
                if key.code == crossterm::event::KeyCode::Esc && self.escape_pending_edit() {
                    // H-2: Esc before the editor opened cancels the edit, nothing else.
                    return;
                }
                if key.code == crossterm::event::KeyCode::Esc
                    && super::keys::escape_pending(&mut self.ui)
                {
                    // H-2: Esc cancels a preparation, nothing else.
                    self.want(myself, FrameRequest::Input);
                    return;
                }
                let cmd = handle_key(&mut self.ui, &self.model, key);
                self.run_command(myself, cmd, Some(key.code));
                // A move cancels a preparation or the editor opening for it (H-2), a tab
                // switch starts or stops a read, an inspector opened reads what it shows.
                self.react(myself, Seen::Key);
            }
            Event::Paste(text) => {
                if super::keys::handle_paste(&mut self.ui, &self.model, &text) {
                    self.want(myself, FrameRequest::Input);
                }
            }
            Event::Mouse(event) => {
                let cmd = super::mouse::handle_mouse(&mut self.ui, &self.model, event);
                self.run_command(myself, cmd, None);
                self.react(myself, Seen::Key);
            }
            Event::FocusGained | Event::FocusLost => {}
        }
    }

    /// starts the Work detail preparations the model needs at the current pane width,
    /// on the blocking pool; results come back as `ViewMsg::WorkLaidOut`.
    fn schedule_work_layouts(&mut self, myself: &ActorRef<ViewMsg>) {
        // No Task open, nothing to prepare — and no `&mut` access of the model: it counts as a
        // change (`frame::Tracked`), and this runs after every message, so it made every
        // frame a whole one (the kept frame never repainted in part).
        if self.model.work.task.is_none() {
            return;
        }
        let width = super::screens::work::state::layout_width_for(self.ui.area);
        let work = &mut self.model.work;
        for job in work.layouts.jobs(work.task.as_ref(), width) {
            let view = myself.clone();
            tokio::task::spawn_blocking(move || {
                let laid_out = job.run();
                let _ = view.cast(ViewMsg::WorkLaidOut(Box::new(laid_out)));
            });
        }
    }

    /// The chat frame leaves a huge message's middle unmeasured (too costly per frame):
    /// measure it on the blocking pool (the result comes back as `ViewMsg::ChatMeasured`).
    fn schedule_chat_measure(&mut self, myself: &ActorRef<ViewMsg>) {
        let Some(job) = self
            .model
            .chat
            .pane
            .as_ref()
            .and_then(|pane| pane.view().take_measure_job())
        else {
            return;
        };
        let view = myself.clone();
        tokio::task::spawn_blocking(move || {
            let measured = job.run();
            let _ = view.cast(ViewMsg::ChatMeasured(Box::new(measured)));
        });
    }

    /// `/find`: the search wraps the whole transcript, so it runs on the blocking
    /// pool; only the dispatch (shared snapshots) happens here.
    fn spawn_find(
        &self,
        myself: &ActorRef<ViewMsg>,
        job: crate::view::transcript::search::FindJob,
    ) {
        let view = myself.clone();
        tokio::task::spawn_blocking(move || {
            let found = job.run();
            let _ = view.cast(ViewMsg::ChatFound(Box::new(found)));
        });
    }

    /// A search came back: admitted only for the layout and query it was made for; a stale
    /// one is traced and, when the search is still awaited, dispatched again.
    fn on_chat_found(
        &mut self,
        myself: &ActorRef<ViewMsg>,
        found: crate::view::transcript::search::Found,
    ) {
        use crate::view::screens::chat::find::{Admission, admit_into};
        match admit_into(&mut self.ui, &self.model, found, Instant::now()) {
            Admission::Applied { .. } => self.want(myself, FrameRequest::Input),
            Admission::Rejected { why, again } => {
                tracing::debug!(target: "masc_tui::view", why, "find result rejected");
                self.report(ViewEvent::FindRejected(why));
                if let Some(job) = again {
                    self.spawn_find(myself, job);
                }
            }
        }
    }

    fn on_work_laid_out(&mut self, laid_out: crate::view::work::LaidOut) -> bool {
        let width = super::screens::work::state::layout_width_for(self.ui.area);
        let work = &mut self.model.work;
        work.layouts.admit(laid_out, work.task.as_ref(), width)
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
