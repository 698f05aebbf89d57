//! Board: posts with comments (§8.1, §8.2), the hearth census (§8.3), new posts (§8.4) and
//! votes, one per (voter, post) with MASC's flip rule (protocol-15-operator.md §15.6).

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339, seed_rng};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "board",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "posts and comments",
        sql: "CREATE TABLE board_posts (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        author TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        votes INTEGER NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        hearth TEXT,
        post_kind TEXT NOT NULL,
        pinned INTEGER NOT NULL
    );
    CREATE TABLE board_comments (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        post_id TEXT NOT NULL,
        parent_id TEXT,
        author TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX board_comments_post ON board_comments (post_id, created_at);",
    },
    Migration {
        version: 2,
        name: "post votes",
        // The seeded `votes` stay the posts' net score; a vote here moves it (§15.6).
        sql: "CREATE TABLE board_votes (
            voter TEXT NOT NULL,
            post_id TEXT NOT NULL,
            direction TEXT NOT NULL,
            PRIMARY KEY (voter, post_id)
        );",
    },
];

const AUTHORS: &[&str] = &[
    "rondo",
    "sangsu",
    "하늘",
    "mira",
    "ops-bot",
    "masc-tui",
    "김민준",
    "priya",
    "이서연",
];
const HEARTHS: &[&str] = &["verification", "ops", "release", "design", "회고", "잡담"];
const TITLES: &[&str] = &[
    "Nightly verification",
    "빌드 캐시 정리 결과",
    "Decoder fixtures refreshed",
    "배포 체크리스트 v3",
    "Flaky test in chat stream",
    "온콜 인수인계",
    "Runtime quota almost exhausted",
    "디자인 리뷰: 커넥터 화면",
    "Release 0.23 notes draft",
    "회고: 지난주 장애",
    "Keeper juno meta.json broken",
    "점심 메뉴 투표",
    "Board hot sort feels off",
    "새 키퍼 온보딩 가이드",
    "Slack connector stale again",
];
const BODIES: &[&str] = &[
    "All green. 1,284 tests, 0 failures.",
    "캐시 3.2 GB 정리했습니다. 다음 주에 다시 확인할게요.",
    "## Summary\n- fixtures re-recorded\n- two rejects added\n\n```\ncargo test --test final_check\n```",
    "체크리스트:\n1. 태그\n2. 변경 로그\n3. 공지",
    "Seen twice this week; cut after 3 events. Investigating the SSE framing.",
    "야간 온콜은 ops-bot이 먼저 받고, 사람에게 넘깁니다.",
    "anthropic five-hour window at 91%. Consider moving sangsu to the local lane.",
    "{\"screen\":\"connectors\",\"feedback\":[\"names load slowly\",\"bind button ok\"]}",
];
const COMMENTS: &[&str] = &[
    "ack",
    "확인했습니다 👍",
    "Can you attach the log?",
    "이거 어제도 봤어요.",
    "Fixed in the next build.",
    "좋네요, 머지합시다.",
    "I'll take this one.",
    "재현 안 됩니다. 환경 알려주세요.",
];

/// Seeded post count.
pub const SEED_POSTS: usize = 60;

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let mut rng = seed_rng("board");
    let mut comment_no = 1;
    for i in 0..SEED_POSTS {
        let id = format!("post-{}", 1001 + i);
        let created =
            (SEED_EPOCH - 3_600 * (SEED_POSTS - i) as i64 * 5 + rng.gen_range(0..3_000)) as f64;
        let author = AUTHORS[rng.gen_range(0..AUTHORS.len())];
        let kind = match i % 10 {
            3 | 7 => "automation",
            9 => "system",
            _ => "direct",
        };
        let author = match kind {
            "automation" => "ops-bot",
            "system" => "masc",
            _ => author,
        };
        let hearth = (i % 7 != 6).then(|| HEARTHS[rng.gen_range(0..HEARTHS.len())]);
        let title = format!("{} #{}", TITLES[i % TITLES.len()], i / TITLES.len() + 1);
        let body = BODIES[rng.gen_range(0..BODIES.len())];
        let votes: i64 = rng.gen_range(-2..40);
        let n_comments = rng.gen_range(0..9usize);
        let mut updated = created;
        let mut ids: Vec<String> = Vec::new();
        for c in 0..n_comments {
            let cid = format!("c-{comment_no}");
            comment_no += 1;
            let at = created + 600.0 * (c as f64 + 1.0) + rng.gen_range(0..300) as f64;
            updated = updated.max(at);
            let parent = (c > 0 && rng.gen_bool(0.3))
                .then(|| ids.get(rng.gen_range(0..ids.len())).cloned())
                .flatten();
            tx.execute(
                "INSERT INTO board_comments (id, post_id, parent_id, author, content, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    cid,
                    id,
                    parent,
                    AUTHORS[rng.gen_range(0..AUTHORS.len())],
                    COMMENTS[rng.gen_range(0..COMMENTS.len())],
                    at
                ],
            )?;
            ids.push(cid);
        }
        tx.execute(
            "INSERT INTO board_posts (id, author, title, body, votes, created_at, updated_at, hearth,
                post_kind, pinned) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![id, author, title, body, votes, created, updated, hearth, kind, i == 4 || i == 31],
        )?;
    }
    Ok(())
}

/// One post as read from the store.
#[derive(Debug, Clone)]
pub struct Post {
    pub id: String,
    pub author: String,
    pub title: String,
    pub body: String,
    pub votes: i64,
    pub comment_count: i64,
    pub created_at: f64,
    pub updated_at: f64,
    pub hearth: Option<String>,
    pub post_kind: String,
    pub pinned: bool,
}

