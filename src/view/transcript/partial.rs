//! A Keeper reply still streaming, drawn without raw Markdown markers. Until its
//! closer arrives, an opened `**bold`, `*emphasis`, `__bold`, `_emphasis` or `[link` is literal
//! text to CommonMark, so a frame painted between two deltas would show the markers and then
//! lose them. For an entry whose text is still open (between `TEXT_MESSAGE_START` and `_END`), the
//! renderer gets its last paragraph with the open inline markup closed: an opener with nothing
//! after it yet is left out, an unclosed code span or emphasis is closed at the end, a link
//! whose `]` has not come yet shows its text without the `[`, and a link whose destination is
//! still arriving is closed (`[text](http://exa` → `[text](http://exa)`; `[text]` or
//! `[text](` at the very end → `[text]()`, the text as a link). Display only — the stored text
//! is never changed, and a settled reply is rendered exactly as written.

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

/// An emphasis delimiter (`*` or `_`).
fn is_emphasis(c: char) -> bool {
    c == '*' || c == '_'
}

/// Punctuation for the flanking rules (ASCII punctuation and any other symbol).
fn is_punct(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// Whether a delimiter run of `c` between `prev` and `next` opens and closes (CommonMark's
/// left- and right-flanking rules; the paragraph's ends count as whitespace; `_` never opens
/// or closes inside a word, so `snake_case` stays literal).
fn flanks(c: char, prev: Option<char>, next: Option<char>) -> (bool, bool) {
    let space_or_punct = |x: Option<char>| x.is_none_or(|x| x.is_whitespace() || is_punct(x));
    let left = next.is_some_and(|n| !n.is_whitespace())
        && (next.is_some_and(|n| !is_punct(n)) || space_or_punct(prev));
    let right = prev.is_some_and(|p| !p.is_whitespace())
        && (prev.is_some_and(|p| !is_punct(p)) || space_or_punct(next));
    if c == '_' {
        (
            left && (!right || prev.is_some_and(is_punct)),
            right && (!left || next.is_some_and(is_punct)),
        )
    } else {
        (left, right)
    }
}

/// An open link: where its `[` is (char index; `!` before it for an image), and whether it
/// follows a letter or digit (`a[0]`: an index, never taken for a link being written).
struct OpenBracket {
    at: usize,
    image: bool,
    in_word: bool,
}

fn close_paragraph(para: &str) -> String {
    let mut body = para.trim_end().to_string();
    // An emphasis opener that has no content after it yet (`… **`, `… _`, a line of `*`):
    // left out.
    if let Some(last) = body.chars().last().filter(|c| is_emphasis(*c)) {
        let run = body.len() - body.trim_end_matches(last).len();
        let before = body[..body.len() - run].chars().last();
        if before.is_none_or(|c| c.is_whitespace()) {
            body.truncate(body.len() - run);
            body = body.trim_end().to_string();
        }
    }
    let chars: Vec<char> = body.chars().collect();
    // Open emphasis runs: (delimiter, run length up to 3).
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut brackets: Vec<OpenBracket> = Vec::new();
    // `[` indices left out of the display (never closed yet).
    let mut dropped: Vec<usize> = Vec::new();
    let mut code: Option<usize> = None;
    // Inside a link destination: its open parentheses.
    let mut dest: Option<usize> = None;
    // `[text]` ends the paragraph: it may still become a link.
    let mut bare_label = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(depth) = dest {
            dest = match c {
                '(' => Some(depth + 1),
                ')' if depth <= 1 => None,
                ')' => Some(depth - 1),
                _ => Some(depth),
            };
            i += 1;
            continue;
        }
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
        if code.is_some() {
            i += run;
            continue;
        }
        if is_emphasis(c) {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
            let next = chars.get(i + run).copied();
            let (opens, closes) = flanks(c, prev, next);
            let top = stack.last().copied();
            if closes && top == Some((c, run.min(3))) {
                stack.pop();
            } else if closes && next.is_none() && top.is_some_and(|(d, open)| d == c && run < open)
            {
                // The first characters of a closer still arriving (`__b_`): left out; the
                // whole closer is added below.
                dropped.extend(i..i + run);
            } else if opens && !closes {
                stack.push((c, run.min(3)));
            }
            i += run;
            continue;
        }
        match c {
            '[' => {
                let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
                brackets.push(OpenBracket {
                    at: i,
                    image: prev == Some('!'),
                    in_word: prev.is_some_and(char::is_alphanumeric),
                });
            }
            ']' => {
                if let Some(open) = brackets.pop() {
                    match chars.get(i + 1) {
                        Some('(') => {
                            dest = Some(1);
                            i += 2;
                            continue;
                        }
                        None => bare_label = !open.in_word,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    for open in brackets.iter().filter(|b| !b.in_word) {
        dropped.push(open.at);
        if open.image {
            dropped.push(open.at - 1);
        }
    }
    let mut out: String = if dropped.is_empty() {
        body
    } else {
        let kept: String = chars
            .iter()
            .enumerate()
            .filter(|(k, _)| !dropped.contains(k))
            .map(|(_, c)| *c)
            .collect();
        // A closer after a space would not close (`__the [` → `__the__`, not `__the __`).
        kept.trim_end().to_string()
    };
    if let Some(open) = code {
        out.push_str(&"`".repeat(open));
    }
    if dest.is_some() {
        if out.ends_with('(') {
            out.push(')');
        } else {
            out.push_str(&")".repeat(dest.unwrap_or(1)));
        }
    } else if bare_label && code.is_none() {
        out.push_str("()");
    }
    for (c, run) in stack.into_iter().rev() {
        out.extend(std::iter::repeat_n(c, run));
    }
    out
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
    fn c67_open_underscore_emphasis_is_closed_for_display() {
        assert_eq!(close_open_markup("Here is __bold"), "Here is __bold__");
        assert_eq!(close_open_markup("an _it"), "an _it_");
        assert_eq!(close_open_markup("x __a _b"), "x __a _b___");
        assert_eq!(close_open_markup("mixed **a _b"), "mixed **a _b_**");
        assert_eq!(close_open_markup("done __"), "done");
        assert_eq!(close_open_markup("done _"), "done");
        // Part of a closer arrived: the whole closer, once.
        assert_eq!(close_open_markup("a __bold_"), "a __bold__");
        assert_eq!(close_open_markup("a **bold*"), "a **bold**");
        // Intraword `_` is literal in CommonMark: nothing to close.
        for text in ["snake_case_name", "a_b and c__d", "_it_ done", "__b__ done"] {
            assert_eq!(close_open_markup(text), text, "{text:?}");
        }
        // A closed run inside a word's neighbour is left alone.
        assert_eq!(
            close_open_markup("see _this_ and _that"),
            "see _this_ and _that_"
        );
    }

    #[test]
    fn c67_a_link_split_mid_stream_shows_no_raw_opener() {
        // No `]` yet: the text without its `[`.
        assert_eq!(close_open_markup("see [the docs"), "see the docs");
        assert_eq!(close_open_markup("see ![a chart"), "see a chart");
        assert_eq!(close_open_markup("see ["), "see");
        assert_eq!(close_open_markup("see __the ["), "see __the__");
        // The label is complete: a link (the destination may still come).
        assert_eq!(close_open_markup("see [the docs]"), "see [the docs]()");
        assert_eq!(close_open_markup("see [the docs]("), "see [the docs]()");
        // The destination is arriving: closed where it stands.
        assert_eq!(
            close_open_markup("see [the docs](https://exa"),
            "see [the docs](https://exa)"
        );
        assert_eq!(
            close_open_markup("see [w](https://x.org/a_(b"),
            "see [w](https://x.org/a_(b))"
        );
        // Emphasis around and inside a split link.
        assert_eq!(
            close_open_markup("**see [the docs](https://exa"),
            "**see [the docs](https://exa)**"
        );
        assert_eq!(close_open_markup("[**bold link"), "**bold link**");
        // In a code span, brackets are literal; an index is not a link being written.
        assert_eq!(close_open_markup("`a[0"), "`a[0`");
        assert_eq!(close_open_markup("take a[0"), "take a[0");
        assert_eq!(close_open_markup("take a[0]"), "take a[0]");
    }

    #[test]
    fn c67_closed_or_literal_markup_is_left_as_written() {
        for text in [
            "**bold** and *it*",
            "2 * 3 = 6",
            "list:\n* item\n* other",
            "```\nlet a = **b\n",
            "plain",
            "a [link](https://example.org) here",
            "an array a[0] and b[1]",
            "__bold__ and _it_",
            "![img](x.png) done",
        ] {
            assert_eq!(close_open_markup(text), text, "{text:?}");
        }
    }
}
