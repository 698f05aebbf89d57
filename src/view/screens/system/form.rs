//! The model and account forms on System › Runtime (surfaces.md System / Config and Runtime;
//! sources.md I-1…I-5): `Enter` edits the selected model's context override, `x` clears it,
//! `a` adds an account. A form opens on the raw config read (§9.2) it demands; its input and
//! that read's path, revision and text are the save's intent (I-1). Its fields are one-line
//! inputs (`view::field`): the override opens on the current value, selected, so typing
//! replaces it (`Ctrl-A`/`End` edit in place); the number is checked against its bounds (at
//! least 1, at most the model's window: its `max_context` in the opened text, else the largest
//! window MASC accepts) before anything is sent, and a refusal names the bound. `Enter` shows
//! what will change (the save path's preview: old → new, the file's diff) and `Enter` again
//! submits (the save job previews and commits — nothing waits in key handling); `Esc` leaves the form, never
//! claiming the commit was cancelled, and the same key reopens it with its input (I-3); a save
//! whose outcome is unknown blocks a resend until `Ctrl-X` closes recovery, which re-reads the
//! catalogue and the source (I-4).

use crate::actors::runtime::form::FormIntent;
use crate::actors::saves::SaveId;
use crate::protocol::outcome::{SaveClass, SaveOutcome};
use crate::protocol::runtime::form::{self, FormEdit};
use crate::protocol::runtime::{ModelTable, RuntimeConfigRaw};
use crate::view::command::UiCommand;
use crate::view::fetched::Fetched;
use crate::view::field::{Bounded, Field};
use crate::view::model::Model;
use crate::view::saves::SavePhase;
use crate::view::screens::conflict::{ConflictLayer, Resolution, ThreeWay};
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::Line;
use std::collections::BTreeMap;
use std::time::Instant;

/// Which form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FormKind {
    /// `Enter` on a model: its `max_context_override`.
    ContextOverride { runtime_id: String },
    /// `x` on a model: clear its override.
    ClearOverride { runtime_id: String },
    /// `a`: a new account.
    AddAccount,
}

impl FormKind {
    pub fn title(&self) -> String {
        match self {
            Self::ContextOverride { runtime_id } => {
                format!("EDIT {} · max_context_override", sanitize(runtime_id))
            }
            Self::ClearOverride { runtime_id } => {
                format!("CLEAR {} · max_context_override", sanitize(runtime_id))
            }
            Self::AddAccount => "ADD ACCOUNT".into(),
        }
    }

    fn labels(&self) -> &'static [&'static str] {
        match self {
            Self::ContextOverride { .. } => &["max_context_override"],
            Self::ClearOverride { .. } => &[],
            Self::AddAccount => &["integration_id", "group", "email"],
        }
    }
}

/// The source a form opened on: the raw config read's path, revision and text (I-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormBase {
    pub path: String,
    pub revision: String,
    pub source_text: String,
}

/// One form: its input, the read it opened on, and the save it submitted.
#[derive(Debug, Clone)]
pub struct FormUi {
    pub kind: FormKind,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// When it opened: the source it opens on is the first raw config read observed since.
    pub opened_at: Instant,
    pub base: Option<FormBase>,
    /// The save this form submitted (its receipt is shown; I-4).
    pub submitted: Option<SaveId>,
    /// Why the last `Enter` could not submit (shown until the next key).
    pub problem: Option<String>,
    /// The save whose revision conflict's three-way view was opened (once per conflict;
    /// `Enter` opens it again).
    pub conflict_shown: Option<SaveId>,
}

/// The largest context window MASC accepts for an override when the model's own is not in the
/// opened text (MASC `max_keeper_context_tokens`).
pub const MAX_CONTEXT_TOKENS: u64 = 1_000_000;

