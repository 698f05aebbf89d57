//! The raw `runtime.toml` editor on System › Runtime (surfaces.md System / Config `e`;
//! sources.md J-1…J-5; protocol.md §9.2–§9.4).
//!
//! - `e` without a draft reads `runtime.toml` afresh (§9.2: a read dispatched after the key,
//!   never the cached one) and opens `$EDITOR` on it; with a draft it opens the editor on the
//!   draft. An edit that comes back is a new draft owner (J-2) and is saved at once against
//!   its base (the path and revision of the read it came from): the `runtime_raw` save job
//!   previews it (the server validates the TOML; a refusal shows the server's error and keeps
//!   the draft) and commits it with CAS (J-1).
//! - `S` sends the draft again with the same path, revision and text (J-1) — only after a
//!   refusal before any effect (not sent, not applied), or for a draft whose base was just
//!   picked.
//! - A save that may have written the file (outcome unknown, a conflict, a commit whose
//!   durability is unconfirmed) keeps the body and releases the base (J-3): a retry then needs a
//!   base picked with `u` or `U` from a read dispatched after that receipt (J-4) — `u` keeps
//!   the draft's text and takes the new read's path and revision (`S` then sends the text on
//!   it); `U` takes the new read's text too (the server's file replaces the draft; `e` edits
//!   it). A read in flight when the receipt landed never counts (J-3), and a base picked before
//!   it is gone with the release.
//! - A revision conflict (§9.4 409, whose body carries the server's file) never overwrites
//!   silently: it opens the three-way view (`screens::conflict`: the draft, the base it was
//!   edited from, the server's file now) where the operator rebases the draft's changes onto
//!   the server's file (then `S` previews and sends it like any save), takes theirs, or
//!   overwrites — only after a confirmation naming exactly what of theirs is lost. `C`
//!   reopens the view, and `u` while a conflict stands opens it too (it would otherwise keep
//!   the stale text on the new base).
//! - `X` discards the draft; the next `e` reads afresh (J-4: never the cached source).
//! - A late receipt ends only the draft owner that sent it; a newer edit is never cleared by an
//!   older save's success (J-2).
//!
//! The shown read's model table is the server's own, accepted only for the same path and
//! revision (decoded in `protocol::runtime::raw`); a model-table error shows the raw text
//! instead (J-5), and account e-mails that were not read are told apart from it.
//! What it draws is [`lines`] (`raw/lines.rs`); this file holds the draft, its keys and saves.

use crate::actors::runtime::raw::RawIntent;
use crate::actors::saves::SaveId;
use crate::protocol::outcome::SaveOutcome;
use crate::protocol::runtime::{Durability, RuntimeConfigRaw};
use crate::view::command::UiCommand;
use crate::view::editor::{EditOutcome, EditPurpose, EditRequest, EditResult};
use crate::view::fetched::Observed;
use crate::view::model::Model;
use crate::view::save_path::diff;
use crate::view::saves::SavePhase;
pub use crate::view::screens::conflict::Resolution;
use crate::view::screens::conflict::{ConflictLayer, ThreeWay};
use std::sync::Arc;

mod lines;
pub use lines::lines;

/// The read a draft is saved against (§9.4 CAS): its path and revision, and which read it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBase {
    pub path: String,
    pub revision: String,
    /// The generation of the raw config read it came from.
    pub generation: u64,
}

/// The save a draft owner submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSent {
    pub save_id: SaveId,
    /// The draft owner that sent it: its receipt acts on that owner only (J-2).
    pub owner: u64,
    /// Its receipt was taken into account.
    settled: bool,
}

