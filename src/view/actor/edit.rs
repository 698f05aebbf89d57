//! The view actor's side of an `$EDITOR` handoff ([`crate::view::editor`]): park the reader,
//! check the edit still belongs where it was asked, hand the terminal over, take it back,
//! repaint everything, and give the result to the screen that asked. Nothing here awaits on
//! the actor: parking runs on the blocking pool and the editor on its own task, each ending
//! in a message to the actor.

use super::{ViewMsg, ViewState};
use crate::view::editor::{
    CancelReason, EditMsg, EditOutcome, EditRequest, EditResult, EditorCommand, run_editor,
};
use crate::view::screens::{self, EditOwner};
use crate::view::terminal::presenter::FrameSink;
use crate::view::terminal::schedule::FrameRequest;
use ractor::ActorRef;

/// The edit in progress (one terminal, one editor).
#[derive(Debug)]
pub(super) struct EditFlow {
    id: u64,
    request: EditRequest,
    owner: EditOwner,
    stage: Stage,
    /// `Esc` arrived while the reader was parking (H-2).
    escaped: bool,
    /// The screen that asked saw a move its owner check cannot see (another Keeper selected,
    /// H-2): cancelled when the reader is parked.
    moved: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Waiting for the reader to park; keys read before are still being handled (H-3).
    Parking,
    /// The editor owns the terminal: nothing is painted.
    Open,
}

impl<B: FrameSink> ViewState<B> {
    /// `true` while the editor owns the terminal (frames wait).
    pub(super) fn terminal_handed_over(&self) -> bool {
        self.edit.as_ref().is_some_and(|e| e.stage == Stage::Open)
    }

    /// An `Esc` while the editor is opening cancels the edit instead of reaching the screen.
    pub(super) fn escape_pending_edit(&mut self) -> bool {
        match self.edit.as_mut() {
            Some(flow) if flow.stage == Stage::Parking => {
                flow.escaped = true;
                true
            }
            _ => false,
        }
    }

    /// A move the edit's owner cannot see (e.g. another Keeper selected while the settings
    /// editor is opening, H-2) cancels the edit before the editor opens. `true` when it did.
    pub(super) fn cancel_pending_edit_moved(&mut self) -> bool {
        match self.edit.as_mut() {
            Some(flow) if flow.stage == Stage::Parking => {
                flow.moved = true;
                true
            }
            _ => false,
        }
    }

    /// Starts an edit asked for by a key or by a reaction (`UiCommand::Edit`).
    pub(super) fn start_edit(&mut self, myself: &ActorRef<ViewMsg>, request: EditRequest) {
        let owner = screens::edit_owner(&self.ui);
        if self.edit.is_some() {
            let result = EditResult {
                purpose: request.purpose,
                original: request.text,
                outcome: EditOutcome::Cancelled(CancelReason::Busy),
            };
            self.deliver_edit(myself, owner, result);
            return;
        }
        let Some(suspender) = self.suspender.clone() else {
            let result = EditResult {
                purpose: request.purpose,
                original: request.text,
                outcome: EditOutcome::NoTerminal,
            };
            self.deliver_edit(myself, owner, result);
            return;
        };
        self.edit_seq += 1;
        let id = self.edit_seq;
        tracing::info!(target: "masc_tui::editor", purpose = request.purpose.label(), id, "edit asked");
        self.ui.notice.text = Some(opening_notice(&request));
        self.edit = Some(EditFlow {
            id,
            request,
            owner,
            stage: Stage::Parking,
            escaped: false,
            moved: false,
        });
        self.want(myself, FrameRequest::Input);
        let view = myself.clone();
        tokio::task::spawn_blocking(move || {
            let parked = suspender.park_input();
            let _ = view.cast(ViewMsg::Edit(EditMsg::Parked { id, parked }));
        });
    }

    pub(super) fn on_edit_msg(&mut self, myself: &ActorRef<ViewMsg>, msg: EditMsg) {
        match msg {
            EditMsg::Parked { id, parked } => self.on_parked(myself, id, parked),
            EditMsg::Exited { id, outcome } => self.on_exited(myself, id, outcome),
        }
    }

    fn on_parked(&mut self, myself: &ActorRef<ViewMsg>, id: u64, parked: bool) {
        let Some(flow) = self
            .edit
            .take_if(|f| f.id == id && f.stage == Stage::Parking)
        else {
            return;
        };
        let Some(suspender) = self.suspender.clone() else {
            return;
        };
        let cancelled = if !parked {
            Some(EditOutcome::NoTerminal)
        } else if flow.escaped {
            Some(EditOutcome::Cancelled(CancelReason::Escaped))
        } else if flow.moved || screens::edit_owner(&self.ui) != flow.owner {
            Some(EditOutcome::Cancelled(CancelReason::Moved))
        } else {
            None
        };
        if let Some(outcome) = cancelled {
            if parked {
                suspender.resume_input();
            }
            let result = EditResult {
                purpose: flow.request.purpose,
                original: flow.request.text,
                outcome,
            };
            self.deliver_edit(myself, flow.owner, result);
            return;
        }
        // Everything typed before the park has been handled (it was in the mailbox ahead of
        // this message): the terminal goes to the editor now.
        suspender.release();
        let request = flow.request.clone();
        self.edit = Some(EditFlow {
            stage: Stage::Open,
            ..flow
        });
        let editor = self.editor.clone().unwrap_or_else(EditorCommand::from_env);
        let view = myself.clone();
        tokio::spawn(async move {
            let outcome = run_editor(&request, &editor).await;
            let _ = view.cast(ViewMsg::Edit(EditMsg::Exited { id, outcome }));
        });
    }

    fn on_exited(&mut self, myself: &ActorRef<ViewMsg>, id: u64, outcome: EditOutcome) {
        let Some(flow) = self.edit.take_if(|f| f.id == id && f.stage == Stage::Open) else {
            return;
        };
        if let Some(suspender) = self.suspender.clone() {
            suspender.reclaim();
            suspender.resume_input();
        }
        // The editor may have been resized with the terminal: re-probe, repaint every cell.
        self.ui.area = self.presenter.probe_size();
        tracing::info!(target: "masc_tui::editor", id, outcome = %outcome, "edit returned");
        let result = EditResult {
            purpose: flow.request.purpose,
            original: flow.request.text,
            outcome,
        };
        self.deliver_edit(myself, flow.owner, result);
        self.want(myself, FrameRequest::Force);
    }

    /// Hands a result to the screen that asked; what it answers is run like a key's command.
    /// The hand-off's own line ("opening the editor …") ends here.
    fn deliver_edit(&mut self, myself: &ActorRef<ViewMsg>, owner: EditOwner, result: EditResult) {
        if self.ui.notice.text.as_deref() == Some(opening_notice_of(result.purpose).as_str()) {
            self.ui.notice.text = None;
        }
        let cmd = screens::edited(owner, &mut self.ui, &self.model, result);
        self.run_command(myself, cmd, None);
        self.want(myself, FrameRequest::Input);
    }
}

/// The footer line while the terminal is handed to the editor.
fn opening_notice(request: &EditRequest) -> String {
    opening_notice_of(request.purpose)
}

fn opening_notice_of(purpose: crate::view::editor::EditPurpose) -> String {
    format!("opening the editor ({})…", purpose.label())
}
