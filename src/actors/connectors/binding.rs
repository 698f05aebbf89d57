//! Connector binding saves (protocol.md §7.3 bind, §7.4 unbind; §11 "Connector bind/unbind";
//! sources.md D-7, D-10…D-14): two save kinds over one intent — which connector, which
//! channel, which Keeper. Bind is an upsert, unbind is conditional on the Keeper (newer MASC:
//! removed only while the binding still names it; 409 `binding changed` otherwise). Neither
//! is resent: an outcome unknown keeps its inputs for the operator.
//!
//! A settled binding write (applied, unchanged or unknown) asks the Connectors source for a
//! status that reflects it — the write demand of D-10…D-13, sent by the view as
//! `ConnectorsCommand::BindingWritten`.

use super::{ConnectorsObservation, ConnectorsSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::{QueryString, WorkspaceClient};
use crate::protocol::outcome::{
    ConnectorBindOutcome, ConnectorBindingRequest, ConnectorUnbindOutcome, classify_connector_bind,
    classify_connector_unbind, classify_exchange,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub const BIND_PATH: &str = "/api/v1/gate/connector/bind";
pub const UNBIND_PATH: &str = "/api/v1/gate/connector/unbind";

/// One binding write as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingIntent {
    pub connector_id: String,
    pub channel_id: String,
    pub keeper_name: String,
}

impl BindingIntent {
    pub fn request(&self) -> ConnectorBindingRequest {
        ConnectorBindingRequest {
            connector_id: self.connector_id.clone(),
            channel_id: self.channel_id.clone(),
            keeper_name: self.keeper_name.clone(),
        }
    }

    /// One write per (connector, channel) in flight at a time, whichever Keeper or kind.
    fn key(&self) -> String {
        format!("{}/{}", self.connector_id, self.channel_id)
    }

    fn path(&self, base: &str) -> String {
        QueryString::new()
            .pair("name", &self.connector_id)
            .append_to(base)
    }

    fn body(&self) -> serde_json::Value {
        serde_json::json!({"channel_id": self.channel_id, "keeper_name": self.keeper_name})
    }
}

/// `POST /api/v1/gate/connector/bind?name=` (§7.3).
#[derive(Debug)]
pub struct ConnectorBind;

/// `POST /api/v1/gate/connector/unbind?name=` (§7.4).
#[derive(Debug)]
pub struct ConnectorUnbind;

impl SaveKind for ConnectorBind {
    const KIND: &'static str = "connector_bind";
    type Slot = ConnectorsSlot;
    type Payload = ConnectorsObservation;
    type Intent = BindingIntent;
    type Receipt = ConnectorBindOutcome;

    fn slot(save_id: &SaveId, _intent: &BindingIntent) -> ConnectorsSlot {
        ConnectorsSlot::BindWrite(save_id.clone())
    }

    fn intent_key(intent: &BindingIntent) -> String {
        intent.key()
    }

    fn target(intent: &BindingIntent) -> String {
        intent.key()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: BindingIntent,
    ) -> BoxFuture<'static, ConnectorBindOutcome> {
        Box::pin(async move {
            let exchange = client
                .post_json(&auth, &intent.path(BIND_PATH), &intent.body())
                .await;
            classify_exchange(&exchange, &intent.request(), classify_connector_bind)
        })
    }

    fn payload(event: SaveEvent<Self>) -> ConnectorsObservation {
        ConnectorsObservation::Bind(Box::new(event))
    }
}

impl SaveKind for ConnectorUnbind {
    const KIND: &'static str = "connector_unbind";
    type Slot = ConnectorsSlot;
    type Payload = ConnectorsObservation;
    type Intent = BindingIntent;
    type Receipt = ConnectorUnbindOutcome;

    fn slot(save_id: &SaveId, _intent: &BindingIntent) -> ConnectorsSlot {
        ConnectorsSlot::UnbindWrite(save_id.clone())
    }

    fn intent_key(intent: &BindingIntent) -> String {
        intent.key()
    }

    fn target(intent: &BindingIntent) -> String {
        intent.key()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: BindingIntent,
    ) -> BoxFuture<'static, ConnectorUnbindOutcome> {
        Box::pin(async move {
            let exchange = client
                .post_json(&auth, &intent.path(UNBIND_PATH), &intent.body())
                .await;
            classify_exchange(&exchange, &intent.request(), classify_connector_unbind)
        })
    }

    fn payload(event: SaveEvent<Self>) -> ConnectorsObservation {
        ConnectorsObservation::Unbind(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connector_goes_in_the_query_and_the_rest_in_the_body_s7_3() {
        let i = BindingIntent {
            connector_id: "discord".into(),
            channel_id: "333".into(),
            keeper_name: "하늘".into(),
        };
        assert_eq!(
            i.path(BIND_PATH),
            "/api/v1/gate/connector/bind?name=discord"
        );
        assert_eq!(
            i.body(),
            serde_json::json!({"channel_id": "333", "keeper_name": "하늘"})
        );
        assert_eq!(
            ConnectorBind::intent_key(&i),
            ConnectorUnbind::intent_key(&i)
        );
    }
}