/// The operator's `runtime.toml` draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawDraft {
    /// The workspace it was read in: it is sent, re-based and shown as current only there (a
    /// draft grants no authority in another workspace).
    pub workspace: String,
    /// A new owner per edit, base pick or replacement (J-2).
    pub owner: u64,
    pub text: String,
    /// `None` once released (J-3): only `u` / `U` after a new read give a new one (J-4).
    pub base: Option<RawBase>,
    /// The server's text of the base read (comparison data, released with the base).
    base_text: Option<String>,
    /// The last save submitted from this draft.
    pub sent: Option<RawSent>,
    /// The save whose receipt released the base: a base must come from a read after it.
    pub released_by: Option<SaveId>,
    /// A revision conflict's three texts (the draft, its base, the server's file then), until
    /// the operator resolves it; the server's path with them.
    pub conflict: Option<(ThreeWay, String)>,
}

impl RawDraft {
    fn release(&mut self, by: &SaveId) {
        self.base = None;
        self.base_text = None;
        self.released_by = Some(by.clone());
    }

    /// The intent `S` (or the save after an edit) submits: the same path, revision and text.
    pub fn intent(&self) -> Option<RawIntent> {
        let base = self.base.as_ref()?;
        Some(RawIntent {
            path: base.path.clone(),
            revision: base.revision.clone(),
            text: self.text.clone(),
            base_text: self.base_text.clone(),
        })
    }
}

/// The raw editor's state on System › Runtime (kept across navigation, like a form).
#[derive(Debug, Clone, Default)]
pub struct RawUi {
    /// `e` without a draft: the editor opens on the first raw config read dispatched after
    /// this generation (a fresh read).
    pub opening: Option<u64>,
    pub draft: Option<RawDraft>,
    /// The save that ended the last draft (committed), shown until the next `e`.
    pub finished: Option<SaveId>,
    /// Why the last key did nothing (shown until the next raw key).
    pub problem: Option<&'static str>,
    owners: u64,
    /// The standing conflict's view was opened (`C` opens it again).
    pub conflict_shown: bool,
}

impl RawUi {
    fn next_owner(&mut self) -> u64 {
        self.owners += 1;
        self.owners
    }

    /// Whether the raw block has anything to show.
    pub fn active(&self) -> bool {
        self.opening.is_some()
            || self.draft.is_some()
            || self.finished.is_some()
            || self.problem.is_some()
    }
}

/// The confirmed workspace now, if any.
fn current_workspace(model: &Model) -> Option<String> {
    model.gate().current().map(|s| s.workspace.0.clone())
}

/// Whether `draft` may act in the workspace confirmed now.
fn here(draft: &RawDraft, model: &Model) -> bool {
    current_workspace(model).as_deref() == Some(draft.workspace.as_str())
}

const ELSEWHERE: &str =
    "this draft belongs to another workspace: not sent or re-based here (X discards it)";

fn phase_of(
    model: &Model,
    id: &SaveId,
) -> Option<SavePhase<crate::protocol::outcome::RuntimeRawSaveOutcome>> {
    model.runtime.raws.get(id).map(|e| e.phase.clone())
}

/// The read shown in the config slot, with its generation.
fn shown_read(model: &Model) -> Option<(u64, &Observed<Arc<RuntimeConfigRaw>>)> {
    let generation = model.runtime.config_reads.shown_generation()?;
    model
        .runtime
        .config
        .fetched
        .last()
        .map(|observed| (generation, observed))
}

/// A Runtime pane key for the raw editor: `e`, `S`, `u`, `U`, `X`.
pub fn key(raw: &mut RawUi, model: &Model, key: crossterm::event::KeyEvent) -> Option<UiCommand> {
    use crossterm::event::{KeyCode, KeyModifiers};
    if key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        return None;
    }
    let cmd = match key.code {
        KeyCode::Char('e') => edit(raw, model),
        KeyCode::Char('S') => retry(raw, model),
        KeyCode::Char('C') | KeyCode::Char('u') if conflict_view(raw).is_some() => {
            raw.conflict_shown = false;
            UiCommand::Repaint
        }
        KeyCode::Char('u') => adopt(raw, model, false),
        KeyCode::Char('U') => adopt(raw, model, true),
        KeyCode::Char('X') => discard(raw, model),
        _ => return None,
    };
    Some(cmd)
}

