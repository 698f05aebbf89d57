//! Connectors: status with bindings (protocol.md §7.1) and id → name pages (§7.2).

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_value, present_nullable,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectorStatus {
    Connected,
    Disconnected,
    Offline,
    Stale,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct ChannelBinding {
    pub channel_id: String,
    pub keeper_name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AuditRow {
    #[serde(default)]
    pub timestamp: Option<Value>,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub channel_id: Option<String>,
    #[serde(default)]
    pub keeper_name: Option<String>,
    #[serde(default)]
    pub previous_keeper: Option<String>,
}

/// One connector with its bindings. Also the 200 body of bind and unbind (§7.3, §7.4).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ConnectorRow {
    pub connector_id: String,
    pub display_name: String,
    pub status: ConnectorStatus,
    pub configured_bindings: Vec<ChannelBinding>,
    #[serde(default)]
    pub available: bool,
    #[serde(default)]
    pub connected: bool,
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub gateway_state: Option<Value>,
    #[serde(default)]
    pub poll_state: Option<Value>,
    #[serde(default)]
    pub recent_audit: Option<Vec<AuditRow>>,
}

impl ConnectorRow {
    /// §7.1 valid (status, available, connected) triples.
    pub fn triple_is_valid(&self) -> bool {
        use ConnectorStatus::*;
        matches!(
            (self.status, self.available, self.connected),
            (Connected, true, true)
                | (Offline, false, true)
                | (Disconnected, true, false)
                | (Offline, false, false)
                | (Stale, true, false)
        )
    }

    pub fn binding_of(&self, channel_id: &str) -> Option<&ChannelBinding> {
        self.configured_bindings
            .iter()
            .find(|b| b.channel_id == channel_id)
    }

    /// Decode one row value (with the triple check), errors rooted at `at`.
    pub fn decode_at(value: &Value, at: &str) -> Result<Self, DecodeError> {
        let row: Self = decode_value(value).map_err(|e| e.under(at))?;
        if !row.triple_is_valid() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!("{at}.status"),
                format!(
                    "({:?}, available {}, connected {}) is not a valid status triple",
                    row.status, row.available, row.connected
                ),
            ));
        }
        Ok(row)
    }
}

impl WireDecode for ConnectorRow {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let v: Value = decode_json(bytes)?;
        Self::decode_at(&v, "")
    }
}

/// A decoded row, or a refused one kept visible (one bad row never hides the others).
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectorRowSlot {
    Row(Box<ConnectorRow>),
    Undecodable {
        connector_id: Option<String>,
        error: DecodeError,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorStatusList {
    pub rows: Vec<ConnectorRowSlot>,
    pub total: u64,
    pub active_count: u64,
    pub generated_at: Option<String>,
}

impl ConnectorStatusList {
    pub fn connectors(&self) -> impl Iterator<Item = &ConnectorRow> {
        self.rows.iter().filter_map(|s| match s {
            ConnectorRowSlot::Row(r) => Some(r.as_ref()),
            ConnectorRowSlot::Undecodable { .. } => None,
        })
    }
    pub fn first_refused_row(&self) -> Option<&DecodeError> {
        self.rows.iter().find_map(|s| match s {
            ConnectorRowSlot::Undecodable { error, .. } => Some(error),
            ConnectorRowSlot::Row(_) => None,
        })
    }
}

#[derive(Deserialize)]
struct StatusListWire {
    connectors: Vec<Value>,
    total: u64,
    active_count: u64,
    #[serde(default)]
    generated_at: Option<String>,
}

impl WireDecode for ConnectorStatusList {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: StatusListWire = decode_json(bytes)?;
        // Optional (MASC's own TUI fixtures omit it), but when sent it is a timestamp.
        if w.generated_at
            .as_deref()
            .is_some_and(|g| g.trim().is_empty())
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".generated_at",
                "empty",
            ));
        }
        let rows = w
            .connectors
            .iter()
            .enumerate()
            .map(
                |(i, v)| match ConnectorRow::decode_at(v, &format!(".connectors[{i}]")) {
                    Ok(row) => ConnectorRowSlot::Row(Box::new(row)),
                    Err(error) => ConnectorRowSlot::Undecodable {
                        connector_id: v
                            .get("connector_id")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        error,
                    },
                },
            )
            .collect();
        Ok(Self {
            rows,
            total: w.total,
            active_count: w.active_count,
            generated_at: w.generated_at,
        })
    }
}