impl FormUi {
    pub fn new(kind: FormKind) -> Self {
        let fields = vec![Field::new(); kind.labels().len()];
        Self {
            kind,
            fields,
            focus: 0,
            opened_at: Instant::now(),
            base: None,
            submitted: None,
            problem: None,
            conflict_shown: None,
        }
    }

    /// Takes the base from the raw config read once one observed since opening is there.
    pub fn adopt_base(&mut self, config: &Fetched<std::sync::Arc<RuntimeConfigRaw>>) {
        if self.base.is_some() {
            return;
        }
        let Fetched::Ready(o) = config else {
            return;
        };
        if o.observed_at < self.opened_at {
            return;
        }
        let raw = &o.value;
        self.base = Some(FormBase {
            path: raw.path.clone(),
            revision: raw.source_revision.clone(),
            source_text: raw.source_text.clone(),
        });
        // Prefill the override from the server's model table of the same read (J-5).
        if let (FormKind::ContextOverride { runtime_id }, ModelTable::Ready(bindings)) =
            (&self.kind, &raw.model_table)
            && self.fields[0].is_empty()
            && let Some(v) = bindings
                .iter()
                .find(|b| &b.runtime_id == runtime_id)
                .and_then(|b| b.max_context_override)
        {
            self.fields[0].set(v.to_string());
        }
    }

    /// The bounds of the context override of `runtime_id`, from the text the form opened on.
    fn context_bounds(&self, runtime_id: &str) -> Bounded {
        let window = self
            .base
            .as_ref()
            .and_then(|b| form::model_window(&b.source_text, runtime_id));
        Bounded {
            field: "max_context_override",
            min: 1,
            max: window.unwrap_or(MAX_CONTEXT_TOKENS),
            max_source: match window {
                Some(_) => format!(
                    "the model's window: max_context of {}",
                    sanitize(runtime_id)
                ),
                None => "the largest window MASC accepts".into(),
            },
        }
    }

    /// The intent of this form, or why it cannot be submitted (a number out of its bounds
    /// names the bound).
    pub fn intent(&self) -> Result<FormIntent, String> {
        let Some(base) = &self.base else {
            return Err("runtime.toml not read yet".into());
        };
        let edit = match &self.kind {
            FormKind::ContextOverride { runtime_id } => {
                let value = self
                    .context_bounds(runtime_id)
                    .parse(self.fields[0].text())?;
                FormEdit::SetContextOverride {
                    runtime_id: runtime_id.clone(),
                    value,
                }
            }
            FormKind::ClearOverride { runtime_id } => FormEdit::ClearContextOverride {
                runtime_id: runtime_id.clone(),
            },
            FormKind::AddAccount => {
                let opt = |s: &Field| Some(s.text().trim().to_string()).filter(|s| !s.is_empty());
                FormEdit::AddAccount {
                    integration_id: self.fields[0].text().trim().to_string(),
                    group: opt(&self.fields[1]),
                    email: opt(&self.fields[2]),
                }
            }
        };
        Ok(FormIntent {
            path: base.path.clone(),
            opening_revision: base.revision.clone(),
            source_text: base.source_text.clone(),
            edit,
        })
    }
}

/// The open form and the ones left with `Esc` (their input kept, I-3).
#[derive(Debug, Clone, Default)]
pub struct Forms {
    pub open: Option<FormUi>,
    pub left: BTreeMap<FormKind, FormUi>,
}

impl Forms {
    /// Opens `kind`: the form left earlier with its input, else a new one (I-3).
    pub fn open(&mut self, kind: FormKind) {
        if let Some(current) = self.open.take() {
            self.left.insert(current.kind.clone(), current);
        }
        self.open = Some(self.left.remove(&kind).unwrap_or_else(|| FormUi::new(kind)));
    }

    /// `Esc`: the form is left, its input and save kept; nothing is cancelled (I-3).
    pub fn leave(&mut self) {
        if let Some(current) = self.open.take() {
            self.left.insert(current.kind.clone(), current);
        }
    }
}

