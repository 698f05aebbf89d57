//! SSE streams (§1.5, §4.3 framing, §10.3): `post_sse` for the chat send, `get_sse` for the
//! ask follow-up (an admitted workspace read, receipt checked on its 200).

use super::read::{check_receipt, failure_for_status, is_warming_body};
use super::write::send_failure;
use super::{
    ClientError, ReadRequest, WorkspaceClient, WriteExchange, describe_transport, loggable_target,
    read_body,
};
use crate::protocol::admission::{AdmissionMode, ReadAuthority};
use crate::protocol::routes::Method;
use crate::protocol::sse::{SseFrame, SseFramer, SseFramingError};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::Instant;

/// How a stream ended. Reported exactly once, after the last frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEnd {
    /// The server closed the stream at an event boundary.
    Completed,
    /// The stream stopped (EOF or transport error) with part of an event buffered.
    CutMidEvent,
    /// No byte arrived within the idle limit (§1.5); the connection is dropped.
    IdleTimeout,
    /// The transport failed at an event boundary.
    Transport(String),
    /// A line was not UTF-8; the stream is abandoned there.
    InvalidUtf8 { line: usize },
}

impl SseEnd {
    /// Stable snake_case class for traces.
    pub fn class(&self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::CutMidEvent => "cut_mid_event",
            Self::IdleTimeout => "idle_timeout",
            Self::Transport(_) => "transport",
            Self::InvalidUtf8 { .. } => "invalid_utf8",
        }
    }
}

/// Why `post_sse` produced no stream, in write terms (§11).
#[derive(Debug, Clone, PartialEq)]
pub enum SseOpenFailure {
    /// Provably never left the machine.
    NotSent { reason: String },
    /// May have left; no response head came back.
    OutcomeUnknown { reason: String },
    /// A complete non-2xx answer before any stream (e.g. 400/401/403/404: "not applied").
    Responded { status: u16, body: Bytes },
    /// A 2xx that is not `text/event-stream`: the request was taken but its outcome cannot
    /// be read from this answer.
    NotEventStream {
        status: u16,
        content_type: Option<String>,
    },
}

impl SseOpenFailure {
    /// The same failure as a plain write exchange; a non-stream 2xx is "outcome unknown".
    pub fn into_write_exchange(self) -> WriteExchange {
        match self {
            Self::NotSent { reason } => WriteExchange::NotSent { reason },
            Self::OutcomeUnknown { reason } => WriteExchange::OutcomeUnknown { reason },
            Self::Responded { status, body } => WriteExchange::Responded { status, body },
            Self::NotEventStream { status, .. } => WriteExchange::OutcomeUnknown {
                reason: format!("HTTP {status} is not an event stream"),
            },
        }
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// An open event stream. `next()` yields frames, then exactly one `Err(SseEnd)` (including
/// `SseEnd::Completed`), then `None`.
pub struct SseStream {
    body: ByteStream,
    framer: SseFramer,
    ready: VecDeque<SseFrame>,
    idle_limit: Duration,
    end: Option<SseEnd>,
    finished: bool,
    mode: Option<AdmissionMode>,
    target: String,
}

impl std::fmt::Debug for SseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseStream")
            .field("target", &self.target)
            .field("buffered_frames", &self.ready.len())
            .field("finished", &self.finished)
            .finish()
    }
}

impl SseStream {
    pub(super) fn new(
        response: reqwest::Response,
        idle_limit: Duration,
        mode: Option<AdmissionMode>,
        target: String,
    ) -> Self {
        Self {
            body: Box::pin(response.bytes_stream()),
            framer: SseFramer::new(),
            ready: VecDeque::new(),
            idle_limit,
            end: None,
            finished: false,
            mode,
            target,
        }
    }

    /// The admission mode of a `get_sse` stream; `None` for a write stream (no receipts).
    pub fn admission_mode(&self) -> Option<AdmissionMode> {
        self.mode
    }

    /// The next frame, or the end of the stream (once), then `None`.
    pub async fn next(&mut self) -> Option<Result<SseFrame, SseEnd>> {
        loop {
            if let Some(frame) = self.ready.pop_front() {
                return Some(Ok(frame));
            }
            if let Some(end) = self.end.take() {
                self.finished = true;
                // Release the connection now rather than when the stream is dropped.
                self.body = Box::pin(futures::stream::empty());
                tracing::debug!(route = %self.target, end = end.class(), "stream ended");
                return Some(Err(end));
            }
            if self.finished {
                return None;
            }
            self.end = match tokio::time::timeout(self.idle_limit, self.body.next()).await {
                Err(_) => Some(SseEnd::IdleTimeout),
                Ok(None) => Some(if self.framer.has_partial() {
                    SseEnd::CutMidEvent
                } else {
                    SseEnd::Completed
                }),
                Ok(Some(Err(err))) => Some(if self.framer.has_partial() {
                    SseEnd::CutMidEvent
                } else {
                    SseEnd::Transport(describe_transport(&err))
                }),
                Ok(Some(Ok(bytes))) => match self.framer.push(&bytes) {
                    Ok(frames) => {
                        self.ready.extend(frames);
                        None
                    }
                    Err(SseFramingError::InvalidUtf8 { line }) => {
                        Some(SseEnd::InvalidUtf8 { line })
                    }
                },
            };
        }
    }
}

