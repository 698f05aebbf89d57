//! Approvals (surfaces.md "Approvals / Ask"; protocol.md §10.5, §11 "Approval decision"):
//! this actor's pending operator approvals, deciding them with an armed `y y` / `n n`, each
//! decision's receipt, and the field-list detail. Reached by `p` from Work and `Enter` on the
//! Overview; drawn over the surface it was opened from.
//!
//! The list is the Decisions source's approvals slot (unread, reading, failed, warming and
//! empty read differently, G-5); decisions are saves (`view::saves`) whose receipts show
//! what the server answered: the action ran, accepted with delivery pending, approval consumed
//! with the action failing, denied, no longer pending, expired, not permitted, not sent,
//! outcome unknown — each distinct.
//!
//! The list and the detail are drawn in `list`; a decision's words come from `receipt_words`.

pub mod asks;
pub mod follow_up;
pub mod keys;
pub mod layer;
mod list;
pub mod reader;
mod receipt_words;
pub mod summary;

pub use list::detail_lines;
pub use receipt_words::decision_words;
pub use summary::selected_ask;

use super::{ProjectionCtx, Tab};
use crate::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use crate::protocol::operator::{Approval, Decision};
use crate::protocol::outcome::SaveOutcome;
use crate::view::bindings::{DOWN, END, ENTER, ESC, HOME, Press, RIGHT, Table, UP, bind};
use crate::view::model::Model;
use crate::view::saves::SaveEntry;
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use list::{render_approvals, target_of};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use receipt_words::verb;
use std::time::Instant;

/// The approvals view's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalsUi {
    pub selected: usize,
    pub offset: usize,
    /// The token of the selected approval: the selection (and an open detail) follows the
    /// approval, not its row, when a re-read moves the list.
    pub anchor: Option<String>,
    /// The first `y` or `n` armed this decision on this approval (the second sends it).
    pub armed: Option<(String, Decision)>,
    /// What the armed decision was armed against; a change disarms.
    pub armed_over: Option<ArmedOver>,
    /// The field-list detail of the selected approval is open.
    pub detail_open: bool,
    /// Where `Esc` returns.
    pub opened_from: Tab,
    /// The Ask whose question the summary previews (`[`/`]`), by id.
    pub ask: Option<crate::actors::asks::AskRef>,
    /// The question of that Ask the summary previews.
    pub ask_question: usize,
    /// The answer reader (`a`), when open.
    pub reader: Option<reader::AskReader>,
}

impl ApprovalsUi {
    pub fn new(opened_from: Tab) -> Self {
        Self {
            selected: 0,
            offset: 0,
            anchor: None,
            armed: None,
            armed_over: None,
            detail_open: false,
            opened_from,
            ask: None,
            ask_question: 0,
            reader: None,
        }
    }

    /// The view as opened over `opened_from`, its selection on the first approval listed.
    pub fn opened(opened_from: Tab, model: &Model) -> Self {
        Self {
            anchor: listed(model).first().map(|a| a.confirm_token.clone()),
            ..Self::new(opened_from)
        }
    }
}

/// What an armed decision was armed against: the confirmed workspace and the approval's
/// newest decision at the first press. Either changing before the second press disarms
/// (surfaces.md: a surface change or the request's completion disarms): a decision is sent
/// only in the workspace, and over the decision state, the operator saw when arming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmedOver {
    pub workspace: Option<String>,
    pub decision: Option<crate::actors::saves::SaveId>,
}

impl ArmedOver {
    pub fn now(model: &Model, token: &str) -> Self {
        Self {
            workspace: model.gate().current().map(|s| s.workspace.0.clone()),
            decision: latest(model, token).map(|e| e.save_id.clone()),
        }
    }
}

/// The approvals as last read, if any.
pub fn listed(model: &Model) -> &[Approval] {
    model
        .decisions
        .approvals
        .fetched
        .last()
        .map_or(&[], |o| o.value.items.as_slice())
}

/// The workspace whose decisions are shown: the confirmed one, or while authority is
/// withdrawn the last confirmed one (its list stays on screen, G-6; its receipts survive
/// beside it, H-16). Another workspace's decisions are never shown (I-5).
pub fn workspace(model: &Model) -> Option<String> {
    model.decisions.workspace().map(str::to_string)
}

/// The intent of deciding `approval` this way.
pub fn intent_of(approval: &Approval, decision: Decision) -> DecisionIntent {
    DecisionIntent {
        confirm_token: approval.confirm_token.clone(),
        decision,
        action_type: approval.action_type,
        target_id: approval.target_id.clone(),
        expires_at: approval.expires_at.and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        }),
    }
}

/// The newest decision of `token` in this workspace.
pub fn latest<'a>(model: &'a Model, token: &str) -> Option<&'a SaveEntry<ApprovalDecision>> {
    let ws = workspace(model)?;
    model.decisions.decisions.latest(token, &ws)
}

