//! The view actor's commands: what a key, an edit's continuation or a reaction asked for
//! ([`UiCommand`]), turned into casts to the sources, submissions on the one save path and the
//! screens' own events; the methods belong to the same [`ViewState`].

use super::*;
use crate::view::effects::Effects;
use crate::view::outgoing::{self, SourceCommand};
use crate::view::save_path::notice;

impl<B: FrameSink> ViewState<B> {
    /// Runs a command a key (`key`), an edit's continuation or a reaction asked for, as one
    /// confirmation stage (`save_path::SubmitStage`, begun and finished by `screens::confirm`): the saves it submits that must be
    /// previewed first open one confirmation layer, whose key runs `cmd` again with them
    /// confirmed; confirmations it did not use are forgotten.
    pub(super) fn run_command(
        &mut self,
        myself: &ActorRef<ViewMsg>,
        cmd: UiCommand,
        key: Option<crossterm::event::KeyCode>,
    ) {
        if self.stage.is_some() {
            // Inside a command already: its stage holds this one's saves too.
            self.on_command(myself, cmd);
            return;
        }
        let asking = screens::confirm::Asking::new(key, cmd.clone());
        self.stage = Some(screens::confirm::begin(&mut self.ui, &asking));
        self.on_command(myself, cmd);
        if let Some(stage) = self.stage.take() {
            screens::confirm::finish(&mut self.ui, stage, asking.command);
        }
    }

    /// Runs what a key (or an edit's continuation, or a reaction) asked for.
    pub(super) fn on_command(&mut self, myself: &ActorRef<ViewMsg>, cmd: UiCommand) {
        match cmd {
            UiCommand::None => {}
            UiCommand::Repaint => self.want(myself, FrameRequest::Input),
            UiCommand::Find(job) => {
                self.spawn_find(myself, *job);
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Refresh(source) => {
                self.ui.notice.text = Some(self.demand(&source).into());
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Save(request) => {
                let stage = self.stage.take();
                let mut fx = self.effects().staging(stage);
                let submitted = fx.submit(request);
                self.stage = fx.into_stage();
                self.ui.notice.text = notice(submitted);
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Send(out) => {
                if let Err(notice) = out.deliver(&mut self.model, &self.sources) {
                    self.ui.notice.text = Some(notice);
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Local(event) => {
                let mut fx = Effects::new(&mut self.model, &self.sources, self.theme)
                    .staging(self.stage.take());
                fx.editing = self.edit.is_some();
                event.run(&mut self.ui, &mut fx);
                self.stage = fx.into_stage();
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
                    self.ui.notice.text = Some(format!("/copy: the terminal write failed: {e}"));
                }
                self.want(myself, FrameRequest::Input);
            }
            UiCommand::Many(cmds) => {
                for cmd in cmds {
                    self.on_command(myself, cmd);
                }
            }
            UiCommand::Quit(cause) => self.finish(myself, cause),
            UiCommand::Suspend => self.suspend(myself),
        }
    }

    /// The hands a screen's event acts with.
    fn effects(&mut self) -> Effects<'_> {
        let mut fx = Effects::new(&mut self.model, &self.sources, self.theme);
        fx.editing = self.edit.is_some();
        fx
    }

    pub(super) fn demand(&mut self, source: &SourceKey) -> &'static str {
        self.effects().demand(source)
    }

    /// Sends a source's own command through its typed handle; `Err(running)` when it could not
    /// be sent (`running`: the source has a handle but its mailbox is closed).
    pub(super) fn command<C: 'static>(&self, source: SourceKey, cmd: C) -> Result<(), bool> {
        outgoing::cast(&self.sources, source, cmd)
    }

    /// Sends `cmd` as it is, unseen by the model; the notice when it could not be sent.
    fn resend<C: SourceCommand<Sent = C>>(&mut self, cmd: C) {
        if let Err(running) = self.command(C::SOURCE, cmd) {
            self.ui.notice.text = Some(outgoing::unsent_words(C::NAME, running));
        }
    }

    /// Reads the follow-ups of answers applied since the last look (§10.3), each only in the
    /// workspace its answer was submitted in (K-5).
    pub(super) fn follow_answers(&mut self) {
        for (ask, workspace) in self.model.decisions.take_follow_ups() {
            self.resend(crate::actors::asks::AsksCommand::Follow { ask, workspace });
        }
    }
}
