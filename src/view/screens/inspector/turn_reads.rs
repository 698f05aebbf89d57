//! The turn inspector's `1:record` and `2:input` tabs and the read states of `3:request`
//! (protocol.md §14.11; sources.md K-14, K-15): the pinned turn's record, taken from the
//! Keeper's records page only by its exact `Turn_ref` (never another turn's record), and its
//! serialized provider input.
//!
//! An absent record says why, with the `limit` the page was read with
//! ([`PinnedLookup`]): "not on this page (newest N read)" with `H` offered to read a wider
//! page (50 → 200 → 500); "not found in MASC's maximum 500" (MASC has no cursor: nothing
//! older can be read); "not among the rows MASC holds" (it returned fewer than asked).

use crate::actors::asks::TurnTarget;
use crate::protocol::inspector::turn_records::{MAX_LIMIT, PinnedLookup};
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::inspector::reads::{
    Row, input_rows, input_state, page_rows, record_rows, records_state,
};
use crate::view::text::sanitize;
use crate::view::theme::Tone;

/// The state row of the pinned turn's record (K-15), with why it is absent (K-14).
fn record_state(model: &Model, target: &TurnTarget) -> Row {
    let f = model.inspector.records_read(&target.keeper);
    let (words, tone) = records_state(f);
    let Some(f) = f else {
        return (words, tone);
    };
    let Some(page) = f.last().map(|o| &o.value) else {
        return (words, tone);
    };
    let asked = model.inspector.records_limit(&target.keeper);
    let reading_wider = matches!(f, Fetched::Refreshing { .. }) && asked > page.limit;
    if reading_wider {
        // The wider page is on its way: say so rather than offer `H` again.
        return (
            format!(
                "reading the newest {asked} (조회 중) · the newest {} shown",
                page.limit
            ),
            Tone::Busy,
        );
    }
    let standing = match page.lookup(&target.turn_ref) {
        PinnedLookup::Found(_) => return (words, tone),
        PinnedLookup::NotOnPage { read, wider } => {
            format!("this turn is not on this page (newest {read} read; H reads {wider})")
        }
        PinnedLookup::NotInMaximum { read } => {
            format!("this turn is not found in MASC's maximum {read}")
        }
        PinnedLookup::AllRead { rows } => {
            format!("this turn is not among the {rows} rows MASC holds")
        }
    };
    // A received page: the pinned turn's standing first (a narrow inspector cuts the end of
    // the row); a failed or refused re-read: its state first, as for every read.
    match f {
        Fetched::Ready(_) => (format!("{standing} · {words}"), Tone::Warn),
        _ => (format!("{words} · {standing}"), tone),
    }
}

/// `1:record`.
pub fn record_tab(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let mut out = vec![record_state(model, target)];
    let Some(page) = model.inspector.page(&target.keeper) else {
        return out;
    };
    out.extend(page_rows(page));
    let (keeper, turn) = (sanitize(&target.keeper), sanitize(&target.turn_ref));
    let n = page.records.len();
    match page.lookup(&target.turn_ref) {
        PinnedLookup::Found(record) => out.extend(record_rows(record)),
        PinnedLookup::NotOnPage { read, wider } => out.extend([
            (
                format!(
                    "not on this page (newest {read} read): the {n} records of {keeper} do \
                     not include {turn} (never another turn's record)"
                ),
                Tone::Warn,
            ),
            (
                format!(
                    "  H: read the newest {wider} (MASC has no cursor on turn records; \
                     {MAX_LIMIT} is its maximum)"
                ),
                Tone::Dim,
            ),
        ]),
        PinnedLookup::NotInMaximum { read } => out.push((
            format!(
                "not found in MASC's maximum {read}: the {n} newest records of {keeper} do \
                 not include {turn}; MASC serves no older turn record (never another turn's \
                 record)"
            ),
            Tone::Warn,
        )),
        PinnedLookup::AllRead { rows } => out.push((
            format!(
                "not found: {keeper}'s turn records ({rows} rows, every row MASC holds) do not \
                 include {turn} (never another turn's record)"
            ),
            Tone::Warn,
        )),
    }
    out
}

/// What `H` does in the `O` inspector, from what the record tab shows: the wider page when
/// the pinned turn is not on the page and a wider one exists (or the wider page asked for
/// again when its read ended without it), else why not.
pub fn widen_key(model: &Model, target: &TurnTarget) -> Result<WidenKey, &'static str> {
    let page = model
        .inspector
        .page(&target.keeper)
        .ok_or("no turn records read yet (r reads them)")?;
    match page.lookup(&target.turn_ref) {
        PinnedLookup::Found(_) => Err("the pinned turn is on this page"),
        PinnedLookup::AllRead { .. } => Err("MASC holds no turn record older than this page"),
        PinnedLookup::NotInMaximum { .. } => {
            Err("500 is MASC's maximum: no older turn record can be read")
        }
        PinnedLookup::NotOnPage { .. }
            if model.inspector.records_limit(&target.keeper) > page.limit =>
        {
            Ok(WidenKey::Again)
        }
        PinnedLookup::NotOnPage { .. } => Ok(WidenKey::Wider),
    }
}

/// What `H` sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WidenKey {
    /// The next wider page.
    Wider,
    /// The wider page already asked for (in flight: shared; ended without it: read again).
    Again,
}

/// `2:input`.
pub fn input_tab(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let fetched = model.inspector.input_read(target);
    let mut out = vec![input_state(fetched)];
    if let Some(o) = fetched.and_then(Fetched::last) {
        out.extend(input_rows(&o.value));
    }
    out
}

/// The record and input rows of `3:request` (each its own state, K-15).
pub fn request_states(model: &Model, target: &TurnTarget) -> Vec<Row> {
    let (r, rt) = record_state(model, target);
    let (i, it) = input_state(model.inspector.input_read(target));
    vec![
        (format!("turn record       {r}"), rt),
        (format!("serialized input  {i}"), it),
    ]
}
