//! A Keeper reply still streaming (issue 14: mid-stream frames showed raw `*`). Until its
//! closer arrives, an opened `**bold` or `*emphasis` is literal text to CommonMark, so a
//! frame painted between two deltas showed the asterisks and then lost them. For an entry
//! whose text is still open (between `TEXT_MESSAGE_START` and `_END`), the renderer gets its
//! last paragraph with the open inline markup closed: an opener with nothing after it yet is
//! left out, an unclosed code span or emphasis is closed at the end. Display only — the
//! stored text is never changed, and a settled reply is rendered exactly as written.

use std::borrow::Cow;

/// `text` with the last paragraph's open inline markup closed (see the module doc).
pub fn close_open_markup(text: &str) -> Cow<'_, str> {
    // Inside an open fence the rest renders as code: nothing is raw.
    let fences = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("```") || t.starts_with("~~~")
        })
        .count();
    if fences % 2 == 1 {
        return Cow::Borrowed(text);
    }
    let start = text.rfind("\n\n").map_or(0, |i| i + 2);
    let (head, para) = text.split_at(start);
    let closed = close_paragraph(para);
    if closed == para.trim_end() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("{head}{closed}"))
}

fn close_paragraph(para: &str) -> String {
    let mut body = para.trim_end().to_string();
    // An opener that has no content after it yet (`… **`, a line of `*`): left out.
    let stars = body.len() - body.trim_end_matches('*').len();
    if stars > 0 {
        let before = body[..body.len() - stars].chars().last();
        if before.is_none_or(|c| c.is_whitespace()) {
            body.truncate(body.len() - stars);
            body = body.trim_end().to_string();
        }
    }
    let chars: Vec<char> = body.chars().collect();
    let mut stack: Vec<usize> = Vec::new();
    let mut code: Option<usize> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            i += 2;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        if c == '`' {
            code = match code {
                Some(open) if open == run => None,
                None => Some(run),
                other => other,
            };
            i += run;
            continue;
        }
        if c == '*' && code.is_none() {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
            let next = chars.get(i + run).copied();
            let opens = next.is_some_and(|n| !n.is_whitespace());
            let closes = prev.is_some_and(|p| !p.is_whitespace());
            if closes && stack.last() == Some(&run.min(3)) {
                stack.pop();
            } else if opens && !closes {
                stack.push(run.min(3));
            }
            i += run;
            continue;
        }
        i += run.max(1);
    }
    if let Some(open) = code {
        body.push_str(&"`".repeat(open));
    }
    for run in stack.into_iter().rev() {
        body.push_str(&"*".repeat(run));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c67_open_emphasis_is_closed_for_display() {
        assert_eq!(close_open_markup("Here is **bold"), "Here is **bold**");
        assert_eq!(close_open_markup("a *it and **b"), "a *it and **b***");
        assert_eq!(close_open_markup("done **"), "done");
        assert_eq!(
            close_open_markup("first\n\nthen `code **x"),
            "first\n\nthen `code **x`"
        );
    }

    #[test]
    fn c67_closed_or_literal_markup_is_left_as_written() {
        for text in [
            "**bold** and *it*",
            "2 * 3 = 6",
            "list:\n* item\n* other",
            "```\nlet a = **b\n",
            "plain",
        ] {
            assert_eq!(close_open_markup(text), text, "{text:?}");
        }
    }
}
