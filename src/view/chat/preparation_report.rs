//! The preparation detail of the open chat (sources.md M-1…M-9; protocol.md §14.12): while the
//! chat's details are expanded (`Ctrl-S`, C-30: diagnostics only when asked for), the newest
//! finished turn with an exact link gets one detail row — the stored report read from the
//! runtime trace. Links (M-1, M-2): this client's send's reply `turn_ref` and its operation
//! record's `outcome_ref`; when both are known and differ, neither is chosen; without a send,
//! the newest persisted reply's `turn_ref`. Never by Keeper name or time (C-45).
//!
//! The row says what the read came to, each state in its own words: `조회 중` (reading),
//! `조회 불가 (<class>)` (the read failed: unavailable) apart from `권한 거절` (401/403: a
//! permission refusal, M-8), not served, or the report with `최근 확인` (last checked) and its
//! health — anything but `ok` is partial (M-4) — then its rows, each kind apart: this turn's
//! manifest rows, unsupported events, other turns' rows (counted, never this turn's), rows
//! that did not decode, receipts. No stage times are added up (M-7); nothing here changes the
//! progress row (M-7).

use super::pane::{ChatPane, SendPhase};
use crate::actors::chat::{Reconciliation, SendOutcome};
use crate::actors::preparation_report::PreparationReportTarget;
use crate::protocol::chat::OperationProgress;
use crate::protocol::client::ErrorClass;
use crate::protocol::runtime_trace::{ManifestEntry, ReceiptEntry, RuntimeTrace, TurnLink};
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::preparation_report::{Aim, PreparationReportModel};
use crate::view::transcript::model::{Entry, EntryKind, Speaker};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The id of the detail row.
pub const ROW_ID: &str = "preparation:detail";

fn target(keeper: &str, turn_ref: &str) -> Aim {
    match TurnLink::parse(turn_ref) {
        Some(link) => Aim::Target(PreparationReportTarget {
            keeper: keeper.to_string(),
            link,
        }),
        None => Aim::Nothing,
    }
}

/// What the details of `pane` point at (`details`: `Ctrl-S` expanded).
pub fn aim_of(pane: &ChatPane, details: bool) -> Aim {
    if !details {
        return Aim::Nothing;
    }
    for send in pane.sends.values().rev() {
        let reply = match &send.phase {
            SendPhase::Ended(SendOutcome::Completed { reply }) => Some(reply.turn_ref.clone()),
            _ => None,
        };
        let record = match &send.reconciliation {
            Some(Reconciliation::Found(r)) => match &r.progress {
                OperationProgress::Succeeded { outcome_ref, .. } => Some(outcome_ref.clone()),
                OperationProgress::Failed { outcome_ref, .. } => outcome_ref.clone(),
                _ => None,
            },
            _ => None,
        };
        match (reply, record) {
            (Some(reply), Some(record)) if reply != record => {
                return Aim::Conflict { reply, record };
            }
            (Some(link), _) | (None, Some(link)) => return target(&pane.keeper, &link),
            (None, None) => {}
        }
    }
    let view = pane.view();
    let newest = view.transcript().entries().iter().rev().find(|e| {
        matches!(&e.speaker, Speaker::Keeper { owner: true, .. })
            && e.kind == EntryKind::Utterance
            && e.turn_ref.is_some()
    });
    match newest.and_then(|e| e.turn_ref.as_deref()) {
        Some(turn_ref) => target(&pane.keeper, turn_ref),
        None => Aim::Nothing,
    }
}

/// `HH:MM:SS UTC` of a time this machine recorded (fixed at admission, so the row does not
/// change by itself).
fn clock(at: SystemTime) -> String {
    let wall = at
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    let day = wall % 86_400;
    format!(
        "{:02}:{:02}:{:02} UTC",
        day / 3600,
        (day % 3600) / 60,
        day % 60
    )
}

/// The words of a failed read (M-8): a permission refusal is not "unavailable".
pub fn failure_words(class: &FailureClass) -> String {
    match class {
        FailureClass::Read(ErrorClass::Unauthorized(status))
        | FailureClass::Read(ErrorClass::Status(status @ (401 | 403))) => {
            format!("권한 거절 (HTTP {status})")
        }
        other => format!("조회 불가 ({other})"),
    }
}

