//! The Gate queue's kinds (§15.3): a resolve (approve or reject) and an Auto Judge retry, each
//! previewed with the row as last read and settled by the queue's re-read.

use super::book_at;
use crate::actors::gate_queue::GATE_QUEUE;
use crate::actors::gate_queue::resolve::{GateResolve, ResolveIntent};
use crate::actors::gate_queue::retry::{GateRetry, RetryIntent};
use crate::protocol::gate_queue::{BLOCKED, GateQueue};
use crate::protocol::gate_resolve::GateDecision;
use crate::view::model::Model;
use crate::view::save_path::settle::{Check, Confirm};
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, SaveCompanion};
use crate::view::saves::SaveEntry;
use crate::view::text::sanitize_line;

const DECIDED: &str = "MASC keeps a Gate decision: it released (or refused) the Keeper's tool call";

/// The row `id` as last read, its disposition code (`None`: not listed).
fn listed_code<'a>(queue: &'a GateQueue, id: &str) -> Option<&'a str> {
    queue.item(id).map(|i| i.disposition().unwrap_or("?"))
}

/// The preview's row line: Keeper, tool and what it asks, from the read.
fn row_note(model: &Model, id: &str) -> Option<String> {
    let (queue, _) = model.gate_queue.latest()?;
    let item = queue.item(id)?;
    Some(format!(
        "{} · {} · {}",
        sanitize_line(&item.keeper_name),
        sanitize_line(&item.tool_name),
        sanitize_line(&item.input_preview)
    ))
}

/// Confirmed by the queue read again after the receipt (`shown`: what that read shows).
fn by_reread(model: &Model, mark: crate::view::admission::ViewMark, check: Check) -> Confirm {
    Confirm::by_sources(
        check.or_failed(&model.gate_queue.queue, mark),
        &[GATE_QUEUE],
    )
}

impl SaveCompanion for GateResolve {
    book_at!(gate_queue.saves.resolves);
    const BUSY: &'static str = "a decision on this Gate row is already in flight";

    fn asked(intent: &ResolveIntent) -> String {
        match (&intent.decision, &intent.reason) {
            (GateDecision::Approve, _) => "approve".into(),
            (GateDecision::Reject, Some(why)) => format!("reject ({})", sanitize_line(why)),
            (GateDecision::Reject, None) => "reject".into(),
        }
    }

    fn preview(model: &Model, intent: &ResolveIntent) -> Option<Preview> {
        let mut preview = Preview::titled(format!(
            "{} Gate row {}: {} {}",
            intent.decision.as_str(),
            sanitize_line(&intent.id),
            sanitize_line(&intent.keeper),
            sanitize_line(&intent.tool)
        ))
        .change(Change::new(
            "decision",
            Some("pending".into()),
            intent.decision.as_str(),
        ));
        if intent.decision == GateDecision::Reject {
            preview = preview.change(Change::new(
                "reason",
                None,
                intent.reason.as_deref().map_or_else(
                    || "(MASC's default)".into(),
                    |r| sanitize_line(r).into_owned(),
                ),
            ));
        }
        if let Some(row) = row_note(model, &intent.id) {
            preview = preview.note(row);
        }
        Some(preview.note(match intent.decision {
            GateDecision::Approve => "the Keeper's tool call runs; no undo",
            GateDecision::Reject => "the Keeper's tool call is refused; no undo",
        }))
    }

    /// The row leaves the queue (§15.3: resolve removes it).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let check = match model.gate_queue.queue.value_since(mark) {
            None => Check::NotYet,
            Some(q) => match listed_code(q, &entry.intent.id) {
                None => Check::Shown,
                Some(_) => Check::Differs("the row still pending".into()),
            },
        };
        Some(by_reread(model, mark, check))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never(DECIDED)
    }
}

impl SaveCompanion for GateRetry {
    book_at!(gate_queue.saves.retries);
    const BUSY: &'static str = "a retry of this Gate row is already in flight";

    fn asked(_intent: &RetryIntent) -> String {
        "retry Auto Judge".into()
    }

    fn preview(model: &Model, intent: &RetryIntent) -> Option<Preview> {
        let code = intent
            .row
            .pointer("/summary_attempt_disposition/code")
            .and_then(|c| c.as_str())
            .unwrap_or("?");
        let mut preview = Preview::titled(format!(
            "retry Auto Judge on Gate row {}: {} {}",
            sanitize_line(&intent.id),
            sanitize_line(&intent.keeper),
            sanitize_line(&intent.tool)
        ))
        .change(Change::new(
            "judging",
            Some(sanitize_line(code).into_owned()),
            "re-armed",
        ));
        if let Some(row) = row_note(model, &intent.id) {
            preview = preview.note(row);
        }
        Some(preview.note(
            "sent with the row exactly as read: MASC refuses it if the row changed since; \
             nothing is decided, Auto Judge judges it again",
        ))
    }

    /// The row is no longer blocked (judging, decided, or gone).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let check = match model.gate_queue.queue.value_since(mark) {
            None => Check::NotYet,
            Some(q) => match listed_code(q, &entry.intent.id) {
                Some(code) if BLOCKED.contains(&code) => {
                    Check::Differs(format!("the row still {code}"))
                }
                _ => Check::Shown,
            },
        };
        Some(by_reread(model, mark, check))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a re-armed judge cannot be stopped from masc-tui")
    }
}
