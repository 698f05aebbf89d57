//! One workspace's fleet line as words: its colour mark, its name, whether this session reads
//! it, its connection and its attention counts (a failed count says so, never `0`), and how old
//! the round is. Shared by the picker `W` and the Overview's Fleet panel.

use crate::actors::fleet::{FleetConnection, FleetCount, FleetLine};
use crate::view::fleet::{FleetEntry, FleetMember};
use crate::view::text::sanitize_line;
use crate::view::theme::{Theme, Tone};
use ratatui::text::Span;
use std::time::Instant;

/// The words of one count (`label n`, `label ≥n`, `label ?` with why).
fn count_words(label: &str, count: FleetCount) -> Option<(String, Tone)> {
    match count {
        FleetCount::NotRead => None,
        FleetCount::Count(0) => Some((format!("{label} 0"), Tone::Dim)),
        FleetCount::Count(n) => Some((format!("{label} {n}"), Tone::Warn)),
        FleetCount::AtLeast(n) => Some((format!("{label} ≥{n}"), Tone::Warn)),
        FleetCount::NotServed => Some((format!("{label} not served"), Tone::Dim)),
        FleetCount::Failed(class) => Some((format!("{label} ? ({class})"), Tone::Bad)),
    }
}

/// The connection's words and tone.
pub fn connection_words(connection: &FleetConnection) -> (String, Tone) {
    match connection {
        FleetConnection::Connected { .. } => ("connected".into(), Tone::Good),
        FleetConnection::Booting => ("server booting".into(), Tone::Busy),
        FleetConnection::Mismatch { served, .. } => (
            format!("serves another workspace ({})", sanitize_line(served)),
            Tone::Bad,
        ),
        FleetConnection::Unread { reason } => (
            format!("no identity ({})", sanitize_line(reason)),
            Tone::Bad,
        ),
        FleetConnection::Unreachable { class } => (format!("unreachable ({class})"), Tone::Bad),
        FleetConnection::WatchStopped => ("watch stopped (failed too often)".into(), Tone::Bad),
        FleetConnection::Refused { reason } => {
            (format!("not watched: {}", sanitize_line(reason)), Tone::Bad)
        }
    }
}

/// The count spans of a line read under an identity.
fn counts(line: &FleetLine, theme: Theme, out: &mut Vec<Span<'static>>) {
    let labelled = [
        ("Keepers in error", line.keepers_in_error),
        ("approvals", line.approvals),
        ("Gate", line.gate_items),
        ("asks", line.asks),
    ];
    for (label, count) in labelled {
        if let Some((words, tone)) = count_words(label, count) {
            out.push(Span::styled(" · ", theme.style(Tone::Dim)));
            out.push(Span::styled(words, theme.style(tone)));
        }
    }
    if let Some(class) = line.refused() {
        out.push(Span::styled(
            format!(" · token refused ({class})"),
            theme.style(Tone::Bad),
        ));
    }
}

fn age(at: Instant, now: Instant) -> String {
    let secs = now.saturating_duration_since(at).as_secs();
    match secs {
        0..=59 => format!("{secs} s ago"),
        60..=3599 => format!("{} min ago", secs / 60),
        _ => format!("{} h ago", secs / 3600),
    }
}

/// The spans of one member's line.
pub fn fleet_spans(
    member: &FleetMember,
    entry: Option<&FleetEntry>,
    active: bool,
    theme: Theme,
    now: Instant,
) -> Vec<Span<'static>> {
    let mark = match member.colour {
        Some(colour) => Span::styled("■ ", theme.accent(colour)),
        None => Span::raw("  "),
    };
    let mut out = vec![
        mark,
        Span::styled(
            sanitize_line(&member.name.0).into_owned(),
            theme.style(Tone::Strong),
        ),
    ];
    if active {
        out.push(Span::styled(" (this session)", theme.style(Tone::Dim)));
    }
    out.push(Span::styled(" · ", theme.style(Tone::Dim)));
    let Some(newest) = entry.and_then(|e| e.newest.as_ref()) else {
        let words = if entry.is_some_and(|e| e.reading) {
            "reading…"
        } else {
            "not read yet"
        };
        out.push(Span::styled(words, theme.style(Tone::Busy)));
        return out;
    };
    let (words, tone) = connection_words(&newest.line.connection);
    out.push(Span::styled(words, theme.style(tone)));
    if newest.line.connection.root().is_some() {
        counts(&newest.line, theme, &mut out);
    } else if let Some(kept) = entry.and_then(|e| e.last_connected.as_ref()) {
        // The last counts read, beside the failure, with their age.
        out.push(Span::styled(
            format!(" · last read {}:", age(kept.at, now)),
            theme.style(Tone::Dim),
        ));
        counts(&kept.line, theme, &mut out);
    }
    out.push(Span::styled(
        format!(" · {}", age(newest.at, now)),
        theme.style(Tone::Dim),
    ));
    out
}
