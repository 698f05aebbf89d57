//! `GET /health` (protocol.md §3) and the identity judgement of §2.1.

use serde::Deserialize;

/// The identity-bearing parts of `/health`. Volatile fields (uptime, counters) are not identity.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Health {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    pub paths: HealthPaths,
    #[serde(default)]
    pub startup: Option<Startup>,
    #[serde(default)]
    pub admission: Option<AdmissionAdvert>,
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
