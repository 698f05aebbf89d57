//! Board: posts (protocol.md §8.1), detail (§8.2), hearths (§8.3), post create (§8.4); the
//! voter's own vote on a detail read with `voter=` (protocol-15-operator.md §15.6).

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_object, decode_value,
    decode_value_at, present_nullable,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `post_kind`; an unknown kind is kept as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostKind {
    Direct,
    Automation,
    System,
    Other(String),
}

impl<'de> Deserialize<'de> for PostKind {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let s = String::deserialize(de)?;
        Ok(match s.as_str() {
            "direct" => Self::Direct,
            "automation" => Self::Automation,
            "system" => Self::System,
            _ => Self::Other(s),
        })
    }
}

/// When a post or comment was created: ISO text or unix seconds (at least one is present).
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedAt {
    pub iso: Option<String>,
    pub unix: Option<f64>,
}

#[derive(Deserialize)]
struct PostWire {
    id: String,
    author: String,
    title: String,
    votes: i64,
    comment_count: u64,
    #[serde(default)]
    created_at: Option<f64>,
    #[serde(default)]
    created_at_iso: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    updated_at: Option<f64>,
    #[serde(default)]
    hearth: Option<String>,
    #[serde(default)]
    post_kind: Option<PostKind>,
    #[serde(default)]
    pinned: Option<bool>,
    #[serde(default)]
    score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoardPost {
    pub id: String,
    pub author: String,
    pub title: String,
    pub votes: i64,
    pub comment_count: u64,
    pub created: CreatedAt,
    pub body: Option<String>,
    pub updated_at: Option<f64>,
    pub hearth: Option<String>,
    pub post_kind: Option<PostKind>,
    pub pinned: Option<bool>,
    pub score: Option<f64>,
}

fn created(iso: Option<String>, unix: Option<f64>, at: &str) -> Result<CreatedAt, DecodeError> {
    if iso.is_none() && unix.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingField,
            format!("{at}.created_at"),
            "neither created_at nor created_at_iso",
        ));
    }
    Ok(CreatedAt { iso, unix })
}

impl BoardPost {
    /// Decode one post value, errors rooted at `at`.
    pub fn decode_at(value: &Value, at: &str) -> Result<Self, DecodeError> {
        let w: PostWire = decode_value_at(value, at)?;
        Ok(Self {
            created: created(w.created_at_iso, w.created_at, at)?,
            id: w.id,
            author: w.author,
            title: w.title,
            votes: w.votes,
            comment_count: w.comment_count,
            body: w.body,
            updated_at: w.updated_at,
            hearth: w.hearth,
            post_kind: w.post_kind,
            pinned: w.pinned,
            score: w.score,
        })
    }
}

/// One page of `GET /api/v1/board` (offset pagination; absent envelope keys stay `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct BoardPostsPage {
    pub posts: Vec<BoardPost>,
    pub count: Option<u64>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub sort_by: Option<String>,
}

#[derive(Deserialize)]
struct PostsWire {
    posts: Vec<Value>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    sort_by: Option<String>,
}

impl WireDecode for BoardPostsPage {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: PostsWire = decode_json(bytes)?;
        let posts = w
            .posts
            .iter()
            .enumerate()
            .map(|(i, v)| BoardPost::decode_at(v, &format!(".posts[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(count) = w.count
            && count != posts.len() as u64
        {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".count",
                format!("count {count} but {} posts", posts.len()),
            ));
        }
        Ok(Self {
            posts,
            count: w.count,
            limit: w.limit,
            offset: w.offset,
            sort_by: w.sort_by,
        })
    }
}

impl BoardPostsPage {
    /// §8.1: the next page's offset, `None` when this page is the last (`count < limit`).
    pub fn next_offset(&self, requested_offset: u64, requested_limit: u64) -> Option<u64> {
        let limit = self.limit.unwrap_or(requested_limit);
        let offset = self.offset.unwrap_or(requested_offset);
        let count = self.posts.len() as u64;
        if limit == 0 || count < limit {
            None
        } else {
            offset.checked_add(limit)
        }
    }
}

