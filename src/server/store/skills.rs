//! Skills: the published Skill catalogue (§6.2) with per-keeper usage ledgers.

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339};
use rusqlite::{Connection, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "skills",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "skills and usage",
    sql: "CREATE TABLE skills (
        name TEXT PRIMARY KEY,
        sort_key INTEGER NOT NULL,
        source_id TEXT NOT NULL,
        package_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        description TEXT NOT NULL,
        content_revision TEXT NOT NULL,
        error TEXT
    );
    CREATE TABLE skill_usage (
        skill TEXT NOT NULL,
        keeper TEXT NOT NULL,
        invocations INTEGER NOT NULL,
        deliveries INTEGER NOT NULL,
        actions INTEGER NOT NULL,
        last_used_at INTEGER NOT NULL,
        PRIMARY KEY (skill, keeper)
    );",
}];

/// A published skill: (name, source, kind, description). Kind `unavailable` has an error.
pub const SEED_SKILLS: &[(&str, &str, &str, &str)] = &[
    (
        "rust-review",
        "project-masc",
        "instruction",
        "Review Rust changes for panics, unwraps and missing tests.",
    ),
    (
        "nightly-verification",
        "project-masc",
        "composition",
        "야간 검증: build, test and post the summary to the board.",
    ),
    (
        "work-intake",
        "workspace",
        "composition",
        "Turn a board request into a task with an owner.",
    ),
    (
        "release-notes",
        "workspace",
        "instruction",
        "릴리스 노트 초안을 한국어와 영어로 작성합니다.",
    ),
    (
        "incident-triage",
        "workspace",
        "unavailable",
        "Triage a paging incident.",
    ),
];

/// Content revision of a seeded skill: a stable 64-hex digest of its name.
pub fn content_revision(name: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(format!("skill\0{name}").as_bytes()))
}

/// `{identity, content_revision}` of a skill.
pub fn reference(name: &str, source_id: &str) -> Value {
    json!({
        "identity": {"source_id": source_id, "package_id": name, "name": name},
        "content_revision": content_revision(name),
    })
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for (i, (name, source, kind, description)) in SEED_SKILLS.iter().enumerate() {
        let error = (*kind == "unavailable")
            .then_some("SKILL.md frontmatter: missing required key `description`");
        tx.execute(
            "INSERT INTO skills (name, sort_key, source_id, package_id, kind, description,
                content_revision, error) VALUES (?1, ?2, ?3, ?1, ?4, ?5, ?6, ?7)",
            params![
                name,
                i as i64,
                source,
                kind,
                description,
                content_revision(name),
                error
            ],
        )?;
    }
    let usage: &[(&str, &str, i64, i64, i64, i64)] = &[
        ("rust-review", "rondo", 41, 41, 17, 3_600),
        ("rust-review", "sangsu", 12, 12, 4, 26_000),
        ("nightly-verification", "ops-bot", 19, 19, 19, 32_400),
        ("nightly-verification", "rondo", 3, 3, 2, 200_000),
        ("work-intake", "하늘", 8, 7, 5, 7_200),
        ("release-notes", "mira", 2, 2, 1, 600_000),
    ];
    for (skill, keeper, inv, del, act, ago) in usage {
        tx.execute(
            "INSERT INTO skill_usage (skill, keeper, invocations, deliveries, actions, last_used_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![skill, keeper, inv, del, act, SEED_EPOCH - ago],
        )?;
    }
    Ok(())
}

/// One catalogue row.
pub struct SkillRow {
    pub name: String,
    pub source_id: String,
    pub kind: String,
    pub description: String,
    pub error: Option<String>,
}

pub fn list(conn: &Connection) -> Result<Vec<SkillRow>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT name, source_id, kind, description, error FROM skills ORDER BY sort_key, name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(SkillRow {
            name: r.get(0)?,
            source_id: r.get(1)?,
            kind: r.get(2)?,
            description: r.get(3)?,
            error: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Usage rows of one skill, by keeper name.
pub fn usage(conn: &Connection, skill: &str) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT keeper, invocations, deliveries, actions, last_used_at FROM skill_usage
         WHERE skill = ?1 ORDER BY keeper",
    )?;
    let rows = stmt.query_map(params![skill], |r| {
        Ok(json!({
            "keeper": r.get::<_, String>(0)?,
            "invocations": r.get::<_, i64>(1)?,
            "deliveries": r.get::<_, i64>(2)?,
            "actions": r.get::<_, i64>(3)?,
            "last_used_at": rfc3339(r.get::<_, i64>(4)?),
        }))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Keepers with a usage ledger.
pub fn ledger_keepers(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT DISTINCT keeper FROM skill_usage ORDER BY keeper")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Activation ledger of one keeper (newest first) for §6.1 `skill_activations`.
pub fn activations(conn: &Connection, keeper: &str) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT skill, invocations, last_used_at FROM skill_usage WHERE keeper = ?1
         ORDER BY last_used_at DESC, skill",
    )?;
    let rows = stmt.query_map(params![keeper], |r| {
        Ok(json!({
            "skill": r.get::<_, String>(0)?,
            "activations": r.get::<_, i64>(1)?,
            "last_activated_at": rfc3339(r.get::<_, i64>(2)?),
        }))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
