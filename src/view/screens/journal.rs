//! The saves journal layer (`L` on every surface): every save of this session and every outbox
//! row an earlier session left, built by `save_path::journal` — kind, target, inputs, stage,
//! receipt, settle state, time — unsettled first. `Enter` shows one save whole; `t` cycles the
//! kind filter, `f` keeps only unsettled saves; `u` undoes where the server makes it exact
//! (`save_path::undo`): the undo is submitted through the one save path, whose confirmation
//! stage previews it (old → new) and commits it on `u` again. `r` reads the outbox rows again.

use super::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::actors::saves::{SAVES, SaveId};
use crate::view::bindings::{DOWN, ENTER, ESC, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::save_path::journal::{Filter, JournalRow};
use crate::view::save_path::kinds;
use crate::view::save_path::undo::Undo;
use crate::view::saves::clock;
use crate::view::text::{fit_width, pad_to, sanitize_line, wrap};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

/// The key that opens (and closes) the journal, on every surface.
pub const JOURNAL_KEY: char = 'L';

pub const JOURNAL: Table = Table {
    title: "Saves journal keys",
    bindings: &[
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "move",
        ),
        bind("Enter", &[ENTER], "the save whole (Enter or Esc back)"),
        bind(
            "t",
            &[Press::ch('t')],
            "kind filter: every kind, then each kind listed",
        ),
        bind(
            "f",
            &[Press::ch('f')],
            "only unsettled saves (in flight, unknown, unconfirmed)",
        ),
        bind(
            "u u",
            &[Press::ch('u')],
            "undo: the first u says what it writes, the second sends it",
        ),
        bind("r", &[Press::ch('r')], "read the outbox rows again"),
        bind("L / Esc", &[Press::ch('L'), ESC], "close"),
    ],
};

/// The journal layer's state: the rows are built from the model on each use.
#[derive(Debug, Default)]
pub struct JournalLayer {
    filter: Filter,
    /// The selected save (kept by id: rows re-sort as their saves settle).
    selected: Option<String>,
    /// `Enter`: the selected save shown whole.
    detail: bool,
}

impl JournalLayer {
    /// The rows shown now (the filter applied).
    pub fn rows(&self, model: &Model) -> Vec<JournalRow> {
        self.kept(&kinds::journal_rows(model))
    }

    /// The rows of `all` the filter keeps.
    fn kept(&self, all: &[JournalRow]) -> Vec<JournalRow> {
        all.iter()
            .filter(|r| self.filter.keeps(r))
            .cloned()
            .collect()
    }

    /// The index of the selected row in `rows` (the first when none or gone).
    fn index(&self, rows: &[JournalRow]) -> usize {
        self.selected
            .as_ref()
            .and_then(|id| rows.iter().position(|r| r.save_id == *id))
            .unwrap_or(0)
    }

    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    fn step(&mut self, rows: &[JournalRow], down: bool) {
        if rows.is_empty() {
            return;
        }
        let at = self.index(rows);
        let next = if down {
            (at + 1).min(rows.len() - 1)
        } else {
            at.saturating_sub(1)
        };
        self.selected = Some(rows[next].save_id.clone());
    }

    fn next_kind(&mut self, model: &Model) {
        let kinds = kinds::journal_kinds(&kinds::journal_rows(model));
        self.filter.kind = match &self.filter.kind {
            None => kinds.first().cloned(),
            Some(k) => kinds
                .iter()
                .position(|x| x == k)
                .and_then(|i| kinds.get(i + 1).cloned()),
        };
    }