impl Post {
    /// Reddit-style hot score: vote magnitude plus recency (deterministic: no wall clock).
    pub fn hot(&self) -> f64 {
        let v = self.votes as f64;
        let magnitude = v.abs().max(1.0).log10() * v.signum();
        magnitude + (self.created_at - SEED_EPOCH as f64) / 45_000.0
    }

    pub fn to_json(&self, with_body: bool) -> Value {
        let mut v = json!({
            "id": self.id,
            "author": self.author,
            "title": self.title,
            "votes": self.votes,
            "comment_count": self.comment_count,
            "created_at": self.created_at,
            "created_at_iso": rfc3339(self.created_at as i64),
            "updated_at": self.updated_at,
            "hearth": self.hearth,
            "post_kind": self.post_kind,
            "pinned": self.pinned,
            "score": (self.hot() * 1000.0).round() / 1000.0,
        });
        if with_body && let Some(obj) = v.as_object_mut() {
            obj.insert("body".into(), json!(self.body));
        }
        v
    }
}

const POST_SELECT: &str = "SELECT p.id, p.author, p.title, p.body, p.votes,
        (SELECT COUNT(*) FROM board_comments c WHERE c.post_id = p.id),
        p.created_at, p.updated_at, p.hearth, p.post_kind, p.pinned
    FROM board_posts p";

fn post_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Post> {
    Ok(Post {
        id: r.get(0)?,
        author: r.get(1)?,
        title: r.get(2)?,
        body: r.get(3)?,
        votes: r.get(4)?,
        comment_count: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
        hearth: r.get(8)?,
        post_kind: r.get(9)?,
        pinned: r.get(10)?,
    })
}

pub fn all_posts(conn: &Connection) -> Result<Vec<Post>, StoreError> {
    let mut stmt = conn.prepare(&format!("{POST_SELECT} ORDER BY p.seq"))?;
    let rows = stmt.query_map([], post_of)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn post(conn: &Connection, id: &str) -> Result<Option<Post>, StoreError> {
    Ok(conn
        .query_row(
            &format!("{POST_SELECT} WHERE p.id = ?1"),
            params![id],
            post_of,
        )
        .optional()?)
}

pub fn comments(conn: &Connection, post_id: &str) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, post_id, parent_id, author, content, created_at FROM board_comments
         WHERE post_id = ?1 ORDER BY created_at, seq",
    )?;
    let rows = stmt.query_map(params![post_id], |r| {
        Ok(json!({
            "id": r.get::<_, String>(0)?,
            "post_id": r.get::<_, String>(1)?,
            "parent_id": r.get::<_, Option<String>>(2)?,
            "author": r.get::<_, String>(3)?,
            "content": r.get::<_, String>(4)?,
            "created_at": r.get::<_, f64>(5)?,
        }))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Insert a direct post; returns it as stored.
pub fn create(
    tx: &Transaction<'_>,
    author: &str,
    title: &str,
    body: &str,
    hearth: Option<&str>,
    now: f64,
) -> Result<Post, StoreError> {
    let next: i64 = tx.query_row(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM board_posts",
        [],
        |r| r.get(0),
    )?;
    let id = format!("post-{}", 1000 + next);
    tx.execute(
        "INSERT INTO board_posts (seq, id, author, title, body, votes, created_at, updated_at,
            hearth, post_kind, pinned) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6, ?7, 'direct', 0)",
        params![next, id, author, title, body, now, hearth],
    )?;
    post(tx, &id)?.ok_or_else(|| StoreError::Invalid(format!("post {id} vanished")))
}

/// What one vote did (§15.6): recorded (new, or flipped from the other direction) or already
/// there in that direction (nothing changed); each with the post's score after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteApplied {
    Recorded { score: i64 },
    Already { score: i64 },
    PostNotFound,
}

/// One vote of `voter` on `post_id` in `direction` (`up` | `down`): one per (voter, post); the
/// same direction again changes nothing; the other one flips it (that direction +1, the other
/// -1). There is no un-vote.
pub fn vote(
    tx: &Transaction<'_>,
    voter: &str,
    post_id: &str,
    direction: &str,
) -> Result<VoteApplied, StoreError> {
    let Some(post) = post(tx, post_id)? else {
        return Ok(VoteApplied::PostNotFound);
    };
    let sign = |d: &str| if d == "up" { 1 } else { -1 };
    let before = vote_of(tx, voter, post_id)?;
    let delta = match before.as_deref() {
        Some(d) if d == direction => return Ok(VoteApplied::Already { score: post.votes }),
        Some(d) => sign(direction) - sign(d),
        None => sign(direction),
    };
    tx.execute(
        "INSERT INTO board_votes (voter, post_id, direction) VALUES (?1, ?2, ?3)
         ON CONFLICT (voter, post_id) DO UPDATE SET direction = excluded.direction",
        params![voter, post_id, direction],
    )?;
    tx.execute(
        "UPDATE board_posts SET votes = votes + ?2 WHERE id = ?1",
        params![post_id, delta],
    )?;
    Ok(VoteApplied::Recorded {
        score: post.votes + delta,
    })
}

/// The direction `voter` voted `post_id`, if any.
pub fn vote_of(
    conn: &Connection,
    voter: &str,
    post_id: &str,
) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT direction FROM board_votes WHERE voter = ?1 AND post_id = ?2",
            params![voter, post_id],
            |r| r.get(0),
        )
        .optional()?)
}
