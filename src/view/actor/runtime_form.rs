//! The model/account form commands of System › Runtime (issue 11; sources.md I-1…I-4): open
//! reads the source a form opens on, submit hands the intent to the save hub (a repeated
//! submit of the same file shares the job in flight), close recovery re-reads.

use super::ViewState;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    /// A form command (I-1…I-4): open reads the source, submit hands the intent to the save
    /// hub (a repeated submit of the same file shares the job in flight), close recovery
    /// re-reads the catalogue and the source.
    pub(super) fn runtime_form(
        &mut self,
        cmd: crate::view::command::RuntimeFormCommand,
    ) -> Option<String> {
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
                use crate::view::save_path::{Refused, SaveRequest};
                let submitted = self.submit(SaveRequest::new::<RuntimeForm>(intent));
                // The form follows the save it sent, or the one in flight it shares (I-1).
                let followed = match &submitted {
                    Ok(s) => Some(s.save_id.clone()),
                    Err(refusal) => match &refusal.why {
                        Refused::InFlight(id) | Refused::NoHub { save_id: id, .. } => {
                            Some(id.clone())
                        }
                        _ => None,
                    },
                };
                if let Some(id) = followed
                    && let Some(form) = self.system_ui().and_then(|s| s.forms.open.as_mut())
                {
                    form.submitted = Some(id);
                }
                crate::view::save_path::notice(submitted)
            }
        }
    }
}