// ---- §8.2 detail ----

#[derive(Deserialize)]
struct CommentWire {
    id: String,
    #[serde(default)]
    post_id: Option<String>,
    #[serde(default, deserialize_with = "present_nullable")]
    parent_id: Option<Option<String>>,
    author: String,
    content: String,
    #[serde(default)]
    created_at: Option<f64>,
    #[serde(default)]
    created_at_iso: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoardComment {
    pub id: String,
    /// `None`: the server omitted it (older shapes); when present it must be the post's id.
    pub post_id: Option<String>,
    /// `None`: key absent; `Some(None)`: a top-level comment.
    pub parent_id: Option<Option<String>>,
    pub author: String,
    pub content: String,
    pub created: CreatedAt,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CommentPage {
    pub offset: u64,
    pub returned: u64,
    pub total: u64,
    pub has_more: bool,
    #[serde(default)]
    pub next_offset: Option<u64>,
}

/// Which of the three detail shapes the server sent.
#[derive(Debug, Clone, PartialEq)]
pub enum DetailShape {
    Flat,
    Nested,
    Paged {
        comment_revision: Option<String>,
        comment_page: CommentPage,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoardPostDetail {
    pub post: BoardPost,
    pub comments: Vec<BoardComment>,
    pub shape: DetailShape,
    /// The reading actor's own vote on the post (§15.6 `voter=`); `None`: not sent.
    pub own_vote: Option<OwnVote>,
}

fn decode_comments(value: &Value, at: &str) -> Result<Vec<BoardComment>, DecodeError> {
    let wires: Vec<CommentWire> = decode_value_at(value, at)?;
    wires
        .into_iter()
        .enumerate()
        .map(|(i, w)| {
            Ok(BoardComment {
                created: created(w.created_at_iso, w.created_at, &format!("{at}[{i}]"))?,
                id: w.id,
                post_id: w.post_id,
                parent_id: w.parent_id,
                author: w.author,
                content: w.content,
            })
        })
        .collect()
}

impl WireDecode for BoardPostDetail {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        let missing = |k: &str| {
            DecodeError::new(
                DecodeErrorKind::MissingField,
                format!(".{k}"),
                format!("missing field `{k}`"),
            )
        };
        let comments_value = obj.get("comments").ok_or_else(|| missing("comments"))?;
        let comments = decode_comments(comments_value, ".comments")?;
        let own_vote = match obj.get("post") {
            None => OwnVote::read(&obj),
            Some(Value::Object(post)) => OwnVote::read(post),
            Some(_) => None,
        };
        let (post, shape) = match obj.get("post") {
            None => (
                BoardPost::decode_at(&Value::Object(obj.clone()), "")?,
                DetailShape::Flat,
            ),
            Some(post_value) => {
                let post = BoardPost::decode_at(post_value, ".post")?;
                let shape = match obj.get("comment_page") {
                    None => DetailShape::Nested,
                    Some(page) => {
                        let comment_page: CommentPage = decode_value_at(page, ".comment_page")?;
                        if comment_page.returned != comments.len() as u64 {
                            return Err(DecodeError::new(
                                DecodeErrorKind::CountMismatch,
                                ".comment_page.returned",
                                format!(
                                    "returned {} but {} comments",
                                    comment_page.returned,
                                    comments.len()
                                ),
                            ));
                        }
                        let comment_revision = match obj.get("comment_revision") {
                            None => None,
                            Some(v) => decode_value_at(v, ".comment_revision")?,
                        };
                        DetailShape::Paged {
                            comment_revision,
                            comment_page,
                        }
                    }
                };
                (post, shape)
            }
        };
        let post_path = if matches!(shape, DetailShape::Flat) {
            ""
        } else {
            ".post"
        };
        if let Some(i) = comments
            .iter()
            .position(|c| c.post_id.as_deref().is_some_and(|p| p != post.id))
        {
            return Err(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                format!(".comments[{i}].post_id"),
                format!("a comment of another post than {post_path}.id"),
            ));
        }
        Ok(Self {
            post,
            comments,
            shape,
            own_vote,
        })
    }
}

impl BoardPostDetail {
    /// Decode and check the detail's id equals the requested one.
    pub fn decode_for(bytes: &[u8], post_id: &str) -> Result<Self, DecodeError> {
        let d = Self::decode(bytes)?;
        if d.post.id != post_id {
            let path = if matches!(d.shape, DetailShape::Flat) {
                ".id"
            } else {
                ".post.id"
            };
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                path,
                "detail for another post id",
            ));
        }
        Ok(d)
    }
}

