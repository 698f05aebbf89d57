//! `GET /api/v1/runtime/resolved` (protocol.md §9.1). The catalogue and the usage section
//! decode independently: each is its own `Result` inside the decoded value.
//!
//! Parts MASC added after its August 2026 releases (`provider_id` on a runtime, `declared` on a
//! lane, `media_failover`, the two usage keys) are [`SinceRelease`]: an older server that does
//! not send one makes only that part unavailable (the August encoder is
//! `lib/server/server_dashboard_runtime_resolved_json.ml` at MASC d541eb07).

use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, SinceRelease, WireDecode, decode_object, decode_value,
    required_nullable,
};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResolvedRuntime {
    pub id: String,
    pub provider: String,
    /// Not sent by MASC's August releases (their runtime rows have `provider` only).
    #[serde(default)]
    pub provider_id: SinceRelease<String>,
    pub model: String,
    pub effective_max_context: u64,
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
    pub is_local: bool,
    pub is_default: bool,
    /// `None`: not reported by this server (not "false").
    #[serde(default)]
    pub quota_exhausted: Option<bool>,
    #[serde(default)]
    pub rate_limited: Option<bool>,
    #[serde(default)]
    pub quota_scope: Option<String>,
    #[serde(default)]
    pub quota_resets_at: Option<f64>,
    #[serde(default)]
    pub rate_limit_resets_at: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RuntimeLane {
    pub id: String,
    pub runtime_ids: Vec<String>,
    /// Not sent by MASC's August releases: whether a `[runtime.lanes]` table declares the
    /// lane is then unknown (never "declared", never "implicit").
    #[serde(default)]
    pub declared: SinceRelease<bool>,
    /// The sticky failover preference (MASC of Aug on): the runtime a failover settled on and
    /// when, both null when none holds; absent on a release without it.
    #[serde(default)]
    pub preferred_candidate: Option<String>,
    #[serde(default)]
    pub preferred_at_ts: Option<serde_json::Number>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssignmentSource {
    Explicit,
    Default,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResolvedTarget {
    Lane { id: String },
    Missing,
    Unavailable { id: String, reason: Value },
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeeperRuntimeAssignment {
    pub keeper: String,
    pub assignment_source: AssignmentSource,
    pub resolved: ResolvedTarget,
}

/// The catalogue part of the body.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RuntimeCatalogue {
    pub generated_at_iso: String,
    #[serde(deserialize_with = "required_nullable")]
    pub config_path: Option<String>,
    #[serde(deserialize_with = "required_nullable")]
    pub default_runtime: Option<ResolvedRuntime>,
    pub runtimes: Vec<ResolvedRuntime>,
    pub lanes: Vec<RuntimeLane>,
    pub assignments: Vec<KeeperRuntimeAssignment>,
    /// Not sent by MASC's August releases.
    #[serde(default)]
    pub media_failover: SinceRelease<Vec<String>>,
    /// What the full decoder's validation found (F-3: lane references, duplicate runtimes,
    /// default consistency), computed once at decode; the catalogue is still shown.
    #[serde(skip)]
    pub findings: Vec<CatalogueFinding>,
}

/// A consistency finding of the catalogue (F-3). Real MASC catalogues carry some of these (a
/// `default_runtime` with no row flagged `is_default`), so they are shown beside the
/// catalogue, never a reason to hide it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogueFinding {
    /// Two rows share a runtime id: a join by exact id cannot tell them apart.
    DuplicateRuntime { id: String },
    /// A lane names a runtime the catalogue does not list.
    LaneUnknownRuntime { lane: String, runtime_id: String },
    /// `default_runtime` names a runtime the catalogue does not list.
    DefaultNotListed { id: String },
    /// The rows flagged `is_default` are not exactly the `default_runtime`.
    DefaultFlagMismatch {
        default: Option<String>,
        flagged: Vec<String>,
    },
}

impl std::fmt::Display for CatalogueFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DuplicateRuntime { id } => write!(f, "runtime {id} is listed twice"),
            Self::LaneUnknownRuntime { lane, runtime_id } => {
                write!(f, "lane {lane} names {runtime_id}, which is not listed")
            }
            Self::DefaultNotListed { id } => write!(f, "default runtime {id} is not listed"),
            Self::DefaultFlagMismatch { default, flagged } => write!(
                f,
                "default runtime {} but rows flagged default: {}",
                default.as_deref().unwrap_or("none"),
                if flagged.is_empty() {
                    "none".to_string()
                } else {
                    flagged.join(", ")
                }
            ),
        }
    }
}

