//! `GET /api/v1/keepers/turns` — who is mid-turn (protocol.md §4.2, newer MASC).

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object};
use serde::Deserialize;

pub const KEEPER_TURNS_SCHEMA: &str = "masc.keeper_turns.v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnLane {
    Autonomous,
    ChatOperation,
    Maintenance,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnPreview {
    #[serde(default)]
    pub status_text: Option<String>,
    #[serde(default)]
    pub text_tail: Option<String>,
    #[serde(default)]
    pub updated_at_unix: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ActiveTurn {
    pub lane: TurnLane,
    pub started_at_unix: f64,
    /// The token that names this turn to §14.13; `None` on a MASC whose census does not write
    /// it (its own clients read such rows): the turn is shown, only an interrupt of it by
    /// token is not possible.
    #[serde(default)]
    pub interrupt_token: Option<String>,
    #[serde(default)]
    pub preview: Option<TurnPreview>,
}

/// One keeper's turn census: known (idle or mid-turn) or unavailable with the reason.
#[derive(Debug, Clone, PartialEq)]
pub enum KeeperTurnState {
    Idle,
    InTurn(ActiveTurn),
    Unavailable { detail: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeeperTurnRow {
    pub keeper_name: String,
    pub chat_control_token: Option<String>,
    pub state: KeeperTurnState,
}

/// The census of every registered keeper, sorted by name as served.
#[derive(Debug, Clone, PartialEq)]
pub struct KeeperTurns {
    pub keepers: Vec<KeeperTurnRow>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RowStatus {
    Ok,
    Unavailable,
}

#[derive(Deserialize)]
struct RowWire {
    keeper_name: String,
    status: RowStatus,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    chat_control_token: Option<String>,
    #[serde(default)]
    turn: Option<ActiveTurn>,
}

#[derive(Deserialize)]
struct TurnsWire {
    schema: String,
    keepers: Vec<RowWire>,
}

impl WireDecode for KeeperTurns {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let wire: TurnsWire = decode_json_object(bytes)?;
        if wire.schema != KEEPER_TURNS_SCHEMA {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownVariant,
                ".schema",
                format!("schema is not {KEEPER_TURNS_SCHEMA}"),
            ));
        }
        let keepers = wire
            .keepers
            .into_iter()
            .enumerate()
            .map(|(i, row)| {
                let state = match (row.status, row.turn) {
                    (RowStatus::Ok, None) => KeeperTurnState::Idle,
                    (RowStatus::Ok, Some(turn)) => KeeperTurnState::InTurn(turn),
                    (RowStatus::Unavailable, _) => KeeperTurnState::Unavailable {
                        detail: row.detail.ok_or_else(|| {
                            DecodeError::new(
                                DecodeErrorKind::MissingField,
                                format!(".keepers[{i}].detail"),
                                "unavailable row without detail",
                            )
                        })?,
                    },
                };
                Ok(KeeperTurnRow {
                    keeper_name: row.keeper_name,
                    chat_control_token: row.chat_control_token,
                    state,
                })
            })
            .collect::<Result<_, DecodeError>>()?;
        Ok(Self { keepers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_decodes_idle_4_2() {
        let body = br#"{"schema":"masc.keeper_turns.v1","keepers":[{"keeper_name":"alpha","status":"ok","chat_control_token":"control-alpha","turn":null},
            {"keeper_name":"beta","status":"ok","turn":{"lane":"chat_operation","started_at_unix":1.0,"interrupt_token":"i","preview":null}},
            {"keeper_name":"gamma","status":"unavailable","detail":"census failed"}]}"#;
        let t = KeeperTurns::decode(body).unwrap();
        assert_eq!(t.keepers[0].state, KeeperTurnState::Idle);
        assert!(
            matches!(&t.keepers[1].state, KeeperTurnState::InTurn(turn) if turn.lane == TurnLane::ChatOperation)
        );
        assert!(matches!(
            &t.keepers[2].state,
            KeeperTurnState::Unavailable { .. }
        ));
    }

    #[test]
    fn unknown_schema_status_or_lane_fail_4_2() {
        let bad_schema = br#"{"schema":"masc.keeper_turns.v2","keepers":[]}"#;
        assert_eq!(
            KeeperTurns::decode(bad_schema).unwrap_err().kind,
            DecodeErrorKind::UnknownVariant
        );
        let bad_status =
            br#"{"schema":"masc.keeper_turns.v1","keepers":[{"keeper_name":"a","status":"busy"}]}"#;
        let e = KeeperTurns::decode(bad_status).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
        assert_eq!(e.path, ".keepers[0].status");
        let bad_lane = br#"{"schema":"masc.keeper_turns.v1","keepers":[{"keeper_name":"a","status":"ok","turn":{"lane":"x","started_at_unix":1,"interrupt_token":"i"}}]}"#;
        assert_eq!(
            KeeperTurns::decode(bad_lane).unwrap_err().path,
            ".keepers[0].turn.lane"
        );
    }
}
