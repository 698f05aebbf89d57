//! The System surface's kinds: the Runtime model/account form (I-1…I-4) and raw
//! `runtime.toml` (J-1…J-5), and a connector bind or unbind (§7.3, §7.4; D-10…D-14).

use super::book_at;
use crate::actors::saves::SaveKind;
use crate::actors::system::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use crate::actors::system::runtime_form::RuntimeForm;
use crate::actors::system::runtime_raw::RuntimeRaw;
use crate::view::model::Model;
use crate::view::save_path::{Refused, SaveCompanion};

impl SaveCompanion for RuntimeForm {
    book_at!(system.forms);
    const BUSY: &'static str = "a save of runtime.toml is already in flight";
}

impl SaveCompanion for RuntimeRaw {
    book_at!(system.raws);
    const BUSY: &'static str = "a save of runtime.toml is in flight: not sent again (a newer draft waits for S after its receipt)";
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

impl SaveCompanion for ConnectorBind {
    book_at!(system.binds);
    const BUSY: &'static str = BINDING_BUSY;

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

    fn admit(model: &Model, intent: &BindingIntent, workspace: &str) -> Result<(), Refused> {
        other_write_in_flight(&model.system.binds, intent, workspace)
    }
}
