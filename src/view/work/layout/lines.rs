//! The display rows of the Task detail, built on a worker: the task document (identity,
//! state fields, canonical goal observation, description, files) and each history event (a
//! head row cut to the width, then its wrapped note and handoff summary). Server text is
//! sanitised and wrapped here, once; a frame only draws the rows.

use super::{LaidOutLine, Segments};
use crate::protocol::tasks::{GoalObservation, Task, TaskDetail, TaskEventRow, TaskState};
use crate::view::text::{display_width, fits_in, sanitize, wrap};
use crate::view::theme::Tone;
use compact_str::{CompactString, format_compact};
use smallvec::smallvec;

fn push_wrapped(out: &mut Vec<LaidOutLine>, tone: Tone, indent: &str, text: &str, width: usize) {
    let avail = width.saturating_sub(display_width(indent)).max(1);
    // `sanitize_lines` without the collected vector (the same lines).
    for line in text.split('\n') {
        let raw = sanitize(line.strip_suffix('\r').unwrap_or(line));
        if fits_in(&raw, avail) {
            // The one row `wrap` would make, without its vector.
            out.push(LaidOutLine::two(
                (Tone::Dim, indent.into()),
                (tone, raw.trim_end().into()),
            ));
            continue;
        }
        for piece in wrap(&raw, avail) {
            out.push(LaidOutLine::two(
                (Tone::Dim, indent.into()),
                (tone, piece.into()),
            ));
        }
    }
}

fn field(out: &mut Vec<LaidOutLine>, label: &str, value: &str, width: usize) {
    let label = format!("{label:<10}");
    let avail = width.saturating_sub(display_width(&label)).max(1);
    let value = sanitize(value);
    for (i, piece) in wrap(&value, avail).into_iter().enumerate() {
        let head = if i == 0 {
            CompactString::from(label.as_str())
        } else {
            CompactString::from(" ".repeat(10))
        };
        out.push(LaidOutLine::two(
            (Tone::Dim, head),
            (Tone::Normal, piece.into()),
        ));
    }
}

fn state_fields(task: &Task, out: &mut Vec<LaidOutLine>, width: usize) {
    match &task.state {
        TaskState::Todo => {}
        TaskState::Claimed {
            assignee,
            claimed_at,
        } => {
            field(out, "assignee", assignee, width);
            field(out, "claimed", claimed_at, width);
        }
        TaskState::InProgress {
            assignee,
            started_at,
        } => {
            field(out, "assignee", assignee, width);
            field(out, "started", started_at, width);
        }
        TaskState::AwaitingVerification {
            assignee,
            started_at,
            submitted_at,
            verification_id,
        } => {
            field(out, "assignee", assignee, width);
            field(out, "started", started_at, width);
            field(out, "submitted", submitted_at, width);
            field(out, "verif.", verification_id, width);
        }
        TaskState::Done {
            assignee,
            completed_at,
            notes,
        } => {
            field(out, "assignee", assignee, width);
            field(out, "completed", completed_at, width);
            match notes {
                Some(n) => field(out, "notes", n, width),
                None => field(out, "notes", "(none sent)", width),
            }
        }
        TaskState::Cancelled {
            cancelled_by,
            cancelled_at,
            reason,
        } => {
            field(
                out,
                "cancelled",
                &format!("{cancelled_at} by {cancelled_by}"),
                width,
            );
            field(out, "reason", reason, width);
        }
    }
}

/// The task document: identity, state fields, canonical goal observation, description, files.
pub fn body_lines(detail: &TaskDetail, width: usize) -> Vec<LaidOutLine> {
    let task = &detail.task;
    let mut out = Vec::new();
    for piece in wrap(&sanitize(&task.title), width) {
        out.push(LaidOutLine::one(Tone::Strong, piece));
    }
    let status_tone = match task.state.status() {
        crate::protocol::tasks::TaskStatus::Done => Tone::Good,
        crate::protocol::tasks::TaskStatus::Cancelled => Tone::Dim,
        crate::protocol::tasks::TaskStatus::AwaitingVerification => Tone::Warn,
        _ => Tone::Busy,
    };
    out.push(LaidOutLine {
        segments: smallvec![
            (Tone::Dim, format_compact!("{} · ", sanitize(&task.id))),
            (status_tone, task.state.status().as_str().into()),
            (Tone::Dim, format_compact!(" · P{}", task.priority)),
        ],
    });
    field(&mut out, "created", &task.created_at, width);
    if let Some(by) = &task.created_by {
        field(&mut out, "by", by, width);
    }
    state_fields(task, &mut out, width);
    let goal = match &detail.goal {
        GoalObservation::Linked { goal_ids } => format!("linked: {}", goal_ids.join(", ")),
        GoalObservation::Unlinked {} => "unlinked (no goal)".to_string(),
        GoalObservation::Unavailable { reason } => format!("unavailable: {reason}"),
    };
    field(&mut out, "goal", &goal, width);
    out.push(LaidOutLine::blank());
    if task.description.is_empty() {
        out.push(LaidOutLine::one(Tone::Dim, "(empty description)"));
    } else {
        push_wrapped(&mut out, Tone::Normal, "", &task.description, width);
    }
    if !task.files.is_empty() {
        out.push(LaidOutLine::blank());
        out.push(LaidOutLine::one(Tone::Dim, "files"));
        for f in &task.files {
            push_wrapped(&mut out, Tone::Normal, "  ", f, width);
        }
    }
    out
}

