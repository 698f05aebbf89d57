//! The turn inspector's `1:record` and `2:input` tabs and the read states of `3:request`
//! (protocol.md §14.11; sources.md K-14, K-15): the pinned turn's record, taken from the
//! Keeper's records page only by its exact `Turn_ref` (absent = "not on this page", never
//! another turn's record), and its serialized provider input.

use crate::actors::asks::TurnTarget;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::turn_reads::{
    ReadKind, Row, input_rows, page_rows, record_rows, records_state, state_words,
};
use crate::view::text::sanitize;
use crate::view::theme::Tone;

/// The state row of the pinned turn's record (K-15).
fn record_state(model: &Model, target: &TurnTarget) -> Row {
    match model
        .inspector
        .records
        .get(&target.keeper)
        .map(|s| &s.fetched)
    {
        None => ("not loaded".into(), Tone::Dim),
        Some(f) => {
            let (words, tone) = records_state(f);
            match f.last() {
                Some(o) if o.value.record_of(&target.turn_ref).is_none() => (
                    format!("{words} · this turn is not on this page"),
                    Tone::Warn,
                ),
                _ => (words, tone),
            }
        }
    }
}

/// The state row of the pinned turn's serialized input (K-15).
fn input_state(model: &Model, target: &TurnTarget) -> Row {
    match model.inspector.inputs.get(target).map(|s| &s.fetched) {
        None => ("not loaded".into(), Tone::Dim),
        Some(Fetched::Ready(_)) => ("received".into(), Tone::Good),
        Some(f) => state_words(f, ReadKind::Input),
    }
}

/// `1:record`.
pub fn record_tab(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let mut out = vec![record_state(model, target)];
    let page = model
        .inspector
        .records
        .get(&target.keeper)
        .and_then(|s| s.fetched.last())
        .map(|o| o.value.clone());
    let Some(page) = page else {
        return out;
    };
    out.extend(page_rows(&page));
    match page.record_of(&target.turn_ref) {
        Some(record) => out.extend(record_rows(record)),
        None => out.push((
            format!(
                "not on this page: the {} newest records of {} do not include {} (never \
                 another turn's record)",
                page.records.len(),
                sanitize(&target.keeper),
                sanitize(&target.turn_ref)
            ),
            Tone::Warn,
        )),
    }
    out
}

/// `2:input`.
pub fn input_tab(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let mut out = vec![input_state(model, target)];
    if let Some(o) = model
        .inspector
        .inputs
        .get(target)
        .and_then(|s| s.fetched.last())
    {
        out.extend(input_rows(&o.value));
    }
    out
}

/// The record and input rows of `3:request` (each its own state, K-15).
pub fn request_states(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let (r, rt) = record_state(model, target);
    let (i, it) = input_state(model, target);
    vec![
        (format!("turn record       {r}"), rt),
        (format!("serialized input  {i}"), it),
    ]
}