// ---- §8.3 hearths ----

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Hearth {
    pub name: String,
    pub count: u64,
}

/// The census: blank names dropped, sorted by count descending then name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HearthCensus {
    pub hearths: Vec<Hearth>,
}

#[derive(Deserialize)]
struct HearthsWire {
    hearths: Vec<Hearth>,
}

impl WireDecode for HearthCensus {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: HearthsWire = decode_json(bytes)?;
        let mut hearths: Vec<Hearth> = w
            .hearths
            .into_iter()
            .filter(|h| !h.name.trim().is_empty())
            .collect();
        hearths.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        Ok(Self { hearths })
    }
}

// ---- §8.4 post create ----

/// The request a board post create answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPostRequest {
    pub title: String,
}

/// The tool envelope `{"ok": bool, "message": str}` (success and failure).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolEnvelope {
    pub ok: bool,
    pub message: String,
}

impl WireDecode for ToolEnvelope {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

impl ToolEnvelope {
    /// The created post inside `message` (a JSON string holding a post with an `id`).
    pub fn created_post_id(&self) -> Result<String, DecodeError> {
        #[derive(Deserialize)]
        struct Created {
            id: String,
        }
        let v: Value = decode_json(self.message.as_bytes()).map_err(|e| e.under(".message"))?;
        let c: Created = decode_value(&v).map_err(|e| e.under(".message"))?;
        if c.id.trim().is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".message.id",
                "blank post id",
            ));
        }
        Ok(c.id)
    }
}

// ---- §15.6 the voter's own vote ----

/// `direction` (MASC trims it and ignores its case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VoteDirection {
    Up,
    Down,
}

impl VoteDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
        }
    }

    /// The arrow MASC's reply starts with for this direction.
    pub fn arrow(self) -> char {
        match self {
            Self::Up => '↑',
            Self::Down => '↓',
        }
    }

    /// A wire value (`current_vote`, a request's `direction`): trimmed, any case.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "up" => Some(Self::Up),
            "down" => Some(Self::Down),
            _ => None,
        }
    }

    pub(crate) fn of_arrow(c: char) -> Option<Self> {
        match c {
            '↑' => Some(Self::Up),
            '↓' => Some(Self::Down),
            _ => None,
        }
    }
}

/// The voter's own vote on a post (§15.6, a detail read with `voter=`): `None` on the detail
/// when the server sent neither key (not asked, or a MASC that does not add them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnVote {
    /// `current_vote`: `None` = no vote (`null`).
    pub current: Option<VoteDirection>,
    pub has_voted: bool,
}

