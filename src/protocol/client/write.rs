//! Writes at the transport level (§2.4, §11 common part). The client never resends a write:
//! not on a timeout, not on a lost connection, not on 401 (a 401 write is "not applied").

use super::{
    EXPECTED_ROOT_HEADER, TokenState, WorkspaceClient, WriteExchange, describe_transport,
    loggable_target,
};
use crate::protocol::admission::{ReadAuthority, encode_root_header};
use crate::protocol::routes::Method;
use tokio::time::Instant;

impl WorkspaceClient {
    /// A write; classification into §11 outcomes is the save kind's job.
    ///
    /// `NotSent` only when the request provably never left: a malformed target, an authority
    /// without a root, a token that cannot be sent, connection refused or unresolvable host.
    /// `OutcomeUnknown` once the request may have left (timeout, connection lost, incomplete
    /// response body). Otherwise `Responded` with the full body, whatever the status.
    pub async fn post_json(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
        body: &serde_json::Value,
    ) -> WriteExchange {
        let target = loggable_target(path_and_query);
        let builder = match self.prepare_post(auth, path_and_query, body, false).await {
            Ok(builder) => builder,
            Err(reason) => {
                tracing::debug!(method = "POST", route = %target, "write not sent");
                return WriteExchange::NotSent { reason };
            }
        };
        let deadline = Instant::now() + self.inner.config.request_timeout;
        tracing::debug!(method = "POST", route = %target, "request sent");
        let response = match tokio::time::timeout_at(deadline, builder.send()).await {
            Err(_) => {
                return unknown(&target, "timed out waiting for the response".into());
            }
            Ok(Err(err)) => return send_failure(&target, &err),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        tracing::debug!(method = "POST", route = %target, status, "response received");
        match tokio::time::timeout_at(deadline, response.bytes()).await {
            Err(_) => unknown(&target, "timed out reading the response body".into()),
            Ok(Err(err)) => unknown(
                &target,
                format!("incomplete response body: {}", describe_transport(&err)),
            ),
            Ok(Ok(body)) => {
                // Learned, never short-circuited: a write is classified by its save kind.
                self.observe_route(Method::Post, path_and_query, status, &body);
                WriteExchange::Responded { status, body }
            }
        }
    }

    /// Build a POST (JSON body, expected root, token, optional SSE accept). `Err` is the
    /// reason it is not sent.
    pub(crate) async fn prepare_post(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
        body: &serde_json::Value,
        event_stream: bool,
    ) -> Result<reqwest::RequestBuilder, String> {
        if auth.expected_root.is_empty() {
            return Err("read authority has an empty expected root".into());
        }
        let url = self.url(path_and_query).map_err(|e| e.to_string())?;
        let token = self.token().await;
        let payload =
            serde_json::to_vec(body).map_err(|e| format!("body not serialisable: {e}"))?;
        let mut builder = self
            .inner
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(
                EXPECTED_ROOT_HEADER,
                encode_root_header(&auth.expected_root),
            )
            .body(payload);
        match token {
            TokenState::Absent => {}
            TokenState::Usable(value) => {
                builder = builder.header(reqwest::header::AUTHORIZATION, value);
            }
            TokenState::Unusable => return Err("no token: the configured token is unusable".into()),
        }
        if event_stream {
            builder = builder.header(reqwest::header::ACCEPT, "text/event-stream");
        }
        Ok(builder)
    }
}

/// A send error: before the connection existed nothing left (not sent); after, anything may
/// have (unknown).
pub(crate) fn send_failure(target: &str, err: &reqwest::Error) -> WriteExchange {
    let reason = describe_transport(err);
    // A connect error (refused, unresolvable, connect timeout) means no connection carried
    // the request.
    if err.is_builder() || err.is_connect() {
        tracing::debug!(method = "POST", route = %target, "write not sent");
        WriteExchange::NotSent { reason }
    } else {
        unknown(target, reason)
    }
}

fn unknown(target: &str, reason: String) -> WriteExchange {
    tracing::debug!(method = "POST", route = %target, "write outcome unknown");
    WriteExchange::OutcomeUnknown { reason }
}