/// The report's lines after the header.
fn report_lines(r: &RuntimeTrace, out: &mut Vec<String>) {
    let health = match (&r.health, &r.stale_reason) {
        (h, _) if h.is_ok() => "health ok".to_string(),
        (h, Some(why)) => format!("health {} ({why}) · partial", h.word()),
        (h, None) => format!("health {} · partial", h.word()),
    };
    let total = if r.manifest_total_rows_exact {
        r.manifest_total_rows.to_string()
    } else {
        format!("≥{}", r.manifest_total_rows)
    };
    out.push(format!(
        "{health} · manifest {} of {total} rows · receipts {}",
        r.manifest.len(),
        r.receipts.len()
    ));
    for e in &r.manifest {
        match e {
            ManifestEntry::Row {
                event,
                status,
                logical_seq,
                ..
            } => out.push(match logical_seq {
                Some(seq) => format!("  {seq} {event} · {status}"),
                None => format!("  {event} · {status}"),
            }),
            ManifestEntry::Unsupported { event } => {
                out.push(format!("  unsupported event: {event}"))
            }
            ManifestEntry::OtherTurn | ManifestEntry::Undecodable { .. } => {}
        }
    }
    let other = r.count(|e| matches!(e, ManifestEntry::OtherTurn));
    if other > 0 {
        out.push(format!("  {other} rows of other turns · not this turn's"));
    }
    let bad: Vec<&str> = r
        .manifest
        .iter()
        .filter_map(|e| match e {
            ManifestEntry::Undecodable { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    if let Some(first) = bad.first() {
        out.push(format!(
            "  {} rows not decoded · not this turn's · {first}",
            bad.len()
        ));
    }
    for receipt in &r.receipts {
        out.push(match receipt {
            ReceiptEntry::Read {
                outcome,
                terminal_reason_code,
                runtime_id,
                error_kind,
            } => {
                let mut line = format!("  receipt · {outcome}");
                for part in [terminal_reason_code, runtime_id, error_kind]
                    .into_iter()
                    .flatten()
                {
                    line.push_str(&format!(" · {part}"));
                }
                line
            }
            ReceiptEntry::Undecodable { reason } => format!("  receipt not decoded · {reason}"),
        });
    }
}

/// The detail row's text, or `None` when nothing is aimed (the row goes).
pub fn detail_text(prep: &PreparationReportModel) -> Option<String> {
    let mut out = Vec::new();
    match &prep.aim {
        Aim::Nothing => return None,
        Aim::Conflict { reply, record } => out.push(format!(
            "준비 상세 · 연결 안 됨 · the reply names {reply}, the operation record {record}: neither is chosen"
        )),
        Aim::Target(t) => {
            let turn = t.link.turn_ref();
            let fetched = &prep.report.fetched;
            let completed = prep.completed();
            let head = match fetched {
                Fetched::NotServed { .. } => {
                    format!("준비 상세 · {turn} · this MASC does not serve the runtime trace")
                }
                Fetched::Failed { error, .. } => {
                    format!("준비 상세 · {turn} · {}", failure_words(&error.class))
                }
                Fetched::Ready(_) => match completed {
                    Some((_, at)) => format!("준비 상세 · {turn} · 최근 확인 {}", clock(*at)),
                    None => format!("준비 상세 · {turn} · 최근 확인"),
                },
                Fetched::Refreshing { .. } | Fetched::Loading | Fetched::Warming { .. } => {
                    format!("준비 상세 · {turn} · 조회 중")
                }
                // Read to completion earlier in this session: reused (M-5).
                Fetched::NotRequested => match completed {
                    Some((_, at)) => {
                        format!("준비 상세 · {turn} · 최근 확인 {} (earlier read)", clock(*at))
                    }
                    None => format!("준비 상세 · {turn} · 조회 중"),
                },
            };
            out.push(head);
            let report = fetched
                .last()
                .map(|o| o.value.clone())
                .or_else(|| completed.map(|(v, _)| v.clone()));
            if let Some(report) = report {
                if !matches!(fetched, Fetched::Ready(_) | Fetched::NotRequested) {
                    out.push("  last observation:".to_string());
                }
                report_lines(&report, &mut out);
            }
        }
    }
    Some(out.join("\n"))
}

/// Keeps the chat's detail row in step with the preparation model: written only when it
/// changes, at the end of the transcript when it first appears or its turn changes.
pub fn sync(prep: &PreparationReportModel, pane: &ChatPane) {
    let text = detail_text(prep);
    let mut view = pane.view();
    let t = view.transcript_mut();
    let Some(text) = text else {
        t.remove(ROW_ID);
        return;
    };
    let same_turn = |old: &str| {
        old.lines().next() == text.lines().next()
            || old.split(" · ").nth(1) == text.split(" · ").nth(1)
    };
    match t.get(ROW_ID) {
        Some(e) if e.text == text => {}
        Some(e) if same_turn(&e.text) => {
            t.update(ROW_ID, |e| e.text = text);
        }
        _ => {
            t.remove(ROW_ID);
            t.upsert(Entry::new(ROW_ID, Speaker::System, EntryKind::Status, text));
        }
    }
}
