//! §15.2 the Activity feed: MASC's MCP observer stream (`POST /mcp` initialize, then
//! `GET /mcp?sse_kind=observer`), its event vocabulary and how MASC's TUI draws each event as a
//! row (glyph, label, detail, Keeper).
//!
//! Every event is a JSON object with `type`; an unknown type is kept and shown by name. A `data:`
//! line that is not a JSON object, or an event missing its required fields (`type`; `name` and
//! `ts_unix` on `keeper_*`; `event_type` and `ts_unix` on `agent_core:*`; `keeper_name` on the
//! waiting signal), is undecodable: counted and shown as such, never dropped silently.

use serde_json::{Map, Value};

pub const MCP_PATH: &str = "/mcp";
pub const OBSERVER_PATH: &str = "/mcp?sse_kind=observer";
/// The protocol version MASC's TUI sends (`2026-07-28` makes MASC answer without a session).
pub const MCP_PROTOCOL_VERSION: &str = "2025-06-18";
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The `initialize` request MASC's TUI sends.
pub fn initialize_body(version: &str) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": MCP_PROTOCOL_VERSION, "capabilities": {},
                   "clientInfo": {"name": "masc-tui", "version": version}},
    })
}

/// What a row says at a glance (MASC's TUI): ▶ call started, ✓ returned, ● turn boundary,
/// ■ turn settled, ✗ failure, ? needs attention, blank a quiet state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyph {
    Call,
    Returned,
    Boundary,
    Settled,
    Failure,
    Attention,
    Quiet,
}

impl Glyph {
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Call => "▶",
            Self::Returned => "✓",
            Self::Boundary => "●",
            Self::Settled => "■",
            Self::Failure => "✗",
            Self::Attention => "?",
            Self::Quiet => " ",
        }
    }
}

/// One event as MASC's TUI draws it. Text is the server's: sanitised where painted.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityRow {
    /// The SSE `id` (replayed events after a reconnect are dropped by it).
    pub id: Option<u64>,
    /// The event's `type`.
    pub kind: String,
    /// `agent_name`/`name`/`keeper_name`, or `server` for snapshots and unknown types.
    pub keeper: String,
    pub glyph: Glyph,
    pub label: String,
    pub detail: String,
    /// Hidden in the `actions` scope, gray in `everything` (heartbeats, signals, snapshots,
    /// stream frames, telemetry).
    pub quiet: bool,
}

/// One `data:` line: a row, or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ObserverEvent {
    Row(ActivityRow),
    Undecodable { id: Option<u64>, reason: String },
}

fn text(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_string)
}

fn num(m: &Map<String, Value>, key: &str) -> Option<f64> {
    m.get(key).and_then(Value::as_f64)
}

fn duration_words(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.1}s", ms / 1000.0)
    } else {
        format!("{}ms", ms.round() as i64)
    }
}

fn is_skill_tool(tool: &str) -> bool {
    tool == "keeper_skill" || tool.starts_with("keeper_compose_")
}

