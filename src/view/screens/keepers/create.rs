//! Create Keeper `a` on the Keepers roster (sources.md H-14…H-17; protocol.md §9.9).
//! `a` opens `$EDITOR` on the workspace's declaration draft — the template, or a declaration
//! that is still unresolved (not sent, rejected, unconfirmed, in flight), restored as it was
//! (H-17). The returned file is kept as the draft before anything else (drafts survive errors),
//! parsed strictly, and submitted as a `keeper_create` save. A created Keeper clears only the
//! draft that created it (H-16); nothing ever opens its chat on its own (H-17: the roster, read
//! again after the receipt, lists it and `c` opens it when the operator asks).

use super::create_doc;
use crate::actors::keepers::ops::create::CreateIntent;
use crate::protocol::outcome::SaveClass;
use crate::view::command::UiCommand;
use crate::view::editor::{EditOutcome, EditPurpose, EditRequest, EditResult};
use crate::view::model::Model;
use crate::view::text::sanitize;
use std::collections::HashMap;

/// One workspace's declaration draft (session only, H-16) and what it was sent as.
#[derive(Debug, Clone)]
pub struct CreateDraft {
    pub text: String,
    pub sent: Option<CreateIntent>,
}

/// The create flow's UI state.
#[derive(Debug, Default)]
pub struct CreateUi {
    /// Drafts by workspace.
    pub drafts: HashMap<String, CreateDraft>,
    /// The workspace an open declaration edit belongs to.
    pub editing: Option<String>,
}

/// Whether `draft` created its Keeper (its own save applied).
fn created(model: &Model, workspace: &str, draft: &CreateDraft) -> bool {
    let Some(sent) = &draft.sent else {
        return false;
    };
    model
        .keepers
        .ops
        .create
        .entries()
        .rev()
        .filter(|e| e.workspace == workspace && &e.intent == sent)
        .any(|e| e.phase.class() == Some(SaveClass::Applied))
}

/// `a`: the editor on the draft (or the template).
pub fn key(create: &mut CreateUi, notice: &mut Option<String>, model: &Model) -> UiCommand {
    let Some(scope) = model.gate().current() else {
        *notice = Some("new keeper: workspace not confirmed".into());
        return UiCommand::Repaint;
    };
    let workspace = scope.workspace.0.clone();
    // H-16: success clears only its own draft.
    if create
        .drafts
        .get(&workspace)
        .is_some_and(|d| created(model, &workspace, d))
    {
        create.drafts.remove(&workspace);
    }
    let text = match create.drafts.get(&workspace) {
        Some(draft) => draft.text.clone(),
        None => create_doc::template(),
    };
    create.editing = Some(workspace);
    UiCommand::Edit(EditRequest::new(EditPurpose::KeeperCreate, text, ".toml"))
}

/// The editor returned the declaration.
pub fn edited(
    create: &mut CreateUi,
    notice: &mut Option<String>,
    model: &Model,
    result: EditResult,
) -> UiCommand {
    let Some(workspace) = create.editing.take() else {
        *notice = Some(result.notice());
        return UiCommand::Repaint;
    };
    let text = match result.outcome {
        EditOutcome::Edited(text) => text,
        EditOutcome::Unchanged if result.original != create_doc::template() => result.original,
        EditOutcome::Aborted {
            text: Some(text), ..
        } => {
            // Not sent, but what was typed is kept for the next `a`.
            keep(create, &workspace, text);
            *notice = Some("new keeper: editor aborted, nothing sent (draft kept)".into());
            return UiCommand::Repaint;
        }
        other => {
            *notice = Some(format!("new keeper: {other}"));
            return UiCommand::Repaint;
        }
    };
    keep(create, &workspace, text.clone());
    let same_workspace = model
        .gate()
        .current()
        .is_some_and(|s| s.workspace.0 == workspace);
    if !same_workspace {
        *notice =
            Some("new keeper not sent: the workspace changed while editing (draft kept)".into());
        return UiCommand::Repaint;
    }
    let declaration = match create_doc::parse(&text) {
        Ok(d) => d,
        Err(why) => {
            *notice = Some(format!(
                "new keeper not sent: {} · a reopens your declaration",
                sanitize(&why)
            ));
            return UiCommand::Repaint;
        }
    };
    let intent = CreateIntent {
        name: declaration.name,
        declaration: declaration.body,
    };
    if let Some(draft) = create.drafts.get_mut(&workspace) {
        draft.sent = Some(intent.clone());
    }
    super::KeeperOp::command::<crate::actors::keepers::ops::create::CreateSave>(intent)
}

fn keep(create: &mut CreateUi, workspace: &str, text: String) {
    create
        .drafts
        .insert(workspace.to_string(), CreateDraft { text, sent: None });
}
