//! What the raw `runtime.toml` editor draws under System › Runtime (J-1…J-5): the draft's
//! state and its newest save's receipt, restored saves of an earlier run, and the shown read's
//! model table and account e-mails (J-5: a model-table error shows the raw text instead).
//! The draft's keys, saves and settling are the parent module's.

use super::super::form::{ReceiptHints, receipt_words};
use super::{ELSEWHERE, RawUi, here, phase_of, shown_read};
use crate::protocol::runtime::{AccountEmail, ModelTable, RuntimeConfigRaw};
use crate::view::model::Model;
use crate::view::saves::SavePhase;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::Line;

const RAW_HINTS: ReceiptHints = ReceiptHints {
    retry: "draft kept: e edit · S send again",
    done: "X close",
    conflict: "draft kept: u / U pick a base from the re-read",
    unknown: "not resent; draft kept: u / U pick a base from the re-read",
};

/// Lines of the shown read's model table and account e-mails (J-5).
fn config_lines(raw: &RuntimeConfigRaw, width: usize, theme: Theme, out: &mut Vec<Line<'static>>) {
    let (text, tone, show_raw) = match &raw.model_table {
        ModelTable::Ready(bindings) => (
            format!(
                "│ models: {} bindings (the server's table of this path and revision)",
                bindings.len()
            ),
            Tone::Dim,
            false,
        ),
        ModelTable::NotSent => (
            "│ models: this server sends no model table (no local parse stands in)".to_string(),
            Tone::Dim,
            false,
        ),
        ModelTable::Unavailable { reason } => (
            format!(
                "│ model table unavailable: {} — raw text below",
                sanitize(reason)
            ),
            Tone::Warn,
            true,
        ),
        ModelTable::Refused(e) => (
            format!(
                "│ model table error: {} at {} — raw text below",
                e.kind.reason(),
                e.path
            ),
            Tone::Bad,
            true,
        ),
    };
    out.push(Line::styled(
        fit_width(&text, width).into_owned(),
        theme.style(tone),
    ));
    if let Some(emails) = &raw.account_emails {
        let not_read = emails
            .iter()
            .filter(|e| matches!(e, AccountEmail::NotRead { .. }))
            .count();
        if not_read > 0 {
            out.push(Line::styled(
                fit_width(
                    &format!(
                        "│ account e-mails: {} read, {not_read} not read (the config itself read fine)",
                        emails.len() - not_read
                    ),
                    width,
                )
                .into_owned(),
                theme.style(Tone::Warn),
            ));
        }
    }
    if show_raw {
        for line in raw.source_text.lines().take(12) {
            out.push(Line::raw(
                fit_width(&format!("│   {}", sanitize(line)), width).into_owned(),
            ));
        }
    }
}

/// Raw saves an earlier run left unsettled, read back from the outbox in this workspace: not
/// sent, or outcome unknown — never resent, shown so the operator re-reads before editing.
fn restored(model: &Model) -> Vec<SavePhase<crate::protocol::outcome::RuntimeRawSaveOutcome>> {
    let workspace = model.gate().current().map(|s| s.workspace.0.clone());
    model
        .runtime
        .raws
        .entries()
        .filter(|e| Some(&e.workspace) == workspace.as_ref())
        .filter(|e| matches!(e.phase, SavePhase::Restored(_)))
        .map(|e| e.phase.clone())
        .collect()
}

/// The raw block's lines (drawn at the top of the Runtime pane).
pub fn lines(model: &Model, raw: &RawUi, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let restored = restored(model);
    if !raw.active() && restored.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Line::styled(
        "┌ RAW runtime.toml ($EDITOR; the server's preview validates before the CAS save)",
        theme.style(Tone::Accent),
    )];
    let dim =
        |text: String| Line::styled(fit_width(&text, width).into_owned(), theme.style(Tone::Dim));
    if raw.opening.is_some() {
        out.push(dim(
            "│ reading runtime.toml afresh (the editor opens on this read)…".into(),
        ));
    }
    if let Some(draft) = &raw.draft {
        let base = match &draft.base {
            Some(b) => format!(
                "base {} @ {}",
                sanitize(&b.path),
                b.revision.get(..12).unwrap_or(&b.revision)
            ),
            None => "no base: the last save may have written the file".to_string(),
        };
        out.push(dim(format!(
            "│ draft #{} · {} lines · {base}",
            draft.owner,
            draft.text.lines().count()
        )));
        if !here(draft, model) {
            out.push(Line::styled(
                fit_width(
                    &format!("│ of workspace {}: {ELSEWHERE}", sanitize(&draft.workspace)),
                    width,
                )
                .into_owned(),
                theme.style(Tone::Warn),
            ));
        }
        if let Some(sent) = &draft.sent
            && let Some(phase) = phase_of(model, &sent.save_id)
        {
            let (mut text, tone) = receipt_words(&phase, model, &RAW_HINTS);
            if sent.owner != draft.owner {
                text.push_str(" (an earlier draft's save)");
            }
            out.push(Line::styled(
                fit_width(&text, width).into_owned(),
                theme.style(tone),
            ));
        }
    }
    for phase in &restored {
        let (text, tone) = receipt_words(phase, model, &RAW_HINTS);
        out.push(Line::styled(
            fit_width(
                &format!("│ from an earlier run: {}", text.trim_start_matches("│ ")),
                width,
            )
            .into_owned(),
            theme.style(tone),
        ));
    }
    if let Some(id) = &raw.finished
        && let Some(phase) = phase_of(model, id)
    {
        let (text, tone) = receipt_words(&phase, model, &RAW_HINTS);
        out.push(Line::styled(
            fit_width(&text, width).into_owned(),
            theme.style(tone),
        ));
    }
    if let Some((generation, observed)) = shown_read(model) {
        out.push(dim(format!(
            "│ last read: {} @ {} (read #{generation})",
            sanitize(&observed.value.path),
            observed
                .value
                .source_revision
                .get(..12)
                .unwrap_or(&observed.value.source_revision)
        )));
        config_lines(&observed.value, width, theme, &mut out);
    }
    if let crate::view::fetched::Fetched::Failed { error, .. } = &model.runtime.config.fetched {
        out.push(Line::styled(
            fit_width(
                &format!("│ runtime.toml read failed: {}", error.class),
                width,
            )
            .into_owned(),
            theme.style(Tone::Warn),
        ));
    }
    if let Some(problem) = raw.problem {
        out.push(Line::styled(
            fit_width(&format!("│ {problem}"), width).into_owned(),
            theme.style(Tone::Warn),
        ));
    }
    out.push(dim(
        "│ e edit · S send again · u keep text on the newest read · U take the newest file · X discard"
            .into(),
    ));
    out
}