/// One history event: a head row (time, action, transition, agent) and wrapped detail rows.
pub fn history_row_lines(row: &TaskEventRow, width: usize, out: &mut Vec<LaidOutLine>) {
    // The minute of `ts` with a space for its `T`, and a space after (stored inline; the
    // sanitiser neither writes nor removes a `T`, so replacing after it is the same).
    let raw_ts = row.ts.get(..16).unwrap_or(&row.ts);
    let mut ts = CompactString::with_capacity(raw_ts.len() + 1);
    ts.extend(
        sanitize(raw_ts)
            .chars()
            .map(|c| if c == 'T' { ' ' } else { c }),
    );
    ts.push(' ');
    let action = row
        .action
        .as_deref()
        .or(row.event_type.as_deref())
        .unwrap_or("event");
    let mut head = Segments::new();
    head.push((Tone::Dim, ts));
    head.push((Tone::Accent, CompactString::from(sanitize(action))));
    match (&row.from_status, &row.to_status) {
        (Some(from), Some(to)) => head.push((
            Tone::Normal,
            format_compact!(" {} → {}", sanitize(from), sanitize(to)),
        )),
        (None, Some(to)) => head.push((Tone::Normal, format_compact!(" → {}", sanitize(to)))),
        _ => {}
    }
    if let Some(agent) = row.agent.as_deref().or(row.actor.as_deref()) {
        let agent = sanitize(agent);
        let mut text = CompactString::with_capacity(agent.len() + 4);
        text.push_str(" · ");
        text.push_str(&agent);
        head.push((Tone::Dim, text));
    }
    // The head row is cut (not wrapped) at the pane width; the details below wrap.
    // A head shorter in bytes than the width is narrower too (`fits_in`): nothing is cut and
    // no segment reaches the edge, so the loop below would keep it as it is.
    let bytes: usize = head.iter().map(|(_, t)| t.len()).sum();
    if bytes >= width {
        cut_head(&mut head, width);
    }
    out.push(LaidOutLine { segments: head });
    for text in [row.notes.as_deref(), row.reason.as_deref()]
        .into_iter()
        .flatten()
    {
        push_wrapped(out, Tone::Normal, "    ", text, width);
    }
    if let Some(summary) = row
        .handoff_context
        .as_ref()
        .and_then(|h| h.summary.as_deref())
    {
        push_wrapped(out, Tone::Dim, "    ↪ ", summary, width);
    }
}