/// Where the open form's save stands, for its keys.
pub fn save_phase(
    model: &Model,
    form: &FormUi,
) -> Option<SavePhase<crate::protocol::outcome::RuntimeRawSaveOutcome>> {
    let id = form.submitted.as_ref()?;
    model.runtime.forms.get(id).map(|e| e.phase.clone())
}

/// Whether `Enter` may submit again: not while the save runs, and after a terminal result
/// only when it was refused before any effect (fix and resend on the same base). An unknown
/// outcome, a commit, an unchanged file or a conflict wait for `Ctrl-X` (I-3, I-4).
pub fn blocks_resend(
    phase: &Option<SavePhase<crate::protocol::outcome::RuntimeRawSaveOutcome>>,
) -> bool {
    match phase {
        None => false,
        Some(p) if p.in_flight() => true,
        Some(p) => !matches!(
            p.class(),
            Some(SaveClass::NotSent) | Some(SaveClass::NotApplied)
        ),
    }
}

/// The form's lines (drawn at the top of the Runtime pane).
pub fn lines(model: &Model, form: &FormUi, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled(
        fit_width(&format!("┌ {}", form.kind.title()), width).into_owned(),
        theme.style(Tone::Accent),
    )];
    match &form.base {
        None => out.push(Line::styled(
            "│ reading runtime.toml (the form opens on this read)…",
            theme.style(Tone::Dim),
        )),
        Some(b) => out.push(Line::styled(
            fit_width(
                &format!(
                    "│ opened on {} @ {}",
                    sanitize(&b.path),
                    b.revision.get(..12).unwrap_or(&b.revision)
                ),
                width,
            )
            .into_owned(),
            theme.style(Tone::Dim),
        )),
    }
    for (i, label) in form.kind.labels().iter().enumerate() {
        out.push(Line::styled(
            fit_width(
                &format!("│ {label:<22} {}", form.fields[i].shown(i == form.focus)),
                width,
            )
            .into_owned(),
            theme.style(if i == form.focus {
                Tone::Strong
            } else {
                Tone::Normal
            }),
        ));
    }
    if let Some(problem) = &form.problem {
        for l in crate::view::text::wrap(&format!("│ {problem}"), width) {
            out.push(Line::styled(l, theme.style(Tone::Warn)));
        }
    }
    let phase = save_phase(model, form);
    let (text, tone) = match &phase {
        None => (
            "│ Enter preview, Enter again save · typing replaces a selection (Ctrl-A/End edit it) · Tab next field · Esc leave (input kept)".to_string(),
            Tone::Dim,
        ),
        Some(p) => receipt_words(p, model, &FORM_HINTS),
    };
    out.push(Line::styled(
        fit_width(&text, width).into_owned(),
        theme.style(tone),
    ));
    out
}

/// What a `runtime.toml` save's receipt line tells the operator to do next: the words differ
/// between the form (`Enter`, `Ctrl-X`) and the raw editor (`S`, `u` / `U`).
pub(super) struct ReceiptHints {
    /// After a refusal before any effect (not sent, not applied).
    pub retry: &'static str,
    /// After a commit or an unchanged file.
    pub done: &'static str,
    /// After a revision conflict.
    pub conflict: &'static str,
    /// After an unknown outcome.
    pub unknown: &'static str,
}

const FORM_HINTS: ReceiptHints = ReceiptHints {
    retry: "fix and Enter again",
    done: "Ctrl-X close",
    conflict: "Enter shows the three views (rebase, take theirs, overwrite) · Ctrl-X closes and re-reads",
    unknown: "not resent; Ctrl-X closes recovery and re-reads",
};

