//! The System surface's kinds: the Runtime model/account form (I-1…I-4) and raw
//! `runtime.toml` (J-1…J-5), and a connector bind or unbind (§7.3, §7.4; D-10…D-14).

use super::book_at;
use super::system_after as after;
use crate::actors::saves::SaveKind;
use crate::actors::system::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use crate::actors::system::runtime_form::{FormIntent, RuntimeForm};
use crate::actors::system::runtime_raw::{RawIntent, RuntimeRaw};
use crate::protocol::runtime::form::{self, Edited, FormEdit};
use crate::view::model::Model;
use crate::view::save_path::settle::Confirm;
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, Refused, SaveCompanion, shown};
use crate::view::saves::SaveEntry;

/// What the server does with a `runtime.toml` save after its confirmation (§9.3, §9.4).
const RUNTIME_NOTE: &str = "the server validates the text (preview) before the commit, which is sent with the revision it was opened on: a change made since is a conflict, never overwritten";

impl SaveCompanion for RuntimeForm {
    book_at!(system.forms);
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
    book_at!(system.raws);
    const BUSY: &'static str = "a save of runtime.toml is in flight: not sent again (a newer draft waits for S after its receipt)";

    /// The unified diff from the text of the revision the draft is based on (the shown read
    /// of that revision; without it, the whole text sent).
    fn preview(model: &Model, intent: &RawIntent) -> Option<Preview> {
        let base = model
            .system
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

const BINDING_BUSY: &str = "a binding write on this channel is already in flight";

/// One write per channel in flight, bind or unbind.
fn other_write_in_flight<K: SaveKind<Intent = BindingIntent>>(
    book: &crate::view::saves::SaveBook<K>,
    intent: &BindingIntent,
    workspace: &str,
) -> Result<(), Refused> {
    match book.in_flight(&K::intent_key(intent), workspace) {
        Some(entry) => Err(Refused::InFlight(entry.save_id.clone())),
        None => Ok(()),
    }
}

/// The Keeper the last connectors status shows on `intent`'s channel: `None` when the status
/// is unread or lacks the connector, `Some(None)` when the channel is unbound.
fn bound_now(model: &Model, intent: &BindingIntent) -> Option<Option<String>> {
    let list = model.system.connectors.fetched.last()?;
    let row = list
        .value
        .connectors()
        .find(|row| row.connector_id == intent.connector_id)?;
    Some(
        row.binding_of(&intent.channel_id)
            .map(|b| b.keeper_name.clone()),
    )
}

fn binding_field(intent: &BindingIntent) -> String {
    format!("{} channel {}", intent.connector_id, intent.channel_id)
}

impl SaveCompanion for ConnectorBind {
    book_at!(system.binds);
    const BUSY: &'static str = BINDING_BUSY;

    fn preview(model: &Model, intent: &BindingIntent) -> Option<Preview> {
        let now = bound_now(model, intent).map(|k| shown(k.as_deref()));
        Some(
            Preview::titled(format!(
                "bind {} channel {} to {}",
                intent.connector_id, intent.channel_id, intent.keeper_name
            ))
            .change(Change::new(
                binding_field(intent),
                now,
                intent.keeper_name.clone(),
            ))
            .note("messages on that channel then reach this Keeper"),
        )
    }

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        Some(after::binding_confirm(
            model,
            entry.receipt_mark?,
            &entry.intent,
            true,
        ))
    }

    fn undo(_model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::bind_undo(entry)
    }

    fn admit(model: &Model, intent: &BindingIntent, workspace: &str) -> Result<(), Refused> {
        // §11: a bind the last status already shows is unchanged: not sent.
        if let Some(list) = model.system.connectors.fetched.last()
            && list.value.connectors().any(|row| {
                row.connector_id == intent.connector_id
                    && crate::protocol::outcome::bind_precheck(row, &intent.request()).is_some()
            })
        {
            return Err(Refused::Precheck(
                "already bound to that Keeper: unchanged, not sent".into(),
            ));
        }
        other_write_in_flight(&model.system.unbinds, intent, workspace)
    }
}

impl SaveCompanion for ConnectorUnbind {
    book_at!(system.unbinds);
    const BUSY: &'static str = BINDING_BUSY;

    fn preview(model: &Model, intent: &BindingIntent) -> Option<Preview> {
        let now = bound_now(model, intent).map(|k| shown(k.as_deref()));
        Some(
            Preview::titled(format!(
                "unbind {} channel {} from {}",
                intent.connector_id, intent.channel_id, intent.keeper_name
            ))
            .removes(format!(
                "the binding of {} channel {} to {}",
                intent.connector_id, intent.channel_id, intent.keeper_name
            ))
            .change(Change::new(binding_field(intent), now, "(none)"))
            .note("messages on that channel no longer reach this Keeper"),
        )
    }

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        Some(after::binding_confirm(
            model,
            entry.receipt_mark?,
            &entry.intent,
            false,
        ))
    }

    fn undo(_model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::unbind_undo(entry)
    }

    fn admit(model: &Model, intent: &BindingIntent, workspace: &str) -> Result<(), Refused> {
        other_write_in_flight(&model.system.binds, intent, workspace)
    }
}
