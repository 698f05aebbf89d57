//! `GET /api/v1/dashboard/tools` — the tool inventory (protocol.md §6.1).
//!
//! A cold server cache answers a warming placeholder; it is its own value, never "0 tools".
//!
//! `effective_keeper_surface` and `skill_activations` are newer MASC: the August 2026 releases
//! (`dashboard_tools_http_json` in `lib/server/server_dashboard_http_runtime_info.ml` at MASC
//! d541eb07) send neither key. Their absence is [`SinceRelease::NotInRelease`] — that part is
//! unavailable, the settled inventory is still a settled inventory.

use super::decode::{DecodeError, DecodeErrorKind, SinceRelease, WireDecode, decode_value};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The inventory read: warming (no data yet) or a settled inventory.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolsInventoryRead {
    /// `is_warming: true`: the server has not computed the inventory yet.
    Warming {
        generated_at: Option<String>,
    },
    Settled(Box<ToolsInventory>),
}

/// A settled inventory (no `is_warming` key, or `is_warming: false`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolsInventory {
    pub generated_at: String,
    pub tool_inventory: ToolInventorySection,
    pub tool_usage: Map<String, Value>,
    /// `Sent(None)`: no keeper was asked for. `NotInRelease`: this MASC does not send the key.
    #[serde(default)]
    pub effective_keeper_surface: SinceRelease<Option<KeeperSurface>>,
    /// `Sent(None)`: no ledger was asked for. `NotInRelease`: this MASC does not send the key.
    #[serde(default)]
    pub skill_activations: SinceRelease<Option<SkillActivations>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolInventorySection {
    pub count: u64,
    pub tools: Vec<ToolRow>,
    pub surface_summary: Map<String, Value>,
}

/// One registered tool. Optional fields stay `None` when the server omits them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolRow {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub registered_schema: Option<bool>,
    #[serde(default)]
    pub dispatch_registered: Option<bool>,
    /// Absent or null reads as "not directly callable" (§6.1).
    #[serde(default, deserialize_with = "null_as_false")]
    pub direct_call_allowed: bool,
    #[serde(default)]
    pub surfaces: Option<Vec<String>>,
    #[serde(default)]
    pub doc_refs: Option<Vec<Value>>,
    #[serde(default)]
    pub prompt_hints: Option<Vec<String>>,
}

fn null_as_false<'de, D: serde::Deserializer<'de>>(de: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(de)?.unwrap_or(false))
}

/// A skill reference (`identity` + `content_revision`), shared with §6.2.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkillReference {
    pub identity: SkillIdentity,
    pub content_revision: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkillIdentity {
    pub source_id: String,
    pub package_id: String,
    pub name: String,
}

