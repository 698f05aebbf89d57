//! The raw `runtime.toml` commands of System › Runtime (issue 11; sources.md J-1…J-4): a read
//! demands the raw config source (a fresh read for `e`, the new read `u` / `U` wait for); a
//! submit hands the draft's intent to the save hub (a second submit of the same file while one
//! runs shares it) and tells the draft which save its owner sent.

use super::ViewState;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    pub(super) fn runtime_raw(
        &mut self,
        cmd: crate::view::command::RuntimeRawCommand,
    ) -> Option<String> {
        use crate::actors::saves::SaveKind;
        use crate::actors::system::RUNTIME_CONFIG;
        use crate::actors::system::runtime_raw::RuntimeRaw;
        use crate::view::command::RuntimeRawCommand;
        match cmd {
            RuntimeRawCommand::Read => {
                let sent = self.demand(&RUNTIME_CONFIG);
                if sent == "refresh requested" {
                    // The raw block says "reading"; nothing else to say.
                    return None;
                }
                // Nothing will land: `e` does not wait for it.
                if let Some(system) = self.system_ui() {
                    system.raw.opening = None;
                }
                Some(format!("runtime.toml: {sent}"))
            }
            RuntimeRawCommand::Submit { intent, owner } => {
                let request =
                    crate::view::save_path::SaveRequest::new::<RuntimeRaw>(intent.clone());
                let notice = crate::view::save_path::notice(self.submit(request));
                let Some(workspace) = self.model.gate().current().map(|s| s.workspace.0.clone())
                else {
                    return notice;
                };
                // The save this owner now waits on: the one just submitted, or the one in
                // flight with the very same path, revision and text that it shares (J-1). A save
                // in flight of another text is an earlier owner's: never this one's (J-2).
                let entry = self
                    .model
                    .system
                    .raws
                    .latest(&RuntimeRaw::intent_key(&intent), &workspace)
                    .filter(|e| e.intent == intent);
                if let Some(entry) = entry {
                    let id = entry.save_id.clone();
                    if let Some(system) = self.system_ui() {
                        crate::view::screens::system::raw::submitted(&mut system.raw, owner, id);
                    }
                }
                notice
            }
        }
    }
}