/// `e`: the editor on the draft, or a fresh read to open it on.
fn edit(raw: &mut RawUi, model: &Model) -> UiCommand {
    raw.problem = None;
    if let Some(draft) = &raw.draft {
        return UiCommand::Edit(EditRequest::new(
            EditPurpose::RuntimeConfig,
            draft.text.clone(),
            ".toml",
        ));
    }
    raw.finished = None;
    raw.opening = Some(model.runtime.config_reads.newest_dispatched());
    UiCommand::local(RawEvent::Read)
}

fn in_flight(raw: &RawUi, model: &Model) -> bool {
    raw.draft
        .as_ref()
        .and_then(|d| d.sent.as_ref())
        .and_then(|s| phase_of(model, &s.save_id))
        .is_some_and(|p| p.in_flight())
}

/// `S`: the draft again, with the same path, revision and text (J-1); never after a save of
/// this owner that may have written the file (J-3, J-4).
fn retry(raw: &mut RawUi, model: &Model) -> UiCommand {
    raw.problem = None;
    let Some(draft) = &raw.draft else {
        raw.problem = Some("nothing to send: e opens runtime.toml");
        return UiCommand::Repaint;
    };
    if !here(draft, model) {
        raw.problem = Some(ELSEWHERE);
        return UiCommand::Repaint;
    }
    let Some(intent) = draft.intent() else {
        raw.problem = Some(
            "not resent: the last save may have written the file; u / U pick a base from a new read",
        );
        return UiCommand::Repaint;
    };
    // A save of this owner in flight is shared (the actor says so); one that ended with a
    // commit ended the draft (it is gone); a refusal before any effect may be sent again.
    UiCommand::local(RawEvent::Submit {
        intent,
        owner: draft.owner,
    })
}

/// `u` / `U`: a base from a read dispatched after the receipt that released the old one (or,
/// with no release, newer than the draft's base) — never an older read (J-3, J-4).
fn adopt(raw: &mut RawUi, model: &Model, take_file: bool) -> UiCommand {
    raw.problem = None;
    if in_flight(raw, model) {
        raw.problem = Some("a save of this draft is in flight: its receipt comes first");
        return UiCommand::Repaint;
    }
    let Some(draft) = raw.draft.as_ref() else {
        raw.problem = Some("no draft: e opens runtime.toml");
        return UiCommand::Repaint;
    };
    if !here(draft, model) {
        raw.problem = Some(ELSEWHERE);
        return UiCommand::Repaint;
    }
    let reads = &model.runtime.config_reads;
    let fresh = match (&draft.released_by, &draft.base) {
        (Some(save), _) => reads.since_receipt(save),
        (None, Some(base)) => reads
            .shown_generation()
            .is_some_and(|g| g > base.generation),
        (None, None) => reads.shown_generation().is_some(),
    };
    let read = shown_read(model).filter(|_| fresh);
    let Some((generation, observed)) = read else {
        raw.problem =
            Some("no new read of runtime.toml yet: reading it; u / U again once it lands");
        return UiCommand::local(RawEvent::Read);
    };
    let value = &observed.value;
    let owner = raw.next_owner();
    let Some(draft) = raw.draft.as_mut() else {
        return UiCommand::Repaint;
    };
    draft.owner = owner;
    draft.base = Some(RawBase {
        path: value.path.clone(),
        revision: value.source_revision.clone(),
        generation,
    });
    draft.base_text = Some(value.source_text.clone());
    draft.released_by = None;
    if take_file {
        draft.text = value.source_text.clone();
    }
    UiCommand::Repaint
}

/// `X`: the draft is dropped (not while its save runs); the next `e` reads afresh.
fn discard(raw: &mut RawUi, model: &Model) -> UiCommand {
    raw.problem = None;
    if in_flight(raw, model) {
        raw.problem = Some("a save of this draft is in flight: X once its receipt landed");
        return UiCommand::Repaint;
    }
    raw.draft = None;
    raw.opening = None;
    raw.finished = None;
    UiCommand::Repaint
}