/// Decodes one `data:` line with its SSE `id`.
pub fn decode_event(id: Option<&str>, data: &str) -> ObserverEvent {
    let id = id.and_then(|i| i.trim().parse::<u64>().ok());
    let bad = |reason: &str| ObserverEvent::Undecodable {
        id,
        reason: reason.to_string(),
    };
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(data) else {
        return bad("not a JSON object");
    };
    let Some(kind) = text(&m, "type") else {
        return bad("no type");
    };
    let row = |keeper: String, glyph: Glyph, label: &str, detail: String, quiet: bool| {
        ObserverEvent::Row(ActivityRow {
            id,
            kind: kind.clone(),
            keeper,
            glyph,
            label: label.to_string(),
            detail,
            quiet,
        })
    };
    if let Some(agent_kind) = kind.strip_prefix("agent_core:") {
        let (Some(event_type), Some(_)) = (text(&m, "event_type"), num(&m, "ts_unix")) else {
            return bad("agent_core event without event_type or ts_unix");
        };
        let keeper = text(&m, "agent_name").unwrap_or_else(|| "server".into());
        let tool = text(&m, "tool_name").unwrap_or_default();
        let payload = m.get("payload").and_then(Value::as_object);
        let mut detail = tool.clone();
        if let Some(p) = payload
            && let (Some(i), Some(n)) = (num(p, "batch_index"), num(p, "batch_size"))
            && n > 1.0
        {
            detail.push_str(&format!(" [{}/{}]", i as i64 + 1, n as i64));
        }
        if let Some(task) = text(&m, "task_id") {
            detail.push_str(&format!(" · {task}"));
        }
        let detail = detail.trim().to_string();
        let kind_word = if event_type.is_empty() {
            agent_kind.to_string()
        } else {
            event_type
        };
        return match kind_word.as_str() {
            "tool_called" => {
                let label = if is_skill_tool(&tool) {
                    "skill call"
                } else {
                    "call"
                };
                row(keeper, Glyph::Call, label, detail, false)
            }
            "tool_completed" => {
                let took = payload
                    .and_then(|p| num(p, "duration_ms"))
                    .map(|ms| format!(" · {}", duration_words(ms)))
                    .unwrap_or_default();
                row(
                    keeper,
                    Glyph::Returned,
                    "returned",
                    format!("{detail}{took}"),
                    false,
                )
            }
            "turn_started" => row(keeper, Glyph::Boundary, "turn start", detail, false),
            "turn_ready" => row(keeper, Glyph::Boundary, "turn ready", detail, false),
            "turn_completed" => row(keeper, Glyph::Boundary, "turn end", detail, false),
            "agent_started" => row(keeper, Glyph::Boundary, "agent start", detail, false),
            "agent_completed" => row(keeper, Glyph::Settled, "agent done", detail, false),
            "agent_failed" => row(keeper, Glyph::Failure, "agent failed", detail, false),
            "agent_yielded" => row(keeper, Glyph::Quiet, "yielded", detail, true),
            "tool_approval_completed" => {
                row(keeper, Glyph::Attention, "approval settled", detail, false)
            }
            "telemetry_event" => row(keeper, Glyph::Quiet, "telemetry", detail, true),
            other => row(keeper, Glyph::Attention, other, detail, false),
        };
    }
    if kind.starts_with("keeper_") && kind != "keeper_waiting_inventory_changed" {
        let (Some(name), Some(_)) = (text(&m, "name"), num(&m, "ts_unix")) else {
            return bad("keeper event without name or ts_unix");
        };
        return match kind.as_str() {
            "keeper_heartbeat" => {
                let mut detail = text(&m, "phase").unwrap_or_default();
                if let Some(ms) = num(&m, "in_flight_elapsed_ms") {
                    detail = format!("{detail} in turn for {}", duration_words(ms))
                        .trim()
                        .to_string();
                }
                row(name, Glyph::Quiet, "heartbeat", detail, true)
            }
            "keeper_tool_call" => {
                let tool = text(&m, "tool_name").unwrap_or_default();
                let disposition = text(&m, "disposition").unwrap_or_else(|| "completed".into());
                let label = if is_skill_tool(&tool) {
                    format!("skill · {disposition}")
                } else {
                    disposition.clone()
                };
                let took = num(&m, "duration_ms")
                    .map(|ms| format!(" · {}", duration_words(ms)))
                    .unwrap_or_default();
                let glyph = if disposition == "failed" {
                    Glyph::Failure
                } else {
                    Glyph::Returned
                };
                row(name, glyph, &label, format!("{tool}{took}"), false)
            }
            "keeper_turn_complete" => {
                let n = |k: &str| num(&m, k).map_or(0, |v| v as i64);
                let cost =
                    num(&m, "cost_usd").map_or_else(|| "$?".to_string(), |c| format!("${c:.4}"));
                row(
                    name,
                    Glyph::Settled,
                    "turn settled",
                    format!(
                        "turn {} · in {} out {} · {cost} · {} calls",
                        n("turn"),
                        n("input_tokens"),
                        n("output_tokens"),
                        n("tool_calls_made")
                    ),
                    false,
                )
            }
            "keeper_composite_changed" => row(name, Glyph::Quiet, "composite", String::new(), true),
            "keeper_chat_appended" => row(
                name,
                Glyph::Boundary,
                "chat",
                text(&m, "connector").unwrap_or_default(),
                false,
            ),
            "keeper_chat_operation_event" => {
                let frame = m
                    .get("ag_ui_event")
                    .and_then(|f| f.get("type"))
                    .and_then(Value::as_str)
                    .unwrap_or("frame")
                    .to_string();
                row(name, Glyph::Quiet, "chat stream", frame, true)
            }
            "keeper_turn_observation" => {
                let turn = num(&m, "turn").map_or_else(String::new, |t| format!("turn {t}"));
                row(name, Glyph::Quiet, "call", turn, true)
            }
            other => row(name, Glyph::Attention, other, String::new(), false),
        };
    }
    match kind.as_str() {
        "keeper_waiting_inventory_changed" => match text(&m, "keeper_name") {
            Some(keeper) => row(
                keeper,
                Glyph::Quiet,
                "waiting queue",
                text(&m, "queue_kind").unwrap_or_default(),
                true,
            ),
            None => bad("waiting signal without keeper_name"),
        },
        "fusion_run_status" => {
            let run = m.get("run").and_then(Value::as_object);
            let field = |k: &str| run.and_then(|r| text(r, k)).unwrap_or_default();
            row(
                "server".into(),
                Glyph::Quiet,
                "fusion",
                format!("{} · {}", field("status"), field("run_id")),
                true,
            )
        }
        "execution_snapshot" | "operator_snapshot" | "project_snapshot" => row(
            "server".into(),
            Glyph::Quiet,
            "snapshot",
            kind.clone(),
            true,
        ),
        "gate_mode_changed" | "gate_external_mode_changed" => {
            let detail = format!(
                "{} → {}",
                text(&m, "previous_mode").unwrap_or_else(|| "?".into()),
                text(&m, "mode").unwrap_or_else(|| "?".into())
            );
            row("server".into(), Glyph::Attention, &kind, detail, false)
        }
        other if other.starts_with("approval:") => {
            let keeper = m
                .get("payload")
                .and_then(|p| p.get("keeper_name"))
                .and_then(Value::as_str)
                .unwrap_or("server")
                .to_string();
            let tool = m
                .get("payload")
                .and_then(|p| p.get("tool_name"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            row(keeper, Glyph::Attention, other, tool, false)
        }
        other => row(
            "server".into(),
            Glyph::Attention,
            other,
            String::new(),
            false,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(data: &str) -> ActivityRow {
        match decode_event(Some("7"), data) {
            ObserverEvent::Row(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn s15_2_every_kind_is_drawn_as_masc_s_tui_draws_it() {
        let r = row(
            r#"{"type":"agent_core:tool_called","event_type":"tool_called","ts_unix":1.0,
                "agent_name":"rondo","tool_name":"web_fetch","task_id":"task-9",
                "payload":{"batch_index":1,"batch_size":3}}"#,
        );
        assert_eq!((r.glyph, r.label.as_str()), (Glyph::Call, "call"));
        assert_eq!(r.detail, "web_fetch [2/3] · task-9");
        assert_eq!(r.id, Some(7));
        let r = row(
            r#"{"type":"agent_core:tool_called","event_type":"tool_called","ts_unix":1.0,"agent_name":"rondo","tool_name":"keeper_skill"}"#,
        );
        assert_eq!(r.label, "skill call");
        let r = row(
            r#"{"type":"keeper_turn_complete","name":"mira","ts_unix":1,"turn":4,"input_tokens":120,
                "output_tokens":40,"cost_usd":0.0123,"tool_calls_made":2}"#,
        );
        assert_eq!(
            (r.glyph, r.label.as_str()),
            (Glyph::Settled, "turn settled")
        );
        assert_eq!(r.detail, "turn 4 · in 120 out 40 · $0.0123 · 2 calls");
        let r = row(
            r#"{"type":"keeper_heartbeat","name":"mira","generation":1,"ts_unix":1,"phase":"turn_running","in_flight_elapsed_ms":4200}"#,
        );
        assert!(r.quiet);
        assert_eq!(r.detail, "turn_running in turn for 4.2s");
        let r = row(
            r#"{"type":"keeper_tool_call","name":"rondo","tool_name":"shell","duration_ms":80,"disposition":"failed","ts_unix":1}"#,
        );
        assert_eq!((r.glyph, r.label.as_str()), (Glyph::Failure, "failed"));
        let r = row(r#"{"type":"operator_snapshot"}"#);
        assert_eq!(
            (r.keeper.as_str(), r.label.as_str()),
            ("server", "snapshot")
        );
        let r = row(r#"{"type":"brand_new_kind","x":1}"#);
        assert_eq!(
            (r.glyph, r.label.as_str()),
            (Glyph::Attention, "brand_new_kind")
        );
    }

    #[test]
    fn s15_2_missing_required_fields_and_non_json_are_undecodable() {
        for data in [
            "not json",
            r#"[1,2]"#,
            r#"{"no_type":1}"#,
            r#"{"type":"keeper_heartbeat","ts_unix":1}"#,
            r#"{"type":"keeper_heartbeat","name":"mira"}"#,
            r#"{"type":"agent_core:tool_called","ts_unix":1}"#,
            r#"{"type":"keeper_waiting_inventory_changed","queue_kind":"event_queue"}"#,
        ] {
            assert!(
                matches!(
                    decode_event(Some("3"), data),
                    ObserverEvent::Undecodable { id: Some(3), .. }
                ),
                "{data}"
            );
        }
    }
}
