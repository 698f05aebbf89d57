//! What an injected fault (§13) sends instead of the real answer: a dropped connection, the
//! plan's status and body, a body cut mid-response, a malformed body, wrong echo fields or a
//! repeated cursor, and an SSE stream cut after `n` events.

use crate::server::conn::ConnKill;
use crate::server::faults::FiredFaults;
use crate::server::http::{EchoFields, NextCursor};
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use serde_json::Value;

/// What the `{"malformed":true}` fault sends instead of the body: not JSON.
pub(super) const MALFORMED_BODY: &[u8] = b"{\"malformed\": tru";

/// Close the connection with no response. With the per-connection kill switch the connection
/// task drops the socket; otherwise a body that errors at once makes hyper abort.
pub(super) async fn drop_connection(kill: Option<ConnKill>) -> Response {
    match kill {
        Some(k) => {
            k.0.cancel();
            std::future::pending::<Response>().await
        }
        None => {
            let stream = futures::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("fault: connection dropped"))
            });
            Response::new(Body::from_stream(stream))
        }
    }
}

pub(super) fn injected_status(status: u16, body: Option<Value>) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match body {
        None => code.into_response(),
        Some(Value::String(s)) => {
            let ct = if serde_json::from_str::<Value>(&s).is_ok() {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            };
            let mut r = (code, s).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
            r
        }
        Some(v) => (code, axum::Json(v)).into_response(),
    }
}

/// Send `head`, then fail the body so hyper closes the connection mid-response.
pub(super) fn truncated_body(head: Bytes) -> Body {
    let stream = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(head);
        // Let hyper flush the head and the first bytes before the body fails; an error in the
        // same poll would abort before anything reached the socket.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        yield Err(std::io::Error::other("fault: body truncated"));
    };
    Body::from_stream(stream)
}

pub(super) fn rewrite_json(
    bytes: &[u8],
    faults: &FiredFaults,
    echo: Option<EchoFields>,
    cursor: Option<NextCursor>,
) -> Option<Bytes> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    let obj = value.as_object_mut()?;
    if faults.echo_wrong {
        for field in echo.map(|e| e.0).unwrap_or_default() {
            if let Some(v) = obj.get_mut(field) {
                *v = wrong_echo(v);
            }
        }
    }
    if faults.repeat_cursor
        && let Some(NextCursor {
            field,
            request: Some(req),
        }) = cursor
    {
        obj.insert(field.to_string(), req);
        if obj.contains_key("has_more") {
            obj.insert("has_more".into(), Value::Bool(true));
        }
    }
    serde_json::to_vec(&value).ok().map(Bytes::from)
}

/// The altered value an echo-wrong fault sends.
pub fn wrong_echo(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(format!("{s}-wrong-echo")),
        Value::Number(n) => n
            .as_f64()
            .and_then(|f| serde_json::Number::from_f64(f + 1.0))
            .map(Value::Number)
            .unwrap_or(Value::String("wrong-echo".into())),
        _ => Value::String("wrong-echo".into()),
    }
}

/// Pass SSE chunks through until `n` events (blank-line terminators) went out, then end.
pub(super) fn cut_sse(resp: Response, n: usize) -> Response {
    let (parts, body) = resp.into_parts();
    let mut upstream = body.into_data_stream();
    let stream = async_stream::stream! {
        let mut sent = 0usize;
        let mut prev_newline = false;
        if n == 0 {
            return;
        }
        while let Some(chunk) = upstream.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    yield Err(std::io::Error::other(e.to_string()));
                    return;
                }
            };
            let mut cut_at = None;
            for (i, b) in chunk.iter().enumerate() {
                if *b == b'\n' {
                    if prev_newline {
                        sent += 1;
                        prev_newline = false;
                        if sent >= n {
                            cut_at = Some(i + 1);
                            break;
                        }
                        continue;
                    }
                    prev_newline = true;
                } else if *b != b'\r' {
                    prev_newline = false;
                }
            }
            match cut_at {
                Some(end) => {
                    yield Ok::<Bytes, std::io::Error>(chunk.slice(..end));
                    tracing::info!(target: "masc_tui::server::fault", events = sent, "sse stream cut");
                    return;
                }
                None => yield Ok(chunk),
            }
        }
    };
    Response::from_parts(parts, Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_echo_changes_every_kind() {
        assert_eq!(wrong_echo(&json!("t-1")), json!("t-1-wrong-echo"));
        assert_eq!(wrong_echo(&json!(null)), json!("wrong-echo"));
        assert_ne!(wrong_echo(&json!(3)), json!(3));
    }
}
