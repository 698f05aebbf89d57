//! The view actor's save submissions of issue 12: a composed Board post (§8.4) and a
//! connector bind or unbind (§7.3, §7.4). Each is registered in its surface's `SaveBook`
//! first (so its receipt has a place to land), then handed to the save hub by a cast: key
//! handling never awaits.

use super::ViewState;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    /// Submits a composed Board post as a save (§8.4): registered in the model first, then
    /// handed to the save hub (a cast). Never resent by anything but the operator.
    pub(super) fn post(
        &mut self,
        intent: crate::actors::board::compose::PostIntent,
    ) -> Option<&'static str> {
        use crate::actors::board::compose::BoardPost;
        use crate::actors::saves::{SAVES, SaveCommand, SaveId, hub::Save};
        let Some(scope) = self.model.gate().current().cloned() else {
            return Some("not sent: workspace not confirmed");
        };
        let workspace = scope.workspace.0.clone();
        if self
            .model
            .board
            .composed
            .in_flight(&intent.draft_id, &workspace)
            .is_some()
        {
            return Some("this draft is already being sent");
        }
        let save_id = SaveId::fresh();
        self.model
            .board
            .composed
            .submit(save_id.clone(), intent.clone(), workspace);
        let hub = self
            .sources
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>());
        let submission = Save::<BoardPost>::submission(save_id.clone(), intent, scope);
        if hub.is_some_and(|hub| hub.send_message(SaveCommand::Submit(submission)).is_ok()) {
            return None;
        }
        self.model
            .board
            .composed
            .refuse_locally(&save_id, "the save hub is not running");
        Some("not sent: save hub not running")
    }

    /// Submits a connector bind or unbind as a save (§7.3, §7.4): registered in the model
    /// first, then handed to the save hub (a cast). One write per channel in flight.
    pub(super) fn bind(
        &mut self,
        unbind: bool,
        intent: crate::actors::system::binding::BindingIntent,
    ) -> Option<&'static str> {
        use crate::actors::saves::{SAVES, SaveCommand, SaveId, SaveKind, hub::Save};
        use crate::actors::system::binding::{ConnectorBind, ConnectorUnbind};
        let Some(scope) = self.model.gate().current().cloned() else {
            return Some("not sent: workspace not confirmed");
        };
        let workspace = scope.workspace.0.clone();
        let key = ConnectorBind::intent_key(&intent);
        let system = &self.model.system;
        // §11: a bind the last status already shows is unchanged: not sent.
        if !unbind
            && let Some(list) = system.connectors.fetched.last()
            && list.value.connectors().any(|row| {
                row.connector_id == intent.connector_id
                    && crate::protocol::outcome::bind_precheck(row, &intent.request()).is_some()
            })
        {
            return Some("already bound to that Keeper: unchanged, not sent");
        }
        if system.binds.in_flight(&key, &workspace).is_some()
            || system.unbinds.in_flight(&key, &workspace).is_some()
        {
            return Some("a binding write on this channel is already in flight");
        }
        let save_id = SaveId::fresh();
        let submission = if unbind {
            self.model
                .system
                .unbinds
                .submit(save_id.clone(), intent.clone(), workspace);
            Save::<ConnectorUnbind>::submission(save_id.clone(), intent, scope)
        } else {
            self.model
                .system
                .binds
                .submit(save_id.clone(), intent.clone(), workspace);
            Save::<ConnectorBind>::submission(save_id.clone(), intent, scope)
        };
        let hub = self
            .sources
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>());
        if hub.is_some_and(|hub| hub.send_message(SaveCommand::Submit(submission)).is_ok()) {
            return None;
        }
        let reason = "the save hub is not running";
        if unbind {
            self.model.system.unbinds.refuse_locally(&save_id, reason);
        } else {
            self.model.system.binds.refuse_locally(&save_id, reason);
        }
        Some("not sent: save hub not running")
    }
}
