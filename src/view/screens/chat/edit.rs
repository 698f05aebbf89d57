//! What comes back from `Ctrl-X` (the draft in the operator's `$EDITOR`): an edited text
//! becomes the draft of the chat it was opened from — never sent by itself. Anything else
//! leaves the draft as it was and says why on the composer's footer.

use super::{ChatUi, Ui};
use crate::protocol::admission::WorkspaceId;
use crate::view::command::UiCommand;
use crate::view::composer::paste::clean_foreign_text;
use crate::view::composer::{Draft, DraftKey};
use crate::view::editor::{EditOutcome, EditPurpose, EditResult};
use crate::view::screens::LayerOwner;
use std::time::Instant;

/// The continuation of an edit asked for while this chat was in front, the chat still open.
pub fn edited(chat: &mut ChatUi, result: EditResult) -> UiCommand {
    match (&result.purpose, &result.outcome) {
        (EditPurpose::ChatMessage, EditOutcome::Edited(text)) => {
            chat.composer.set_text(&draft_text(text))
        }
        _ => chat
            .composer
            .report_failure(result.notice(), Instant::now()),
    }
    UiCommand::Repaint
}

/// The continuation of an edit whose chat closed before it came back (a move while the editor
/// was opening): an edited text is kept as that Keeper's draft, as navigation keeps drafts.
pub fn edited_closed(ui: &mut Ui, owner: &LayerOwner, result: EditResult) -> UiCommand {
    let text = match (&result.purpose, &result.outcome) {
        (EditPurpose::ChatMessage, EditOutcome::Edited(text)) => draft_text(text),
        _ => {
            ui.notice.text = Some(result.notice());
            return UiCommand::Repaint;
        }
    };
    let cursor = text.len();
    let key = DraftKey::new(WorkspaceId(owner.workspace.clone()), &owner.key);
    let draft = Draft {
        text,
        cursor,
        spills: Vec::new(),
    };
    ui.layers
        .with_kept(|kept: &mut super::ChatKept| kept.drafts.put(key, draft));
    ui.notice.text = Some(format!(
        "edited text kept as the draft for {}",
        crate::view::text::sanitize(&owner.key)
    ));
    UiCommand::Repaint
}

/// Editors end a file with a newline; a message does not. Control characters other than
/// newlines become spaces, as for a paste.
fn draft_text(text: &str) -> String {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    clean_foreign_text(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_final_newline_and_control_bytes_do_not_reach_the_draft() {
        assert_eq!(draft_text("hello\n"), "hello");
        assert_eq!(draft_text("a\nb\n\n"), "a\nb\n");
        assert_eq!(draft_text("x\x1b[2Jy"), clean_foreign_text("x\x1b[2Jy"));
        assert!(!draft_text("x\x1b[2Jy").contains('\x1b'));
    }
}
