//! The one submit function ([`submit`]), and a request made for a known kind
//! ([`SaveRequest::new`]): the kind's companion checks it, stages it for its confirmation or
//! registers it and casts it to the save hub.

use super::companion::{SaveCompanion, SaveLedger};
use super::refusal::{Refused, SaveRefusal};
use super::request::{Pending, SaveRequest, Staged, Submitted};
use crate::actors::saves::hub::Save;
use crate::actors::saves::{SaveCommand, SaveId, SaveKind};
use crate::view::model::Model;
use ractor::DerivedActorRef;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

struct Typed<K: SaveKind>(K::Intent);

impl<K: SaveCompanion> Pending for Typed<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }

    fn intent(&self) -> &dyn Any {
        &self.0
    }

    fn same(&self, other: &dyn Pending) -> bool {
        other.kind() == K::KIND && other.intent().downcast_ref::<K::Intent>() == Some(&self.0)
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", K::KIND, self.0)
    }

    fn submit(
        &self,
        model: &mut Model,
        hub: Option<&DerivedActorRef<SaveCommand>>,
        request: &SaveRequest,
    ) -> Result<Submitted, SaveRefusal> {
        submit_kind::<K>(model, hub, self.0.clone(), Stage { request })
    }
}

impl SaveRequest {
    /// A save of kind `K` of `intent`, asked with `Enter` (its preview, if its kind has one,
    /// is confirmed with `Enter` again).
    pub fn new<K: SaveCompanion>(intent: K::Intent) -> Self {
        Self::of(Arc::new(Typed::<K>(intent)))
    }
}

/// Submits `request`: checked by its kind's companion, staged for its confirmation when it has
/// a preview and is not confirmed yet, else registered in its book and cast to `hub`. The cast
/// is the only effect outside `model`; nothing waits.
pub fn submit(
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    request: SaveRequest,
) -> Result<Submitted, SaveRefusal> {
    request.pending.submit(model, hub, &request)
}

/// Where the request stands before its commit: confirmed or not, and its confirming key.
#[derive(Clone, Copy)]
struct Stage<'r> {
    request: &'r SaveRequest,
}

/// Submits a save of kind `K`: checked by its companion, staged for its confirmation or
/// registered in its book and cast to `hub`.
fn submit_kind<K: SaveCompanion>(
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
