//! Chat sends from the screen (protocol.md §4.3, §14.13, §14.15): a send submitted on the one
//! save path (its companion holds it while an interrupt of its Keeper is in flight), released
//! after the interrupt's answer, and drafts put back when nothing left.

use super::{Ui, draft_key, workspace_of};
use crate::actors::chat::{ChatSend, ChatSendIntent};
use crate::view::composer::Draft;
use crate::view::effects::Effects;
use crate::view::save_path::SaveRequest;

/// Sends `text` as a chat send (a save, §4.3, through the one save path); `Ok(request_id)`
/// once it is handed to the save hub (or held: its companion keeps it while an interrupt of
/// this Keeper is in flight, §14.13, C-36), `Err(notice)` when nothing left (the draft is back
/// in the composer then).
pub(super) fn send(
    ui: &mut Ui,
    fx: &mut Effects<'_>,
    keeper: String,
    text: String,
    draft: Draft,
) -> Result<String, String> {
    let model = &*fx.model;
    let workspace = model.gate().current().map(|s| s.workspace.0.clone());
    let (Some(workspace), Some(_)) = (workspace, model.chat.pane.as_ref()) else {
        restore_draft(ui, &workspace_of(model), &keeper, draft);
        return Err("not sent: workspace not confirmed".into());
    };
    // A text taken back unchanged is the same send: the same request id (§4.3), so a copy
    // that still arrives and this one are one operation on the server.
    let (request_id, attempt) = model
        .chat
        .pane
        .as_ref()
        .and_then(|p| p.taken_back(&text))
        .map_or_else(
            || (crate::outbox::new_request_id(), 0),
            |(id, attempt)| (id.to_string(), attempt + 1),
        );
    let intent = ChatSendIntent {
        control_token: model
            .chat
            .control
            .token(&workspace, &keeper)
            .map(str::to_string),
        keeper,
        request_id,
        text,
        attempt,
    };
    submit_send(ui, fx, intent, draft)
}

/// `Ctrl-O`: the newest send of this chat that nothing more will confirm (not recorded after
/// its window, or on a MASC that cannot reconcile) gives its text back to the draft, once.
pub(super) fn take_back(ui: &mut Ui, fx: &mut Effects<'_>, keeper: &str) -> Option<String> {
    let workspace = workspace_of(fx.model);
    let pane = fx.model.chat.pane.as_mut().filter(|p| p.keeper == keeper)?;
    let Some(text) = pane.take_back() else {
        return Some(
            "Ctrl-O: no send to take back — only one nothing more will confirm gives its text back"
                .into(),
        );
    };
    // Its durable mark (C-65): never given back again after a reopen or a restart.
    let effects = pane.take_effects();
    restore_draft(ui, &workspace, keeper, plain_draft(text));
    super::apply_effects(ui, fx, effects);
    Some(
        "the text is back in the draft — it may still arrive; sent unchanged it keeps its request id"
            .into(),
    )
}

/// Submits a send; when nothing left its text goes back to the draft.
pub(super) fn submit_send(
    ui: &mut Ui,
    fx: &mut Effects<'_>,
    intent: ChatSendIntent,
    draft: Draft,
) -> Result<String, String> {
    let request_id = intent.request_id.clone();
    let keeper = intent.keeper.clone();
    match fx.submit(SaveRequest::new::<ChatSend>(intent)) {
        Ok(submitted) => {
            if let Some(notice) = submitted.notice {
                ui.notice.text = Some(notice);
            }
            Ok(request_id)
        }
        Err(refusal) => {
            let workspace = workspace_of(fx.model);
            restore_draft(ui, &workspace, &keeper, draft);
            Err(refusal.words)
        }
    }
}

pub(super) fn plain_draft(text: String) -> Draft {
    Draft {
        cursor: text.len(),
        text,
        spills: Vec::new(),
    }
}

/// Inputs held while an interrupt was in flight (§14.13): once their Keeper's interrupt has
/// its answer they are sent, in the order typed, with the chat control token held now (the
/// interrupt's fresh one). One typed in another workspace than the confirmed one is not sent:
/// its text goes back to its draft.
pub(super) fn release_held(ui: &mut Ui, fx: &mut Effects<'_>) -> bool {
    let model = &mut *fx.model;
    let control = &mut model.chat.control;
    if control.held.is_empty() {
        return false;
    }
    let interrupts = &control.interrupts;
    let ready = control
        .held
        .release(|workspace, keeper| interrupts.in_flight(keeper, workspace).is_some());
    let changed = !ready.is_empty();
    for held in ready {
        let here = fx
            .model
            .gate()
            .current()
            .is_some_and(|s| s.workspace.0 == held.workspace);
        if !here || fx.save_hub().is_none() {
            if let Some(pane) = fx.model.chat.pane.as_mut() {
                pane.forget(&held.request_id);
            }
            restore_draft(ui, &held.workspace, &held.keeper, plain_draft(held.text));
            ui.notice.text = Some("held input not sent: the text is back in the draft".into());
            continue;
        }
        let intent = ChatSendIntent {
            control_token: fx
                .model
                .chat
                .control
                .token(&held.workspace, &held.keeper)
                .map(str::to_string),
            keeper: held.keeper,
            request_id: held.request_id,
            text: held.text,
            attempt: 0,
        };
        let draft = plain_draft(intent.text.clone());
        if let Err(notice) = submit_send(ui, fx, intent, draft) {
            ui.notice.text = Some(notice);
        }
    }
    changed
}

/// `back` after `current` on a new line (a draft typed since keeps its place first); the
/// cursor at the end, both drafts' paste spills kept.
pub(super) fn merged(current: Draft, back: Draft) -> Draft {
    if current.is_empty() {
        return back;
    }
    let text = format!("{}\n{}", current.text, back.text);
    let mut spills = current.spills;
    spills.extend(back.spills);
    Draft {
        cursor: text.len(),
        text,
        spills,
    }
}

/// Puts `draft` back into the draft of (workspace, keeper): the open composer when it is that
/// chat, else the stored draft; appended on a new line when a draft exists.
pub(super) fn restore_draft(ui: &mut Ui, workspace: &str, keeper: &str, draft: Draft) {
    if let Some(chat) = ui
        .layer_mut::<super::ChatUi>()
        .filter(|c| c.keeper == keeper && c.workspace == workspace)
    {
        let current = chat.composer.take_draft();
        chat.composer.restore_draft(merged(current, draft));
        return;
    }
    let key = draft_key(workspace, keeper);
    ui.layers.with_kept(|kept: &mut super::ChatKept| {
        let current = kept.drafts.take(&key).unwrap_or_default();
        kept.drafts.put(key, merged(current, draft));
    });
}