/// What a raw config key (or the editor's return) asks that needs the model and the sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawEvent {
    /// Read `runtime.toml` afresh (§9.2): `e` without a draft opens the editor on that read;
    /// `u` / `U` pick their base from a read after the last receipt (J-4).
    Read,
    /// Save the draft of owner `owner` (a save job; nothing waits here): after an edit, or `S`.
    Submit {
        intent: crate::actors::runtime::raw::RawIntent,
        owner: u64,
    },
    /// A choice in the three-way view of a conflict (`screens::conflict`).
    Resolve(Resolution),
}

impl crate::view::screens::local::LocalEvent for RawEvent {
    fn run(&self, ui: &mut crate::view::screens::Ui, fx: &mut crate::view::effects::Effects<'_>) {
        use crate::actors::runtime::RUNTIME_CONFIG;
        use crate::actors::runtime::raw::RuntimeRaw;
        use crate::actors::saves::SaveKind;
        use crate::view::save_path::{SaveRequest, notice};
        let said = match self {
            Self::Read => {
                let sent = fx.demand(&RUNTIME_CONFIG);
                if sent == "refresh requested" {
                    // The raw block says "reading"; nothing else to say.
                    None
                } else {
                    // Nothing will land: `e` does not wait for it.
                    if let Some(system) = ui.screen_mut::<super::SystemUi>() {
                        system.raw.opening = None;
                    }
                    Some(format!("runtime.toml: {sent}"))
                }
            }
            Self::Resolve(choice) => resolved(ui, fx, *choice),
            Self::Submit { intent, owner } => {
                let said = notice(fx.submit(SaveRequest::new::<RuntimeRaw>(intent.clone())));
                // The save this owner now waits on: the one just submitted, or the one in
                // flight with the very same path, revision and text that it shares (J-1). A
                // save in flight of another text is an earlier owner's: never this one's (J-2).
                let model = &*fx.model;
                let entry = model.gate().current().and_then(|scope| {
                    model
                        .runtime
                        .raws
                        .latest(&RuntimeRaw::intent_key(intent), &scope.workspace.0)
                        .filter(|e| e.intent == *intent)
                });
                if let Some(entry) = entry
                    && let Some(system) = ui.screen_mut::<super::SystemUi>()
                {
                    submitted(&mut system.raw, *owner, entry.save_id.clone());
                }
                said
            }
        };
        if said.is_some() {
            ui.notice.text = said;
        }
    }
}

/// Runs a choice of the conflict's three-way view: the view closes, the draft moves onto the
/// server's file, and an overwrite is submitted — confirmed already by its own confirmation
/// (what of theirs is lost). The notice to show.
fn resolved(
    ui: &mut crate::view::screens::Ui,
    fx: &mut crate::view::effects::Effects<'_>,
    choice: Resolution,
) -> Option<String> {
    use crate::actors::runtime::raw::RuntimeRaw;
    use crate::view::save_path::SaveRequest;
    ui.layers.remove::<ConflictLayer>();
    let system = ui.screen_mut::<super::SystemUi>()?;
    let owner = system.raw.draft.as_ref().map_or(0, |d| d.owner);
    match resolve(&mut system.raw, fx.model, choice) {
        Err(words) => Some(words),
        Ok(None) if choice == Resolution::Rebase => Some(
            "runtime.toml: your changes rebased on the server's file · S previews and sends · e edits"
                .into(),
        ),
        Ok(None) => Some("runtime.toml: the server's file replaced the draft · e edits it".into()),
        Ok(Some(intent)) => {
            let owner = system.raw.draft.as_ref().map_or(owner, |d| d.owner);
            if choice == Resolution::Overwrite {
                fx.confirmed(SaveRequest::new::<RuntimeRaw>(intent.clone()));
            }
            crate::view::screens::local::LocalEvent::run(&RawEvent::Submit { intent, owner }, ui, fx);
            None
        }
    }
}

/// The three-way view of the standing conflict, once (after its receipt, or `C`).
pub fn conflict_view(raw: &RawUi) -> Option<&ThreeWay> {
    raw.draft
        .as_ref()
        .and_then(|d| d.conflict.as_ref())
        .map(|(three, _)| three)
}

