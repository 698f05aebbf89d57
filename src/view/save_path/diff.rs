//! Line diffs of a file a save rewrites: the unified diff a preview shows ([`unified`]), what an
//! overwrite would lose ([`lost`]), and the three-way rebase of a draft onto a file that moved
//! ([`rebase`]). Pure functions over whole texts; the files saved here (`runtime.toml`, a
//! Keeper's settings) are small, and a pair too large to compare line by line is shown as one
//! replaced block rather than searched at length.

use std::ops::Range;

/// Lines beside a change in a unified diff.
const CONTEXT: usize = 3;
/// Above this many line pairs (after the common head and tail) the middle is one replaced block.
const MAX_CELLS: usize = 4_000_000;

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// `@@ -a,b +c,d @@`
    Hunk(String),
    Same(String),
    Removed(String),
    Added(String),
}

impl DiffLine {
    /// The line as a unified diff writes it.
    pub fn text(&self) -> String {
        match self {
            Self::Hunk(h) => h.clone(),
            Self::Same(l) => format!(" {l}"),
            Self::Removed(l) => format!("-{l}"),
            Self::Added(l) => format!("+{l}"),
        }
    }
}

/// A run of `old[old]` replaced by `new[new]` (either may be empty).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    old: Range<usize>,
    new: Range<usize>,
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The edits turning `a` into `b`, in order (longest common subsequence of lines).
fn edits(a: &[&str], b: &[&str]) -> Vec<Edit> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let rest = (a.len() - head).min(b.len() - head);
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take(rest)
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    if am.is_empty() && bm.is_empty() {
        return Vec::new();
    }
    if am.is_empty() || bm.is_empty() || am.len().saturating_mul(bm.len()) > MAX_CELLS {
        return vec![Edit {
            old: head..head + am.len(),
            new: head..head + bm.len(),
        }];
    }
    // lcs[i][j]: the longest common subsequence of am[i..] and bm[j..].
    let w = bm.len() + 1;
    let mut lcs = vec![0u32; (am.len() + 1) * w];
    for i in (0..am.len()).rev() {
        for j in (0..bm.len()).rev() {
            lcs[i * w + j] = if am[i] == bm[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let mut out: Vec<Edit> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut push = |oi: usize, nj: usize, removed: bool| {
        let (o, n) = (head + oi, head + nj);
        match out.last_mut() {
            Some(e) if e.old.end == o && e.new.end == n => {
                if removed {
                    e.old.end += 1;
                } else {
                    e.new.end += 1;
                }
            }
            _ => out.push(if removed {
                Edit {
                    old: o..o + 1,
                    new: n..n,
                }
            } else {
                Edit {
                    old: o..o,
                    new: n..n + 1,
                }
            }),
        }
    };
    while i < am.len() || j < bm.len() {
        if i < am.len() && j < bm.len() && am[i] == bm[j] {
            i += 1;
            j += 1;
        } else if j == bm.len() || (i < am.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            push(i, j, true);
            i += 1;
        } else {
            push(i, j, false);
            j += 1;
        }
    }
    out
}

/// The unified diff of `old` → `new` (three lines of context), empty when they are the same.
pub fn unified(old: &str, new: &str) -> Vec<DiffLine> {
    let (a, b) = (lines(old), lines(new));
    let edits = edits(&a, &b);
    let mut out = Vec::new();
    let mut k = 0;
    while k < edits.len() {
        // Edits closer than two contexts apart share a hunk.
        let mut end = k;
        while end + 1 < edits.len() && edits[end + 1].old.start - edits[end].old.end <= 2 * CONTEXT
        {
            end += 1;
        }
        let first = &edits[k];
        let last = &edits[end];
        let old_start = first.old.start.saturating_sub(CONTEXT);
        let old_end = (last.old.end + CONTEXT).min(a.len());
        let new_start = first.new.start - (first.old.start - old_start);
        let new_end = last.new.end + (old_end - last.old.end);
        out.push(DiffLine::Hunk(format!(
            "@@ -{},{} +{},{} @@",
            old_start + 1,
            old_end - old_start,
            new_start + 1,
            new_end - new_start
        )));
        let mut at = old_start;
        for e in &edits[k..=end] {
            out.extend(
                a[at..e.old.start]
                    .iter()
                    .map(|l| DiffLine::Same(l.to_string())),
            );
            out.extend(
                a[e.old.clone()]
                    .iter()
                    .map(|l| DiffLine::Removed(l.to_string())),
            );
            out.extend(
                b[e.new.clone()]
                    .iter()
                    .map(|l| DiffLine::Added(l.to_string())),
            );
            at = e.old.end;
        }
        out.extend(a[at..old_end].iter().map(|l| DiffLine::Same(l.to_string())));
        k = end + 1;
    }
    out
}

/// `(removed, added)` line counts of `old` → `new`.
pub fn counts(old: &str, new: &str) -> (usize, usize) {
    let (a, b) = (lines(old), lines(new));
    edits(&a, &b)
        .iter()
        .fold((0, 0), |(r, n), e| (r + e.old.len(), n + e.new.len()))
}

/// What writing `draft` over `current` loses of the changes `current` made to `base` (another
/// operator's commit): the diff `base` → `current` restricted to the lines `draft` does not
/// keep. Empty when the overwrite loses nothing of theirs.
pub fn lost(base: &str, current: &str, draft: &str) -> Vec<DiffLine> {
    let (b, c, d) = (lines(base), lines(current), lines(draft));
    let theirs = edits(&b, &c);
    let mut out = Vec::new();
    for e in &theirs {
        let added: Vec<&str> = c[e.new.clone()].to_vec();
        let removed: Vec<&str> = b[e.old.clone()].to_vec();
        // Their added lines the draft lacks are lost; their removals the draft still has
        // come back.
        let gone: Vec<&str> = added.iter().copied().filter(|l| !d.contains(l)).collect();
        let back: Vec<&str> = removed.iter().copied().filter(|l| d.contains(l)).collect();
        if gone.is_empty() && back.is_empty() {
            continue;
        }
        out.push(DiffLine::Hunk(format!(
            "@@ their change at line {} @@",
            e.new.start + 1
        )));
        out.extend(gone.iter().map(|l| DiffLine::Removed(l.to_string())));
        out.extend(back.iter().map(|l| DiffLine::Added(l.to_string())));
    }
    out
}

/// Why a draft could not be rebased: both sides changed these lines of the base (1-based,
/// inclusive ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    pub base_lines: Vec<(usize, usize)>,
}

/// The draft's changes to `base` made again on `current` (their changes kept): `Err` when both
/// changed the same lines of `base` differently (the operator resolves it in the editor).
pub fn rebase(base: &str, draft: &str, current: &str) -> Result<String, Overlap> {
    let (b, d, c) = (lines(base), lines(draft), lines(current));
    let ours = edits(&b, &d);
    let theirs = edits(&b, &c);
    // Two edits touch when their base ranges overlap, or both insert at the same place.
    let touch = |x: &Edit, y: &Edit| {
        x.old.start < y.old.end && y.old.start < x.old.end
            || x.old.start == y.old.start
            || (x.old.is_empty() && y.old.contains(&x.old.start))
            || (y.old.is_empty() && x.old.contains(&y.old.start))
    };
    let mut overlaps = Vec::new();
    for o in &ours {
        for t in &theirs {
            let same = b[o.old.clone()] == b[t.old.clone()]
                && o.old == t.old
                && d[o.new.clone()] == c[t.new.clone()];
            if touch(o, t) && !same {
                overlaps.push((o.old.start.min(t.old.start) + 1, o.old.end.max(t.old.end)));
            }
        }
    }
    if !overlaps.is_empty() {
        return Err(Overlap {
            base_lines: overlaps,
        });
    }
    // Both edit lists in base order; an edit both made is taken once.
    let mut all: Vec<(Range<usize>, Vec<&str>)> = ours
        .iter()
        .map(|e| (e.old.clone(), d[e.new.clone()].to_vec()))
        .chain(
            theirs
                .iter()
                .filter(|t| !ours.iter().any(|o| o.old == t.old))
                .map(|e| (e.old.clone(), c[e.new.clone()].to_vec())),
        )
        .collect();
    all.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out: Vec<&str> = Vec::new();
    let mut at = 0;
    for (range, with) in all {
        out.extend(&b[at..range.start]);
        out.extend(with);
        at = range.end;
    }
    out.extend(&b[at..]);
    let mut text = out.join("\n");
    if current.ends_with('\n') || (current.is_empty() && draft.ends_with('\n')) {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(d: &[DiffLine]) -> Vec<String> {
        d.iter().map(DiffLine::text).collect()
    }

    #[test]
    fn a_changed_line_is_one_hunk_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            texts(&unified(old, new)),
            [
                "@@ -2,7 +2,7 @@",
                " b",
                " c",
                " d",
                "-e",
                "+E",
                " f",
                " g",
                " h"
            ]
        );
        assert!(unified(old, old).is_empty());
        assert_eq!(counts(old, new), (1, 1));
    }

    #[test]
    fn far_apart_changes_are_separate_hunks() {
        let old: String = (0..30).map(|i| format!("line {i};\n")).collect();
        let new = old
            .replace("line 2;", "line two;")
            .replace("line 25;", "line twenty-five;");
        let hunks = unified(&old, &new)
            .into_iter()
            .filter(|l| matches!(l, DiffLine::Hunk(_)))
            .count();
        assert_eq!(hunks, 2);
    }

    #[test]
    fn an_overwrite_names_the_lines_of_theirs_it_loses() {
        let base = "a = 1\nb = 2\n";
        let theirs = "a = 1\nb = 3\n";
        let mine = "a = 9\nb = 2\n";
        assert_eq!(
            texts(&lost(base, theirs, mine)),
            ["@@ their change at line 2 @@", "-b = 3", "+b = 2"]
        );
        // A draft that already holds their line loses nothing.
        assert!(lost(base, theirs, "a = 9\nb = 3\n").is_empty());
    }

    #[test]
    fn a_rebase_keeps_both_sides_when_they_touch_other_lines() {
        let base = "a = 1\nb = 2\nc = 3\n";
        let mine = "a = 9\nb = 2\nc = 3\n";
        let theirs = "a = 1\nb = 2\nc = 7\n";
        assert_eq!(
            rebase(base, mine, theirs).as_deref(),
            Ok("a = 9\nb = 2\nc = 7\n")
        );
        // The same change on both sides is taken once.
        assert_eq!(rebase(base, mine, mine).as_deref(), Ok(mine));
    }

    #[test]
    fn a_rebase_refuses_lines_both_sides_changed() {
        let base = "a = 1\nb = 2\n";
        let err = rebase(base, "a = 9\nb = 2\n", "a = 5\nb = 2\n").unwrap_err();
        assert_eq!(err.base_lines, vec![(1, 1)]);
    }
}