/// Cuts a head row at `width` cells in place: a segment that fits stays as it is, the one
/// that reaches the edge is cut with an ellipsis, the ones after it are dropped.
fn cut_head(head: &mut Segments, width: usize) {
    let mut used = 0usize;
    let mut keep = head.len();
    for (i, (_, text)) in head.iter_mut().enumerate() {
        let room = width.saturating_sub(used);
        if room == 0 {
            keep = i;
            break;
        }
        let w = display_width(text);
        if w <= room {
            used += w;
        } else {
            *text = crate::view::text::fit_width(text, room).into();
            used += display_width(text);
        }
    }
    head.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tasks::history::HandoffContext;

    /// The history rows prepared into plain vectors (no inline segments): the reference the
    /// inline-segment path must equal.
    fn reference_row_lines(row: &TaskEventRow, width: usize, out: &mut Vec<Vec<(Tone, String)>>) {
        let ts = row.ts.get(..16).unwrap_or(&row.ts);
        let ts = format!("{} ", sanitize(ts).replace('T', " "));
        let action = row
            .action
            .as_deref()
            .or(row.event_type.as_deref())
            .unwrap_or("event");
        let mut head = vec![
            (Tone::Dim, ts),
            (Tone::Accent, sanitize(action).into_owned()),
        ];
        match (&row.from_status, &row.to_status) {
            (Some(from), Some(to)) => head.push((
                Tone::Normal,
                format!(" {} → {}", sanitize(from), sanitize(to)),
            )),
            (None, Some(to)) => head.push((Tone::Normal, format!(" → {}", sanitize(to)))),
            _ => {}
        }
        if let Some(agent) = row.agent.as_deref().or(row.actor.as_deref()) {
            head.push((Tone::Dim, format!(" · {}", sanitize(agent))));
        }
        let mut used = 0usize;
        let mut cut = Vec::new();
        for (tone, text) in head {
            let room = width.saturating_sub(used);
            if room == 0 {
                break;
            }
            let text = crate::view::text::fit_width(&text, room).into_owned();
            used += display_width(&text);
            cut.push((tone, text));
        }
        out.push(cut);
        let mut wrapped = |tone: Tone, indent: &str, text: &str| {
            let avail = width.saturating_sub(display_width(indent)).max(1);
            for line in crate::view::text::sanitize_lines(text) {
                for piece in wrap(&line, avail) {
                    out.push(vec![(Tone::Dim, indent.to_string()), (tone, piece)]);
                }
            }
        };
        for text in [row.notes.as_deref(), row.reason.as_deref()]
            .into_iter()
            .flatten()
        {
            wrapped(Tone::Normal, "    ", text);
        }
        if let Some(summary) = row
            .handoff_context
            .as_ref()
            .and_then(|h| h.summary.as_deref())
        {
            wrapped(Tone::Dim, "    ↪ ", summary);
        }
    }

    /// A deterministic corpus of history rows: Korean, emoji (ZWJ, skin tones, flags),
    /// combining marks, C0/C1/bidi controls, CR LF, long and empty texts.
    fn corpus() -> Vec<TaskEventRow> {
        const PIECES: &[&str] = &[
            "rebased on main",
            "디코더 경로 에러 메시지 개선",
            "waiting on review 👀",
            "👨\u{200D}👩\u{200D}👧 family",
            "👍🏽 ok",
            "🇰🇷 flag",
            "e\u{301}te\u{301}",
            "\u{1112}\u{1161}\u{11AB}글",
            "bell\u{7}esc\u{1b}[2J",
            "c1\u{85}\u{9b}",
            "bidi \u{202E}evil\u{202C}",
            "line one\r\nline two\nthree",
            "",
            "   ",
            "tab\there",
            "— · → … ↪ ‼",
            "averyveryverylongwordwithoutanyspacesthatmustbecutsomewhereinthemiddle",
            "가나다라마바사아자차카타파하 가나다라마바사아자차카타파하 가나다라마바사",
            "❤\u{FE0F} 1\u{FE0F}\u{20E3}",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let text = |next: &mut dyn FnMut(usize) -> usize, parts: usize| -> String {
            (0..parts)
                .map(|_| PIECES[next(PIECES.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let maybe = |next: &mut dyn FnMut(usize) -> usize, parts: usize| {
            (next(3) != 0).then(|| CompactString::from(text(next, parts)))
        };
        (0..400)
            .map(|i| {
                let ts = match i % 5 {
                    0 => "2026-10-01T12:34:56Z".to_string(),
                    1 => "2026-10-01T12:34:56.123+09:00".to_string(),
                    2 => "2026-10-0".to_string(),
                    3 => "2026-10-01T1\u{1b}:34:56Z".to_string(),
                    _ => "２０２６-10-01T12:34:56Z".to_string(),
                };
                TaskEventRow {
                    task_id: "t".into(),
                    ts: ts.into(),
                    task: None,
                    event_type: maybe(&mut next, 1),
                    action: maybe(&mut next, 1),
                    from_status: maybe(&mut next, 1),
                    to_status: maybe(&mut next, 1),
                    agent: maybe(&mut next, 1),
                    actor: maybe(&mut next, 1),
                    actor_kind: None,
                    assignee: None,
                    notes: maybe(&mut next, 1 + i % 6),
                    reason: maybe(&mut next, 1 + i % 3),
                    handoff_context: (next(4) == 0).then(|| HandoffContext {
                        summary: Some(text(&mut next, 1 + i % 4)),
                    }),
                }
            })
            .collect()
    }

    /// The inline-segment rows equal the reference rows, segment by
    /// segment, at narrow and wide widths (A-13: the same rows, only stored differently).
    #[test]
    fn a13_history_rows_equal_the_reference_on_a_generated_corpus() {
        let rows = corpus();
        for width in [1usize, 2, 5, 9, 17, 24, 40, 58, 80, 118, 200] {
            let mut new = Vec::new();
            let mut reference = Vec::new();
            for row in &rows {
                history_row_lines(row, width, &mut new);
                reference_row_lines(row, width, &mut reference);
            }
            let new: Vec<Vec<(Tone, String)>> = new
                .iter()
                .map(|l| {
                    l.segments
                        .iter()
                        .map(|(t, s)| (*t, s.to_string()))
                        .collect()
                })
                .collect();
            assert_eq!(new.len(), reference.len(), "width {width}");
            for (i, (a, b)) in new.iter().zip(&reference).enumerate() {
                assert_eq!(a, b, "width {width}, row {i}");
            }
        }
    }

    #[test]
    fn wrap_respects_width_and_wide_graphemes() {
        let lines = wrap("채팅 화면 스크롤 버그 수정 and more words", 10);
        assert!(lines.iter().all(|l| display_width(l) <= 10), "{lines:?}");
        assert!(lines.len() > 2);
        assert_eq!(wrap("", 5), vec![String::new()]);
        let long = wrap("abcdefghijklmnop", 5);
        assert_eq!(long, vec!["abcde", "fghij", "klmno", "p"]);
    }
}
