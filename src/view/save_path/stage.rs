//! The confirmation stage of one command on the save path ([`SubmitStage`]): the saves it
//! submits are committed when the operator confirmed them (the confirming key ran the command
//! again), else — when their kind previews them — staged, and nothing is registered or sent
//! for a staged save. The confirmation layer (`screens::confirm`) begins a stage for each
//! command and opens the previews the stage gathered when the command ends.

use super::refusal::SaveRefusal;
use super::request::{SaveRequest, Staged, Submitted};
use super::submit::submit;
use crate::actors::saves::SaveCommand;
use crate::view::model::Model;
use crossterm::event::KeyCode;
use ractor::DerivedActorRef;

/// The saves of one command, before their commit.
#[derive(Debug, Default)]
pub struct SubmitStage {
    /// The key that asked (`None`: an edit's continuation or a reaction); pressed again, it
    /// confirms.
    key: Option<KeyCode>,
    /// Confirmations given for this command, each used once.
    confirmed: Vec<SaveRequest>,
    /// Previews waiting for the confirming key.
    staged: Vec<Staged>,
}

impl SubmitStage {
    /// The stage of a command `key` asked for, with the confirmations the operator just gave.
    pub fn new(key: Option<KeyCode>, confirmed: Vec<SaveRequest>) -> Self {
        Self {
            key,
            confirmed,
            staged: Vec::new(),
        }
    }

    /// The key that asked.
    pub fn key(&self) -> Option<KeyCode> {
        self.key
    }

    /// Confirms `request` for this command (a choice that had a confirmation of its own: an
    /// overwrite after the preview of what it loses).
    pub fn confirm(&mut self, request: SaveRequest) {
        self.confirmed.push(request);
    }

    /// Submits `request` on the save path: committed when confirmed, else staged when its kind
    /// previews it.
    pub fn submit(
        &mut self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
        request: SaveRequest,
    ) -> Result<Submitted, SaveRefusal> {
        let mut request = request;
        if let Some(at) = self.confirmed.iter().position(|r| r.same_save(&request)) {
            self.confirmed.remove(at);
            request = request.confirmed();
        }
        if let Some(key) = self.key {
            request = request.armed_by(key);
        }
        let result = submit(model, hub, request);
        if let Ok(Submitted {
            staged: Some(staged),
            ..
        }) = &result
        {
            self.staged.push(staged.as_ref().clone());
        }
        result
    }

    /// The previews waiting for the confirming key, in the order they were submitted.
    pub fn into_staged(self) -> Vec<Staged> {
        self.staged
    }
}
