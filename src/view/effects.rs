//! What the view actor lends a screen's local event while it runs ([`Effects`]): the model,
//! the running sources' typed handles (to send a source its command or ask it to read), the
//! one save path, and the few facts of the actor a screen may need. Nothing here awaits: every
//! effect outside the model is a cast.

use crate::actors::contract::{DemandKind, SourceControl, SourceHandle, SourceKey};
use crate::actors::saves::{SAVES, SaveCommand};
use crate::view::model::Model;
use crate::view::outgoing::{self, Outgoing, SourceCommand};
use crate::view::save_path::{self, SaveRefusal, SaveRequest, SubmitStage, Submitted};
use crate::view::theme::Theme;
use ractor::DerivedActorRef;
use std::collections::HashMap;
use std::sync::LazyLock;

static NO_SOURCES: LazyLock<HashMap<SourceKey, SourceHandle>> = LazyLock::new(HashMap::new);

/// The hands a local event acts with.
pub struct Effects<'a> {
    pub model: &'a mut Model,
    pub theme: Theme,
    /// An `$EDITOR` handoff is in progress (one edit at a time).
    pub editing: bool,
    sources: &'a HashMap<SourceKey, SourceHandle>,
    saves: Option<DerivedActorRef<SaveCommand>>,
    /// The confirmation stage of the command running (`save_path::SubmitStage`); `None`: saves are
    /// submitted as they are (a request not confirmed is previewed, and only staged).
    stage: Option<SubmitStage>,
}

impl<'a> Effects<'a> {
    /// With the running sources (the save hub among them).
    pub fn new(
        model: &'a mut Model,
        sources: &'a HashMap<SourceKey, SourceHandle>,
        theme: Theme,
    ) -> Self {
        let saves = sources
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>());
        Self {
            model,
            theme,
            editing: false,
            sources,
            saves,
            stage: None,
        }
    }

    /// Within the confirmation stage `stage` of the command running.
    pub fn staging(mut self, stage: Option<SubmitStage>) -> Self {
        self.stage = stage;
        self
    }

    /// The stage back, when the event is done.
    pub fn into_stage(self) -> Option<SubmitStage> {
        self.stage
    }

    /// Confirms `request` for the command running (a choice that had a confirmation of its
    /// own): its next submit commits.
    pub fn confirmed(&mut self, request: SaveRequest) {
        self.stage
            .get_or_insert_with(SubmitStage::default)
            .confirm(request);
    }

    /// With no source running (tests, benches, screens without a runtime).
    pub fn detached(model: &'a mut Model, theme: Theme) -> Self {
        Self::new(model, &NO_SOURCES, theme)
    }

    /// With `hub` as the save hub.
    pub fn with_save_hub(mut self, hub: Option<DerivedActorRef<SaveCommand>>) -> Self {
        self.saves = hub;
        self
    }

    /// The save hub's handle, if it is running.
    pub fn save_hub(&self) -> Option<&DerivedActorRef<SaveCommand>> {
        self.saves.as_ref()
    }

    /// Submits a save on the one save path, through the command's confirmation stage.
    pub fn submit(&mut self, request: SaveRequest) -> Result<Submitted, SaveRefusal> {
        match self.stage.as_mut() {
            Some(stage) => stage.submit(self.model, self.saves.as_ref(), request),
            None => save_path::submit(self.model, self.saves.as_ref(), request),
        }
    }

    /// Sends a source its command (its surface model sees it first); `Err(notice)` when it
    /// could not be sent.
    pub fn send<C: SourceCommand>(&mut self, cmd: C) -> Result<(), String> {
        Outgoing::new(cmd).deliver(self.model, self.sources)
    }

    /// Sends `cmd` as it is, unseen by the model; `Err(notice)` when it could not be sent.
    pub fn cast<C: SourceCommand<Sent = C>>(&self, cmd: C) -> Result<(), String> {
        outgoing::cast(self.sources, C::SOURCE, cmd)
            .map_err(|running| outgoing::unsent_words(C::NAME, running))
    }

    /// Sends `source` its command `cmd` as it is; `Err(running)` when it could not be sent
    /// (`running`: the source has a handle but its mailbox is closed).
    pub fn cast_to<C: 'static>(&self, source: SourceKey, cmd: C) -> Result<(), bool> {
        outgoing::cast(self.sources, source, cmd)
    }

    /// Asks `source` for an explicit read (G-3); the notice of how that went.
    pub fn demand(&mut self, source: &SourceKey) -> &'static str {
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
}