/// The conflict's layer when it is due to open (its receipt just landed, or `C`).
pub fn open_conflict(raw: &mut RawUi) -> Option<ConflictLayer> {
    if raw.conflict_shown {
        return None;
    }
    let three = conflict_view(raw)?.clone();
    raw.conflict_shown = true;
    let choice = |r| UiCommand::local(RawEvent::Resolve(r));
    Some(ConflictLayer::new(
        three,
        choice(Resolution::Rebase),
        choice(Resolution::TakeTheirs),
        choice(Resolution::Overwrite),
    ))
}

/// A choice of the three-way view: the draft on the server's file (rebased, theirs, or as it
/// is), and the save to submit now (an overwrite's, confirmed by its own confirmation; a
/// rebased draft waits for `S`). `Err(words)` when the choice cannot be made.
pub fn resolve(
    raw: &mut RawUi,
    model: &Model,
    choice: Resolution,
) -> Result<Option<RawIntent>, String> {
    let owner = raw.next_owner();
    let generation = model.runtime.config_reads.shown_generation().unwrap_or(0);
    let Some(draft) = raw.draft.as_mut() else {
        return Err("runtime.toml: no draft".into());
    };
    let Some((three, path)) = draft.conflict.clone() else {
        return Err("runtime.toml: no conflict to resolve".into());
    };
    let text = match choice {
        Resolution::Rebase => diff::rebase(&three.base, &three.draft, &three.current).map_err(
            |overlap| {
                let lines: Vec<String> = overlap
                    .base_lines
                    .iter()
                    .map(|(a, b)| if a == b { format!("{a}") } else { format!("{a}–{b}") })
                    .collect();
                format!(
                    "runtime.toml: not rebased — both sides changed line(s) {} of the base; C shows the three views (t takes theirs, e edits the draft)",
                    lines.join(", ")
                )
            },
        )?,
        Resolution::TakeTheirs => three.current.clone(),
        Resolution::Overwrite => three.draft.clone(),
    };
    draft.owner = owner;
    draft.text = text;
    draft.base = Some(RawBase {
        path,
        revision: three.current_revision.clone(),
        generation,
    });
    draft.base_text = Some(three.current.clone());
    draft.released_by = None;
    draft.conflict = None;
    raw.conflict_shown = false;
    Ok(match choice {
        // A rebased draft is sent by `S`, previewed like any save.
        Resolution::TakeTheirs | Resolution::Rebase => None,
        Resolution::Overwrite => draft.intent(),
    })
}

/// The actor submitted (or shared) a save for `owner`: the draft remembers it.
pub fn submitted(raw: &mut RawUi, owner: u64, save_id: SaveId) {
    if let Some(draft) = raw.draft.as_mut().filter(|d| d.owner == owner) {
        draft.sent = Some(RawSent {
            save_id,
            owner,
            settled: false,
        });
    }
}

/// After observations were applied: a receipt acts on the owner that sent it (J-2, J-3), and
/// a fresh read opens the editor (`e`). Returns the edit to hand to the view actor.
pub fn follow_reads(raw: &mut RawUi, model: &Model) -> Option<EditRequest> {
    apply_receipt(raw, model);
    let mark = raw.opening?;
    let reads = &model.runtime.config_reads;
    let workspace = current_workspace(model)?;
    if let Some((generation, observed)) = shown_read(model).filter(|(g, _)| *g > mark) {
        raw.opening = None;
        let value = &observed.value;
        let owner = raw.next_owner();
        raw.draft = Some(RawDraft {
            workspace,
            owner,
            text: value.source_text.clone(),
            base: Some(RawBase {
                path: value.path.clone(),
                revision: value.source_revision.clone(),
                generation,
            }),
            base_text: Some(value.source_text.clone()),
            sent: None,
            released_by: None,
            conflict: None,
        });
        return Some(EditRequest::new(
            EditPurpose::RuntimeConfig,
            value.source_text.clone(),
            ".toml",
        ));
    }
    if reads.newest_dispatched() > mark && !model.runtime.config.in_flight() {
        // The fresh read ended without a value: nothing to edit.
        raw.opening = None;
        raw.problem = Some("runtime.toml could not be read (see below); e tries again");
    }
    None
}