    /// `u`: the selected save's undo, submitted (the confirmation stage previews it; `u` again
    /// commits it), or why there is none.
    fn undo(&mut self, ui: &mut Ui, model: &Model, row: Option<&JournalRow>) -> UiCommand {
        let Some(row) = row else {
            ui.notice.text = Some("no save selected".into());
            return UiCommand::Repaint;
        };
        let found = kinds::find_undo(model, &row.kind, &SaveId(row.save_id.clone()));
        let Some(found) = found else {
            ui.notice.text = Some(format!(
                "{}: no undo here — an earlier session's save: what it replaced is not known",
                row.kind
            ));
            return UiCommand::Repaint;
        };
        match found {
            Undo::Exact { request, .. } => UiCommand::Save(request.armed_by(KeyCode::Char('u'))),
            other => {
                ui.notice.text = Some(format!("{}: {}", row.kind, other.words()));
                UiCommand::Repaint
            }
        }
    }
}

impl Layer for JournalLayer {
    fn captures(&self) -> bool {
        false
    }

    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let model = cx.model;
        let rows = self.rows(model);
        let cmd = match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                cx.close();
                return Handled::Passed;
            }
            KeyCode::Char('q')
            | KeyCode::Char('?')
            | KeyCode::Char(':')
            | KeyCode::Char(super::workspaces::WORKSPACES_KEY)
            | KeyCode::Char(super::activity::ACTIVITY_KEY) => return Handled::Passed,
            KeyCode::Esc | KeyCode::Enter if self.detail => {
                self.detail = false;
                UiCommand::Repaint
            }
            KeyCode::Esc | KeyCode::Char(JOURNAL_KEY) => {
                cx.close();
                UiCommand::Repaint
            }
            KeyCode::Enter => {
                self.detail = !rows.is_empty();
                if self.detail {
                    self.selected = Some(rows[self.index(&rows)].save_id.clone());
                }
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                self.step(&rows, true);
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                self.step(&rows, false);
                UiCommand::Repaint
            }
            KeyCode::Char('f') => {
                self.filter.unsettled = !self.filter.unsettled;
                UiCommand::Repaint
            }
            KeyCode::Char('t') => {
                self.next_kind(model);
                UiCommand::Repaint
            }
            KeyCode::Char('u') => {
                let row = rows.get(self.index(&rows));
                self.undo(cx.ui, model, row)
            }
            KeyCode::Char('r') => UiCommand::Refresh(SAVES),
            _ => UiCommand::None,
        };
        Handled::Consumed(cmd)
    }

    fn render(
        &self,
        model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        _frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        // Built once per frame: every book's saves and the outbox rows, then the filter.
        let all = kinds::journal_rows(model);
        let rows = self.kept(&all);
        let lines = if self.detail {
            match rows.get(self.index(&rows)) {
                Some(row) => detail_lines(row, body.width, ctx.theme),
                None => list_lines(self, model, &all, &rows, body, ctx.theme),
            }
        } else {
            list_lines(self, model, &all, &rows, body, ctx.theme)
        };
        ratatui::widgets::Clear.render(body, buf);
        Paragraph::new(lines).render(body, buf);
        None
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        let words = if self.detail {
            "Enter / Esc back · u undo · ? help"
        } else {
            "j/k move · Enter whole · t kind · f unsettled · u undo · r re-read · L/Esc close · ? help"
        };
        Some(LayerFooter::Spans(vec![Span::styled(
            words,
            theme.style(Tone::Dim),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp::passing(&JOURNAL))
    }
}

/// Whether the journal is open.
pub fn is_open(ui: &Ui) -> bool {
    ui.layer::<JournalLayer>().is_some()
}

/// Opens the journal (on top) and asks the save hub for the outbox rows.
pub fn open(ui: &mut Ui) -> UiCommand {
    ui.layers.push(JournalLayer::default());
    UiCommand::Refresh(SAVES)
}

/// The receipt and settle words of a row.
fn state_words(row: &JournalRow) -> String {
    let mut words = row.stage.words();
    if let Some(reason) = &row.reason {
        words.push_str(&format!(" ({})", sanitize_line(reason)));
    }
    if let Some(settle) = &row.settle {
        words.push_str(" · ");
        words.push_str(settle);
    }
    words
}

fn row_tone(row: &JournalRow) -> Tone {
    match &row.settle {
        Some(s)
            if s.starts_with("not confirmed")
                || s.contains("does not show")
                || s.contains("re-read failed") =>
        {
            Tone::Warn
        }
        _ if row.unsettled => Tone::Busy,
        _ => Tone::Normal,
    }
}

fn list_lines(
    layer: &JournalLayer,
    model: &Model,
    all: &[JournalRow],
    rows: &[JournalRow],
    body: Rect,
    theme: Theme,
) -> Vec<Line<'static>> {
    let width = usize::from(body.width);
    let unsettled = all.iter().filter(|r| r.unsettled).count();
    let kind = layer.filter.kind.as_deref().unwrap_or("every kind");
    let only = if layer.filter.unsettled {
        " · unsettled only"
    } else {
        ""
    };
    let read = match model.journal.rows.fetched.last().map(|o| &o.value.rows) {
        None => " · earlier sessions: not read yet".to_string(),
        Some(Err(class)) => format!(" · earlier sessions: outbox unreadable ({class})"),
        Some(Ok(_)) => String::new(),
    };
    let mut lines = vec![Line::styled(
        fit_width(
            &format!(
                "SAVES JOURNAL · {} saves, {unsettled} unsettled · {kind}{only}{read}",
                all.len()
            ),
            width,
        )
        .into_owned(),
        theme.style(Tone::Strong),
    )];
    if rows.is_empty() {
        lines.push(Line::styled(
            if all.is_empty() {
                "  no saves in this workspace yet"
            } else {
                "  no save matches the filter"
            },
            theme.style(Tone::Dim),
        ));
        return lines;
    }
    let page = usize::from(body.height.saturating_sub(1)).max(1);
    let at = layer.index(rows);
    let offset = at.saturating_sub(page - 1);
    for (i, row) in rows.iter().enumerate().skip(offset).take(page) {
        let time = clock(row.at);
        let text = format!(
            "{} {} {} {} {}",
            if row.unsettled { "●" } else { " " },
            &time[..8.min(time.len())],
            pad_to(&row.kind, 18),
            pad_to(&sanitize_line(&row.target), 20),
            state_words(row)
        );
        let style = if i == at {
            theme.selected()
        } else {
            theme.style(row_tone(row))
        };
        lines.push(Line::styled(fit_width(&text, width).into_owned(), style));
    }
    lines
}

fn detail_lines(row: &JournalRow, width: u16, theme: Theme) -> Vec<Line<'static>> {
    let width = usize::from(width.max(20));
    let kv = |k: &str, v: String| {
        let mut out = Vec::new();
        for (i, part) in wrap(&v, width.saturating_sub(12)).into_iter().enumerate() {
            let label = if i == 0 { k } else { "" };
            out.push(Line::from(vec![
                Span::styled(format!("  {label:<10}"), theme.style(Tone::Dim)),
                Span::raw(part),
            ]));
        }
        out
    };
    let mut lines = vec![Line::styled(
        format!("SAVE {}", sanitize_line(&row.save_id)),
        theme.style(Tone::Strong),
    )];
    lines.extend(kv("kind", row.kind.clone()));
    lines.extend(kv("target", sanitize_line(&row.target).into_owned()));
    lines.extend(kv("when", clock(row.at)));
    lines.extend(kv("stage", row.stage.words()));
    lines.extend(kv(
        "receipt",
        row.reason.as_deref().map_or_else(
            || "no reason given".to_string(),
            |r| sanitize_line(r).into_owned(),
        ),
    ));
    lines.extend(kv(
        "settled",
        row.settle.clone().unwrap_or_else(|| {
            if row.unsettled {
                "not settled".into()
            } else {
                "nothing to confirm".into()
            }
        }),
    ));
    lines.extend(kv(
        "undo",
        row.undo.as_ref().map_or_else(
            || "none here: an earlier session's save".to_string(),
            Undo::words,
        ),
    ));
    lines.extend(kv("inputs", sanitize_line(&row.inputs).into_owned()));
    lines
}