/// The receipt line of a `runtime.toml` save (the form's and the raw editor's).
pub(super) fn receipt_words(
    phase: &SavePhase<crate::protocol::outcome::RuntimeRawSaveOutcome>,
    model: &Model,
    hints: &ReceiptHints,
) -> (String, Tone) {
    let receipt = match phase {
        SavePhase::Submitted | SavePhase::Written => {
            return ("│ saving: recorded, not sent yet".into(), Tone::Dim);
        }
        SavePhase::Sending => {
            return ("│ saving: preview and commit in flight".into(), Tone::Dim);
        }
        SavePhase::Ended(r) | SavePhase::Restored(r) => r,
    };
    match receipt {
        SaveOutcome::Applied { detail, warning } => {
            let reread = match model.runtime.loads.after_save() {
                Some(true) => "catalogue re-read after the save",
                Some(false) | None => "catalogue re-read pending (what shows predates the save)",
            };
            (
                format!(
                    "│ committed @ {}{} · {reread} · {}",
                    detail
                        .commit
                        .source_revision
                        .get(..12)
                        .unwrap_or(&detail.commit.source_revision),
                    warning
                        .as_deref()
                        .map(|w| format!(" · warning: {}", sanitize(w)))
                        .unwrap_or_default(),
                    hints.done
                ),
                Tone::Good,
            )
        }
        SaveOutcome::Unchanged => (
            format!(
                "│ unchanged: the file already says this; nothing sent · {}",
                hints.done
            ),
            Tone::Normal,
        ),
        SaveOutcome::NotSent { reason } => (
            format!("│ not sent: {} · {}", sanitize(reason), hints.retry),
            Tone::Warn,
        ),
        SaveOutcome::NotApplied { reason } => (
            format!(
                "│ refused, not applied: {} · {}",
                sanitize(reason),
                hints.retry
            ),
            Tone::Warn,
        ),
        SaveOutcome::Conflict { current } => (
            format!(
                "│ conflict: the file changed (now @ {}) · {}",
                current
                    .source_revision
                    .get(..12)
                    .unwrap_or(&current.source_revision),
                hints.conflict
            ),
            Tone::Bad,
        ),
        SaveOutcome::OutcomeUnknown { reason } => (
            format!(
                "│ outcome unknown: {} · {}",
                sanitize(reason),
                hints.unknown
            ),
            Tone::Bad,
        ),
    }
}

/// After observations were applied: the open form takes the source it opens on (I-1).
pub fn adopt_source(forms: &mut Forms, model: &Model) {
    if let Some(form) = forms.open.as_mut() {
        form.adopt_base(&model.runtime.config.fetched);
    }
}

/// The open form's save ended in a revision conflict (§9.4 409 carries the server's file):
/// its three texts — the text the form opened on, the form's edit made on it, the server's
/// file now — and the intent that was sent.
pub fn conflict_of(model: &Model, form: &FormUi) -> Option<(ThreeWay, FormIntent)> {
    let id = form.submitted.as_ref()?;
    let entry = model.runtime.forms.get(id)?;
    let (SavePhase::Ended(SaveOutcome::Conflict { current })
    | SavePhase::Restored(SaveOutcome::Conflict { current })) = &entry.phase
    else {
        return None;
    };
    let intent = &entry.intent;
    let draft = match form::apply(&intent.source_text, &intent.edit) {
        Ok(form::Edited::Changed(text)) => text,
        Ok(form::Edited::Unchanged) | Err(_) => intent.source_text.clone(),
    };
    Some((
        ThreeWay {
            name: "runtime.toml".into(),
            base: intent.source_text.clone(),
            draft,
            current: current.source_text.clone(),
            current_revision: current.source_revision.clone(),
        },
        intent.clone(),
    ))
}

/// The three-way view of the open form's conflict when it is due to open (its receipt just
/// landed, or `Enter` on the conflicted form).
pub fn open_conflict(forms: &mut Forms, model: &Model) -> Option<ConflictLayer> {
    let form = forms.open.as_mut()?;
    let (three, _) = conflict_of(model, form)?;
    if form.conflict_shown.is_some() && form.conflict_shown == form.submitted {
        return None;
    }
    form.conflict_shown = form.submitted.clone();
    let choice = |r| UiCommand::local(FormEvent::Resolve(r));
    Some(ConflictLayer::new(
        three,
        choice(Resolution::Rebase),
        choice(Resolution::TakeTheirs),
        choice(Resolution::Overwrite),
    ))
}

