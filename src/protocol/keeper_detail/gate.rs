//! `GET /api/v1/dashboard/gate` — the workspace Gate mode the chat status line shows as
//! `gate: …` (protocol.md §14.4, C-57; MASC lib/server/server_routes_http_routes_dashboard.ml:1511,
//! object lib/dashboard/dashboard_gate.ml:40, Aug).
//!
//! The envelope is open; masc-tui reads `hitl.gate_mode` {`mode` (`manual` | `auto_judge` |
//! `always_allow`), `configured` (bool), `state` (`ready` | `unavailable` | `invalid`),
//! optional `read_error`}. A state outside the vocabulary fails the read; a mode outside it is
//! kept raw and shown as not loaded (never guessed).

use crate::protocol::decode::{DecodeError, WireDecode, decode_json_object};
use serde::Deserialize;

pub const GATE_PATH: &str = "/api/v1/dashboard/gate";

/// `hitl.gate_mode.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateModeState {
    Ready,
    Unavailable,
    Invalid,
}

/// `hitl.gate_mode`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GateModeStatus {
    pub mode: String,
    pub configured: bool,
    pub state: GateModeState,
    #[serde(default)]
    pub read_error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Hitl {
    pub gate_mode: GateModeStatus,
}

/// The §14.4 dashboard gate body (open).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DashboardGate {
    pub hitl: Hitl,
}

impl WireDecode for DashboardGate {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json_object(bytes)
    }
}

impl DashboardGate {
    /// The status line's words (C-57): `gate: manual`, `gate: Auto Judge`, `gate: allow-all`;
    /// `gate: not loaded` for an invalid state or an unknown mode; an unavailable state keeps
    /// the mode word, marked unavailable.
    pub fn status_words(&self) -> String {
        let g = &self.hitl.gate_mode;
        let word = match g.mode.as_str() {
            "manual" => "manual",
            "auto_judge" => "Auto Judge",
            "always_allow" => "allow-all",
            _ => return "gate: not loaded".to_string(),
        };
        match g.state {
            GateModeState::Ready => format!("gate: {word}"),
            GateModeState::Unavailable => format!("gate: {word} (unavailable)"),
            GateModeState::Invalid => "gate: not loaded".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(mode: &str, state: &str) -> DashboardGate {
        let body = format!(
            r#"{{"hitl":{{"gate_mode":{{"mode":"{mode}","configured":true,"state":"{state}"}},"other":1}},"extra":true}}"#
        );
        DashboardGate::decode(body.as_bytes()).unwrap()
    }

    #[test]
    fn c57_gate_words_per_mode_and_state() {
        assert_eq!(gate("manual", "ready").status_words(), "gate: manual");
        assert_eq!(
            gate("auto_judge", "ready").status_words(),
            "gate: Auto Judge"
        );
        assert_eq!(
            gate("always_allow", "ready").status_words(),
            "gate: allow-all"
        );
        assert_eq!(
            gate("manual", "unavailable").status_words(),
            "gate: manual (unavailable)"
        );
        assert_eq!(gate("manual", "invalid").status_words(), "gate: not loaded");
        assert_eq!(gate("yolo", "ready").status_words(), "gate: not loaded");
        let bad = r#"{"hitl":{"gate_mode":{"mode":"manual","configured":true,"state":"odd"}}}"#;
        assert!(DashboardGate::decode(bad.as_bytes()).is_err());
    }
}
