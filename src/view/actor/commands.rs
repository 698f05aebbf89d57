//! The view actor's commands: what a key or an edit's continuation asked for
//! ([`UiCommand`]), turned into casts to the sources and submissions to the save hub. Split from
//! `mod.rs` (one job per file); the methods belong to the same [`ViewState`].

use super::*;
use crate::view::save_path::{self, SaveRefusal, SaveRequest, Submitted, notice as notice_of};

/// A Keeper operation as the save request of its kind.
fn keeper_op(request: crate::actors::keepers::ops::KeeperOpRequest) -> SaveRequest {
    use crate::actors::keepers::ops::KeeperOpRequest as Op;
    use crate::actors::keepers::ops::{
        assignment::AssignmentSave, create::CreateSave, lifecycle::LifecycleSave,
        sandbox::SandboxSave, settings::SettingsSave,
    };
    match request {
        Op::Sandbox(intent) => SaveRequest::new::<SandboxSave>(intent),
        Op::Assignment(intent) => SaveRequest::new::<AssignmentSave>(intent),
        Op::Lifecycle(intent) => SaveRequest::new::<LifecycleSave>(intent),
        Op::Settings(intent) => SaveRequest::new::<SettingsSave>(intent),
        Op::Create(intent) => SaveRequest::new::<CreateSave>(intent),
    }
}