impl RuntimeCatalogue {
    /// F-3: the validation the full decoder runs once.
    /// Half a sticky preference (a candidate without its time, or the reverse) is no preference
    /// MASC writes: the lane is refused rather than read as either.
    fn check_lanes(&self) -> Result<(), DecodeError> {
        match self
            .lanes
            .iter()
            .position(|l| l.preferred_candidate.is_some() != l.preferred_at_ts.is_some())
        {
            Some(i) => Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!(".lanes[{i}].preferred_at_ts"),
                "a sticky preference is a candidate and its time together",
            )),
            None => Ok(()),
        }
    }

    pub fn validate(&self) -> Vec<CatalogueFinding> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for r in &self.runtimes {
            if !seen.insert(r.id.as_str()) {
                out.push(CatalogueFinding::DuplicateRuntime { id: r.id.clone() });
            }
        }
        for lane in &self.lanes {
            for id in &lane.runtime_ids {
                if !seen.contains(id.as_str()) {
                    out.push(CatalogueFinding::LaneUnknownRuntime {
                        lane: lane.id.clone(),
                        runtime_id: id.clone(),
                    });
                }
            }
        }
        let default = self.default_runtime.as_ref().map(|d| d.id.clone());
        if let Some(d) = &default
            && !seen.contains(d.as_str())
        {
            out.push(CatalogueFinding::DefaultNotListed { id: d.clone() });
        }
        let flagged: Vec<String> = self
            .runtimes
            .iter()
            .filter(|r| r.is_default)
            .map(|r| r.id.clone())
            .collect();
        let consistent = match &default {
            Some(d) => flagged.is_empty() || flagged == [d.clone()],
            None => flagged.is_empty(),
        };
        if !consistent {
            out.push(CatalogueFinding::DefaultFlagMismatch { default, flagged });
        }
        out
    }

    /// Whether `id` names exactly one row (an exact join is possible).
    pub fn unique(&self, id: &str) -> bool {
        self.runtimes.iter().filter(|r| r.id == id).count() == 1
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct UsageProvider {
    pub id: String,
    pub display_name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UsageWindowKind {
    FiveHour,
    SevenDay,
    DurationMinutes { minutes: u64 },
    ProviderLabel { label: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UtilizationUnit {
    Fraction,
    Percent,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Utilization {
    pub unit: UtilizationUnit,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UsageWindow {
    #[serde(deserialize_with = "required_nullable")]
    pub limit_id: Option<String>,
    pub window: UsageWindowKind,
    pub role: String,
    pub utilization: Utilization,
    #[serde(default)]
    pub resets_at: Option<f64>,
    pub observed_at: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageState {
    Reported,
    NotReportedSinceStart,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UsageAccount {
    pub scope: String,
    pub scope_id: String,
    pub providers: Vec<UsageProvider>,
    pub state: UsageState,
    pub windows: Vec<UsageWindow>,
}

/// The usage part of the body.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProviderUsage {
    pub provider_usage_windows_since: f64,
    pub provider_usage_windows: Vec<UsageAccount>,
}

/// The resolved read: two independently decoded sections. The usage section is
/// `NotInRelease` when neither usage key is sent (MASC's August releases); one key without the
/// other is a decode error of that section.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeResolved {
    pub catalogue: Result<RuntimeCatalogue, DecodeError>,
    pub usage: Result<SinceRelease<ProviderUsage>, DecodeError>,
}

impl RuntimeResolved {
    /// The first section error (for strict callers such as `decode --as`).
    pub fn first_error(&self) -> Option<&DecodeError> {
        self.catalogue.as_ref().err().or(self.usage.as_ref().err())
    }
}

const USAGE_KEYS: &[&str] = &["provider_usage_windows_since", "provider_usage_windows"];

fn decode_usage(part: Map<String, Value>) -> Result<SinceRelease<ProviderUsage>, DecodeError> {
    if part.is_empty() {
        return Ok(SinceRelease::NotInRelease);
    }
    let usage: ProviderUsage = decode_value(&Value::Object(part))?;
    for (i, acct) in usage.provider_usage_windows.iter().enumerate() {
        let ok = match acct.state {
            UsageState::Reported => !acct.windows.is_empty(),
            UsageState::NotReportedSinceStart => acct.windows.is_empty(),
        };
        if !ok {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!(".provider_usage_windows[{i}].windows"),
                "windows disagree with the account state",
            ));
        }
    }
    Ok(SinceRelease::Sent(usage))
}

impl WireDecode for RuntimeResolved {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        let (usage_part, catalogue_part): (Map<String, Value>, Map<String, Value>) = obj
            .into_iter()
            .partition(|(k, _)| USAGE_KEYS.contains(&k.as_str()));
        let catalogue =
            decode_value::<RuntimeCatalogue>(&Value::Object(catalogue_part)).and_then(|mut c| {
                c.check_lanes()?;
                c.findings = c.validate();
                Ok(c)
            });
        Ok(Self {
            catalogue,
            usage: decode_usage(usage_part),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY: &str = r#"{"generated_at_iso":"2026-08-24T10:20:02Z","source":"/api/v1/runtime/resolved","config_path":null,"default_runtime":null,"runtimes":[],"lanes":[],"assignments":[],"media_failover":[],"provider_usage_windows_since":1790179140.2,"provider_usage_windows":[]}"#;

    #[test]
    fn bad_usage_keeps_catalogue_s9_1() {
        let body = EMPTY.replace(
            r#""provider_usage_windows":[]"#,
            r#""provider_usage_windows":"x""#,
        );
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        assert!(r.catalogue.is_ok());
        let e = r.usage.unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::WrongType, ".provider_usage_windows")
        );
    }

    #[test]
    fn bad_catalogue_keeps_usage_s9_1() {
        let body = EMPTY.replace(r#""runtimes":[]"#, r#""runtimes":[{"id":1}]"#);
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        assert!(r.usage.is_ok());
        assert!(r.catalogue.is_err());
    }

    /// The August 2026 shape (MASC d541eb07 encoder): runtime rows without `provider_id` or
    /// quota fields, lanes without `declared`, no `media_failover`, no usage keys. The
    /// catalogue decodes; each missing part is `NotInRelease`, not a default.
    #[test]
    fn august_shape_makes_only_the_missing_parts_unavailable_issue13_defect2() {
        let body = r#"{"generated_at_iso":"2026-08-23T09:00:00Z","source":"/api/v1/runtime/resolved","config_path":"/w/runtime.toml",
            "default_runtime":{"id":"codex.gpt-5","provider":"Codex","model":"gpt-5","effective_max_context":400000,"max_context_source":"capability","max_output_tokens":null,"is_local":false,"is_default":true,"keeper_dispatchable":true,"keeper_dispatch_blocked_reason":null},
            "runtimes":[{"id":"codex.gpt-5","provider":"Codex","model":"gpt-5","effective_max_context":400000,"max_context_source":"capability","max_output_tokens":null,"is_local":false,"is_default":true,"keeper_dispatchable":true,"keeper_dispatch_blocked_reason":null}],
            "lanes":[{"id":"primary","runtime_ids":["codex.gpt-5"],"preferred_candidate":null,"preferred_at_ts":null}],
            "assignments":[{"keeper":"rondo","assignment_source":"default","resolved":{"kind":"lane","id":"primary"}}]}"#;
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        let c = r.catalogue.unwrap();
        assert_eq!(c.runtimes[0].provider_id, SinceRelease::NotInRelease);
        assert_eq!(c.runtimes[0].quota_exhausted, None);
        assert_eq!(c.lanes[0].declared, SinceRelease::NotInRelease);
        assert_eq!(c.media_failover, SinceRelease::NotInRelease);
        assert_eq!(r.usage.unwrap(), SinceRelease::NotInRelease);
    }

    /// F-3: the validation runs once at decode and keeps the catalogue.
    #[test]
    fn f3_findings_are_computed_at_decode_and_keep_the_catalogue() {
        let body = EMPTY
            .replace(
                r#""runtimes":[]"#,
                r#""runtimes":[{"id":"a.x","provider":"A","model":"x","effective_max_context":1,"is_local":false,"is_default":true},{"id":"a.x","provider":"A","model":"x","effective_max_context":1,"is_local":false,"is_default":false}]"#,
            )
            .replace(
                r#""lanes":[]"#,
                r#""lanes":[{"id":"p","runtime_ids":["a.x","b.y"],"declared":true}]"#,
            );
        let c = RuntimeResolved::decode(body.as_bytes())
            .unwrap()
            .catalogue
            .unwrap();
        assert_eq!(c.runtimes.len(), 2);
        assert!(!c.unique("a.x"));
        assert_eq!(
            c.findings,
            vec![
                CatalogueFinding::DuplicateRuntime { id: "a.x".into() },
                CatalogueFinding::LaneUnknownRuntime {
                    lane: "p".into(),
                    runtime_id: "b.y".into()
                },
                CatalogueFinding::DefaultFlagMismatch {
                    default: None,
                    flagged: vec!["a.x".into()]
                },
            ]
        );
    }

    #[test]
    fn one_usage_key_without_the_other_fails_the_usage_section_only() {
        let body = EMPTY.replace(r#","provider_usage_windows":[]"#, "");
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        assert!(r.catalogue.is_ok());
        let e = r.usage.unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
    }

    #[test]
    fn a_present_but_malformed_newer_part_still_fails() {
        let body = EMPTY.replace(r#""media_failover":[]"#, r#""media_failover":"x""#);
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        let e = r.catalogue.unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::WrongType, ".media_failover")
        );
    }

    #[test]
    fn reported_account_needs_a_window_s9_1() {
        let body = EMPTY.replace(
            r#""provider_usage_windows":[]"#,
            r#""provider_usage_windows":[{"scope":"account","scope_id":"a","providers":[],"state":"reported","windows":[]}]"#,
        );
        let r = RuntimeResolved::decode(body.as_bytes()).unwrap();
        assert_eq!(r.usage.unwrap_err().kind, DecodeErrorKind::InvalidValue);
    }
}
