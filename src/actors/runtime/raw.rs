//! The raw config save (protocol.md §9.3, §9.4; §11 runtime raw save; sources.md J-1…J-4):
//! the operator's whole `runtime.toml`, as it came back from `$EDITOR`, saved against the path
//! and revision of the read it was based on.
//!
//! The intent is the text with that path and revision (J-1): a save after an edit and an `S`
//! retry submit the same three values, and run the same job as the model/account form
//! ([`super::save::preview_then_commit`]: the server's preview validates the text —
//! an invalid TOML is the preview's own error, nothing committed — then the CAS commit). One
//! job per file: a second submit while one is in flight shares it. Never resent; which base a
//! retry may use is the view's rule (J-3, J-4: `u` / `U` after a new read).

use super::save::preview_then_commit;
use super::{RuntimeObservation, RuntimeSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::RuntimeRawSaveOutcome;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// A raw save as submitted: the text and the base it is saved against (J-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawIntent {
    /// The base read's path and revision (§9.4 `expected_source_path` / `_revision`).
    pub path: String,
    pub revision: String,
    /// The whole file as the operator wrote it.
    pub text: String,
    /// The base read's text (the file the edit started from): what a committed save replaced,
    /// exactly, since the commit is CAS on the base revision — its undo writes it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_text: Option<String>,
}

/// The kind.
#[derive(Debug)]
pub struct RuntimeRaw;

impl SaveKind for RuntimeRaw {
    const KIND: &'static str = "runtime_raw";
    type Slot = RuntimeSlot;
    type Payload = RuntimeObservation;
    type Intent = RawIntent;
    type Receipt = RuntimeRawSaveOutcome;

    fn slot(save_id: &SaveId, _intent: &RawIntent) -> RuntimeSlot {
        RuntimeSlot::Raw(save_id.clone())
    }

    /// One raw save per file at a time: a second submit shares the job in flight (J-1).
    fn intent_key(intent: &RawIntent) -> String {
        intent.path.clone()
    }

    /// The file, never its text (G-10: identifiers only).
    fn target(intent: &RawIntent) -> String {
        format!("raw:{}", intent.path)
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: RawIntent,
    ) -> BoxFuture<'static, RuntimeRawSaveOutcome> {
        Box::pin(async move {
            preview_then_commit(&client, &auth, &intent.path, &intent.revision, &intent.text).await
        })
    }

    fn payload(event: SaveEvent<Self>) -> RuntimeObservation {
        RuntimeObservation::Raw(Box::new(event))
    }
}
