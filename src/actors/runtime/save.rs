//! The one job both `runtime.toml` saves run (protocol.md §9.3, §9.4; §11 runtime raw save and
//! form; sources.md I-1, J-1): preview the exact text, then commit it with CAS on the path and
//! revision it was opened on. The model/account form (`runtime_form`) edits the opened text
//! first; the raw editor (`runtime_raw`) sends the operator's text as it came back from
//! `$EDITOR`. Neither ever resends: the caller's operation runs this once.

use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{
    RuntimeRawSaveOutcome, SaveOutcome, classify_exchange, classify_runtime_raw_save,
    classify_transport, runtime_form_preview_gate,
};
use crate::protocol::runtime::RuntimeRawSaveRequest;

pub const RUNTIME_PREVIEW_PATH: &str = "/api/v1/runtime/config/raw/preview";
pub const RUNTIME_SAVE_PATH: &str = "/api/v1/runtime/config/raw";

/// Previews `text` (§9.3), then commits it with CAS on `path` and `revision` (§9.4): the commit
/// is sent only after a 200 preview with `can_save`. A preview that refuses the text is
/// `NotApplied` (its reason carries the server's own error); a preview that never answered is
/// `NotSent` (a preview writes nothing). The commit's answer is the §11 raw-save receipt.
pub async fn preview_then_commit(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    path: &str,
    revision: &str,
    text: &str,
) -> RuntimeRawSaveOutcome {
    let preview = client
        .post_json(
            auth,
            RUNTIME_PREVIEW_PATH,
            &serde_json::json!({ "source_text": text }),
        )
        .await;
    match classify_transport::<(), ()>(&preview) {
        // A preview writes nothing: whatever became of it, no commit was sent.
        Err(failed) => {
            return SaveOutcome::NotSent {
                reason: format!(
                    "preview did not answer ({}); nothing committed",
                    failed.reason().unwrap_or("no reason")
                ),
            };
        }
        Ok((status, body)) => {
            if let Err(reason) = runtime_form_preview_gate(status, body) {
                return SaveOutcome::NotApplied { reason };
            }
        }
    }
    let request = RuntimeRawSaveRequest {
        expected_source_revision: revision.to_string(),
    };
    let body = serde_json::json!({
        "source_text": text,
        "expected_source_revision": revision,
        "expected_source_path": path,
    });
    let exchange = client.post_json(auth, RUNTIME_SAVE_PATH, &body).await;
    classify_exchange(&exchange, &request, classify_runtime_raw_save)
}