/// `effective_keeper_surface.status`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum KeeperSurface {
    Warming,
    Unavailable {
        reason: Value,
        #[serde(default)]
        detail: Option<Value>,
    },
    Available(Box<AvailableSurface>),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AvailableSurface {
    #[serde(default)]
    pub keeper_name: Option<String>,
    pub runtime_id: String,
    pub tools: Vec<SurfaceTool>,
    pub instruction_skills: Vec<SkillReference>,
    pub composition_skills: Vec<SkillReference>,
    pub skills_left_out: Vec<Value>,
    #[serde(default)]
    pub tool_delivery: Option<ToolDelivery>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SurfaceTool {
    pub name: String,
    pub origin: ToolOrigin,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolOrigin {
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolDelivery {
    pub status: String,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `skill_activations.status`: a ledger, a stated reason, or another status (no ledger).
#[derive(Debug, Clone, PartialEq)]
pub enum SkillActivations {
    Available {
        ledger: Value,
    },
    Unavailable {
        reason: Value,
        detail: Option<Value>,
    },
    NoLedger {
        status: String,
    },
}

impl<'de> Deserialize<'de> for SkillActivations {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            status: String,
            #[serde(default)]
            ledger: Option<Value>,
            #[serde(default)]
            reason: Option<Value>,
            #[serde(default)]
            detail: Option<Value>,
        }
        let w = Wire::deserialize(de)?;
        match w.status.as_str() {
            "available" => match w.ledger {
                Some(ledger) => Ok(Self::Available { ledger }),
                None => Err(serde::de::Error::missing_field("ledger")),
            },
            "unavailable" => match w.reason {
                Some(reason) => Ok(Self::Unavailable {
                    reason,
                    detail: w.detail,
                }),
                None => Err(serde::de::Error::missing_field("reason")),
            },
            _ => Ok(Self::NoLedger { status: w.status }),
        }
    }
}

impl WireDecode for ToolsInventoryRead {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let value: Value = super::decode::decode_json(bytes)?;
        let Some(obj) = value.as_object() else {
            return Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                ".",
                "tools inventory is not an object",
            ));
        };
        match obj.get("is_warming") {
            None | Some(Value::Bool(false)) => {
                decode_value::<ToolsInventory>(&value).map(|t| Self::Settled(Box::new(t)))
            }
            Some(Value::Bool(true)) => Ok(Self::Warming {
                generated_at: obj
                    .get("generated_at")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }),
            Some(_) => Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                ".is_warming",
                "is_warming is not a bool",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTLED: &[u8] = br#"{"generated_at":"2026-08-23T09:00:00Z","tool_inventory":{"count":1,"surface_summary":{},"tools":[{"name":"masc_board_post","description":"Post to the board","registered_schema":true,
 "dispatch_registered":true,"direct_call_allowed":true,"surfaces":["public_mcp"],"doc_refs":[],"prompt_hints":[]}]},"tool_usage":{},"effective_keeper_surface":null,"skill_activations":null}"#;

    #[test]
    fn settled_inventory_s6_1() {
        let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(SETTLED).unwrap() else {
            panic!("expected settled")
        };
        assert_eq!(inv.tool_inventory.tools.len(), 1);
        assert!(inv.tool_inventory.tools[0].direct_call_allowed);
    }

    #[test]
    fn warming_placeholder_is_not_zero_tools_s6_1() {
        let body = br#"{"generated_at":"x","status":"warming","is_warming":true,"stale_reason":"warming","tool_inventory":{"count":0,"tools":[],"surface_summary":{}},"tool_usage":{}}"#;
        assert!(matches!(
            ToolsInventoryRead::decode(body).unwrap(),
            ToolsInventoryRead::Warming { .. }
        ));
    }

    /// The August 2026 settled shape (MASC d541eb07 `dashboard_tools_http_json`): no
    /// `effective_keeper_surface`, no `skill_activations`. Settled, each part `NotInRelease`.
    #[test]
    fn august_settled_inventory_without_surface_keys_is_settled_issue13_defect3() {
        let body = br#"{"generated_at":"2026-08-23T09:00:00Z","config_resolution":{},"runtime_resolution":{},"tool_inventory":{"count":0,"tools":[],"surface_summary":{}},"tool_usage":{},"keeper_waiting_inventory":{}}"#;
        let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(body).unwrap() else {
            panic!("expected settled")
        };
        assert_eq!(inv.effective_keeper_surface, SinceRelease::NotInRelease);
        assert_eq!(inv.skill_activations, SinceRelease::NotInRelease);
        let with_one = br#"{"generated_at":"x","tool_inventory":{"count":0,"tools":[],"surface_summary":{}},"tool_usage":{},"effective_keeper_surface":null}"#;
        let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(with_one).unwrap() else {
            panic!("expected settled")
        };
        assert_eq!(inv.effective_keeper_surface, SinceRelease::Sent(None));
        assert_eq!(inv.skill_activations, SinceRelease::NotInRelease);
    }

    #[test]
    fn the_inventory_count_stays_required_s6_1() {
        let body = br#"{"generated_at":"x","tool_inventory":{"tools":[],"surface_summary":{}},"tool_usage":{}}"#;
        let e = ToolsInventoryRead::decode(body).unwrap_err();
        assert!(e.detail.contains("count"), "{e}");
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::MissingField, ".tool_inventory")
        );
    }

    #[test]
    fn surface_unavailable_and_activation_other_status() {
        let body = br#"{"generated_at":"x","tool_inventory":{"count":0,"tools":[],"surface_summary":{}},"tool_usage":{},
            "effective_keeper_surface":{"status":"unavailable","reason":"keeper_not_found","detail":"no such keeper"},
            "skill_activations":{"status":"disabled"}}"#;
        let ToolsInventoryRead::Settled(inv) = ToolsInventoryRead::decode(body).unwrap() else {
            panic!("expected settled")
        };
        assert!(matches!(
            inv.effective_keeper_surface,
            SinceRelease::Sent(Some(KeeperSurface::Unavailable { .. }))
        ));
        assert_eq!(
            inv.skill_activations,
            SinceRelease::Sent(Some(SkillActivations::NoLedger {
                status: "disabled".into()
            }))
        );
    }
}