impl OwnVote {
    /// Reads `current_vote` / `has_voted` of one JSON object. Tolerant: an unknown direction
    /// or a wrong type makes only this part unavailable (`None`), never the detail.
    pub fn read(obj: &serde_json::Map<String, Value>) -> Option<Self> {
        let current = match obj.get("current_vote") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(VoteDirection::parse(s)?)),
            Some(_) => return None,
        };
        let has_voted = match obj.get("has_voted") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return None,
        };
        match (current, has_voted) {
            (None, None) => None,
            (current, has_voted) => Some(Self {
                current: current.flatten(),
                has_voted: has_voted.unwrap_or(current.flatten().is_some()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAT: &str = r#"{"id":"post-1","author":"rondo","title":"Nightly verification","body":"All green.","votes":3,"comment_count":1,"created_at":1787000000.0,"comments":[{"id":"c-1","post_id":"post-1","parent_id":null,"author":"sangsu","content":"ack","created_at":1787000050.0}]}"#;

    #[test]
    fn flat_detail_and_id_check_s8_2() {
        let d = BoardPostDetail::decode_for(FLAT.as_bytes(), "post-1").unwrap();
        assert_eq!(d.shape, DetailShape::Flat);
        assert_eq!(d.own_vote, None);
        assert_eq!(d.comments[0].parent_id, Some(None));
        let e = BoardPostDetail::decode_for(FLAT.as_bytes(), "post-2").unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::EchoMismatch, ".id")
        );
    }

    #[test]
    fn the_voters_own_vote_is_read_from_the_post_s15_6() {
        let flat = FLAT.replace(
            r#""votes":3,"#,
            r#""votes":3,"current_vote":"up","has_voted":true,"#,
        );
        let d = BoardPostDetail::decode(flat.as_bytes()).unwrap();
        assert_eq!(
            d.own_vote.map(|v| (v.current, v.has_voted)),
            Some((Some(VoteDirection::Up), true))
        );
        let nested = r#"{"post":{"id":"p","author":"a","title":"t","votes":0,"comment_count":0,"created_at":1.0,"current_vote":null,"has_voted":false},"comments":[]}"#;
        let d = BoardPostDetail::decode(nested.as_bytes()).unwrap();
        assert_eq!(d.shape, DetailShape::Nested);
        assert_eq!(d.own_vote.map(|v| v.has_voted), Some(false));
    }

    #[test]
    fn comment_of_another_post_is_refused_s8_2() {
        let body = FLAT.replace(r#""post_id":"post-1""#, r#""post_id":"post-9""#);
        let e = BoardPostDetail::decode(body.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
    }

    #[test]
    fn hearths_drop_blank_and_resort_s8_3() {
        let c = HearthCensus::decode(
            br#"{"hearths":[{"name":"ops","count":5},{"name":" ","count":99},{"name":"alpha","count":5},{"name":"big","count":7}]}"#,
        )
        .unwrap();
        let names: Vec<_> = c.hearths.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["big", "alpha", "ops"]);
    }

    #[test]
    fn offset_pagination_stops_when_count_below_limit_s8_1() {
        let body = br#"{"posts":[{"id":"p","author":"a","title":"t","votes":0,"comment_count":0,"created_at":1.0}],"count":1,"limit":1,"offset":4,"sort_by":"hot"}"#;
        let p = BoardPostsPage::decode(body).unwrap();
        assert_eq!(p.next_offset(4, 1), Some(5));
        assert_eq!(p.next_offset(4, 2), Some(5));
        let body = br#"{"posts":[],"count":0,"limit":50,"offset":0,"sort_by":"hot"}"#;
        assert_eq!(
            BoardPostsPage::decode(body).unwrap().next_offset(0, 50),
            None
        );
    }

    #[test]
    fn post_needs_a_creation_time_s8_1() {
        let body =
            br#"{"posts":[{"id":"p","author":"a","title":"t","votes":0,"comment_count":0}]}"#;
        let e = BoardPostsPage::decode(body).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::MissingField, ".posts[0].created_at")
        );
    }

    #[test]
    fn created_post_in_tool_message_s8_4() {
        let env =
            ToolEnvelope::decode(br#"{"ok":true,"message":"{\"id\":\"post-9\",\"title\":\"x\"}"}"#)
                .unwrap();
        assert_eq!(env.created_post_id().unwrap(), "post-9");
        let env = ToolEnvelope::decode(br#"{"ok":true,"message":"posted"}"#).unwrap();
        assert!(env.created_post_id().is_err());
    }
}