fn apply_receipt(raw: &mut RawUi, model: &Model) {
    let Some(draft) = raw.draft.as_mut() else {
        return;
    };
    let Some(sent) = draft.sent.as_mut().filter(|s| !s.settled) else {
        return;
    };
    let Some(receipt) = phase_of(model, &sent.save_id).and_then(|p| p.receipt().cloned()) else {
        return;
    };
    sent.settled = true;
    if sent.owner != draft.owner {
        // A late result ends only its own owner: a newer edit stays as it is (J-2).
        return;
    }
    let save_id = sent.save_id.clone();
    match receipt {
        SaveOutcome::Applied { detail, .. }
            if detail.commit.durability == Durability::Unconfirmed =>
        {
            // Applied, but not durably: the body stays, the base is released (J-3).
            draft.release(&save_id);
        }
        SaveOutcome::Applied { .. } | SaveOutcome::Unchanged => {
            raw.draft = None;
            raw.finished = Some(save_id);
        }
        SaveOutcome::Conflict { current } => {
            // The three texts are kept for the three-way view before the base is released.
            draft.conflict = Some((
                ThreeWay {
                    name: "runtime.toml".into(),
                    base: draft.base_text.clone().unwrap_or_default(),
                    draft: draft.text.clone(),
                    current: current.source_text,
                    current_revision: current.source_revision,
                },
                current.source_path,
            ));
            draft.release(&save_id);
            raw.conflict_shown = false;
        }
        SaveOutcome::OutcomeUnknown { .. } => {
            draft.release(&save_id);
        }
        // Refused before any effect: the draft and its base stay; `S` or `e` fix and resend.
        SaveOutcome::NotSent { .. } | SaveOutcome::NotApplied { .. } => {}
    }
}

/// The editor came back (purpose `runtime.toml`): an edit is a new owner, saved at once when
/// the draft has a base; anything else keeps the draft as it was.
pub fn edited(raw: &mut RawUi, model: &Model, result: EditResult) -> (UiCommand, Option<String>) {
    raw.problem = None;
    match result.outcome {
        EditOutcome::Edited(text) => {
            let owner = raw.next_owner();
            let workspace = current_workspace(model).unwrap_or_default();
            let draft = raw.draft.get_or_insert_with(|| RawDraft {
                workspace,
                owner,
                text: String::new(),
                base: None,
                base_text: None,
                sent: None,
                released_by: None,
                conflict: None,
            });
            draft.owner = owner;
            draft.text = text;
            if !here(draft, model) {
                return (
                    UiCommand::Repaint,
                    Some(format!("runtime.toml: {ELSEWHERE}")),
                );
            }
            match draft.intent() {
                Some(intent) => (
                    UiCommand::local(RawEvent::Submit { intent, owner }),
                    None,
                ),
                None => (
                    UiCommand::Repaint,
                    Some(
                        "runtime.toml: edit kept as the draft, not sent — u / U pick a base from a new read"
                            .into(),
                    ),
                ),
            }
        }
        EditOutcome::Unchanged => {
            let untouched = raw.draft.as_ref().is_some_and(|d| {
                d.sent.is_none() && d.base_text.as_deref() == Some(d.text.as_str())
            });
            if untouched {
                raw.draft = None;
            }
            (UiCommand::Repaint, Some(result.notice()))
        }
        EditOutcome::Aborted {
            text: Some(text), ..
        } => {
            let owner = raw.next_owner();
            if let Some(draft) = raw.draft.as_mut() {
                draft.owner = owner;
                draft.text = text;
            }
            (
                UiCommand::Repaint,
                Some(
                    "runtime.toml: the editor failed; what it wrote is kept as the draft, not sent"
                        .into(),
                ),
            )
        }
        _ => (UiCommand::Repaint, Some(result.notice())),
    }
}
