//! The chat status line's context (C-57, C-58): the chat target's Live Context (§14.8),
//! owned by the chat target, never the roster cursor (L-2).

use crate::protocol::keeper_detail::{ContextObservation, DashboardGate, LiveContext};
use crate::view::fetched::Fetched;
use crate::view::screens::keepers::detail::thousands;
use crate::view::theme::Tone;
use std::sync::Arc;

/// The status line's context (C-57, C-58): the chat target's Live Context (§14.8, L-2) —
/// `context 50% · 100,887/200,000`, the token count alone without a window, `unavailable`
/// with the reason when not observed or unreadable; a kept value after a failed re-read is
/// marked `(last)`.
pub fn context_words(fetched: Option<&Fetched<Arc<LiveContext>>>) -> (String, Tone) {
    let Some(fetched) = fetched else {
        return ("context not requested".into(), Tone::Dim);
    };
    let value = |c: &LiveContext| match &c.context {
        ContextObservation::Observed {
            tokens,
            max: Some(max),
            ratio: Some(ratio),
            ..
        } => (
            format!(
                "context {:.0}% · {}/{}",
                ratio * 100.0,
                thousands(*tokens),
                thousands(*max)
            ),
            if *ratio >= 0.85 {
                Tone::Warn
            } else {
                Tone::Dim
            },
        ),
        ContextObservation::Observed { tokens, .. } => {
            (format!("context {} tokens", thousands(*tokens)), Tone::Dim)
        }
        ContextObservation::NotObserved { reason, .. } => (
            format!("context unavailable ({})", reason.as_str()),
            Tone::Dim,
        ),
    };
    match fetched {
        Fetched::NotRequested => ("context not requested".into(), Tone::Dim),
        Fetched::Loading | Fetched::Warming { last: None } => {
            ("context reading…".into(), Tone::Dim)
        }
        Fetched::Ready(o) | Fetched::Refreshing { last: o, .. } => value(&o.value),
        Fetched::Warming { last: Some(o) } => value(&o.value),
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            let (text, _) = value(&o.value);
            (
                format!("{text} (last; re-read failed: {})", error.class),
                Tone::Warn,
            )
        }
        // Not served is its own state (only this part is unavailable).
        Fetched::NotServed { last: Some(o), .. } => {
            let (text, _) = value(&o.value);
            (
                format!("{text} (last; not served by this MASC any more)"),
                Tone::Warn,
            )
        }
        Fetched::NotServed { last: None, .. } => (
            "context unavailable (not served by this MASC)".into(),
            Tone::Dim,
        ),
        Fetched::Failed {
            last: None, error, ..
        } => {
            if crate::view::keepers::detail::not_served(error.class) {
                (
                    "context unavailable (not served by this MASC)".into(),
                    Tone::Dim,
                )
            } else {
                (format!("context unavailable ({})", error.class), Tone::Warn)
            }
        }
    }
}

/// The status line's `gate:` (C-57, §14.4): the workspace Gate mode read; `gate: not loaded`
/// while unread or failed with nothing before; a kept value after a failed re-read is marked.
pub fn gate_words(fetched: &Fetched<Arc<DashboardGate>>) -> (String, Tone) {
    match fetched {
        Fetched::Ready(o) | Fetched::Refreshing { last: o, .. } => {
            (o.value.status_words(), Tone::Dim)
        }
        Fetched::Warming { last: Some(o) } => (o.value.status_words(), Tone::Dim),
        Fetched::Failed { last: Some(o), .. } | Fetched::NotServed { last: Some(o), .. } => {
            (format!("{} (last)", o.value.status_words()), Tone::Warn)
        }
        Fetched::NotServed { last: None, .. } => {
            ("gate: not served by this MASC".into(), Tone::Dim)
        }
        Fetched::NotRequested
        | Fetched::Loading
        | Fetched::Warming { last: None }
        | Fetched::Failed { last: None, .. } => ("gate: not loaded".into(), Tone::Dim),
    }
}
