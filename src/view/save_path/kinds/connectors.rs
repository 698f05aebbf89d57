//! The Connectors surface's kinds: a connector bind or unbind (§7.3, §7.4; D-10…D-14).

use super::book_at;
use super::system_after as after;
use crate::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use crate::actors::saves::SaveKind;
use crate::view::model::Model;
use crate::view::save_path::settle::Confirm;
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, Refused, SaveCompanion, shown};
use crate::view::saves::SaveEntry;

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
    let list = model.connectors.status.fetched.last()?;
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
    book_at!(connectors.binds);
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
        if let Some(list) = model.connectors.status.fetched.last()
            && list.value.connectors().any(|row| {
                row.connector_id == intent.connector_id
                    && crate::protocol::outcome::bind_precheck(row, &intent.request()).is_some()
            })
        {
            return Err(Refused::Precheck(
                "already bound to that Keeper: unchanged, not sent".into(),
            ));
        }
        other_write_in_flight(&model.connectors.unbinds, intent, workspace)
    }
}

impl SaveCompanion for ConnectorUnbind {
    book_at!(connectors.unbinds);
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
        other_write_in_flight(&model.connectors.binds, intent, workspace)
    }
}
