//! The body of a read: read whole within the request's deadline, decoded on the blocking pool
//! so the caller's task never runs a JSON decode (G-8), and traced as the one event per HTTP
//! read the timeline report counts ([`REQUEST_TARGET`](super::REQUEST_TARGET)).

use super::{ClientError, read_transport_error};
use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::protocol::routes::{Method, RouteFamily};
use tokio::time::Instant;

/// The whole body of a plain response, bounded by the request deadline.
pub(crate) async fn read_body(
    response: reqwest::Response,
    deadline: Instant,
) -> Result<bytes::Bytes, ClientError> {
    tokio::time::timeout_at(deadline, response.bytes())
        .await
        .map_err(|_| ClientError::Timeout)?
        .map_err(|e| read_transport_error(&e))
}

/// How long one decode took: `wait` from handing the body to the pool until the value was
/// back on the caller (pool wait, decode and return: the `decode_wait` of G-8), `run` the
/// decoder alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeTiming {
    pub wait: std::time::Duration,
    pub run: std::time::Duration,
}

/// Decode a body with the caller's decoder on the blocking pool, so the caller's task never
/// runs a JSON decode or a projection (G-8). Returns the result and its [`DecodeTiming`].
pub(crate) async fn decode_off_caller_with<T, F>(
    body: bytes::Bytes,
    decode: F,
) -> (Result<T, ClientError>, DecodeTiming)
where
    T: Send + 'static,
    F: FnOnce(&[u8]) -> Result<T, DecodeError> + Send + 'static,
{
    let handed = std::time::Instant::now();
    let joined = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let result = decode(&body);
        (result, started.elapsed())
    })
    .await;
    let wait = handed.elapsed();
    match joined {
        Ok((result, run)) => (
            result.map_err(ClientError::Decode),
            DecodeTiming { wait, run },
        ),
        Err(join) => (
            Err(ClientError::Decode(DecodeError::new(
                DecodeErrorKind::Other("decode_task_failed"),
                ".",
                if join.is_panic() {
                    "decoder panicked"
                } else {
                    "decoder cancelled"
                },
            ))),
            DecodeTiming {
                wait,
                run: std::time::Duration::ZERO,
            },
        ),
    }
}

/// The one event per HTTP read (target [`REQUEST_TARGET`]): which route family, what came
/// back and, for a decoded body, how long the decode took including the pool wait.
pub(crate) fn note_request(
    target: &str,
    status: u16,
    bytes: usize,
    conditional: bool,
    decoded: Option<DecodeTiming>,
) {
    let route = RouteFamily::of_target(Method::Get, target).map_or("unlisted", |f| f.as_str());
    let micros = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    match decoded {
        Some(t) => tracing::info!(
            target: "masc_tui::request",
            route,
            status,
            bytes = bytes as u64,
            conditional,
            decode_wait_us = micros(t.wait),
            decode_us = micros(t.run),
            "read"
        ),
        None => tracing::info!(
            target: "masc_tui::request",
            route,
            status,
            bytes = bytes as u64,
            conditional,
            "read"
        ),
    }
}
