//! Create Keeper `a` on the Keepers roster (sources.md H-14…H-17; protocol.md §9.9).
//! `a` opens `$EDITOR` on the workspace's declaration draft — the template, or a declaration
//! that is still unresolved (not sent, rejected, unconfirmed, in flight), restored as it was
//! (H-17). The returned file is kept as the draft before anything else (drafts survive errors),
//! parsed strictly, and submitted as a `keeper_create` save. A created Keeper clears only the
//! draft that created it (H-16); nothing ever opens its chat on its own (H-17: the roster, read
//! again after the receipt, lists it and `c` opens it when the operator asks).

use super::create_doc;
use crate::actors::keepers::ops::create::{CreateIntent, CreateRoute};
use crate::protocol::keeper_up::{CREATE_ONLY_NOT_SERVED, KEEPER_UP_NOT_SERVED};
use crate::protocol::outcome::SaveClass;
use crate::protocol::outcome::SaveOutcome;
use crate::view::command::UiCommand;
use crate::view::editor::{EditOutcome, EditPurpose, EditRequest, EditResult};
use crate::view::model::Model;
use crate::view::saves::SavePhase;
use crate::view::text::sanitize;
use std::collections::HashMap;

/// One workspace's declaration draft (session only, H-16) and what it was sent as, in which
/// epoch (what its receipt learned about the server's routes holds for that epoch only).
#[derive(Debug, Clone)]
pub struct CreateDraft {
    pub text: String,
    pub sent: Option<CreateIntent>,
    pub sent_epoch: Option<u64>,
}

/// The create flow's UI state.
#[derive(Debug, Default)]
pub struct CreateUi {
    /// Drafts by workspace.
    pub drafts: HashMap<String, CreateDraft>,
    /// The workspace an open declaration edit belongs to.
    pub editing: Option<String>,
    /// The route the open edit will be sent by.
    pub editing_route: CreateRoute,
}

/// What this epoch's last create of the draft learned about the create routes (§15.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Routes {
    /// Nothing refused: the create-only route is tried (every create starts there).
    CreateOnly,
    /// The create-only route is not served: `/up` after the existence check is offered.
    UpOnly,
    /// Neither route is served.
    Neither,
}

fn routes(model: &Model, workspace: &str, draft: Option<&CreateDraft>, epoch: u64) -> Routes {
    let Some((sent, true)) =
        draft.and_then(|d| d.sent.as_ref().map(|s| (s, d.sent_epoch == Some(epoch))))
    else {
        return Routes::CreateOnly;
    };
    let refused = model
        .keepers
        .ops
        .create
        .entries()
        .rev()
        .find(|e| e.workspace == workspace && &e.intent == sent)
        .and_then(|e| match &e.phase {
            SavePhase::Ended(SaveOutcome::NotApplied { reason }) => Some(reason.as_str()),
            _ => None,
        });
    match refused {
        Some(CREATE_ONLY_NOT_SERVED) => Routes::UpOnly,
        Some(KEEPER_UP_NOT_SERVED) => Routes::Neither,
        _ => Routes::CreateOnly,
    }
}

/// What the file says before anything is sent through `/up` (§15.11 step 6).
const UP_HEADER: &str = "# up: This MASC has no create-only route. Saving sends MASC's create-or-update\n\
     # up: POST /api/v1/keepers/<name>/up after reading that no Keeper has this name. If a Keeper\n\
     # up: named <name> appears before MASC applies this, it will be reconfigured with these\n\
     # up: settings and restarted. Quit with an error (:cq) to send nothing.\n";

fn with_up_header(text: &str, up: bool) -> String {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("# up: "))
        .map(|l| format!("{l}\n"))
        .collect();
    if up {
        format!("{UP_HEADER}{body}")
    } else {
        body
    }
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
    let route = match routes(
        model,
        &workspace,
        create.drafts.get(&workspace),
        scope.epoch,
    ) {
        Routes::Neither => {
            *notice = Some(
                "new keeper: this MASC serves neither the create-only POST /api/v1/keepers nor \
                 create-or-update /up (learned from the last create) · nothing can be created \
                 here; your declaration is kept"
                    .into(),
            );
            return UiCommand::Repaint;
        }
        Routes::UpOnly => CreateRoute::UpAfterCheck,
        Routes::CreateOnly => CreateRoute::CreateOnly,
    };
    let text = match create.drafts.get(&workspace) {
        Some(draft) => draft.text.clone(),
        None => create_doc::template(),
    };
    let text = with_up_header(&text, route == CreateRoute::UpAfterCheck);
    create.editing = Some(workspace);
    create.editing_route = route;
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
    let route = std::mem::take(&mut create.editing_route);
    let text = match result.outcome {
        EditOutcome::Edited(text) => text,
        EditOutcome::Unchanged
            if with_up_header(&result.original, false)
                != with_up_header(&create_doc::template(), false) =>
        {
            result.original
        }
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
    // §15.11 step 2: the roster is one more witness that the name exists (when it lists
    // every Keeper); the job reads MASC's own store again right before sending.
    let listed = model.keepers.roster.fetched.last().is_some_and(|o| {
        !o.value.truncated && o.value.keepers().any(|k| k.name == declaration.name)
    });
    if route == CreateRoute::UpAfterCheck && listed {
        *notice = Some(format!(
            "new keeper not sent: a Keeper named {} already exists (/up would reconfigure it) · draft kept",
            sanitize(&declaration.name)
        ));
        return UiCommand::Repaint;
    }
    let intent = CreateIntent {
        name: declaration.name,
        declaration: declaration.body,
        route,
    };
    let epoch = model.gate().current().map(|s| s.epoch);
    if let Some(draft) = create.drafts.get_mut(&workspace) {
        draft.sent = Some(intent.clone());
        draft.sent_epoch = epoch;
    }
    super::super::KeeperOp::command::<crate::actors::keepers::ops::create::CreateSave>(intent)
}

fn keep(create: &mut CreateUi, workspace: &str, text: String) {
    create.drafts.insert(
        workspace.to_string(),
        CreateDraft {
            text,
            sent: None,
            sent_epoch: None,
        },
    );
}
