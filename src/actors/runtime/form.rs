//! The model and account form save (protocol.md §9.3, §9.4 "Runtime form"; §11 runtime raw
//! save and form; sources.md I-1…I-5): one edit of the `runtime.toml` the form was opened on.
//!
//! The form's input and opening revision are the intent (I-1); the job — this save's own
//! operation, never key handling — makes the edit on the opened text, previews the exact text
//! (§9.3: the commit is sent only after a 200 preview with `can_save`), then commits it with
//! CAS on the opening path and revision (§9.4) — the job it shares with the raw editor's save
//! (`super::save`). A repeated submit of the same file shares the job in flight; the
//! receipt is the raw save's (`Conflict` carries the server's current file). Never resent.

use super::save::preview_then_commit;
use super::{RuntimeObservation, RuntimeSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{RuntimeRawSaveOutcome, SaveOutcome};
use crate::protocol::runtime::form::{self, Edited, FormEdit};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// The form as submitted: the edit and the source it was opened on (I-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormIntent {
    /// The file's path and revision when the form opened (§9.4 CAS).
    pub path: String,
    pub opening_revision: String,
    /// The text the form opened on; the edit is made on it, never on a later read.
    pub source_text: String,
    pub edit: FormEdit,
}

/// The kind.
#[derive(Debug)]
pub struct RuntimeForm;

impl SaveKind for RuntimeForm {
    const KIND: &'static str = "runtime_form";
    type Slot = RuntimeSlot;
    type Payload = RuntimeObservation;
    type Intent = FormIntent;
    type Receipt = RuntimeRawSaveOutcome;

    fn slot(save_id: &SaveId, _intent: &FormIntent) -> RuntimeSlot {
        RuntimeSlot::Form(save_id.clone())
    }

    /// One form save per file at a time: a second submit shares the job in flight (I-1).
    fn intent_key(intent: &FormIntent) -> String {
        intent.path.clone()
    }

    fn target(intent: &FormIntent) -> String {
        intent.edit.target()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: FormIntent,
    ) -> BoxFuture<'static, RuntimeRawSaveOutcome> {
        Box::pin(async move {
            let text = match form::apply(&intent.source_text, &intent.edit) {
                Ok(Edited::Changed(text)) => text,
                Ok(Edited::Unchanged) => return SaveOutcome::Unchanged,
                Err(e) => {
                    return SaveOutcome::NotSent {
                        reason: e.to_string(),
                    };
                }
            };
            preview_then_commit(
                &client,
                &auth,
                &intent.path,
                &intent.opening_revision,
                &text,
            )
            .await
        })
    }

    fn payload(event: SaveEvent<Self>) -> RuntimeObservation {
        RuntimeObservation::Form(Box::new(event))
    }
}
