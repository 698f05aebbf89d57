//! The one list of save kinds. Everything that names the kinds is made from it: the save hub's
//! slot trace names in the source registry (`save:<kind>`) and the kinds the hub reads back
//! after a crash (their unsettled rows of an earlier run, posted as restored receipts once per
//! workspace). A new save kind is its own file beside its surface plus one line in
//! [`with_save_kinds`];
//! a test scans `src/` for every `impl SaveKind for` and fails when one is not listed here.

use super::restore::{Listed, RegisteredKind};
use std::sync::OnceLock;

/// The one list of save kinds, each with how the hub treats its unsettled rows after a crash:
/// `RESTORED`, the hub reads them back; `READ_BACK_BY_SURFACE`, its surface does (a chat reads
/// its own sends back when it opens, because a chat shows only the Keeper it is open on). A
/// layer that keeps something per kind expands its own list from this one
/// (`with_save_kinds!(its_list_macro)`): the hub's [`KINDS`] here, the view's stages in
/// `view::save_path::kinds::ALL`. So a new kind is one line here, for every layer.
macro_rules! with_save_kinds {
    ($list:ident) => {
        $list! {
            $crate::actors::decisions::approval::ApprovalDecision => RESTORED,
            $crate::actors::chat::ChatSend => READ_BACK_BY_SURFACE,
            $crate::actors::runtime::form::RuntimeForm => RESTORED,
            $crate::actors::runtime::raw::RuntimeRaw => RESTORED,
            $crate::actors::decisions::ask_answer::AskAnswer => RESTORED,
            $crate::actors::keepers::ops::sandbox::SandboxSave => RESTORED,
            $crate::actors::keepers::ops::assignment::AssignmentSave => RESTORED,
            $crate::actors::keepers::ops::lifecycle::LifecycleSave => RESTORED,
            $crate::actors::connectors::binding::ConnectorBind => RESTORED,
            $crate::actors::connectors::binding::ConnectorUnbind => RESTORED,
            $crate::actors::board::compose::BoardPost => RESTORED,
            $crate::actors::keepers::ops::settings::SettingsSave => RESTORED,
            $crate::actors::chat::TurnInterrupt => RESTORED,
            $crate::actors::chat::TurnSteer => RESTORED,
            $crate::actors::keepers::ops::create::CreateSave => RESTORED,
            $crate::actors::decisions::held_call::HeldCallDecision => RESTORED,
            $crate::actors::board::vote::BoardVote => RESTORED,
            $crate::actors::work::goal_transition::GoalTransition => RESTORED,
            $crate::actors::gate_queue::resolve::GateResolve => RESTORED,
            $crate::actors::gate_queue::retry::GateRetry => RESTORED,
        }
    };
}
pub(crate) use with_save_kinds;

macro_rules! hub_kinds {
    ($($kind:ty => $treatment:ident),* $(,)?) => {
        &[$(&Listed::<$kind>::$treatment),*]
    };
}

/// Every save kind, as the hub sees it.
pub static KINDS: &[&dyn RegisteredKind] = with_save_kinds!(hub_kinds);

/// The kinds whose unsettled rows the hub reads back after a crash.
pub fn restored() -> impl Iterator<Item = &'static dyn RegisteredKind> {
    KINDS.iter().copied().filter(|k| k.restored_by_hub())
}

/// The save hub's slot kinds by trace name (`save:<kind>`, then the journal's read), for the
/// source registry.
pub fn trace_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        KINDS
            .iter()
            .map(|k| -> &'static str { Box::leak(format!("save:{}", k.kind()).into_boxed_str()) })
            .chain(["save_journal"])
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// Every `impl SaveKind for X` under `src/`, by type name.
    fn implemented(dir: &Path, found: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            panic!("unreadable {}", dir.display());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                implemented(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    if let Some(rest) = line.trim_start().strip_prefix("impl SaveKind for ") {
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.insert(name);
                    }
                }
            }
        }
    }

    #[test]
    fn every_save_kind_in_src_is_listed_once() {
        let mut found = BTreeSet::new();
        implemented(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.len() >= 16, "the scan found too few kinds: {found:?}");
        let listed: Vec<&str> = KINDS
            .iter()
            .map(|k| k.type_name().rsplit("::").next().unwrap_or_default())
            .collect();
        for name in &found {
            assert!(
                listed.contains(&name.as_str()),
                "`impl SaveKind for {name}` is not listed in actors::saves::registry::KINDS"
            );
        }
        let unique: BTreeSet<&str> = listed.iter().copied().collect();
        assert_eq!(unique.len(), listed.len(), "a kind is listed twice");
        let kinds: BTreeSet<&str> = KINDS.iter().map(|k| k.kind()).collect();
        assert_eq!(kinds.len(), KINDS.len(), "two kinds share a KIND name");
    }

    #[test]
    fn trace_names_follow_the_list_and_only_the_chat_send_is_read_back_by_its_surface() {
        let names = trace_names();
        assert_eq!(names.len(), KINDS.len() + 1);
        assert_eq!(names.last(), Some(&"save_journal"));
        assert!(names.contains(&"save:turn_interrupt"));
        assert!(names.contains(&"save:turn_steer"));
        let surface: Vec<&str> = KINDS
            .iter()
            .filter(|k| !k.restored_by_hub())
            .map(|k| k.kind())
            .collect();
        assert_eq!(surface, vec!["chat_send"]);
        assert_eq!(restored().count(), KINDS.len() - 1);
    }
}
