//! `GET /health` (protocol.md §3) and the identity judgement of §2.1.
//!
//! `/health` is the only identity observation: the client compares the served base path with
//! the one the operator expects and, on a match, takes the served `effective_masc_root` as the
//! expected root of a new read epoch. Individual read rejections never change identity (§2.1).

use super::admission::AdmissionMode;
use super::decode::{DecodeError, WireDecode, decode_json};
use serde::Deserialize;
use std::path::Path;

/// The identity-bearing parts of `/health`. Volatile fields (uptime, counters) are not identity
/// and are not read. Unknown keys are ignored (the document is open, §3).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Health {
    #[serde(default)]
    pub status: Option<String>,
    /// `"masc"` on MASC and on the embedded server; diagnostics only.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    /// Diagnostics only.
    #[serde(default)]
    pub build: Option<BuildInfo>,
    pub paths: HealthPaths,
    /// Absent on older servers: those are not booting (§2.1).
    #[serde(default)]
    pub startup: Option<Startup>,
    /// Extension (§2.2 point 4); absent on MASC.
    #[serde(default)]
    pub admission: Option<AdmissionAdvert>,
}

/// `build` of `/health` (§3), diagnostics only. MASC's `Build_identity.to_yojson`
/// (lib/build_identity.ml) writes `commit` (+ `commit_source`) and, only for a binary stamped
/// at build time, `binary_commit`; older embedded servers sent only `binary_commit`. Both are
/// accepted; [`BuildInfo::commit`] prefers the spec's `commit`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BuildInfo {
    #[serde(default)]
    pub commit: Option<String>,
    #[serde(default)]
    pub commit_source: Option<String>,
    #[serde(default)]
    pub binary_commit: Option<String>,
}

/// Which `build` field named the commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitField {
    /// `build.commit` (protocol.md §3).
    Commit,
    /// `build.binary_commit` (a stamped binary, or an older embedded server).
    BinaryCommit,
}

impl BuildInfo {
    /// The commit this server reports, and the field it came from: `commit` first, then
    /// `binary_commit`. Blank values count as absent.
    pub fn commit(&self) -> Option<(&str, CommitField)> {
        fn nonblank(v: &Option<String>) -> Option<&str> {
            v.as_deref().map(str::trim).filter(|s| !s.is_empty())
        }
        nonblank(&self.commit)
            .map(|c| (c, CommitField::Commit))
            .or_else(|| nonblank(&self.binary_commit).map(|c| (c, CommitField::BinaryCommit)))
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct HealthPaths {
    pub effective_base_path: String,
    pub effective_masc_root: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Startup {
    #[serde(default)]
    pub phase: Option<String>,
    pub state_ready: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AdmissionAdvert {
    #[serde(default)]
    pub receipts: bool,
}

impl WireDecode for Health {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

impl Health {
    /// The admission mode this server's reads get (§2.2 vs §2.3).
    pub fn admission_mode(&self) -> AdmissionMode {
        match &self.admission {
            Some(AdmissionAdvert { receipts: true }) => AdmissionMode::Receipt,
            _ => AdmissionMode::Health,
        }
    }

    /// `startup.state_ready: false`. No `startup` object means an older server: not booting.
    pub fn is_booting(&self) -> bool {
        matches!(
            self.startup,
            Some(Startup {
                state_ready: false,
                ..
            })
        )
    }
}

/// The §2.1 judgement of one `/health` answer against the operator's expected base path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityVerdict {
    /// Identity cannot be read from this answer (empty base on either side, empty root).
    Unread { reason: String },
    /// `startup.state_ready: false`: only `/health` is polled until it turns ready.
    Booting,
    /// The server serves another workspace base (both canonicalised).
    Mismatch { expected: String, served: String },
    /// A read epoch may open: `masc_root` is the served root string, taken verbatim as the
    /// expected root of the epoch.
    Match {
        base_path: String,
        masc_root: String,
        mode: AdmissionMode,
    },
}

/// Judge a `/health` answer (§2.1).
///
/// `expected_base: None` means the operator gave no `MASC_BASE_PATH`: the served base is
/// accepted as it is (demo mode — the console attaches to whatever workspace the server at the
/// configured address serves; the header still names it, and every read is still admitted
/// against the served root). `Some(path)` is compared after canonicalisation.
///
/// Order: unread, then mismatch, then booting. A booting server that serves another workspace
/// is reported as a mismatch, the more useful of the two; both withdraw the epoch.
pub fn judge_identity(expected_base: Option<&str>, health: &Health) -> IdentityVerdict {
    let served_raw = health.paths.effective_base_path.as_str();
    let root = health.paths.effective_masc_root.as_str();
    if served_raw.trim().is_empty() {
        return IdentityVerdict::Unread {
            reason: "server reports an empty effective_base_path".into(),
        };
    }
    if root.trim().is_empty() {
        return IdentityVerdict::Unread {
            reason: "server reports an empty effective_masc_root".into(),
        };
    }
    let served = canonical_base(served_raw);
    if let Some(expected_raw) = expected_base {
        if expected_raw.trim().is_empty() {
            return IdentityVerdict::Unread {
                reason: "expected base path is empty".into(),
            };
        }
        let expected = canonical_base(expected_raw);
        if expected != served {
            return IdentityVerdict::Mismatch { expected, served };
        }
    }
    if health.is_booting() {
        return IdentityVerdict::Booting;
    }
    IdentityVerdict::Match {
        base_path: served,
        masc_root: root.to_string(),
        mode: health.admission_mode(),
    }
}

/// Realpath when the path exists locally, else the raw string (§2.1). A server on another
/// machine reports paths that do not exist here; those compare as given.
pub fn canonical_base(raw: &str) -> String {
    match std::fs::canonicalize(Path::new(raw)) {
        Ok(real) => match real.into_os_string().into_string() {
            Ok(s) => s,
            // A non-UTF-8 realpath cannot equal a JSON string; keep the operator's spelling.
            Err(_) => raw.to_string(),
        },
        Err(_) => raw.to_string(),
    }
}

#[cfg(test)]
mod build_tests {
    use super::*;

    fn build_of(json: &str) -> BuildInfo {
        let h = Health::decode(
            format!(r#"{{"paths":{{"effective_base_path":"/w","effective_masc_root":"/w/.masc"}},"build":{json}}}"#)
                .as_bytes(),
        )
        .unwrap();
        h.build.unwrap()
    }

    #[test]
    fn build_commit_is_the_spec_name_and_binary_commit_is_accepted_issue13_defect7() {
        let masc = build_of(r#"{"commit":"341791ff6f","commit_source":"embedded"}"#);
        assert_eq!(masc.commit(), Some(("341791ff6f", CommitField::Commit)));
        let stamped = build_of(r#"{"binary_commit":"d541eb0750"}"#);
        assert_eq!(
            stamped.commit(),
            Some(("d541eb0750", CommitField::BinaryCommit))
        );
        let both = build_of(r#"{"commit":"aaa","binary_commit":"bbb"}"#);
        assert_eq!(both.commit(), Some(("aaa", CommitField::Commit)));
        let blank = build_of(r#"{"commit":" ","binary_commit":null}"#);
        assert_eq!(blank.commit(), None);
    }
}