impl<B: FrameSink> ViewState<B> {
    /// Runs what a key (or an edit's continuation) asked for.
    pub(super) fn on_command(&mut self, myself: &ActorRef<ViewMsg>, cmd: UiCommand) {
        match cmd {
            UiCommand::None => {}
            UiCommand::Repaint => self.want(myself, FrameRequest::Input),
            UiCommand::Find(job) => {
                self.spawn_find(myself, *job);
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Refresh(source) => {
                self.ui.notice = Some(self.demand(&source).into());
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Chat(cmd) => {
                // The chat target owns its Live Context and metadata reads (L-2, C-57).
                let watch = match &cmd {
                    ChatUiCommand::Open { keeper } => Some(KeeperDetailCommand::Watch {
                        viewer: Viewer::Chat,
                        keeper: keeper.clone(),
                    }),
                    ChatUiCommand::Close { .. } => Some(KeeperDetailCommand::Unwatch {
                        viewer: Viewer::Chat,
                    }),
                    _ => None,
                };
                if let Some(watch) = watch {
                    self.model.keeper_detail.on_command(&watch);
                    let _ = self.keeper_detail_command(watch);
                }
                let (chat, saves) = self.chat_hubs();
                let hubs = screens::chat::ChatHandles {
                    chat: chat.as_ref(),
                    saves: saves.as_ref(),
                };
                self.ui.notice =
                    screens::chat::dispatch(cmd, &mut self.model, &mut self.ui, hubs, self.theme);
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
            UiCommand::KeeperDetail(cmd) => {
                self.model.keeper_detail.on_command(&cmd);
                if let Some(notice) = self.keeper_detail_command(cmd) {
                    self.ui.notice = Some(notice.into());
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Tools(cmd) => {
                self.model.system.on_command(&cmd);
                if let Some(notice) = self.tools_command(cmd) {
                    self.ui.notice = Some(notice.into());
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Post(intent) => {
                use crate::actors::board::compose::BoardPost;
                self.ui.notice = notice_of(self.submit(SaveRequest::new::<BoardPost>(intent)));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Binding { unbind, intent } => {
                use crate::actors::system::binding::{ConnectorBind, ConnectorUnbind};
                let request = if unbind {
                    SaveRequest::new::<ConnectorUnbind>(intent)
                } else {
                    SaveRequest::new::<ConnectorBind>(intent)
                };
                self.ui.notice = notice_of(self.submit(request));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Decide(intent) => {
                use crate::actors::decisions::approval::ApprovalDecision;
                let request = SaveRequest::new::<ApprovalDecision>(intent);
                self.ui.notice = notice_of(self.submit(request));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::DecideHeldCall(intent) => {
                use crate::actors::decisions::held_call::HeldCallDecision;
                let request = SaveRequest::new::<HeldCallDecision>(intent);
                self.ui.notice = notice_of(self.submit(request));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Answer(intent) => {
                use crate::actors::decisions::ask_answer::AskAnswer;
                self.ui.notice = notice_of(self.submit(SaveRequest::new::<AskAnswer>(intent)));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Asks(cmd) => {
                if let Some(notice) = self.asks_command(cmd) {
                    self.ui.notice = Some(notice.into());
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Inspector(slot) => {
                if let Some(notice) = self.inspector_reread(slot) {
                    self.ui.notice = Some(notice.into());
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::InspectorWiden { keeper } => {
                if let Some(notice) = self.inspector_widen(&keeper) {
                    self.ui.notice = Some(notice.into());
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::RuntimeForm(cmd) => {
                self.ui.notice = self.runtime_form(cmd);
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::RuntimeRaw(cmd) => {
                if let Some(notice) = self.runtime_raw(cmd) {
                    self.ui.notice = Some(notice);
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Edit(request) => self.start_edit(myself, request),
            UiCommand::Clipboard(bytes) => {
                // Out of band, between frames: OSC 52 draws nothing (no repaint is owed).
                let sink = self.presenter.backend_mut();
                let written = sink
                    .write_raw(&bytes)
                    .and_then(|()| ratatui::backend::Backend::flush(sink).map_err(B::io_error));
                if let Err(e) = written {
                    self.ui.notice = Some(format!("/copy: the terminal write failed: {e}"));
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Many(cmds) => {
                for cmd in cmds {
                    self.on_command(myself, cmd);
                }
            }
            UiCommand::KeeperSettings { keeper } => {
                self.ui.notice = Some(self.prepare_settings(keeper));
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::KeeperOp(request) => {
                let submitted = self.submit(keeper_op(request));
                let roster = self
                    .ui
                    .screen_mut::<screens::keepers::KeepersScreen>()
                    .map(|k| &mut k.roster);
                // A pause or shutdown sent for a bound Keeper offers `y` to unbind too; one
                // not sent offers nothing.
                let offer = roster.and_then(|roster| {
                    screens::keepers::ops::submitted(roster, submitted.is_err());
                    screens::keepers::lifecycle::unbind_offer(roster, submitted.is_ok())
                });
                self.ui.notice = notice_of(submitted).or(offer);
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Quit(cause) => self.finish(myself, cause),
            UiCommand::Suspend => self.suspend(myself),
        }
    }

    /// The typed handles a chat command goes to: the chat hub (reads) and the save hub (sends,
    /// interrupts, steers).
    pub(super) fn chat_hubs(
        &self,
    ) -> (
        Option<ractor::DerivedActorRef<crate::actors::chat::ChatCommand>>,
        Option<ractor::DerivedActorRef<crate::actors::saves::SaveCommand>>,
    ) {
        let chat = self
            .sources
            .get(&crate::actors::chat::CHAT_HUB)
            .and_then(|h| h.commands::<crate::actors::chat::ChatCommand>());
        let saves = self
            .sources
            .get(&crate::actors::saves::SAVES)
            .and_then(|h| h.commands::<crate::actors::saves::SaveCommand>());
        (chat, saves)
    }

    pub(super) fn demand(&mut self, source: &SourceKey) -> &'static str {
        match self.sources.get(source) {
            Some(handle) => {
                if handle.send_control(SourceControl::Demand(DemandKind::Explicit)) {
                    // A read already in flight may take the demand (coalesce): its badge is
                    // now one the user asked for, and so is the next dispatch's.
                    self.model.mark_asked(*source);
                    "refresh requested"
                } else {
                    "refresh not sent: source stopped"
                }
            }
            None => "refresh not sent: source not running",
        }
    }

    /// Sends a source's own command through its typed handle; `Err(running)` when it could
    /// not be sent (`running`: the source has a handle but its mailbox is closed).
    pub(super) fn command<C: 'static>(&self, source: SourceKey, cmd: C) -> Result<(), bool> {
        match self.sources.get(&source).and_then(|h| h.commands::<C>()) {
            Some(handle) => handle.send_message(cmd).map_err(|_| true),
            None => Err(false),
        }
    }

    /// The save hub's typed handle, if it is running.
    pub(super) fn save_hub(
        &self,
    ) -> Option<ractor::DerivedActorRef<crate::actors::saves::SaveCommand>> {
        self.sources
            .get(&crate::actors::saves::SAVES)
            .and_then(|h| h.commands::<crate::actors::saves::SaveCommand>())
    }

    /// Submits a save through the one save path (`view::save_path::submit`): checked by its
    /// kind's companion, registered in its book, cast to the save hub. Never awaited.
    pub(super) fn submit(&mut self, request: SaveRequest) -> Result<Submitted, SaveRefusal> {
        let hub = self.save_hub();
        save_path::submit(&mut self.model, hub.as_ref(), request)
    }

    /// Reads the follow-ups of answers applied since the last look (§10.3), each only in the
    /// workspace its answer was submitted in (K-5).
    pub(super) fn follow_answers(&mut self) {
        for (ask, workspace) in self.model.decisions.take_follow_ups() {
            let cmd = crate::actors::asks::AsksCommand::Follow { ask, workspace };
            if let Some(notice) = self.asks_command(cmd) {
                self.ui.notice = Some(notice.into());
            }
        }
    }

    /// Sends an Asks command; `Some(notice)` when it could not be sent.
    pub(super) fn asks_command(
        &self,
        cmd: crate::actors::asks::AsksCommand,
    ) -> Option<&'static str> {
        match self.command(crate::actors::asks::ASKS, cmd) {
            Ok(()) => None,
            Err(true) => Some("not sent: asks source stopped"),
            Err(false) => Some("not sent: asks source not running"),
        }
    }

    /// Sends a Board command; `Some(notice)` when it could not be sent.
    pub(super) fn board_command(&self, cmd: BoardCommand) -> Option<&'static str> {
        match self.command(BOARD, cmd) {
            Ok(()) => None,
            Err(true) => Some("not sent: board source stopped"),
            Err(false) => Some("not sent: board source not running"),
        }
    }

    /// Sends a Tools command; `Some(notice)` when it could not be sent.
    pub(super) fn tools_command(
        &self,
        cmd: crate::actors::system::ToolsCommand,
    ) -> Option<&'static str> {
        match self.command(crate::actors::system::TOOLS, cmd) {
            Ok(()) => None,
            Err(true) => Some("not sent: tools source stopped"),
            Err(false) => Some("not sent: tools source not running"),
        }
    }

    /// Sends a Keeper detail command; `Some(notice)` when it could not be sent.
    pub(super) fn keeper_detail_command(&self, cmd: KeeperDetailCommand) -> Option<&'static str> {
        match self.command(KEEPER_DETAIL, cmd) {
            Ok(()) => None,
            Err(true) => Some("not sent: keeper detail source stopped"),
            Err(false) => Some("not sent: keeper detail source not running"),
        }
    }

    /// Sends a Work detail command; `Some(notice)` when it could not be sent.
    pub(super) fn work_command(&self, cmd: WorkCommand) -> Option<&'static str> {
        match self.command(WORK_DETAIL, cmd) {
            Ok(()) => None,
            Err(true) => Some("not sent: work detail source stopped"),
            Err(false) => Some("not sent: work detail source not running"),
        }
    }
}
