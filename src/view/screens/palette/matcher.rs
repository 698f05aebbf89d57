//! The palette's fuzzy matcher: the query's characters in order anywhere in an entry's label
//! (case-insensitive), scored so that what an operator means by a few letters ranks first — a
//! match at the start of the label or of a word, and letters that follow each other, beat
//! letters scattered through a long description.

/// Points for each matched character.
const PER_CHAR: i32 = 16;
/// A matched character that starts the label or a word (after a space or punctuation).
const WORD_START: i32 = 10;
/// A matched character right after the previous matched one.
const CONSECUTIVE: i32 = 14;
/// The first character matched at the very start of the label.
const LABEL_START: i32 = 12;
/// Each character skipped between two matched ones (and before the first, up to a cap).
const GAP: i32 = 1;
const LEADING_CAP: i32 = 12;

/// Where `query` matched in a label, and how well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub score: i32,
    /// The matched characters' indexes in the label (in `char`s).
    pub positions: Vec<usize>,
}

fn word_start(chars: &[char], at: usize) -> bool {
    match at.checked_sub(1).and_then(|i| chars.get(i)) {
        None => true,
        Some(prev) => !prev.is_alphanumeric(),
    }
}

fn folded(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// The best match of `query` in `label`, or `None` when its characters do not all appear in
/// order. An empty (or all-space) query matches everything with score 0. Spaces in the query
/// are not matched (they separate the words an operator types).
pub fn best(query: &str, label: &str) -> Option<Match> {
    let query: Vec<char> = query
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(folded)
        .collect();
    if query.is_empty() {
        return Some(Match {
            score: 0,
            positions: Vec::new(),
        });
    }
    let text: Vec<char> = label.chars().collect();
    let lower: Vec<char> = text.iter().copied().map(folded).collect();
    let (n, m) = (query.len(), lower.len());
    if n > m {
        return None;
    }
    // at[i][j]: the best score with query[i] matched at text[j]; from[i][j]: where query[i-1]
    // was matched on that best path.
    let mut at = vec![vec![None::<i32>; m]; n];
    let mut from = vec![vec![0usize; m]; n];
    for j in 0..m {
        if lower[j] != query[0] {
            continue;
        }
        let mut s = PER_CHAR - (j as i32 * GAP).min(LEADING_CAP);
        if j == 0 {
            s += LABEL_START;
        }
        if word_start(&text, j) {
            s += WORD_START;
        }
        at[0][j] = Some(s);
    }
    for i in 1..n {
        // The best earlier match, by its score plus its index (the gap penalty is linear).
        let mut running: Option<(i32, usize)> = None;
        for j in 0..m {
            if j >= 1 {
                let k = j - 1;
                if let Some(prev) = at[i - 1][k] {
                    let lifted = prev + k as i32 * GAP;
                    if running.is_none_or(|(best, _)| lifted > best) {
                        running = Some((lifted, k));
                    }
                }
            }
            if lower[j] != query[i] {
                continue;
            }
            let bonus = PER_CHAR + if word_start(&text, j) { WORD_START } else { 0 };
            let mut best: Option<(i32, usize)> = None;
            if let Some(prev) = j.checked_sub(1).and_then(|k| at[i - 1][k]) {
                best = Some((prev + CONSECUTIVE, j - 1));
            }
            // A gap of `j - k - 1` skipped characters after the match at `k`.
            if let Some((lifted, k)) = running {
                let gapped = lifted - (j as i32 - 1) * GAP;
                if best.is_none_or(|(b, _)| gapped > b) {
                    best = Some((gapped, k));
                }
            }
            if let Some((s, k)) = best {
                at[i][j] = Some(s + bonus);
                from[i][j] = k;
            }
        }
    }
    let (mut j, score) = at[n - 1]
        .iter()
        .enumerate()
        .filter_map(|(j, s)| s.map(|s| (j, s)))
        .max_by_key(|&(j, s)| (s, std::cmp::Reverse(j)))?;
    let mut positions = vec![0; n];
    for i in (0..n).rev() {
        positions[i] = j;
        if i > 0 {
            j = from[i][j];
        }
    }
    Some(Match { score, positions })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank<'a>(query: &str, labels: &[&'a str]) -> Vec<&'a str> {
        let mut scored: Vec<(i32, usize, &str)> = labels
            .iter()
            .enumerate()
            .filter_map(|(i, l)| best(query, l).map(|m| (m.score, i, *l)))
            .collect();
        scored.sort_by_key(|&(s, i, _)| (std::cmp::Reverse(s), i));
        scored.into_iter().map(|(_, _, l)| l).collect()
    }

    #[test]
    fn characters_must_appear_in_order_case_insensitively() {
        assert!(best("kpr", "Keepers").is_some());
        assert!(best("KEEP", "go to Keepers").is_some());
        assert!(best("rpk", "Keepers").is_none());
        assert!(best("keepers!", "Keepers").is_none());
        assert_eq!(best("", "anything").map(|m| m.score), Some(0));
        assert_eq!(
            best("하늘", "keeper 하늘 · chat").map(|m| m.positions),
            Some(vec![7, 8])
        );
    }

    #[test]
    fn a_prefix_beats_the_same_letters_inside_a_word() {
        assert_eq!(
            rank(
                "keep",
                &["go to Work", "sleeper keep-alive", "keeper alpha · chat"]
            ),
            vec!["keeper alpha · chat", "sleeper keep-alive"]
        );
    }

    #[test]
    fn word_starts_beat_scattered_letters() {
        let labels = [
            "go to System › Skills",
            "go to System › connectors",
            "j move the selection",
        ];
        let ranked = rank("sysc", &labels);
        assert_eq!(ranked.first(), Some(&"go to System › connectors"));
        assert!(!ranked.contains(&"j move the selection"));
    }

    #[test]
    fn consecutive_letters_beat_the_same_letters_apart() {
        let tight = best("logs", "o Keeper logs: newest rows").map(|m| m.score);
        let loose = best("logs", "o Keeper lookups: ages").map(|m| m.score);
        assert!(tight > loose, "{tight:?} <= {loose:?}");
    }

    #[test]
    fn the_positions_are_the_best_path() {
        let m = best("gtk", "go to Keepers").unwrap();
        assert_eq!(m.positions, vec![0, 3, 6]);
        // Spaces in the query separate words and are not matched.
        let m = best("go kee", "go to Keepers").unwrap();
        assert_eq!(m.positions, vec![0, 1, 6, 7, 8]);
    }
}
