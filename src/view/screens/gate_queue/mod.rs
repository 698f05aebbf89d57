//! The Gate queue (§15.3): the durable queue of Keeper tool calls with an outside effect that
//! wait for a rule, Auto Judge or a human — a layer over the surface in front, opened from the
//! Approvals view (`Q`) or the palette, beside the operator approvals it is not.
//!
//! Keys follow MASC's TUI where they do not clash: `y` approve and `n` reject (a reason line,
//! `Enter` sends it; empty is MASC's default), each previewed first and sent by the same key
//! again (`y` `y`, `n` … `Enter` `Enter`); `R` re-arms a blocked Auto Judge, offered only on a
//! blocked row while the workspace runs Auto Judge, previewed and sent by `R` again; `Enter`
//! the row's every field with its arguments as inert text; `r` re-reads. A decision's receipt
//! shows on its row until the row leaves; "already resolved" is its own receipt, not a failure.

mod render;

use super::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::actors::contract::SourceKey;
use crate::actors::gate_queue::GATE_QUEUE;
use crate::actors::gate_queue::resolve::{GateResolve, ResolveIntent};
use crate::actors::gate_queue::retry::{GateRetry, RetryIntent};
use crate::protocol::gate_queue::{GateQueue, QueueItem, QueueRow};
use crate::protocol::gate_resolve::GateDecision;
use crate::view::bindings::{DOWN, END, ENTER, ESC, HOME, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::field::Field;
use crate::view::model::Model;
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// The key of the Approvals view that opens the Gate queue.
pub const GATE_QUEUE_KEY: char = 'Q';

pub const GATE_KEYS: Table = Table {
    title: "Gate queue keys",
    bindings: &[
        bind(
            "y y",
            &[Press::ch('y')],
            "approve the selected row (the first y previews, the second sends)",
        )
        .footer("approve"),
        bind(
            "n, reason, Enter Enter",
            &[Press::ch('n')],
            "reject the selected row: type a reason (empty: MASC's default), Enter previews, \
             Enter again sends",
        )
        .footer("reject"),
        bind(
            "R R",
            &[Press::ch('R')],
            "re-arm Auto Judge on a blocked row (only under Auto Judge; R again sends)",
        ),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "move",
        ),
        bind(
            "Home / End, g / G",
            &[HOME, END, Press::ch('g'), Press::ch('G')],
            "first / last",
        ),
        bind(
            "Enter",
            &[ENTER],
            "every field of the selected row, its arguments as text; Enter or Esc back",
        )
        .footer("detail"),
        bind("r", &[Press::ch('r')], "read the queue again"),
        bind("Esc", &[ESC], "close (a reason being typed: drop it)").footer("close"),
    ],
};

/// The reject reason being typed for one row.
#[derive(Debug, Clone)]
pub struct ReasonDraft {
    pub id: String,
    pub field: Field,
}

/// The Gate queue layer's state; the rows come from the model on each use.
#[derive(Debug, Default)]
pub struct GateQueueLayer {
    /// The selected row by id (the selection follows its row across re-reads).
    pub selected: Option<String>,
    /// `Enter`: the selected row's every field.
    pub detail: bool,
    /// `n`: the reason line of a reject.
    pub reason: Option<ReasonDraft>,
}

/// The rows of the queue as read, in `sequence` order (undecodable rows last).
pub fn rows(model: &Model) -> &[QueueRow] {
    match model.gate_queue.latest() {
        Some((q, _)) => match &q.queue {
            crate::protocol::gate_queue::Queue::Ready(rows) => rows,
            crate::protocol::gate_queue::Queue::Unavailable { .. } => &[],
        },
        None => &[],
    }
}

/// A row's id, decoded or not.
pub fn row_id(row: &QueueRow) -> Option<&str> {
    match row {
        QueueRow::Item(i) => Some(&i.id),
        QueueRow::Undecodable { id, .. } => id.as_deref(),
    }
}

impl GateQueueLayer {
    /// The index of the selected row (the first when none or gone).
    pub fn index(&self, rows: &[QueueRow]) -> usize {
        self.selected
            .as_deref()
            .and_then(|id| rows.iter().position(|r| row_id(r) == Some(id)))
            .unwrap_or(0)
    }