// ---- §7.2 names pages ----

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameScope {
    Channel,
    Person,
    Server,
}

/// The request a names page answers (one link of a cursor chain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamesPageRequest {
    pub connector_id: String,
    pub scope: NameScope,
    pub after_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct NameMapping {
    pub id: String,
    pub name: String,
}

/// One page. `after_id` / `next_after_id`: `None` = key absent (older fixtures and servers),
/// `Some(None)` = sent as null.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ConnectorNamesPage {
    pub connector_id: String,
    pub kind: NameScope,
    #[serde(default, deserialize_with = "present_nullable")]
    pub after_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "present_nullable")]
    pub next_after_id: Option<Option<String>>,
    pub has_more: bool,
    pub total: u64,
    #[serde(default)]
    pub limit: Option<u64>,
    pub mappings: Vec<NameMapping>,
    /// Kept as text: MASC writes `unscoped_historical`, older fixtures `workspace`.
    #[serde(default)]
    pub mapping_scope: Option<String>,
    /// Never workspace evidence.
    #[serde(default)]
    pub current_workspace_id: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub offset: Option<u64>,
}

impl ConnectorNamesPage {
    /// The cursor for the next page, `None` when the chain ends (`has_more: false`).
    pub fn next_cursor(&self) -> Option<&str> {
        if self.has_more {
            self.next_after_id.as_ref().and_then(|c| c.as_deref())
        } else {
            None
        }
    }

    /// Decode and check the three echoes and the repeating-cursor rule against the request.
    pub fn decode_for(bytes: &[u8], req: &NamesPageRequest) -> Result<Self, DecodeError> {
        let page = Self::decode(bytes)?;
        if page.connector_id != req.connector_id {
            return Err(echo(
                ".connector_id",
                "connector_id differs from the request",
            ));
        }
        if page.kind != req.scope {
            return Err(echo(".kind", "kind differs from the requested scope"));
        }
        match (&page.after_id, &req.after_id) {
            // An absent echo is tolerated only for a first page (older servers omit it).
            (None, None) => {}
            (None, Some(_)) => {
                return Err(echo(".after_id", "after_id was sent but not echoed"));
            }
            (Some(echoed), sent) if echoed != sent => {
                return Err(echo(".after_id", "after_id differs from the request"));
            }
            (Some(_), _) => {}
        }
        if page.has_more {
            let Some(next) = page.next_cursor() else {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    ".next_after_id",
                    "has_more without a next_after_id",
                ));
            };
            if let Some(sent) = &req.after_id
                && next.as_bytes() <= sent.as_bytes()
            {
                return Err(DecodeError::new(
                    DecodeErrorKind::RepeatingCursor,
                    ".next_after_id",
                    "next_after_id is not past the request's after_id",
                ));
            }
        }
        if let Some(sent) = &req.after_id
            && let Some(pos) = page
                .mappings
                .iter()
                .position(|m| m.id.as_bytes() <= sent.as_bytes())
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!(".mappings[{pos}].id"),
                "an id not past the cursor",
            ));
        }
        Ok(page)
    }
}

fn echo(path: &str, detail: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::EchoMismatch, path, detail)
}

