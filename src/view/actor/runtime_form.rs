//! The model/account form commands of System › Runtime (issue 11; sources.md I-1…I-4): open
//! reads the source a form opens on, submit hands the intent to the save hub (a repeated
//! submit of the same file shares the job in flight), close recovery re-reads.

use super::ViewState;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    /// Hands a submitted save to the save hub; `false` when the hub is not running.
    pub(super) fn hand_to_hub(&self, submission: crate::actors::saves::Submission) -> bool {
        use crate::actors::saves::{SAVES, SaveCommand};
        self.sources
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>())
            .is_some_and(|hub| hub.send_message(SaveCommand::Submit(submission)).is_ok())
    }

    /// A form command (I-1…I-4): open reads the source, submit hands the intent to the save
    /// hub (a repeated submit of the same file shares the job in flight), close recovery
    /// re-reads the catalogue and the source.
    pub(super) fn runtime_form(
        &mut self,
        cmd: crate::view::command::RuntimeFormCommand,
    ) -> Option<String> {
        use crate::actors::saves::{SaveId, SaveKind, hub::Save};
        use crate::actors::system::runtime_form::RuntimeForm;
        use crate::actors::system::{RUNTIME, RUNTIME_CONFIG};
        use crate::view::command::RuntimeFormCommand;
        match cmd {
            RuntimeFormCommand::Open => {
                let _ = self.demand(&RUNTIME_CONFIG);
                None
            }
            RuntimeFormCommand::CloseRecovery => {
                let _ = self.demand(&RUNTIME);
                let _ = self.demand(&RUNTIME_CONFIG);
                Some("recovery closed; re-reading the catalogue and runtime.toml".into())
            }
            RuntimeFormCommand::Submit(intent) => {
                let Some(scope) = self.model.gate().current().cloned() else {
                    return Some("not sent: workspace not confirmed".into());
                };
                let workspace = scope.workspace.0.clone();
                let key = RuntimeForm::intent_key(&intent);
                if let Some(e) = self.model.system.forms.in_flight(&key, &workspace) {
                    // A pending resubmit shares the job (I-1).
                    let id = e.save_id.clone();
                    if let Some(form) = self.ui.system.forms.open.as_mut() {
                        form.submitted = Some(id);
                    }
                    return Some("a save of runtime.toml is already in flight".into());
                }
                let save_id = SaveId::fresh();
                self.model
                    .system
                    .forms
                    .submit(save_id.clone(), intent.clone(), workspace);
                if let Some(form) = self.ui.system.forms.open.as_mut() {
                    form.submitted = Some(save_id.clone());
                }
                if self.hand_to_hub(Save::<RuntimeForm>::submission(
                    save_id.clone(),
                    intent,
                    scope,
                )) {
                    return None;
                }
                self.model
                    .system
                    .forms
                    .refuse_locally(&save_id, "the save hub is not running");
                Some("not sent: save hub not running".into())
            }
        }
    }
}
