//! The captured immutable prefix of a task's history chain (sources.md A-1…A-5).
//!
//! A chain is never mutated: a page read captures the chain it extends (`Arc`) and, when the
//! page is admitted, produces a *new* chain = that prefix + the page. `r` starts a new prefix
//! (a new `prefix_id`); `H` extends the current one with its known older cursor. A failed page
//! produces nothing, so the prefix and its retry cursor stay exactly as they were.

use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::protocol::tasks::{HistoryContinuation, PageRequest, TaskEventRow, TaskHistoryPage};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Process-wide prefix identities: a fresh prefix never shares an id with an older one, even
/// across actor restarts (so a display prepared for an older prefix is never reused, A-13).
static PREFIX_IDS: AtomicU64 = AtomicU64::new(0);

fn next_prefix_id() -> u64 {
    PREFIX_IDS.fetch_add(1, Ordering::SeqCst).saturating_add(1)
}

/// Where the chain continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainNext {
    /// No page read yet: the next read is the newest page (no cursor).
    FirstPage,
    /// The next older page, with the cursor the previous page returned.
    Older { cursor: String },
    /// The server said no older page is stored: the end of the *observed stored prefix*, not
    /// complete history and not a finished Task.
    EndOfStoredHistory,
}

/// An immutable history prefix of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChain {
    pub task_id: String,
    /// Identity of this prefix (a fresh prefix after `r` gets a new one).
    pub prefix_id: u64,
    /// Admitted pages, newest first.
    pages: Vec<Arc<TaskHistoryPage>>,
    /// Every request cursor of this chain (the first page has none).
    used_cursors: Vec<String>,
    pub next: ChainNext,
    row_count: usize,
}

impl HistoryChain {
    /// A fresh, empty prefix (nothing read yet).
    pub fn fresh(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            prefix_id: next_prefix_id(),
            pages: Vec::new(),
            used_cursors: Vec::new(),
            next: ChainNext::FirstPage,
            row_count: 0,
        }
    }

    /// Pages admitted so far.
    pub fn pages_read(&self) -> usize {
        self.pages.len()
    }

    /// Rows admitted so far (all pages).
    pub fn len(&self) -> usize {
        self.row_count
    }

    pub fn is_empty(&self) -> bool {
        self.row_count == 0
    }

    /// Every row, newest first.
    pub fn rows(&self) -> impl Iterator<Item = &TaskEventRow> {
        self.pages.iter().flat_map(|p| p.rows.iter())
    }

    pub fn used_cursors(&self) -> &[String] {
        &self.used_cursors
    }

    /// The request for the next page of this chain, `None` at the end of stored history.
    pub fn next_request(&self, limit: u32) -> Option<PageRequest> {
        let cursor = match &self.next {
            ChainNext::FirstPage => None,
            ChainNext::Older { cursor } => Some(cursor.clone()),
            ChainNext::EndOfStoredHistory => return None,
        };
        Some(PageRequest {
            task_id: self.task_id.clone(),
            cursor,
            limit: limit.clamp(1, 200),
        })
    }

    /// This prefix plus `page`, read for `request`. Re-checks what the chain itself owns (the
    /// page continues this prefix, and its next cursor is new to the chain) even when the page
    /// was re-admitted from the cache by a 304 and so decoded for an earlier chain.
    pub fn append(
        &self,
        request: &PageRequest,
        page: Arc<TaskHistoryPage>,
    ) -> Result<HistoryChain, DecodeError> {
        if page.task_id != self.task_id || request.task_id != self.task_id {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".task_id",
                "page is not of this chain's task",
            ));
        }
        let expected = self.next_request(request.limit).map(|r| r.cursor);
        if expected != Some(request.cursor.clone()) || page.cursor != request.cursor {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".cursor",
                "page does not continue this prefix",
            ));
        }
        let mut used_cursors = self.used_cursors.clone();
        if let Some(c) = &request.cursor {
            used_cursors.push(c.clone());
        }
        let next = match &page.continuation {
            HistoryContinuation::More { next_cursor } => {
                if used_cursors.iter().any(|c| c == next_cursor) {
                    return Err(DecodeError::new(
                        DecodeErrorKind::RepeatingCursor,
                        ".next_cursor",
                        "next_cursor repeats a cursor of this chain",
                    ));
                }
                ChainNext::Older {
                    cursor: next_cursor.clone(),
                }
            }
            HistoryContinuation::EndOfStoredHistory => ChainNext::EndOfStoredHistory,
        };
        let row_count = self.row_count + page.rows.len();
        let mut pages = self.pages.clone();
        pages.push(page);
        Ok(HistoryChain {
            task_id: self.task_id.clone(),
            prefix_id: self.prefix_id,
            pages,
            used_cursors,
            next,
            row_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tasks::TaskEventRow;

    fn row(task: &str, ts: &str) -> TaskEventRow {
        TaskEventRow {
            task_id: task.into(),
            ts: ts.into(),
            task: None,
            event_type: None,
            action: None,
            from_status: None,
            to_status: None,
            agent: None,
            actor: None,
            actor_kind: None,
            assignee: None,
            notes: None,
            reason: None,
            handoff_context: None,
        }
    }

    fn page(cursor: Option<&str>, next: Option<&str>, n: usize) -> Arc<TaskHistoryPage> {
        Arc::new(TaskHistoryPage {
            task_id: "t".into(),
            cursor: cursor.map(str::to_string),
            rows: (0..n).map(|_| row("t", "2026-10-01T00:00:00Z")).collect(),
            continuation: match next {
                Some(c) => HistoryContinuation::More {
                    next_cursor: c.into(),
                },
                None => HistoryContinuation::EndOfStoredHistory,
            },
        })
    }

    #[test]
    fn a1_append_yields_a_new_chain_and_leaves_the_prefix_untouched() {
        let fresh = HistoryChain::fresh("t");
        let req = fresh.next_request(2).unwrap();
        assert_eq!(req.cursor, None);
        let one = fresh.append(&req, page(None, Some("c1"), 2)).unwrap();
        assert_eq!(fresh.len(), 0, "the captured prefix is immutable");
        assert_eq!(one.len(), 2);
        assert_eq!(one.prefix_id, fresh.prefix_id);
        let req2 = one.next_request(2).unwrap();
        assert_eq!(req2.cursor.as_deref(), Some("c1"));
        let two = one.append(&req2, page(Some("c1"), None, 1)).unwrap();
        assert_eq!(two.len(), 3);
        assert_eq!(two.next, ChainNext::EndOfStoredHistory);
        assert_eq!(two.next_request(2), None, "A-4: end of stored history");
    }

    #[test]
    fn a1_repeating_cursor_and_foreign_pages_are_refused() {
        let one = HistoryChain::fresh("t")
            .append(
                &PageRequest {
                    task_id: "t".into(),
                    cursor: None,
                    limit: 5,
                },
                page(None, Some("c1"), 1),
            )
            .unwrap();
        let req = one.next_request(5).unwrap();
        let e = one
            .append(&req, page(Some("c1"), Some("c1"), 1))
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::RepeatingCursor);
        // A page that does not continue this prefix (stale request cursor).
        let stale = PageRequest {
            task_id: "t".into(),
            cursor: None,
            limit: 5,
        };
        let e = one.append(&stale, page(None, Some("c9"), 1)).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
        assert!(HistoryChain::fresh("t").prefix_id != HistoryChain::fresh("t").prefix_id);
    }
}