/// What a conflict's choice did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The form now stands on the server's file (its edit is sent by `Enter`, previewed).
    Rebased,
    /// The form is closed; the server's file stands.
    Theirs,
    /// The text the form opened on, with its edit, is to be written on the server's revision.
    Overwrite(FormIntent),
}

/// A choice of the form's conflict: rebase makes the form's edit again on the server's file
/// (refused, naming why, when it no longer applies there), theirs closes the form, overwrite
/// gives the save that writes the form's text over theirs.
pub fn resolve(forms: &mut Forms, model: &Model, choice: Resolution) -> Result<Resolved, String> {
    let Some(form) = forms.open.as_mut() else {
        return Err("runtime.toml: no form open".into());
    };
    let Some((three, intent)) = conflict_of(model, form) else {
        return Err("runtime.toml: no conflict to resolve".into());
    };
    match choice {
        Resolution::Rebase => {
            form::apply(&three.current, &intent.edit).map_err(|e| {
                format!(
                    "runtime.toml: not rebased — the form's edit does not apply to the server's file: {}",
                    sanitize(&e.to_string())
                )
            })?;
            form.base = Some(FormBase {
                path: intent.path.clone(),
                revision: three.current_revision.clone(),
                source_text: three.current.clone(),
            });
            form.submitted = None;
            form.conflict_shown = None;
            Ok(Resolved::Rebased)
        }
        Resolution::TakeTheirs => {
            let kind = form.kind.clone();
            forms.open = None;
            forms.left.remove(&kind);
            Ok(Resolved::Theirs)
        }
        Resolution::Overwrite => {
            form.submitted = None;
            form.conflict_shown = None;
            Ok(Resolved::Overwrite(FormIntent {
                opening_revision: three.current_revision,
                ..intent
            }))
        }
    }
}

/// What a form key asks that needs the model and the sources (I-1…I-4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormEvent {
    /// A form opened: read the source it opens on (§9.2).
    Open,
    /// `Enter`: save the form's intent (a save job; nothing waits here). A repeated submit
    /// of the same file shares the job in flight (I-1).
    Submit(FormIntent),
    /// `Ctrl-X` after a terminal result: recovery closed; re-read the catalogue and the source.
    CloseRecovery,
    /// A choice in the three-way view of the form's revision conflict (`screens::conflict`).
    Resolve(Resolution),
}

