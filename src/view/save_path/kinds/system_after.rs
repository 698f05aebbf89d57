//! The System kinds after their receipt: a `runtime.toml` commit is confirmed by a re-read of
//! the raw config at the committed revision (§9.2) and undone by a CAS commit of the text it
//! replaced against that revision (§9.4); a binding write is confirmed by the connectors
//! status (§7.1) and undone by the opposite write (§7.3, §7.4).

use crate::actors::connectors::CONNECTORS;
use crate::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use crate::actors::runtime::RUNTIME_CONFIG;
use crate::actors::runtime::form::RuntimeForm;
use crate::actors::runtime::raw::{RawIntent, RuntimeRaw};
use crate::protocol::outcome::{RuntimeRawSaveOutcome, SaveOutcome};
use crate::protocol::runtime::form::{self, Edited};
use crate::view::admission::ViewMark;
use crate::view::model::Model;
use crate::view::save_path::SaveRequest;
use crate::view::save_path::settle::{Check, Confirm};
use crate::view::save_path::undo::Undo;
use crate::view::saves::SaveEntry;
use crate::view::text::sanitize;

/// The revision a commit produced.
fn committed(receipt: Option<&RuntimeRawSaveOutcome>) -> Option<&str> {
    match receipt? {
        SaveOutcome::Applied { detail, .. } => Some(detail.commit.source_revision.as_str()),
        _ => None,
    }
}

fn short(revision: &str) -> &str {
    revision.get(..12).unwrap_or(revision)
}

/// The raw config read after `mark` shows revision `want` of `path`.
fn config_confirm(model: &Model, mark: ViewMark, path: &str, want: Option<&str>) -> Confirm {
    let check = match (model.runtime.config.value_since(mark), want) {
        (None, _) => Check::NotYet,
        // Unchanged or unknown: the re-read shows the file; nothing names a revision to match.
        (Some(_), None) => Check::Shown,
        (Some(read), Some(want)) if read.path == path && read.source_revision == want => {
            Check::Shown
        }
        (Some(read), Some(_)) => {
            Check::Differs(format!("runtime.toml at {}", short(&read.source_revision)))
        }
    };
    let check = check.or_failed(&model.runtime.config, mark);
    Confirm::by_sources(check, &[RUNTIME_CONFIG])
}

pub fn form_confirm(model: &Model, entry: &SaveEntry<RuntimeForm>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let want = committed(entry.phase.receipt());
    Some(config_confirm(model, mark, &entry.intent.path, want))
}

pub fn raw_confirm(model: &Model, entry: &SaveEntry<RuntimeRaw>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let want = committed(entry.phase.receipt());
    Some(config_confirm(model, mark, &entry.intent.path, want))
}

/// The raw save that writes `before` back over `after` (the text the undone save wrote) at
/// `revision`, refused when the newest read shows the file moved since.
fn write_back(model: &Model, path: &str, revision: &str, before: String, after: String) -> Undo {
    if let Some(read) = model.runtime.config.fetched.last()
        && read.value.path == path
        && read.value.source_revision != revision
    {
        return Undo::NotNow(format!(
            "runtime.toml moved again since this save (now {}): nothing to put back exactly",
            short(&read.value.source_revision)
        ));
    }
    Undo::Exact {
        request: SaveRequest::new::<RuntimeRaw>(RawIntent {
            path: path.to_string(),
            revision: revision.to_string(),
            text: before,
            base_text: Some(after),
        }),
        writes: format!(
            "runtime.toml back to the text before {} (CAS on {})",
            short(revision),
            short(revision)
        ),
    }
}

pub fn form_undo(model: &Model, entry: &SaveEntry<RuntimeForm>) -> Undo {
    let Some(revision) = committed(entry.phase.receipt()) else {
        return Undo::NotNow("it was not committed".into());
    };
    let intent = &entry.intent;
    let Ok(Edited::Changed(after)) = form::apply(&intent.source_text, &intent.edit) else {
        return Undo::NotNow("the text it wrote cannot be made again".into());
    };
    write_back(
        model,
        &intent.path,
        revision,
        intent.source_text.clone(),
        after,
    )
}

pub fn raw_undo(model: &Model, entry: &SaveEntry<RuntimeRaw>) -> Undo {
    let Some(revision) = committed(entry.phase.receipt()) else {
        return Undo::NotNow("it was not committed".into());
    };
    let intent = &entry.intent;
    let Some(before) = intent.base_text.clone() else {
        return Undo::NotNow("the text before it is not recorded".into());
    };
    write_back(model, &intent.path, revision, before, intent.text.clone())
}

/// The connectors status read after `mark` shows `intent`'s binding (`bound`) or not.
pub fn binding_confirm(
    model: &Model,
    mark: ViewMark,
    intent: &BindingIntent,
    bound: bool,
) -> Confirm {
    let check = match model.connectors.status.value_since(mark) {
        None => Check::NotYet,
        Some(status) => {
            let shown = status.connectors().any(|c| {
                c.connector_id == intent.connector_id
                    && c.configured_bindings.iter().any(|b| {
                        b.channel_id == intent.channel_id && b.keeper_name == intent.keeper_name
                    })
            });
            if shown == bound {
                Check::Shown
            } else {
                Check::Differs(format!(
                    "{} {} bound to {}",
                    sanitize(&intent.channel_id),
                    if shown { "still" } else { "not" },
                    sanitize(&intent.keeper_name)
                ))
            }
        }
    };
    let check = check.or_failed(&model.connectors.status, mark);
    Confirm::by_sources(check, &[CONNECTORS])
}

pub fn bind_undo(entry: &SaveEntry<ConnectorBind>) -> Undo {
    let intent = entry.intent.clone();
    let writes = format!(
        "unbind {} from {}",
        sanitize(&intent.channel_id),
        sanitize(&intent.keeper_name)
    );
    Undo::Exact {
        request: SaveRequest::new::<ConnectorUnbind>(intent),
        writes,
    }
}

pub fn unbind_undo(entry: &SaveEntry<ConnectorUnbind>) -> Undo {
    let intent = entry.intent.clone();
    let writes = format!(
        "bind {} to {} again",
        sanitize(&intent.channel_id),
        sanitize(&intent.keeper_name)
    );
    Undo::Exact {
        request: SaveRequest::new::<ConnectorBind>(intent),
        writes,
    }
}
