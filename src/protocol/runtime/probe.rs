//! `GET /api/v1/dashboard/runtime-probe[?force=1]` (newer MASC; not in protocol.md — documented
//! in docs/protocol-extensions.md): provider reachability per configured runtime, from a server
//! cache that the route never waits on (MASC `server_dashboard_http_runtime_info.ml`,
//! `dashboard_runtime_probe_http_json`).
//!
//! The envelope says how fresh the probe is (`refresh_state`): a TTL-fresh cache hit, a
//! `force=1` hit inside the rate-limit window (`recent`), a stale value served while a refresh
//! was scheduled (`served_stale`), or the placeholder of a cold start (`warming_up`). Rows join
//! the catalogue by exact `runtime_id` (sources.md F-7).

use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, SinceRelease, WireDecode, decode_object, decode_value,
    required_nullable,
};
use serde::Deserialize;
use serde_json::Value;

/// How fresh the served probe is (the Runtime surface's badge: fresh / recent / stale /
/// warming). A closed set, as MASC's serializer is: a value outside it is a decode error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeFreshness {
    /// A TTL-fresh cache hit; no refresh triggered.
    Fresh,
    /// `force=1` inside the server's force rate-limit window: the recent value, no new probe.
    Recent,
    /// The cache was stale: the stale value is served and a refresh was scheduled.
    ServedStale,
    /// Cold start: a placeholder; a refresh was scheduled. Not "no providers".
    WarmingUp,
}

impl ProbeFreshness {
    /// The badge word (surfaces.md "Runtime").
    pub fn badge(self) -> &'static str {
        match self {
            Self::Fresh => "fresh",
            Self::Recent => "recent",
            Self::ServedStale => "stale",
            Self::WarmingUp => "warming",
        }
    }
}

/// One runtime's reachability row.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProviderProbe {
    pub runtime_id: String,
    #[serde(default)]
    pub provider_id: Option<String>,
    /// `reachable`, `skipped_cli`, `network_error`, `missing_auth`, `http_error`, … (kept as
    /// text: MASC grows this list).
    pub status: String,
    /// `None`: not probed (a CLI runtime), never "unreachable".
    #[serde(deserialize_with = "required_nullable")]
    pub reachable: Option<bool>,
    #[serde(default)]
    pub http_status: Option<u16>,
    #[serde(default)]
    pub latency_ms: Option<f64>,
    #[serde(default)]
    pub error: Option<String>,
}

/// The probe body (`probe` of the envelope).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProbeBody {
    /// `reachable`, `degraded`, `unreachable`, `no_http_runtimes`, `warming_up`.
    pub status: String,
    pub probe_ok: bool,
    #[serde(default)]
    pub checked_at: Option<String>,
    pub providers: Vec<ProviderProbe>,
    #[serde(default)]
    pub errors: Vec<String>,
}

/// The decoded probe read.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeProbe {
    /// `NotInRelease`: an older MASC answered the bare probe body, without the cache envelope.
    pub freshness: SinceRelease<ProbeFreshness>,
    /// Age of the served value when answered, in seconds (`None`: a warming placeholder).
    pub cache_age_sec: Option<f64>,
    pub body: ProbeBody,
}

impl RuntimeProbe {
    /// The row of exactly `runtime_id` (F-7: never a prefix, a provider or a model match).
    pub fn row(&self, runtime_id: &str) -> Option<&ProviderProbe> {
        self.body
            .providers
            .iter()
            .find(|p| p.runtime_id == runtime_id)
    }

    /// The badge word, or `None` when this server does not say.
    pub fn badge(&self) -> Option<&'static str> {
        self.freshness.sent().map(|f| f.badge())
    }
}

#[derive(Deserialize)]
struct EnvelopeWire {
    refresh_state: ProbeFreshness,
    #[serde(default)]
    cache_age_sec: Option<f64>,
    probe: Value,
}