impl crate::view::screens::local::LocalEvent for FormEvent {
    fn run(&self, ui: &mut crate::view::screens::Ui, fx: &mut crate::view::effects::Effects<'_>) {
        use crate::actors::runtime::form::RuntimeForm;
        use crate::actors::runtime::{RUNTIME, RUNTIME_CONFIG};
        use crate::view::save_path::{Refused, SaveRequest, notice};
        ui.notice.text = match self {
            Self::Open => {
                let _ = fx.demand(&RUNTIME_CONFIG);
                None
            }
            Self::CloseRecovery => {
                let _ = fx.demand(&RUNTIME);
                let _ = fx.demand(&RUNTIME_CONFIG);
                Some("recovery closed; re-reading the catalogue and runtime.toml".into())
            }
            Self::Resolve(choice) => {
                ui.layers.remove::<ConflictLayer>();
                let forms = ui.screen_mut::<super::SystemUi>().map(|s| &mut s.forms);
                match forms.map(|forms| resolve(forms, fx.model, *choice)) {
                    None => None,
                    Some(Err(words)) => Some(words),
                    Some(Ok(Resolved::Rebased)) => Some(
                        "runtime.toml: the form's edit made again on the server's file · Enter previews and sends"
                            .into(),
                    ),
                    Some(Ok(Resolved::Theirs)) => {
                        let _ = fx.demand(&RUNTIME);
                        let _ = fx.demand(&RUNTIME_CONFIG);
                        Some("runtime.toml: the server's file stands; the form is closed and re-read".into())
                    }
                    Some(Ok(Resolved::Overwrite(intent))) => {
                        // Confirmed by the overwrite's own confirmation (what is lost).
                        let request = SaveRequest::new::<RuntimeForm>(intent.clone());
                        fx.confirmed(request);
                        crate::view::screens::local::LocalEvent::run(
                            &Self::Submit(intent),
                            ui,
                            fx,
                        );
                        return;
                    }
                }
            }
            Self::Submit(intent) => {
                let submitted = fx.submit(SaveRequest::new::<RuntimeForm>(intent.clone()));
                // The form follows the save it sent, or the one in flight it shares (I-1).
                let followed = match &submitted {
                    // A staged save (its preview open) is followed once it is committed.
                    Ok(s) if s.staged.is_some() => None,
                    Ok(s) => Some(s.save_id.clone()),
                    Err(refusal) => match &refusal.why {
                        Refused::InFlight(id) | Refused::NoHub { save_id: id, .. } => {
                            Some(id.clone())
                        }
                        _ => None,
                    },
                };
                if let Some(id) = followed
                    && let Some(form) = ui
                        .screen_mut::<super::SystemUi>()
                        .and_then(|s| s.forms.open.as_mut())
                {
                    form.submitted = Some(id);
                }
                notice(submitted)
            }
        };
    }
}

/// A key while a form is open (it takes every key, like a text field).
pub fn key(
    forms: &mut Forms,
    model: &Model,
    key: crossterm::event::KeyEvent,
) -> crate::view::command::UiCommand {
    use crate::view::command::UiCommand;
    use crossterm::event::{KeyCode, KeyModifiers};
    let Some(form) = forms.open.as_mut() else {
        return UiCommand::None;
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let phase = save_phase(model, form);
    form.problem = None;
    match key.code {
        KeyCode::Char('x') if ctrl => {
            // Only after a terminal result (I-4); in flight there is nothing to close.
            if phase.as_ref().is_some_and(|p| !p.in_flight()) {
                let kind = form.kind.clone();
                forms.open = None;
                forms.left.remove(&kind);
                UiCommand::local(FormEvent::CloseRecovery)
            } else {
                UiCommand::None
            }
        }
        KeyCode::Esc => {
            forms.leave();
            UiCommand::Repaint
        }
        KeyCode::Tab | KeyCode::Down => {
            let n = form.fields.len().max(1);
            form.focus = (form.focus + 1) % n;
            UiCommand::Repaint
        }
        KeyCode::BackTab | KeyCode::Up => {
            let n = form.fields.len().max(1);
            form.focus = (form.focus + n - 1) % n;
            UiCommand::Repaint
        }
        KeyCode::Enter if conflict_of(model, form).is_some() => {
            // The conflict's three views again (the reaction hook opens them).
            form.conflict_shown = None;
            UiCommand::Repaint
        }
        KeyCode::Enter => {
            if blocks_resend(&phase) {
                // An unconfirmed (or still running) save blocks a resend (I-3).
                form.problem = Some(
                    "not resent: the last save is in flight or ended; Ctrl-X closes it".into(),
                );
                return UiCommand::Repaint;
            }
            match form.intent() {
                Ok(intent) => UiCommand::local(FormEvent::Submit(intent)),
                Err(why) => {
                    form.problem = Some(why);
                    UiCommand::Repaint
                }
            }
        }
        _ if form.fields.get_mut(form.focus).is_some_and(|f| f.key(key)) => UiCommand::Repaint,
        _ => UiCommand::None,
    }
}
