//! Input typed while an interrupt of the same Keeper is in flight (protocol.md §14.13: "one
//! interrupt in flight per Keeper; input typed meanwhile stays local and is sent after the
//! answer, with the fresh token"; chat-screen.md C-36). The input is registered in its chat as
//! `전송 대기` (C-33) but not handed to the save hub: it has no outbox row and nothing left the
//! machine. Once the interrupt of its Keeper has its answer (any receipt), the input is sent
//! with the chat control token held then (§14.15 `admission_intent`), in the order typed. Held
//! inputs belong to the chat surface, not to the open pane: closing the chat keeps them
//! (navigation is not cancellation, H-5), reopening it shows them again.

/// One input held back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldInput {
    pub workspace: String,
    pub keeper: String,
    /// Made at Enter (`tui-<uuidv7>`); kept when it is sent.
    pub request_id: String,
    pub text: String,
}

/// The held inputs of this session, in the order typed.
#[derive(Debug, Default)]
pub struct HeldInputs {
    inputs: Vec<HeldInput>,
}

impl HeldInputs {
    pub fn hold(&mut self, input: HeldInput) {
        self.inputs.push(input);
    }

    /// The inputs held for this chat, in the order typed.
    pub fn of<'a>(
        &'a self,
        workspace: &'a str,
        keeper: &'a str,
    ) -> impl Iterator<Item = &'a HeldInput> + 'a {
        self.inputs
            .iter()
            .filter(move |h| h.workspace == workspace && h.keeper == keeper)
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Takes the inputs whose Keeper has no interrupt in flight any more (its answer landed),
    /// in the order typed; the others stay held.
    pub fn release(&mut self, in_flight: impl Fn(&str, &str) -> bool) -> Vec<HeldInput> {
        let (ready, held): (Vec<_>, Vec<_>) = std::mem::take(&mut self.inputs)
            .into_iter()
            .partition(|h| !in_flight(&h.workspace, &h.keeper));
        self.inputs = held;
        ready
    }
}