/// Whether `R` may send the same decision again: only with authority in the workspace shown,
/// and only when nothing can have run — the decision was not sent, or refused while the
/// server was warming — or, for an unknown outcome, once a read of the list dispatched after
/// the receipt landed still lists the approval (§11: an unknown outcome requires a re-read
/// before any retry; a read already in flight then may show the list from before the write).
/// Never resent by itself.
pub fn retry_offered(model: &Model, approval: &Approval) -> Option<DecisionIntent> {
    let current = model.gate().current()?;
    if model.decisions.workspace() != Some(current.workspace.0.as_str()) {
        return None;
    }
    let entry = latest(model, &approval.confirm_token)?;
    let receipt = entry.phase.receipt()?;
    let offered = match receipt {
        SaveOutcome::NotSent { .. } => true,
        SaveOutcome::NotApplied { reason } => reason.contains("warming"),
        SaveOutcome::OutcomeUnknown { .. } => model.decisions.rereads.since_receipt(&entry.save_id),
        SaveOutcome::Applied { .. } | SaveOutcome::Unchanged | SaveOutcome::Conflict { .. } => {
            false
        }
    };
    offered.then(|| entry.intent.clone())
}

/// Paints the approvals view into the body area (without the session's Ask drafts).
pub fn render(model: &Model, ui: &ApprovalsUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    render_view(model, ui, &asks::AsksUi::default(), ctx, area, buf);
}

/// Paints the approvals view — the approvals above, the open Asks with the summary preview
/// below — or the answer reader when it is open.
pub fn render_view(
    model: &Model,
    ui: &ApprovalsUi,
    drafts: &asks::AsksUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    if let Some(reader) = &ui.reader {
        reader::render(model, drafts, reader, ctx, area, buf);
        return;
    }
    let (top, bottom) = summary::split_for_asks(model, area);
    render_approvals(model, ui, ctx, top, buf);
    if let Some(bottom) = bottom {
        summary::render_asks(model, ui, drafts, ctx, bottom, buf);
    }
}

/// The footer of the approvals view (the reader's when it is open).
pub fn footer_view(
    model: &Model,
    ui: &ApprovalsUi,
    drafts: &asks::AsksUi,
    theme: Theme,
) -> Vec<Span<'static>> {
    match &ui.reader {
        Some(reader) => reader::footer(model, drafts, reader, theme).spans,
        None => footer_spans(model, ui, theme),
    }
}

/// The keys `?` lists for the open view.
pub fn help_keys(ui: &ApprovalsUi) -> &'static Table {
    match &ui.reader {
        Some(r) if r.inspector.is_some() => &crate::view::screens::inspector::turn::INSPECTOR,
        Some(_) => &reader::READER,
        None => &APPROVALS,
    }
}

/// The footer of the approvals view.
pub fn footer_spans(model: &Model, ui: &ApprovalsUi, theme: Theme) -> Vec<Span<'static>> {
    if let Some((token, d)) = &ui.armed {
        let what = listed(model)
            .iter()
            .find(|a| &a.confirm_token == token)
            .map(|a| format!("{} → {}", sanitize(&a.delegated_tool), target_of(a)))
            .unwrap_or_default();
        return vec![Span::styled(
            format!(
                "press {} again to {} {what} · any other key cancels",
                if *d == Decision::Confirm { "y" } else { "n" },
                verb(*d).to_uppercase()
            ),
            theme.style(Tone::Warn),
        )];
    }
    let mut text = String::from(
        " · y y confirm · n n deny · Enter detail · [ ] Ask · a answer · Q Gate queue · r re-read · Esc back",
    );
    if listed(model)
        .get(ui.selected)
        .is_some_and(|a| retry_offered(model, a).is_some())
    {
        text.push_str(" · R retry");
    }
    vec![Span::styled(text, theme.style(Tone::Dim))]
}

/// The keys of the approvals view, for `?`.
pub const APPROVALS: Table = Table {
    title: "Approvals keys",
    bindings: &[
        bind(
            "y y",
            &[Press::ch('y')],
            "confirm the selected approval (the first y arms, the second sends)",
        )
        .footer("confirm"),
        bind(
            "n n",
            &[Press::ch('n')],
            "deny the selected approval (the first n arms, the second sends)",
        )
        .footer("deny"),
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
            "Enter / Right",
            &[ENTER, RIGHT],
            "every field of the selected approval; Esc closes",
        )
        .footer("detail"),
        bind(
            "R",
            &[Press::ch('R')],
            "send the same decision again, only when offered (nothing ran)",
        ),
        bind(
            "[ / ]",
            &[Press::ch('['), Press::ch(']')],
            "previous / next open Ask in the summary preview",
        ),
        bind(
            "a",
            &[Press::ch('a')],
            "open the Ask answer reader on the selected Ask",
        )
        .footer("answer"),
        bind(
            "Q",
            &[Press::ch('Q')],
            "the durable Gate queue (§15.3): approve, reject, retry Auto Judge",
        )
        .footer("Gate queue"),
        bind(
            "r",
            &[],
            "re-read the approvals and the Asks (the global r)",
        ),
        bind("Esc", &[ESC], "back").footer("back"),
        bind("any other key", &[], "disarms"),
    ],
};

/// `Instant` of the approvals read, for tests and the retry rule.
pub fn observed_at(model: &Model) -> Option<Instant> {
    model
        .decisions
        .approvals
        .fetched
        .last()
        .map(|o| o.observed_at)
}
