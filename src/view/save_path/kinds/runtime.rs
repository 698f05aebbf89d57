//! The Runtime surface's kinds: the model/account form (I-1…I-4) and raw `runtime.toml`
//! (J-1…J-5).

use super::book_at;
use super::system_after as after;
use crate::actors::runtime::form::{FormIntent, RuntimeForm};
use crate::actors::runtime::raw::{RawIntent, RuntimeRaw};
use crate::protocol::runtime::form::{self, Edited, FormEdit};
use crate::view::model::Model;
use crate::view::save_path::settle::Confirm;
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, SaveCompanion, shown};
use crate::view::saves::SaveEntry;

const RUNTIME_NOTE: &str = "the server validates the text (preview) before the commit, which is sent with the revision it was opened on: a change made since is a conflict, never overwritten";

impl SaveCompanion for RuntimeForm {
    book_at!(runtime.forms);
    const BUSY: &'static str = "a save of runtime.toml is already in flight";

    /// The field old → new and the file's unified diff, made on the text the form opened on;
    /// an edit that changes nothing (or cannot be made) has nothing to preview — its job says
    /// so without sending anything.
    fn preview(_model: &Model, intent: &FormIntent) -> Option<Preview> {
        let Ok(Edited::Changed(text)) = form::apply(&intent.source_text, &intent.edit) else {
            return None;
        };
        let preview = match &intent.edit {
            FormEdit::SetContextOverride { runtime_id, value } => {
                let old = form::context_override(&intent.source_text, runtime_id);
                Preview::titled(format!("set {runtime_id}'s max_context_override")).change(
                    Change::new(
                        "max_context_override",
                        Some(shown(old.map(|v| v.to_string()).as_deref())),
                        value.to_string(),
                    ),
                )
            }
            FormEdit::ClearContextOverride { runtime_id } => {
                let old = form::context_override(&intent.source_text, runtime_id);
                Preview::titled(format!("clear {runtime_id}'s max_context_override")).change(
                    Change::new(
                        "max_context_override",
                        Some(shown(old.map(|v| v.to_string()).as_deref())),
                        "(none: the model's own window)",
                    ),
                )
            }
            FormEdit::AddAccount {
                integration_id,
                group,
                email,
            } => Preview::titled(format!("add account {integration_id}"))
                .change(Change::new(
                    "integration_id",
                    Some("(none)".into()),
                    integration_id,
                ))
                .change(Change::new(
                    "group",
                    Some("(none)".into()),
                    shown(group.as_deref()),
                ))
                .change(Change::new(
                    "email",
                    Some("(none)".into()),
                    shown(email.as_deref()),
                )),
        };
        Some(
            preview
                .file(&intent.path, &intent.source_text, &text)
                .note(RUNTIME_NOTE),
        )
    }

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::form_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::form_undo(model, entry)
    }
}

impl SaveCompanion for RuntimeRaw {
    book_at!(runtime.raws);
    const BUSY: &'static str = "a save of runtime.toml is in flight: not sent again (a newer draft waits for S after its receipt)";

    /// The unified diff from the text of the revision the draft is based on (the shown read
    /// of that revision; without it, the whole text sent).
    fn preview(model: &Model, intent: &RawIntent) -> Option<Preview> {
        let base = model
            .runtime
            .config
            .fetched
            .last()
            .filter(|o| o.value.source_revision == intent.revision && o.value.path == intent.path)
            .map(|o| o.value.source_text.clone());
        let title = format!("save {}", intent.path);
        let revision = intent.revision.get(..12).unwrap_or(&intent.revision);
        Some(match base {
            Some(base) => Preview::titled(title)
                .file(&intent.path, &base, &intent.text)
                .note(format!("based on revision {revision}"))
                .note(RUNTIME_NOTE),
            None => Preview::titled(title)
                .note(format!(
                    "the text of revision {revision} is not in view: the whole file below is what is sent"
                ))
                .file(&intent.path, "", &intent.text)
                .note(RUNTIME_NOTE),
        })
    }

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::raw_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::raw_undo(model, entry)
    }
}