/// MASC writes `reachable: true` exactly for the status `reachable` (a 2xx answer,
/// `dashboard_runtime_status_of_http_status`); any other pairing is a row it never wrote.
fn check_rows(body: &ProbeBody) -> Result<(), DecodeError> {
    match body
        .providers
        .iter()
        .position(|p| (p.reachable == Some(true)) != (p.status == "reachable"))
    {
        Some(i) => Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            format!(".probe.providers[{i}].reachable"),
            "reachable exactly when the status is reachable",
        )),
        None => Ok(()),
    }
}

impl WireDecode for RuntimeProbe {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        if obj.contains_key("probe") {
            let env: EnvelopeWire = decode_value(&Value::Object(obj))?;
            let body = decode_value::<ProbeBody>(&env.probe).map_err(|e| e.under(".probe"))?;
            check_rows(&body)?;
            Ok(Self {
                freshness: SinceRelease::Sent(env.refresh_state),
                cache_age_sec: env.cache_age_sec,
                body,
            })
        } else {
            let body: ProbeBody = decode_value(&Value::Object(obj))?;
            check_rows(&body).map_err(|e| DecodeError {
                path: e.path.replacen(".probe", "", 1),
                ..e
            })?;
            Ok(Self {
                freshness: SinceRelease::NotInRelease,
                cache_age_sec: None,
                body,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode::DecodeErrorKind;

    const ENVELOPE: &str = r#"{"generated_at":"2026-11-20T09:00:00Z","refreshed_at_unix":1795165200.0,
        "cache_ttl_sec":30.0,"cache_age_sec":2.5,"cache_hit":true,"refresh_state":"fresh",
        "probe":{"source":"runtime.toml","status":"degraded","probe_ok":false,"checked_at":"2026-11-20T09:00:00Z",
        "summary":{"runtimes":2,"probed":1,"reachable":1,"failed":0,"skipped":1,"default_runtime_id":null},
        "providers":[{"runtime_id":"a.b","provider_id":"a","status":"reachable","reachable":true,"http_status":200,"latency_ms":12.0,"error":null},
                     {"runtime_id":"a.b-cli","provider_id":"a","status":"skipped_cli","reachable":null,"error":"CLI"}],
        "errors":[]}}"#;

    #[test]
    fn envelope_decodes_with_its_freshness_f7() {
        let p = RuntimeProbe::decode(ENVELOPE.as_bytes()).unwrap();
        assert_eq!(p.freshness, SinceRelease::Sent(ProbeFreshness::Fresh));
        assert_eq!(p.badge(), Some("fresh"));
        assert_eq!(p.row("a.b").and_then(|r| r.reachable), Some(true));
        // Not probed is not unreachable.
        assert_eq!(p.row("a.b-cli").map(|r| r.reachable), Some(None));
        // Exact join only: a prefix of an id is no row.
        assert!(p.row("a").is_none());
    }

    #[test]
    fn served_stale_reads_as_the_stale_badge_and_an_unknown_state_fails() {
        let stale = ENVELOPE.replace(
            r#""refresh_state":"fresh""#,
            r#""refresh_state":"served_stale""#,
        );
        assert_eq!(
            RuntimeProbe::decode(stale.as_bytes()).unwrap().badge(),
            Some("stale")
        );
        let odd = ENVELOPE.replace(r#""refresh_state":"fresh""#, r#""refresh_state":"soon""#);
        assert_eq!(
            RuntimeProbe::decode(odd.as_bytes()).unwrap_err().kind,
            DecodeErrorKind::UnknownVariant
        );
    }

    #[test]
    fn a_bare_probe_body_has_no_freshness_and_a_bad_row_names_its_path() {
        let bare = r#"{"status":"reachable","probe_ok":true,"providers":[]}"#;
        let p = RuntimeProbe::decode(bare.as_bytes()).unwrap();
        assert_eq!(p.freshness, SinceRelease::NotInRelease);
        let bad = ENVELOPE.replace(r#""runtime_id":"a.b","#, "");
        let e = RuntimeProbe::decode(bad.as_bytes()).unwrap_err();
        assert!(e.path.starts_with(".probe.providers[0]"), "{}", e.path);
    }
}
