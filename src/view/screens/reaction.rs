//! What a reaction sees and is handed. After each admitted delivery, identity change, key and
//! restarted source the view actor calls the hook ([`super::react::react`]) once; every mounted screen, every open layer and every state a
//! closed layer keeps reacts to what it saw — a preparation cancelled by a move (H-2) or opened
//! by its snapshot (H-3), a selection that follows its approval across re-reads, the reads an
//! open inspector shows (K-17), a restarted source's watches asked again. A reaction changes
//! its own state, reads or (only when it has to) changes the model, casts to sources (never
//! awaited) and leaves commands for the actor to run as a key's would.

use crate::actors::contract::{SourceHandle, SourceKey};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::tracked::Tracked;
use std::collections::HashMap;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Observations were admitted and applied to the model.
    Delivered,
    /// The workspace identity changed (confirmed, withdrawn, a new epoch).
    Identity,
    /// A key was handled (its command ran).
    Key,
    /// `source` started again after a restart: what it was asked to keep open is gone.
    Restarted(SourceKey),
}

/// The model as a reaction may touch it. The view actor's is counted (`Tracked`: a `&mut`
/// access makes the next frame a whole one), so a reaction that changes nothing reads it only.
pub trait ModelAccess {
    fn model(&self) -> &Model;
    fn model_mut(&mut self) -> &mut Model;
}

impl ModelAccess for Model {
    fn model(&self) -> &Model {
        self
    }

    fn model_mut(&mut self) -> &mut Model {
        self
    }
}

impl ModelAccess for Tracked<Model> {
    fn model(&self) -> &Model {
        self
    }

    fn model_mut(&mut self) -> &mut Model {
        self
    }
}

/// What a reaction is handed, and what it leaves for the view actor.
pub struct ReactCx<'a> {
    model: &'a mut dyn ModelAccess,
    sources: Option<&'a HashMap<SourceKey, SourceHandle>>,
    commands: Vec<UiCommand>,
    repaint: bool,
    edit_moved: bool,
}

/// What the reactions left for the view actor.
#[derive(Debug, Default)]
pub struct Reaction {
    /// Run in order, as a key's commands (an edit to open, a command for a source).
    pub commands: Vec<UiCommand>,
    /// The UI changed: paint at input priority.
    pub repaint: bool,
    /// An editor still opening is no longer for what is in front (H-2).
    pub edit_moved: bool,
}

impl Reaction {
    /// The edit a reaction asked for, if any (tests).
    pub fn edit(&self) -> Option<&crate::view::editor::EditRequest> {
        self.commands.iter().find_map(|c| match c {
            UiCommand::Edit(request) => Some(request),
            _ => None,
        })
    }
}

impl<'a> ReactCx<'a> {
    /// With the running sources (the view actor).
    pub fn new(
        model: &'a mut dyn ModelAccess,
        sources: &'a HashMap<SourceKey, SourceHandle>,
    ) -> Self {
        Self {
            sources: Some(sources),
            ..Self::detached(model)
        }
    }

    /// Without sources: every cast is "not running" (tests).
    pub fn detached(model: &'a mut dyn ModelAccess) -> Self {
        Self {
            model,
            sources: None,
            commands: Vec::new(),
            repaint: false,
            edit_moved: false,
        }
    }

    pub fn model(&self) -> &Model {
        self.model.model()
    }

    /// The model to change (counted as a change of the frame: only when there is one).
    pub fn model_mut(&mut self) -> &mut Model {
        self.model.model_mut()
    }

    /// Casts `cmd` to `source` through its typed handle; `Err(running)` when it could not be
    /// sent (`running`: the source has a handle but its mailbox is closed).
    pub fn send<C: 'static>(&self, source: SourceKey, cmd: C) -> Result<(), bool> {
        match self
            .sources
            .and_then(|s| s.get(&source))
            .and_then(|h| h.commands::<C>())
        {
            Some(handle) => handle.send_message(cmd).map_err(|_| true),
            None => Err(false),
        }
    }

    /// The typed handle of `source`'s commands, if it runs.
    pub fn handle<C: 'static>(&self, source: SourceKey) -> Option<ractor::DerivedActorRef<C>> {
        self.sources
            .and_then(|s| s.get(&source))
            .and_then(|h| h.commands::<C>())
    }

    /// The hands a screen's own code acts with during this reaction (the model, the sources,
    /// the one save path); `theme` for what it makes to paint.
    pub fn effects(
        &mut self,
        theme: crate::view::theme::Theme,
    ) -> crate::view::effects::Effects<'_> {
        match self.sources {
            Some(sources) => {
                crate::view::effects::Effects::new(self.model.model_mut(), sources, theme)
            }
            None => crate::view::effects::Effects::detached(self.model.model_mut(), theme),
        }
    }

    /// Leaves `cmd` for the actor to run after the reactions.
    pub fn run(&mut self, cmd: UiCommand) {
        self.commands.push(cmd);
    }

    /// The UI changed: paint.
    pub fn repaint(&mut self) {
        self.repaint = true;
    }

    /// An editor still opening is no longer for what is in front: cancel it (H-2).
    pub fn edit_moved(&mut self) {
        self.edit_moved = true;
    }

    pub fn finish(self) -> Reaction {
        Reaction {
            commands: self.commands,
            repaint: self.repaint,
            edit_moved: self.edit_moved,
        }
    }
}