fn is_event_stream(headers: &reqwest::header::HeaderMap) -> Result<(), Option<String>> {
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    match &content_type {
        Some(ct)
            if ct
                .split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/event-stream")) =>
        {
            Ok(())
        }
        _ => Err(content_type),
    }
}

impl WorkspaceClient {
    /// A write answered by an event stream (§4.3). Never retried (§11), also not on 401.
    pub async fn post_sse(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
        body: &serde_json::Value,
    ) -> Result<SseStream, SseOpenFailure> {
        let target = loggable_target(path_and_query);
        let builder = self
            .prepare_post(auth, path_and_query, body, true)
            .await
            .map_err(|reason| SseOpenFailure::NotSent { reason })?;
        let deadline = Instant::now() + self.inner.config.request_timeout;
        tracing::debug!(method = "POST", route = %target, stream = true, "request sent");
        let response = match tokio::time::timeout_at(deadline, builder.send()).await {
            Err(_) => {
                return Err(SseOpenFailure::OutcomeUnknown {
                    reason: "timed out waiting for the response".into(),
                });
            }
            Ok(Err(err)) => {
                return Err(match send_failure(&target, &err) {
                    WriteExchange::NotSent { reason } => SseOpenFailure::NotSent { reason },
                    WriteExchange::OutcomeUnknown { reason } => {
                        SseOpenFailure::OutcomeUnknown { reason }
                    }
                    WriteExchange::Responded { status, body } => {
                        SseOpenFailure::Responded { status, body }
                    }
                });
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        tracing::debug!(method = "POST", route = %target, status, "response received");
        if !response.status().is_success() {
            return Err(match read_body(response, deadline).await {
                Ok(body) => {
                    // Learned, never short-circuited: a write is classified by its save kind.
                    self.observe_route(Method::Post, path_and_query, status, &body);
                    SseOpenFailure::Responded { status, body }
                }
                Err(err) => SseOpenFailure::OutcomeUnknown {
                    reason: format!("incomplete response body: {err}"),
                },
            });
        }
        self.observe_route(Method::Post, path_and_query, status, &[]);
        if let Err(content_type) = is_event_stream(response.headers()) {
            return Err(SseOpenFailure::NotEventStream {
                status,
                content_type,
            });
        }
        Ok(SseStream::new(
            response,
            self.inner.config.sse_idle_timeout,
            None,
            target,
        ))
    }

    /// An admitted workspace read answered by an event stream (§10.3): expected root sent,
    /// receipt checked on the 200 exactly as for `get`, 401 rule applied.
    pub async fn get_sse(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
    ) -> Result<SseStream, ClientError> {
        self.check_authority(auth)?;
        if let Some(route) = self.known_not_served(Method::Get, path_and_query) {
            return Err(ClientError::NotServed { route });
        }
        let target = loggable_target(path_and_query);
        let request = ReadRequest {
            target: path_and_query,
            expected_root: Some(&auth.expected_root),
            if_none_match: None,
            event_stream: true,
            hold: None,
        };
        let (response, deadline) = self.send_read(&request).await?;
        let status = response.status();
        if !status.is_success() {
            let body = read_body(response, deadline).await?;
            if let Some(route) =
                self.observe_route(Method::Get, path_and_query, status.as_u16(), &body)
            {
                return Err(ClientError::NotServed { route });
            }
            return Err(failure_for_status(status.as_u16(), &body));
        }
        self.observe_route(Method::Get, path_and_query, status.as_u16(), &[]);
        check_receipt(auth, response.headers())?;
        if let Err(content_type) = is_event_stream(response.headers()) {
            let body = read_body(response, deadline).await?;
            if is_warming_body(&body) {
                return Err(ClientError::Warming);
            }
            return Err(ClientError::NotEventStream { content_type });
        }
        tracing::debug!(route = %target, mode = auth.mode.as_str(), "stream admitted");
        Ok(SseStream::new(
            response,
            self.inner.config.sse_idle_timeout,
            Some(auth.mode),
            target,
        ))
    }
}
