//! One raw GET for diagnostics (`masc-tui doctor`): sent like a workspace read (expected root,
//! token, 401 rule), but nothing is admitted, decoded, cached or learned — the caller judges
//! the answer.

use super::{ClientError, ReadRequest, TokenState, WorkspaceClient, read_body};
use reqwest::header::HeaderMap;
use std::time::Duration;
use tokio::time::Instant;

/// A complete answer to a probe.
#[derive(Debug, Clone)]
pub struct ProbeResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: bytes::Bytes,
    /// Request sent → body read.
    pub elapsed: Duration,
}

/// How a probe presents itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeCredentials {
    /// The client's token, with the 401 rule (§1.3): a 401 or 403 is `ClientError::Unauthorized`.
    Token,
    /// No `Authorization` header at all; every status comes back as an answer.
    Anonymous,
}

impl WorkspaceClient {
    /// `GET target` with `X-MASC-Expected-Root` (when given) and `If-None-Match` (when given).
    pub async fn probe_get(
        &self,
        target: &str,
        expected_root: Option<&str>,
        if_none_match: Option<&str>,
        credentials: ProbeCredentials,
    ) -> Result<ProbeResponse, ClientError> {
        let request = ReadRequest {
            target,
            expected_root,
            if_none_match: if_none_match.map(str::to_string),
            event_stream: false,
            hold: None,
        };
        let started = Instant::now();
        let (response, deadline) = match credentials {
            ProbeCredentials::Token => self.send_read(&request).await?,
            ProbeCredentials::Anonymous => {
                let url = self.url(target)?;
                self.send_read_once(&url, &request, &TokenState::Absent, 1)
                    .await?
            }
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = read_body(response, deadline).await?;
        Ok(ProbeResponse {
            status,
            headers,
            body,
            elapsed: started.elapsed(),
        })
    }
}