    /// The selected row, if it decoded.
    pub fn item<'m>(&self, model: &'m Model) -> Option<&'m QueueItem> {
        let rows = rows(model);
        match rows.get(self.index(rows)) {
            Some(QueueRow::Item(i)) => Some(i),
            _ => None,
        }
    }

    fn select(&mut self, rows: &[QueueRow], index: usize) {
        self.selected = rows.get(index).and_then(row_id).map(str::to_string);
    }

    /// A key while the reason line is open: it takes every key.
    fn reason_key(&mut self, model: &Model, key: KeyEvent) -> UiCommand {
        let Some(draft) = self.reason.as_mut() else {
            return UiCommand::None;
        };
        match key.code {
            KeyCode::Esc => {
                self.reason = None;
                UiCommand::Repaint
            }
            KeyCode::Enter => {
                let draft = self.reason.take();
                let Some(draft) = draft else {
                    return UiCommand::Repaint;
                };
                let reason = draft.field.text().trim().to_string();
                match current(model, &draft.id) {
                    Some(item) => UiCommand::save::<GateResolve>(resolve_intent(
                        item,
                        GateDecision::Reject,
                        (!reason.is_empty()).then_some(reason),
                    )),
                    None => UiCommand::Repaint,
                }
            }
            _ => {
                draft.field.key(key);
                UiCommand::Repaint
            }
        }
    }

    fn key_command(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> UiCommand {
        let model = cx.model;
        if self.reason.is_some() {
            return self.reason_key(model, key);
        }
        let rows = rows(model);
        let at = self.index(rows);
        if self.detail {
            return match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Left => {
                    self.detail = false;
                    UiCommand::Repaint
                }
                _ => UiCommand::None,
            };
        }
        match key.code {
            KeyCode::Esc => {
                cx.close();
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                self.select(rows, (at + 1).min(rows.len().saturating_sub(1)));
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                self.select(rows, at.saturating_sub(1));
                UiCommand::Repaint
            }
            KeyCode::Home | KeyCode::Char('g') => {
                self.select(rows, 0);
                UiCommand::Repaint
            }
            KeyCode::End | KeyCode::Char('G') => {
                self.select(rows, rows.len().saturating_sub(1));
                UiCommand::Repaint
            }
            KeyCode::Enter | KeyCode::Right if !rows.is_empty() => {
                self.select(rows, at);
                self.detail = true;
                UiCommand::Repaint
            }
            KeyCode::Char('r') => UiCommand::Refresh(GATE_QUEUE),
            KeyCode::Char('y') => match self.item(model) {
                Some(item) => UiCommand::save::<GateResolve>(resolve_intent(
                    item,
                    GateDecision::Approve,
                    None,
                )),
                None => notice(cx.ui, "no pending row to approve"),
            },
            KeyCode::Char('n') => match self.item(model) {
                Some(item) => {
                    self.reason = Some(ReasonDraft {
                        id: item.id.clone(),
                        field: Field::new(),
                    });
                    UiCommand::Repaint
                }
                None => notice(cx.ui, "no pending row to reject"),
            },
            KeyCode::Char('R') => {
                let mode = model
                    .gate_queue
                    .latest()
                    .and_then(|(q, _)| q.gate_mode.as_ref());
                match self.item(model) {
                    Some(item) if item.retry_offered(mode) => {
                        UiCommand::save::<GateRetry>(retry_intent(item))
                    }
                    Some(_) => notice(
                        cx.ui,
                        "retry is offered only on a blocked row while the workspace runs Auto Judge",
                    ),
                    None => notice(cx.ui, "no pending row to retry"),
                }
            }
            _ => UiCommand::None,
        }
    }
}

fn notice(ui: &mut Ui, words: &str) -> UiCommand {
    ui.notice.text = Some(words.to_string());
    UiCommand::Repaint
}

/// The row `id` as last read.
fn current<'m>(model: &'m Model, id: &str) -> Option<&'m QueueItem> {
    model.gate_queue.latest().and_then(|(q, _)| q.item(id))
}

/// The intent of deciding `item` this way.
pub fn resolve_intent(
    item: &QueueItem,
    decision: GateDecision,
    reason: Option<String>,
) -> ResolveIntent {
    ResolveIntent {
        id: item.id.clone(),
        keeper: item.keeper_name.clone(),
        tool: item.tool_name.clone(),
        decision,
        reason,
    }
}

/// The intent of re-arming `item`'s judge: its identity as read.
pub fn retry_intent(item: &QueueItem) -> RetryIntent {
    RetryIntent {
        id: item.id.clone(),
        keeper: item.keeper_name.clone(),
        tool: item.tool_name.clone(),
        row: item.retry_body(),
    }
}

/// Opens the Gate queue over what is in front, and reads it.
pub fn open(ui: &mut Ui, model: &Model) -> UiCommand {
    let mut layer = GateQueueLayer::default();
    layer.select(rows(model), 0);
    ui.layers.push(layer);
    UiCommand::Refresh(GATE_QUEUE)
}

impl Layer for GateQueueLayer {
    fn captures(&self) -> bool {
        self.reason.is_some()
    }

    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        if self.reason.is_none() {
            match key.code {
                KeyCode::Tab | KeyCode::BackTab => {
                    cx.close();
                    return Handled::Passed;
                }
                // Quit, help, the palette and the saves journal reach past the queue.
                KeyCode::Char('q')
                | KeyCode::Char('?')
                | KeyCode::Char(':')
                | KeyCode::Char(super::journal::JOURNAL_KEY) => {
                    return Handled::Passed;
                }
                _ => {}
            }
        }
        Handled::Consumed(self.key_command(cx, key))
    }

    fn paste(&mut self, _cx: &mut LayerCx<'_>, text: &str) -> Option<bool> {
        let draft = self.reason.as_mut()?;
        draft.field.paste(text);
        Some(true)
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
        render::render(self, model, ctx, body, buf)
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        let words = if self.reason.is_some() {
            "type the reason · Enter preview the reject · Esc drop it".to_string()
        } else if self.detail {
            "Enter / Esc back · y approve · n reject · ? help".to_string()
        } else {
            let mode = model
                .gate_queue
                .latest()
                .and_then(|(q, _)| q.gate_mode.as_ref());
            let retry = if self.item(model).is_some_and(|i| i.retry_offered(mode)) {
                " · R retry"
            } else {
                ""
            };
            format!(
                "y y approve · n reject · Enter detail{retry} · j/k move · r re-read · Esc close · ? help"
            )
        };
        Some(LayerFooter::Spans(vec![Span::styled(
            words,
            theme.style(Tone::Dim),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp::passing(&GATE_KEYS))
    }

    fn shown_sources(&self) -> Option<&'static [SourceKey]> {
        Some(&[GATE_QUEUE])
    }
}

/// The queue as last read (tests).
pub fn latest(model: &Model) -> Option<&GateQueue> {
    model.gate_queue.latest().map(|(q, _)| q)
}
