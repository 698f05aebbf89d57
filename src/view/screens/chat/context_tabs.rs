//! `/context` tabs (surfaces.md "Overlays": `1:stack`, `2:request`, `3:proof`; protocol.md
//! §14.11; sources.md K-15, K-17; C-58): the chat target's newest turn record, its serialized
//! provider input, and how the one accounts for the other.
//!
//! - `1:stack`: the observed Live Context and settings, then the newest turn
//!   record: its usage (tokens per request, never split per component), context window and
//!   request body, and its input components with bytes and share. A newest record without
//!   components names the newest one that has them, and how far behind it is (MASC's own
//!   inspector does the same).
//! - `2:request`: the serialized input of that newest turn (system prompt, messages, tool
//!   schemas with bytes and sha256).
//! - `3:proof`: [`crate::view::screens::inspector::proof`].
//!
//! Every read state is its own words (not loaded / reading / unavailable: not served / no
//! snapshot / failed with its class / permission denied / empty). Digits switch tabs, `j`/`k`
//! and the page keys scroll, `r` re-reads, `Esc` closes; only `r` and the opening read issue
//! HTTP (K-17).

use crate::actors::asks::TurnTarget;
use crate::actors::inspector::InspectorSlot;
use crate::protocol::inspector::{ProviderInput, TurnRecordsPage};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::outgoing::InspectorRequest;
use crate::view::screens::inspector::proof::proof_rows;
use crate::view::screens::inspector::reads::{
    Row, component_rows, input_rows, input_state, page_rows, records_state, usage_rows,
};
use crate::view::text::sanitize;
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent};
use std::sync::Arc;

/// The tabs of `/context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextTab {
    Stack,
    Request,
    Proof,
}

impl ContextTab {
    pub const ALL: [Self; 3] = [Self::Stack, Self::Request, Self::Proof];

    pub fn index(self) -> usize {
        match self {
            Self::Stack => 0,
            Self::Request => 1,
            Self::Proof => 2,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Stack => "1:stack",
            Self::Request => "2:request",
            Self::Proof => "3:proof",
        }
    }
}

/// The open `/context` inspector: its tab and a scroll per tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextView {
    pub tab: ContextTab,
    pub scroll: [usize; 3],
}

impl Default for ContextView {
    fn default() -> Self {
        Self {
            tab: ContextTab::Stack,
            scroll: [0; 3],
        }
    }
}

