//! Board reads: the posts list with the query fixed at dispatch (§8.1, E-11), the hearth
//! census (§8.3, E-3) and a post's detail (§8.2, E-8) with masc-tui's own vote (§15.6).

use super::{BoardObservation, BoardSlot};
use crate::actors::contract::{GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use crate::protocol::client::{AGENT_NAME, QueryString};

pub const BOARD_PATH: &str = "/api/v1/board";
pub const HEARTHS_PATH: &str = "/api/v1/board/hearths";
/// One page of posts (§8.1 clamps 1–200); further pages are not followed by this version.
pub const POSTS_PAGE_LIMIT: u64 = 100;

/// The ranking of the list (§8.1 `sort_by`; `s` cycles in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BoardSort {
    #[default]
    Hot,
    Trending,
    Recent,
    Updated,
    Discussed,
}

impl BoardSort {
    pub const ALL: [BoardSort; 5] = [
        Self::Hot,
        Self::Trending,
        Self::Recent,
        Self::Updated,
        Self::Discussed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hot => "hot",
            Self::Trending => "trending",
            Self::Recent => "recent",
            Self::Updated => "updated",
            Self::Discussed => "discussed",
        }
    }

    /// The sort a `sort_by` echo names; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|v| *v == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

/// The planned query of one posts read. Equality is on the typed sort and the exact hearth,
/// never on formatted text (E-13).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BoardQuery {
    pub sort: BoardSort,
    /// `None`: every hearth.
    pub hearth: Option<String>,
}

impl BoardQuery {
    pub fn path(&self) -> String {
        let mut q = QueryString::new()
            .pair("sort_by", self.sort.as_str())
            .pair("limit", &POSTS_PAGE_LIMIT.to_string());
        if let Some(h) = self.hearth.as_deref().filter(|h| !h.trim().is_empty()) {
            q = q.pair("hearth", h);
        }
        q.append_to(BOARD_PATH)
    }
}

/// One posts read as the worker produced it, with the query fixed at dispatch: kept posts are
/// never relabelled with the current controls (E-11, E-12).
#[derive(Debug, Clone)]
pub struct BoardPostsRead {
    pub query: BoardQuery,
    pub result: ReadResult<BoardPostsPage>,
}

pub fn posts_reader(query: BoardQuery) -> Reader<BoardObservation> {
    reader(move |auth, client| {
        let query = query.clone();
        async move {
            let result = client.get::<BoardPostsPage>(&auth, &query.path()).await;
            BoardObservation::Posts(Box::new(BoardPostsRead { query, result }))
        }
    })
}

type BoardSlotSpec = SlotSpec<BoardSlot, BoardObservation>;

pub fn posts_slot(query: BoardQuery, generations: GenerationCounter) -> BoardSlotSpec {
    SlotSpec {
        key: BoardSlot::Posts,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations,
        reader: posts_reader(query),
    }
}

pub fn census_slot(generations: GenerationCounter) -> BoardSlotSpec {
    SlotSpec {
        key: BoardSlot::Census,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations,
        reader: reader(|auth, client| async move {
            BoardObservation::Census(client.get::<HearthCensus>(&auth, HEARTHS_PATH).await)
        }),
    }
}

/// `?format=flat&voter=masc-tui`: the detail with masc-tui's own vote on it (§15.6).
pub fn post_path(post_id: &str) -> String {
    QueryString::new()
        .pair("format", "flat")
        .pair("voter", AGENT_NAME)
        .append_to(&format!(
            "{BOARD_PATH}/{}",
            crate::protocol::client::path_segment(post_id)
        ))
}

/// The detail read of one post; the id echo is checked inside the admitted read (§8.2).
pub fn post_slot(post_id: &str, generations: GenerationCounter) -> BoardSlotSpec {
    let id = post_id.to_string();
    SlotSpec {
        key: BoardSlot::Post(id.clone()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: reader(move |auth, client| {
            let id = id.clone();
            async move {
                let path = post_path(&id);
                let result = client
                    .get_with(&auth, &path, move |b: &[u8]| {
                        BoardPostDetail::decode_for(b, &id)
                    })
                    .await;
                BoardObservation::Post(result)
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e13_query_paths_use_the_typed_sort_and_exact_hearth() {
        let q = BoardQuery::default();
        assert_eq!(q.path(), "/api/v1/board?sort_by=hot&limit=100");
        let q = BoardQuery {
            sort: BoardSort::Discussed,
            hearth: Some("운영 & ops".into()),
        };
        assert!(
            q.path()
                .starts_with("/api/v1/board?sort_by=discussed&limit=100&hearth=")
        );
        assert!(!q.path().contains(' ') && !q.path().contains("& "));
        let blank = BoardQuery {
            sort: BoardSort::Hot,
            hearth: Some("  ".into()),
        };
        assert_eq!(blank.path(), "/api/v1/board?sort_by=hot&limit=100");
        assert_eq!(BoardSort::Discussed.next(), BoardSort::Hot);
        assert_eq!(BoardSort::parse("trending"), Some(BoardSort::Trending));
        assert_eq!(BoardSort::parse("Trending"), None);
    }

    #[test]
    fn post_path_encodes_the_id_as_one_segment() {
        assert_eq!(
            post_path("post-1"),
            "/api/v1/board/post-1?format=flat&voter=masc-tui"
        );
        assert!(!post_path("a/b?c").contains("a/b"));
    }
}
