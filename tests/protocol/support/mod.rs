//! Shared helpers of the client integration tests.
#![allow(dead_code)]
// Test scaffolding: a failed bind or poisoned lock should abort the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
pub mod mock;

use masc_tui::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::protocol::decode::{DecodeError, WireDecode, decode_json};
use serde::Deserialize;
use std::time::Duration;

/// The root the mock "serves" in most tests; has a space and non-ASCII bytes so the §2.2
/// header encoding is exercised on every request.
pub const ROOT: &str = "/srv/작업 공간/.masc";
pub const OTHER_ROOT: &str = "/srv/other/.masc";

pub fn authority(root: &str, mode: AdmissionMode) -> ReadAuthority {
    ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(root.to_string()),
            epoch: 1,
        },
        expected_root: root.to_string(),
        mode,
    }
}

pub fn receipt_authority() -> ReadAuthority {
    authority(ROOT, AdmissionMode::Receipt)
}

pub fn config(base_url: &str) -> ClientConfig {
    let mut config = ClientConfig::new(base_url);
    // Generous enough for a loaded CI box, short enough for stall tests.
    config.request_timeout = Duration::from_secs(5);
    config.sse_idle_timeout = Duration::from_secs(5);
    config
}

pub fn client(base_url: &str) -> WorkspaceClient {
    WorkspaceClient::new(config(base_url)).unwrap()
}

pub fn client_with(base_url: &str, edit: impl FnOnce(&mut ClientConfig)) -> WorkspaceClient {
    let mut config = config(base_url);
    edit(&mut config);
    WorkspaceClient::new(config).unwrap()
}

pub fn fixed_token(token: &str) -> TokenSource {
    TokenSource::Fixed(token.to_string())
}

/// A closed test payload: `{"n": <u32>, "rows": [{"n": <u32>}]?}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    pub n: u32,
    #[serde(default)]
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub n: u32,
}

impl WireDecode for Doc {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

/// `events` (one JSON text each) as an SSE body: one `data:` frame per event.
pub fn sse(events: &[String]) -> Vec<u8> {
    events
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect::<String>()
        .into_bytes()
}