impl ContextView {
    /// The tab line: `[1:stack] 2:request 3:proof`.
    pub fn tabs(&self) -> String {
        ContextTab::ALL
            .iter()
            .map(|t| {
                if *t == self.tab {
                    format!("[{}]", t.label())
                } else {
                    t.label().to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn scroll_by(&mut self, delta: isize) {
        let i = self.tab.index();
        self.scroll[i] = self.scroll[i].saturating_add_signed(delta);
    }

    /// A key while `/context` is open. `None`: `Esc`/`q` (close). Tab and scroll keys only
    /// repaint (K-17); `r` re-reads the records and the newest turn's input explicitly.
    pub fn key(&mut self, key: KeyEvent, keeper: &str, model: &Model) -> Option<UiCommand> {
        Some(match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return None,
            KeyCode::Char(c @ '1'..='3') => {
                self.tab = ContextTab::ALL[c as usize - '1' as usize];
                UiCommand::Repaint
            }
            KeyCode::Left => {
                self.tab = ContextTab::ALL[(self.tab.index() + 2) % 3];
                UiCommand::Repaint
            }
            KeyCode::Right | KeyCode::Tab => {
                self.tab = ContextTab::ALL[(self.tab.index() + 1) % 3];
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                self.scroll_by(1);
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                self.scroll_by(-1);
                UiCommand::Repaint
            }
            KeyCode::PageDown => {
                self.scroll_by(10);
                UiCommand::Repaint
            }
            KeyCode::PageUp => {
                self.scroll_by(-10);
                UiCommand::Repaint
            }
            KeyCode::Char('r') => {
                let mut cmds = vec![UiCommand::send(InspectorRequest::Reread(
                    InspectorSlot::Records(keeper.to_string()),
                ))];
                if let Some(target) = newest_turn(model, keeper) {
                    cmds.push(UiCommand::send(InspectorRequest::Reread(
                        InspectorSlot::Input(target),
                    )));
                }
                UiCommand::Many(cmds)
            }
            _ => UiCommand::None,
        })
    }
}

/// The chat target's records page as last observed.
fn page<'a>(model: &'a Model, keeper: &str) -> Option<&'a TurnRecordsPage> {
    model.inspector.page(keeper).map(Arc::as_ref)
}

/// The newest recorded turn of `keeper` (what `2:request` and `3:proof` read).
pub fn newest_turn(model: &Model, keeper: &str) -> Option<TurnTarget> {
    page(model, keeper)
        .and_then(TurnRecordsPage::latest)
        .map(|r| TurnTarget {
            keeper: keeper.to_string(),
            turn_ref: r.turn_ref.clone(),
        })
}

fn records_head(model: &Model, keeper: &str) -> Vec<Row> {
    let (words, tone) = records_state(model.inspector.records_read(keeper));
    let mut out = vec![(format!("turn records  {words}"), tone)];
    if let Some(p) = page(model, keeper) {
        out.extend(page_rows(p));
    }
    out
}

/// `1:stack` rows (after the observed context summary the caller puts first).
pub fn stack_rows(model: &Model, keeper: &str) -> Vec<Row> {
    let mut out = records_head(model, keeper);
    let Some(latest) = page(model, keeper).and_then(TurnRecordsPage::latest) else {
        return out;
    };
    out.push((
        format!(
            "newest turn {} · recorded {}",
            sanitize(&latest.turn_ref),
            crate::view::screens::approvals::asks::clock(latest.ts)
        ),
        Tone::Strong,
    ));
    out.extend(usage_rows(latest));
    out.extend(component_rows(latest));
    if latest.input_components.is_none()
        && let Some((attributed, behind)) = page(model, keeper).and_then(|p| p.latest_attributed())
    {
        out.push((
            format!(
                "newest turn with components: {} ({behind} turns behind the newest)",
                sanitize(&attributed.turn_ref)
            ),
            Tone::Dim,
        ));
        out.extend(component_rows(attributed));
    }
    out
}

fn input_head(model: &Model, target: &TurnTarget) -> (Vec<Row>, Option<Arc<ProviderInput>>) {
    let fetched = model.inspector.input_read(target);
    let (words, tone) = input_state(fetched);
    let value = fetched.and_then(|f| f.last()).map(|o| o.value.clone());
    (
        vec![(
            format!(
                "serialized input of {}  {words}",
                sanitize(&target.turn_ref)
            ),
            tone,
        )],
        value,
    )
}

/// `2:request` rows.
pub fn request_rows(model: &Model, keeper: &str) -> Vec<Row> {
    let Some(target) = newest_turn(model, keeper) else {
        let mut out = records_head(model, keeper);
        out.push((
            "the request is read for the newest recorded turn: none yet".into(),
            Tone::Dim,
        ));
        return out;
    };
    let (mut out, input) = input_head(model, &target);
    if let Some(input) = input {
        out.extend(input_rows(&input));
    }
    out
}

/// `3:proof` rows.
pub fn proof_tab_rows(model: &Model, keeper: &str) -> Vec<Row> {
    let Some(latest) = page(model, keeper).and_then(TurnRecordsPage::latest) else {
        let mut out = records_head(model, keeper);
        out.push(("no turn record to account for".into(), Tone::Dim));
        return out;
    };
    let target = TurnTarget {
        keeper: keeper.to_string(),
        turn_ref: latest.turn_ref.clone(),
    };
    let (mut out, input) = input_head(model, &target);
    out.extend(proof_rows(latest, input.as_deref()));
    out
}
