//! The doctor's report: how each route was judged, what `/health` said, the identity verdict,
//! the counts, and the exit-code rule (0 every served route decodes, 1 some route fails or the
//! identity is not a match, 2 unreachable or unauthorised). Every server-controlled string is
//! sanitised when it is put into a report ([`clean`]).

use crate::protocol::decode::DecodeError;
use crate::protocol::routes::RouteFamily;
use crate::sanitize::sanitize;
use serde::Serialize;
use std::time::Duration;

/// How one route was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteResult {
    /// Served; the body decodes with the client's decoder.
    Decodes,
    /// Served; the body fails the client's decoder.
    FailsToDecode,
    /// MASC's unknown-route 404 (or 405): this server does not serve the route.
    NotServed,
    /// Served; the probe's id names no object (a protocol-defined 404).
    ObjectNotFound,
    /// Served; the server is still computing the answer.
    Warming,
    /// Timeout, transport, an unexpected status, a receipt the client would refuse.
    Failed,
    /// 401/403 with the credentials given.
    Unauthorised,
    /// Needs an id no earlier read provided.
    NotProbed,
}

impl RouteResult {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decodes => "decodes",
            Self::FailsToDecode => "fails to decode",
            Self::NotServed => "not served by this MASC",
            Self::ObjectNotFound => "served",
            Self::Warming => "warming",
            Self::Failed => "failed",
            Self::Unauthorised => "unauthorised",
            Self::NotProbed => "not probed",
        }
    }

    /// Counts against exit 0.
    pub fn is_failure(self) -> bool {
        matches!(self, Self::FailsToDecode | Self::Failed)
    }
}

/// The first decode failure of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodeFailure {
    pub reason: String,
    pub path: String,
    pub detail: String,
}

impl DecodeFailure {
    pub(super) fn of(e: &DecodeError) -> Self {
        Self {
            reason: e.reason().to_string(),
            path: clean(&e.path),
            detail: clean(&e.detail),
        }
    }
}

/// One probed route.
#[derive(Debug, Clone, Serialize)]
pub struct RouteReport {
    /// `RouteFamily::as_str`.
    pub route: &'static str,
    pub method: &'static str,
    pub template: &'static str,
    /// The target actually requested (ids from earlier reads; sanitised).
    pub target: Option<String>,
    /// The route's auth class in the contract (protocol.md §1.3).
    pub auth: &'static str,
    pub origin: &'static str,
    /// Which release's shape the route answered with: MASC's shape of every
    /// covered release, the August or the newer shape where they differ, the masc-tui
    /// extension, or which releases lack the route when it is not served.
    pub shape: String,
    pub result: RouteResult,
    pub status: Option<u16>,
    /// The status of the same GET without a token (how the server enforces the auth class).
    pub without_token: Option<String>,
    /// A one-line summary of what decoded, or why it failed (sanitised).
    pub detail: String,
    pub decode_error: Option<DecodeFailure>,
    /// `present`, `absent`, or why the client would refuse it.
    pub receipt: Option<String>,
    /// `304` (revalidated), `200 again` (not honoured), `none` (no ETag), or another answer.
    pub etag: Option<String>,
    pub latency_ms: Option<u64>,
}

/// `/health` as the doctor read it.
#[derive(Debug, Clone, Serialize)]
pub struct HealthReport {
    pub reachable: bool,
    pub status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
    pub server: Option<String>,
    pub version: Option<String>,
    pub commit: Option<String>,
    /// `build.commit` or `build.binary_commit`.
    pub commit_field: Option<&'static str>,
    pub base_path: Option<String>,
    pub masc_root: Option<String>,
    /// `ready`, `booting`, or `no startup block (older server)`.
    pub startup: Option<String>,
}

/// The §2.1 judgement.
#[derive(Debug, Clone, Serialize)]
pub struct IdentityReport {
    /// `match`, `mismatch`, `booting`, `unread`.
    pub verdict: &'static str,
    pub expected_base: Option<String>,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub decodes: usize,
    pub fails_to_decode: usize,
    pub not_served: usize,
    pub object_not_found: usize,
    pub warming: usize,
    pub failed: usize,
    pub unauthorised: usize,
    pub not_probed: usize,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub url: String,
    pub health: HealthReport,
    pub identity: Option<IdentityReport>,
    /// `receipts` (§2.2) or `health` (§2.3).
    pub admission: Option<&'static str>,
    /// Which release `/health` names (its version and commit), as far as they tell.
    pub release: String,
    pub routes: Vec<RouteReport>,
    pub summary: Summary,
    pub exit_code: i32,
}

impl Report {
    pub(super) fn finish(mut self) -> Self {
        let mut s = Summary::default();
        for r in &self.routes {
            match r.result {
                RouteResult::Decodes => s.decodes += 1,
                RouteResult::FailsToDecode => s.fails_to_decode += 1,
                RouteResult::NotServed => s.not_served += 1,
                RouteResult::ObjectNotFound => s.object_not_found += 1,
                RouteResult::Warming => s.warming += 1,
                RouteResult::Failed => s.failed += 1,
                RouteResult::Unauthorised => s.unauthorised += 1,
                RouteResult::NotProbed => s.not_probed += 1,
            }
        }
        let identity_ok = self
            .identity
            .as_ref()
            .is_some_and(|i| matches!(i.verdict, "match" | "booting"));
        self.exit_code = if !self.health.reachable || s.unauthorised > 0 {
            2
        } else if s.fails_to_decode > 0 || s.failed > 0 || !identity_ok {
            1
        } else {
            0
        };
        self.summary = s;
        self
    }

    /// The route report of `family`, if probed.
    pub fn route(&self, family: RouteFamily) -> Option<&RouteReport> {
        self.routes.iter().find(|r| r.route == family.as_str())
    }
}

/// Server-controlled text, made safe for a terminal (and for JSON printed to one).
pub(super) fn clean(text: &str) -> String {
    sanitize(text).into_owned()
}

pub(super) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