impl WireDecode for ConnectorNamesPage {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let page: Self = decode_json(bytes)?;
        for (i, pair) in page.mappings.windows(2).enumerate() {
            if pair[1].id.as_bytes() <= pair[0].id.as_bytes() {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    format!(".mappings[{}].id", i + 1),
                    "mappings are not sorted by id",
                ));
            }
        }
        if let (Some(Some(next)), Some(last)) = (&page.next_after_id, page.mappings.last())
            && *next != last.id
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".next_after_id",
                "next_after_id is not the id of the page's last row",
            ));
        }
        if page.has_more && page.mappings.is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".has_more",
                "has_more on an empty page",
            ));
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_triple_refuses_that_row_only_s7_1() {
        let body = br#"{"connectors":[
            {"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[]},
            {"connector_id":"slack","display_name":"Slack","status":"connected","available":false,"connected":true,"configured_bindings":[]},
            {"connector_id":"telegram","display_name":"Telegram","status":"stale","available":true}],
            "total":3,"active_count":1}"#;
        let l = ConnectorStatusList::decode(body).unwrap();
        assert_eq!(l.connectors().count(), 1);
        let refused: Vec<_> = l
            .rows
            .iter()
            .filter_map(|s| match s {
                ConnectorRowSlot::Undecodable {
                    connector_id,
                    error,
                } => Some((connector_id.clone(), error.clone())),
                ConnectorRowSlot::Row(_) => None,
            })
            .collect();
        assert_eq!(refused[0].0.as_deref(), Some("slack"));
        assert_eq!(refused[0].1.kind, DecodeErrorKind::InvalidValue);
        assert_eq!(refused[0].1.path, ".connectors[1].status");
        assert_eq!(refused[1].1.kind, DecodeErrorKind::MissingField);
        assert_eq!(refused[1].1.path, ".connectors[2]");
    }

    const PAGE: &str = r#"{"connector_id":"discord","kind":"channel","mapping_scope":"unscoped_historical","current_workspace_id":null,"path":"connector_names/discord/channel","offset":0,"limit":2,"total":3,"after_id":null,"next_after_id":"222","has_more":true,"mappings":[{"id":"111","name":"general"},{"id":"222","name":"ops"}]}"#;

    fn req(after: Option<&str>) -> NamesPageRequest {
        NamesPageRequest {
            connector_id: "discord".into(),
            scope: NameScope::Channel,
            after_id: after.map(str::to_string),
        }
    }

    #[test]
    fn names_page_echoes_s7_2() {
        let p = ConnectorNamesPage::decode_for(PAGE.as_bytes(), &req(None)).unwrap();
        assert_eq!(p.next_cursor(), Some("222"));
        let mut other = req(None);
        other.connector_id = "slack".into();
        assert_eq!(
            ConnectorNamesPage::decode_for(PAGE.as_bytes(), &other)
                .unwrap_err()
                .path,
            ".connector_id"
        );
        let mut other = req(None);
        other.scope = NameScope::Person;
        assert_eq!(
            ConnectorNamesPage::decode_for(PAGE.as_bytes(), &other)
                .unwrap_err()
                .path,
            ".kind"
        );
        let e = ConnectorNamesPage::decode_for(PAGE.as_bytes(), &req(Some("000"))).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::EchoMismatch, ".after_id")
        );
    }

    #[test]
    fn repeating_cursor_fails_the_chain_s7_2() {
        let body = r#"{"connector_id":"discord","kind":"channel","total":1,"after_id":"222","next_after_id":"222","has_more":true,"mappings":[{"id":"222","name":"ops"}]}"#;
        let e = ConnectorNamesPage::decode_for(body.as_bytes(), &req(Some("222"))).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::RepeatingCursor);
    }

    #[test]
    fn chain_stops_on_has_more_false_not_on_null_cursor_s7_2() {
        let body = r#"{"connector_id":"discord","kind":"channel","total":1,"after_id":"222","next_after_id":"333","has_more":false,"mappings":[{"id":"333","name":"x"}]}"#;
        let p = ConnectorNamesPage::decode_for(body.as_bytes(), &req(Some("222"))).unwrap();
        assert_eq!(p.next_cursor(), None);
    }
}
