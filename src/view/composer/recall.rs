//! Input recall (C-65): `Up` past the composer's first row walks back through this Keeper's
//! inputs — the pending ones first (newest first), then the sent ones (newest first) — and
//! `Down` past the last row walks forward again, ending on the draft that was being typed when
//! recall began. Editing a recalled text makes it the draft: the walk ends there.
//!
//! Pure: the chat screen computes the list from the open pane ([`RecallList::new`]) and keeps a
//! [`RecallCursor`] per open chat.

use super::draft::Draft;
use super::state::RecallDirection;

/// How far back recall reaches: the newest this many distinct inputs (a long transcript's
/// whole history is never copied on a keypress).
pub const RECALL_DEPTH: usize = 500;

/// This Keeper's inputs in recall order: pending first, then sent; each newest first. A text
/// appears once (its most recent place).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecallList {
    texts: Vec<String>,
}

impl RecallList {
    /// `pending` and `sent` are each oldest first (the order they were typed / appear in the
    /// transcript).
    pub fn new<'a>(
        pending: impl DoubleEndedIterator<Item = &'a str>,
        sent: impl DoubleEndedIterator<Item = &'a str>,
    ) -> Self {
        let mut seen = std::collections::HashSet::new();
        let texts = pending
            .rev()
            .chain(sent.rev())
            .filter(|text| !text.trim().is_empty() && seen.insert(*text))
            .take(RECALL_DEPTH)
            .map(str::to_string)
            .collect();
        Self { texts }
    }

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        self.texts.get(index).map(String::as_str)
    }
}

/// What a recall step asks the composer to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecallStep {
    /// Show this recalled input (cursor at its end).
    Show(String),
    /// Back past the newest: put the draft that was being typed back.
    Restore(Draft),
    /// Nothing older / not recalling: the composer stays as it is.
    Stay,
}

/// Where the walk stands: `None` while the operator is typing their own draft.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecallCursor {
    at: Option<usize>,
    /// The draft being typed when the walk began (given back by `Down` past the newest).
    stash: Option<Draft>,
}

impl RecallCursor {
    pub fn is_recalling(&self) -> bool {
        self.at.is_some()
    }

    /// The recalled text was edited (or sent): it is the draft now, and the walk ends.
    pub fn end(&mut self) {
        self.at = None;
        self.stash = None;
    }

    /// One step. `current` is the composer's draft now (stashed when the walk begins).
    pub fn step(
        &mut self,
        direction: RecallDirection,
        list: &RecallList,
        current: impl FnOnce() -> Draft,
    ) -> RecallStep {
        match (direction, self.at) {
            (RecallDirection::Older, None) => match list.get(0) {
                Some(text) => {
                    self.stash = Some(current());
                    self.at = Some(0);
                    RecallStep::Show(text.to_string())
                }
                None => RecallStep::Stay,
            },
            (RecallDirection::Older, Some(i)) => match list.get(i + 1) {
                Some(text) => {
                    self.at = Some(i + 1);
                    RecallStep::Show(text.to_string())
                }
                None => RecallStep::Stay,
            },
            (RecallDirection::Newer, None) => RecallStep::Stay,
            (RecallDirection::Newer, Some(0)) => {
                self.at = None;
                RecallStep::Restore(self.stash.take().unwrap_or_default())
            }
            (RecallDirection::Newer, Some(i)) => {
                // The list may have shrunk since the last step (a pending send confirmed).
                let at = (i - 1).min(list.len().saturating_sub(1));
                self.at = Some(at);
                match list.get(at) {
                    Some(text) => RecallStep::Show(text.to_string()),
                    None => {
                        self.at = None;
                        RecallStep::Restore(self.stash.take().unwrap_or_default())
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(text: &str) -> Draft {
        Draft {
            text: text.to_string(),
            cursor: text.len(),
            spills: Vec::new(),
        }
    }

    #[test]
    fn c65_pending_first_then_sent_newest_first_without_repeats() {
        let list = RecallList::new(
            ["p-old", "p-new"].into_iter(),
            ["s1", "p-old", "s2", ""].into_iter(),
        );
        let texts: Vec<_> = (0..list.len()).filter_map(|i| list.get(i)).collect();
        assert_eq!(texts, ["p-new", "p-old", "s2", "s1"]);
    }

    #[test]
    fn c65_walk_back_and_forward_restores_the_typed_draft() {
        let list = RecallList::new(["queued"].into_iter(), ["first", "second"].into_iter());
        let mut cursor = RecallCursor::default();
        let older = RecallDirection::Older;
        let newer = RecallDirection::Newer;
        assert_eq!(
            cursor.step(older, &list, || draft("half-typed 한글")),
            RecallStep::Show("queued".into())
        );
        assert!(cursor.is_recalling());
        assert_eq!(
            cursor.step(older, &list, || draft("x")),
            RecallStep::Show("second".into())
        );
        assert_eq!(
            cursor.step(older, &list, || draft("x")),
            RecallStep::Show("first".into())
        );
        assert_eq!(cursor.step(older, &list, || draft("x")), RecallStep::Stay);
        assert_eq!(
            cursor.step(newer, &list, || draft("x")),
            RecallStep::Show("second".into())
        );
        assert_eq!(
            cursor.step(newer, &list, || draft("x")),
            RecallStep::Show("queued".into())
        );
        assert_eq!(
            cursor.step(newer, &list, || draft("x")),
            RecallStep::Restore(draft("half-typed 한글"))
        );
        assert!(!cursor.is_recalling());
        assert_eq!(cursor.step(newer, &list, || draft("x")), RecallStep::Stay);
    }

    #[test]
    fn c65_nothing_to_recall_keeps_the_draft_and_editing_ends_the_walk() {
        let empty = RecallList::default();
        let mut cursor = RecallCursor::default();
        assert_eq!(
            cursor.step(RecallDirection::Older, &empty, || draft("mine")),
            RecallStep::Stay
        );
        assert!(!cursor.is_recalling());
        let list = RecallList::new(std::iter::empty(), ["a"].into_iter());
        cursor.step(RecallDirection::Older, &list, || draft("mine"));
        cursor.end();
        assert_eq!(
            cursor.step(RecallDirection::Newer, &list, || draft("edited a")),
            RecallStep::Stay,
            "after an edit the recalled text is the draft: Down does not swap it away"
        );
    }

    #[test]
    fn c65_a_shrunk_list_walks_forward_safely() {
        let long = RecallList::new(["p1", "p2"].into_iter(), ["s"].into_iter());
        let mut cursor = RecallCursor::default();
        for _ in 0..3 {
            cursor.step(RecallDirection::Older, &long, || draft("typed"));
        }
        let short = RecallList::new(std::iter::empty(), ["s"].into_iter());
        assert_eq!(
            cursor.step(RecallDirection::Newer, &short, || draft("x")),
            RecallStep::Show("s".into())
        );
        assert_eq!(
            cursor.step(RecallDirection::Newer, &short, || draft("x")),
            RecallStep::Restore(draft("typed"))
        );
    }

    #[test]
    fn c65_recall_reaches_back_a_bounded_depth_of_distinct_inputs() {
        let sent: Vec<String> = (0..RECALL_DEPTH * 3)
            .map(|i| format!("m{}", i % (RECALL_DEPTH * 2)))
            .collect();
        let list = RecallList::new(std::iter::empty(), sent.iter().map(String::as_str));
        assert_eq!(list.len(), RECALL_DEPTH);
        assert_eq!(list.get(0), sent.last().map(String::as_str), "newest first");
    }
}
