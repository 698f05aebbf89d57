//! The one submit function, for a known kind ([`submit_kind`]); a [`super::SaveRequest`] runs it.

use super::companion::{SaveCompanion, SaveLedger};
use super::refusal::{Refused, SaveRefusal, Staged, Submitted};
use super::request::SaveRequest;
use crate::actors::saves::hub::Save;
use crate::actors::saves::{SaveCommand, SaveId};
use crate::view::model::Model;
use ractor::DerivedActorRef;

/// Where the request stands before its commit: confirmed or not, and its confirming key.
#[derive(Clone, Copy)]
pub struct Stage<'r> {
    pub(super) request: &'r SaveRequest,
}

/// Submits a save of kind `K`: checked by its companion, staged for its confirmation or
/// registered in its book and cast to `hub` (`super::submit` for a request of any kind).
pub(super) fn submit_kind<K: SaveCompanion>(
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    intent: K::Intent,
    stage: Stage<'_>,
) -> Result<Submitted, SaveRefusal> {
    let result = checked::<K>(model, hub, &intent, stage);
    if result.as_ref().is_ok_and(|s| s.staged.is_some()) {
        // Nothing happened yet: the companion reacts to the commit, not to its preview.
        return result.map_err(|why| SaveRefusal {
            kind: K::KIND,
            words: K::refusal_words(&why, &intent),
            why,
        });
    }
    let notice = K::after_submit(model, &intent, result.as_ref().is_ok_and(|s| !s.held));
    match result {
        Ok(mut submitted) => {
            if notice.is_some() {
                submitted.notice = notice;
            }
            Ok(submitted)
        }
        Err(why) => Err(SaveRefusal {
            kind: K::KIND,
            words: K::refusal_words(&why, &intent),
            why,
        }),
    }
}

fn checked<K: SaveCompanion>(
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    intent: &K::Intent,
    stage: Stage<'_>,
) -> Result<Submitted, Refused> {
    let Some(scope) = model.gate().current().cloned() else {
        return Err(Refused::NoWorkspace);
    };
    let workspace = scope.workspace.0.clone();
    K::admit(model, intent, &workspace)?;
    if let Some(id) = K::book(model, intent).and_then(|b| b.in_flight(intent, &workspace)) {
        return Err(Refused::InFlight(id));
    }
    let request = stage.request;
    if !request.is_confirmed()
        && let Some(preview) = K::preview(model, intent)
    {
        return Ok(Submitted {
            save_id: SaveId::fresh(),
            held: true,
            notice: None,
            staged: Some(Box::new(Staged {
                preview,
                request: request.clone().confirmed(),
                key: request.key(),
            })),
        });
    }
    let save_id = K::save_id(intent);
    if let Some(notice) = K::hold(model, &save_id, intent, &workspace) {
        return Ok(Submitted {
            save_id,
            held: true,
            notice: Some(notice),
            staged: None,
        });
    }
    if let Some(book) = K::book_mut(model, intent) {
        book.register(&save_id, intent, &workspace);
    }
    let sent = match hub {
        Some(hub) => hub
            .send_message(SaveCommand::Submit(Save::<K>::submission(
                save_id.clone(),
                intent.clone(),
                scope,
            )))
            .map_err(|_| true),
        None => Err(false),
    };
    match sent {
        Ok(()) => Ok(Submitted {
            save_id,
            held: false,
            notice: None,
            staged: None,
        }),
        Err(stopped) => {
            if let Some(book) = K::book_mut(model, intent) {
                book.refuse_locally(&save_id, intent, "the save hub is not running");
            }
            Err(Refused::NoHub { save_id, stopped })
        }
    }
}
