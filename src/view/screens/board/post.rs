//! The read view of one post (surfaces.md "Board": post, then comments; complete JSON bodies
//! are pretty-printed). Only the open post's detail slot feeds it (E-8); while it is not read
//! yet the list row stands in for the head, labelled as such.

use super::{BoardUi, shown_posts, unix_minute, when};
use crate::actors::board::BoardSlot;
use crate::protocol::board::{BoardComment, BoardPost, BoardPostDetail, PostKind};
use crate::view::board::RenderedPost;
use crate::view::model::Model;
use crate::view::save_path::kinds::newest_on;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::{annotation, no_value_line, receipt_tone};
use crate::view::text::wrap;
use crate::view::text::{fit_width, sanitize, sanitize_lines};
use crate::view::theme::{Theme, Tone};
use crate::view::transcript::markdown::render_markdown;
use crate::view::transcript::wrap::wrap_lines;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use std::sync::Arc;

/// The reading width (C-69's 100 cells applies to every long text).
const READ_WIDTH: usize = 100;

fn kind_word(kind: &Option<PostKind>) -> String {
    match kind {
        None => String::new(),
        Some(PostKind::Direct) => " · direct".into(),
        Some(PostKind::Automation) => " · automation".into(),
        Some(PostKind::System) => " · system".into(),
        Some(PostKind::Other(k)) => format!(" · {}", sanitize(k)),
    }
}

fn head_lines(post: &BoardPost, theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled(
        format!(
            "POST {}{}{}",
            sanitize(&post.id),
            post.hearth
                .as_deref()
                .map(|h| format!(" · hearth {}", sanitize(h)))
                .unwrap_or_default(),
            kind_word(&post.post_kind)
        ),
        theme.style(Tone::Strong),
    ));
    out.push(Line::raw(sanitize(&post.title).into_owned()));
    out.push(Line::styled(
        format!(
            "by {} · {} · ▲ {} · 💬 {}{}",
            sanitize(&post.author),
            when(&post.created),
            post.votes,
            post.comment_count,
            post.updated_at
                .map(|u| format!(" · updated {}", unix_minute(u)))
                .unwrap_or_default()
        ),
        theme.style(Tone::Dim),
    ));
}

/// A complete JSON object or array, pretty-printed; `None` for anything else.
fn pretty_json(body: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(body.trim())
        .ok()
        .filter(|v| v.is_object() || v.is_array())
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
}

/// A body as the read view shows it: a complete JSON document pretty-printed as plain text;
/// anything else as Markdown (pulldown-cmark, sanitised per line first, C-72), wrapped at
/// the reading width.
pub fn rendered_body(body: &str, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let width = width.clamp(1, READ_WIDTH);
    if pretty_json(body).is_some() {
        return body_lines(body, width).into_iter().map(Line::raw).collect();
    }
    let logical = render_markdown(body, theme.style(Tone::Normal), theme.style(Tone::Dim));
    wrap_lines(&logical, width)
}

/// Body text as plain rows: a complete JSON value is pretty-printed; otherwise authored lines,
/// sanitised per line (T.7) and wrapped at the reading width.
pub fn body_lines(body: &str, width: usize) -> Vec<String> {
    let pretty = pretty_json(body);
    let text = pretty.as_deref().unwrap_or(body);
    let width = width.clamp(1, READ_WIDTH);
    sanitize_lines(text)
        .into_iter()
        .flat_map(|line| {
            if line.is_empty() {
                vec![String::new()]
            } else {
                wrap(&line, width)
            }
        })
        .collect()
}

/// Depth of a comment in its reply chain (top level 0), bounded so a cycle cannot loop.
fn depth(comment: &BoardComment, all: &[BoardComment]) -> usize {
    let mut depth = 0;
    let mut parent = comment.parent_id.clone().flatten();
    while let Some(p) = parent {
        depth += 1;
        if depth >= 4 {
            break;
        }
        parent = all
            .iter()
            .find(|c| c.id == p)
            .and_then(|c| c.parent_id.clone().flatten());
    }
    depth
}

fn detail_lines(detail: &BoardPostDetail, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    head_lines(&detail.post, theme, &mut out);
    out.push(Line::raw(""));
    match detail.post.body.as_deref() {
        Some(body) if !body.trim().is_empty() => out.extend(rendered_body(body, width, theme)),
        _ => out.push(Line::styled("(no body)", theme.style(Tone::Dim))),
    }
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!("COMMENTS {}", detail.comments.len()),
        theme.style(Tone::Strong),
    ));
    if detail.comments.is_empty() {
        out.push(Line::styled("no comments", theme.style(Tone::Dim)));
    }
    for c in &detail.comments {
        let indent = "  ".repeat(depth(c, &detail.comments) + 1);
        out.push(Line::styled(
            format!("{indent}{} · {}", sanitize(&c.author), when(&c.created)),
            theme.style(Tone::Accent),
        ));
        let inner = width.saturating_sub(indent.len() + 2).max(10);
        for line in rendered_body(&c.content, inner, theme) {
            let mut spans = vec![Span::raw(format!("{indent}  "))];
            spans.extend(line.spans);
            out.push(Line::from(spans));
        }
    }
    out
}

/// The read view's rows for `detail` at `width`: built once per admitted value, width and
/// theme, then reused by every frame and scroll (a 50 KB post costs its Markdown once).
fn cached_lines(
    model: &Model,
    detail: &Arc<BoardPostDetail>,
    width: usize,
    theme: Theme,
) -> Arc<Vec<Line<'static>>> {
    let Some(open) = model.board.post.as_ref() else {
        return Arc::new(detail_lines(detail, width, theme));
    };
    let mut cache = open
        .rendered
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(r) = cache.as_ref()
        && Arc::ptr_eq(&r.detail, detail)
        && r.width == width
        && r.theme == theme
    {
        return r.lines.clone();
    }
    let lines = Arc::new(detail_lines(detail, width, theme));
    *cache = Some(RenderedPost {
        detail: detail.clone(),
        width,
        theme,
        lines: lines.clone(),
    });
    lines
}

/// masc-tui's own vote on the open post as the detail read it (`current_vote` with
/// `voter=masc-tui`, §15.6; "not reported" when the server sent none), then the newest save
/// asked on this post in this workspace (any Board kind), with where it stands.
fn vote_line(model: &Model, detail: &BoardPostDetail, theme: Theme, width: usize) -> Line<'static> {
    let own = match &detail.own_vote {
        None => "not reported by the server".to_string(),
        Some(v) => v
            .current
            .map_or_else(|| "none".to_string(), |d| d.as_str().to_string()),
    };
    let (asked, tone) = match newest_on::<BoardSlot>(model, &detail.post.id) {
        None => (String::new(), Tone::Dim),
        Some(save) => (
            format!(" · {}: {}", save.asked, sanitize(&save.words)),
            receipt_tone(save.class),
        ),
    };
    Line::styled(
        fit_width(
            &format!("your vote: {own}{asked} · v up · V down (press twice)"),
            width,
        )
        .into_owned(),
        theme.style(tone),
    )
}

pub fn render(model: &Model, ui: &BoardUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let width = area.width as usize;
    let open_id = ui.open.clone().unwrap_or_default();
    let slot = model
        .board
        .post
        .as_ref()
        .filter(|p| p.post_id == open_id)
        .map(|p| &p.detail);
    let height = area.height as usize;
    // The admitted post: only the visible window of its cached rows is cloned per frame.
    if let Some(fetched) = slot.map(|s| &s.fetched)
        && let Some(o) = fetched.last()
    {
        let rows = cached_lines(model, &o.value, width, theme);
        let badge =
            annotation(fetched, ctx.now).map(|(text, tone)| Line::styled(text, theme.style(tone)));
        let votes = vote_line(model, &o.value, theme, width);
        let total = rows.len() + usize::from(badge.is_some()) + 1;
        let scroll = ui.scroll.min(total.saturating_sub(1));
        let visible: Vec<Line<'static>> = rows
            .iter()
            .take(1)
            .chain(badge.iter())
            .chain(std::iter::once(&votes))
            .chain(rows.iter().skip(1))
            .skip(scroll)
            .take(height)
            .cloned()
            .collect();
        Paragraph::new(visible).render(area, buf);
        return;
    }
    let mut lines: Vec<Line<'static>> = Vec::new();
    match slot.map(|s| &s.fetched) {
        Some(fetched) => {
            // Not read yet (or failed with no value): the list's row stands in for the head,
            // said as such; the status says what the detail read is doing.
            if let Some(post) =
                shown_posts(model).and_then(|o| o.page.posts.iter().find(|p| p.id == open_id))
            {
                head_lines(post, theme, &mut lines);
                lines.push(Line::styled(
                    "(from the list; the post itself is not read yet)",
                    theme.style(Tone::Dim),
                ));
            }
            if let Some(line) = no_value_line("post", fetched, theme) {
                lines.push(line);
            }
        }
        None => lines.push(Line::styled(
            format!("post {}: not open", sanitize(&open_id)),
            theme.style(Tone::Dim),
        )),
    }
    Paragraph::new(lines).render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_are_pretty_printed_and_text_is_sanitised_per_line() {
        let lines = body_lines(r#"{"verification_request":{"id":"v","attempt":3}}"#, 80);
        assert_eq!(lines[0], "{");
        assert!(lines.iter().any(|l| l.contains("\"attempt\": 3")));
        let lines = body_lines("one\u{1b}[2J\ntwo\r\n\nthree", 80);
        assert_eq!(lines.len(), 4);
        assert!(!lines[0].contains('\u{1b}'));
        assert_eq!(lines[2], "");
        // A JSON scalar is prose, not a document.
        assert_eq!(body_lines("42", 80), ["42"]);
    }
}
