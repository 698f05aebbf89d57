//! Admitted workspace JSON reads (§2.2, §2.3, §2.5, G-9).

use super::cache::{CacheKey, CachedValue};
use super::{
    Admitted, ClientError, ERROR_BODY_LIMIT, RECEIPT_HEADER, ReadRequest, WorkspaceClient,
    cut_body, decode_off_caller_with, loggable_target, note_request, read_body,
};
use crate::protocol::admission::{AdmissionMode, ReadAuthority, decode_root_header};
use crate::protocol::decode::{DecodeError, WireDecode};
use crate::protocol::routes::Method;
use reqwest::header::HeaderMap;
use std::sync::Arc;

/// Warming bodies are tiny; anything larger is never probed for the warming shape.
const WARMING_PROBE_LIMIT: usize = 4096;

impl WorkspaceClient {
    /// An admitted workspace JSON read (G-9): sends `X-MASC-Expected-Root`, checks the receipt
    /// per the epoch's mode, serves 304 from the cache keyed by (expected root, target), and
    /// decodes 200 afresh. Every failure is typed; a failed read never writes the cache.
    pub async fn get<T: WireDecode + Send + Sync + 'static>(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
    ) -> Result<Admitted<T>, ClientError> {
        self.get_with(auth, path_and_query, |body: &[u8]| T::decode(body))
            .await
    }

    /// [`get`](Self::get) with the decoder given by the caller, for echo-checked decoders that
    /// need the request's values at decode time (e.g. `TaskHistoryPage::decode_for`). The
    /// decoder runs once, on a 200 only (off the caller for large bodies, G-8); an admitted 304
    /// re-admits the value the same target decoded before.
    pub async fn get_with<T, F>(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
        decode: F,
    ) -> Result<Admitted<T>, ClientError>
    where
        T: Send + Sync + 'static,
        F: FnOnce(&[u8]) -> Result<T, DecodeError> + Send + 'static,
    {
        let result = self.get_inner(auth, path_and_query, decode).await;
        let target = loggable_target(path_and_query);
        match &result {
            Ok(admitted) => tracing::debug!(
                route = %target,
                mode = admitted.mode.as_str(),
                cache_hit = admitted.from_cache,
                "read admitted"
            ),
            Err(err) => tracing::debug!(
                route = %target,
                mode = auth.mode.as_str(),
                class = %err.class(),
                "read failed"
            ),
        }
        result
    }

    async fn get_inner<T, F>(
        &self,
        auth: &ReadAuthority,
        path_and_query: &str,
        decode: F,
    ) -> Result<Admitted<T>, ClientError>
    where
        T: Send + Sync + 'static,
        F: FnOnce(&[u8]) -> Result<T, DecodeError> + Send + 'static,
    {
        self.check_authority(auth)?;
        if let Some(route) = self.known_not_served(Method::Get, path_and_query) {
            return Err(ClientError::NotServed { route });
        }
        let key = CacheKey {
            root: auth.expected_root.clone(),
            target: path_and_query.to_string(),
        };
        let request = ReadRequest {
            target: path_and_query,
            expected_root: Some(&auth.expected_root),
            if_none_match: self.inner.cache.tag_for::<T>(&key),
            event_stream: false,
            hold: None,
        };
        let conditional = request.if_none_match.is_some();
        let (response, deadline) = self.send_read(&request).await?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_MODIFIED {
            note_request(path_and_query, status.as_u16(), 0, conditional, None);
            self.observe_route(Method::Get, path_and_query, status.as_u16(), &[]);
            check_receipt(auth, response.headers())?;
            let value = self
                .inner
                .cache
                .revalidated(&key)
                .and_then(|cached| cached.downcast::<T>().ok())
                .ok_or(ClientError::NotModifiedWithoutEntry)?;
            return Ok(Admitted {
                value,
                mode: auth.mode,
                from_cache: true,
            });
        }
        if status.is_success() {
            self.observe_route(Method::Get, path_and_query, status.as_u16(), &[]);
            // Admission before anything else: an unadmitted body is neither probed, decoded
            // nor cached, and the stored entry stays as it was (§2.2).
            check_receipt(auth, response.headers())?;
            let etag = response
                .headers()
                .get(reqwest::header::ETAG)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body = read_body(response, deadline).await?;
            let bytes = body.len();
            // The warming probe is a decode too: it runs on the pool with the decoder (G-8).
            let (decoded, timing) = decode_off_caller_with(body, move |body| {
                if is_warming_body(body) {
                    return Ok(None);
                }
                decode(body).map(Some)
            })
            .await;
            note_request(
                path_and_query,
                status.as_u16(),
                bytes,
                conditional,
                Some(timing),
            );
            let value = Arc::new(decoded?.ok_or(ClientError::Warming)?);
            let cached: CachedValue = value.clone();
            self.inner.cache.store(key, etag, cached);
            return Ok(Admitted {
                value,
                mode: auth.mode,
                from_cache: false,
            });
        }
        let body = read_body(response, deadline).await?;
        note_request(
            path_and_query,
            status.as_u16(),
            body.len(),
            conditional,
            None,
        );
        if let Some(route) = self.observe_route(Method::Get, path_and_query, status.as_u16(), &body)
        {
            return Err(ClientError::NotServed { route });
        }
        Err(failure_for_status(status.as_u16(), &body))
    }

    /// Refusals that need no request: strict mode against a health-mode epoch (§2.3) and an
    /// authority without a root.
    pub(crate) fn check_authority(&self, auth: &ReadAuthority) -> Result<(), ClientError> {
        if auth.expected_root.is_empty() {
            return Err(ClientError::InvalidRequest(
                "read authority has an empty expected root".into(),
            ));
        }
        if auth.mode == AdmissionMode::Health && self.inner.config.strict_receipts {
            return Err(ClientError::HealthModeRefused);
        }
        Ok(())
    }
}

/// The receipt rule of §2.2/§2.3 for a 2xx or 304. Receipt mode: exactly one receipt equal
/// (decoded, byte for byte) to the expected root. Health mode: none is fine, but a present
/// receipt must be single and match.
pub(crate) fn check_receipt(auth: &ReadAuthority, headers: &HeaderMap) -> Result<(), ClientError> {
    let mut receipts = headers.get_all(RECEIPT_HEADER).iter();
    let first = receipts.next();
    if receipts.next().is_some() {
        return Err(ClientError::ReceiptDuplicated);
    }
    match first {
        None => match auth.mode {
            AdmissionMode::Receipt => Err(ClientError::ReceiptMissing),
            AdmissionMode::Health => Ok(()),
        },
        Some(value) => match decode_root_header(value.as_bytes()) {
            Some(root) if root.as_bytes() == auth.expected_root.as_bytes() => Ok(()),
            Some(root) => Err(ClientError::ReceiptMismatch {
                expected: auth.expected_root.clone(),
                got: root,
            }),
            None => Err(ClientError::ReceiptMismatch {
                expected: auth.expected_root.clone(),
                got: String::from_utf8_lossy(value.as_bytes()).into_owned(),
            }),
        },
    }
}

/// The warming shapes of §1.4: `{"status":"initializing",...}` or `{"error":"not initialized"}`.
pub(crate) fn is_warming_body(body: &[u8]) -> bool {
    if body.len() > WARMING_PROBE_LIMIT {
        return false;
    }
    // Both shapes name one of these words; a body without either (and without an escape
    // that could spell one) is not parsed at all.
    let mentions = |word: &[u8]| body.windows(word.len()).any(|w| w == word);
    if !body.contains(&b'\\') && !mentions(b"initializing") && !mentions(b"not initialized") {
        return false;
    }
    let Ok(object) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(body)
    else {
        return false;
    };
    object.get("status").and_then(|v| v.as_str()) == Some("initializing")
        || object.get("error").and_then(|v| v.as_str()) == Some("not initialized")
}

/// A non-2xx, non-304 read answer (401/403 are handled before this).
pub(crate) fn failure_for_status(status: u16, body: &[u8]) -> ClientError {
    #[derive(serde::Deserialize)]
    struct MismatchBody {
        error: String,
        expected_root: String,
        served_root: String,
    }
    if status == 409
        && let Ok(m) = serde_json::from_slice::<MismatchBody>(body)
        && m.error == "workspace_mismatch"
    {
        return ClientError::WorkspaceMismatch {
            expected: m.expected_root,
            served: m.served_root,
        };
    }
    // Warming is defined by its body (§1.4), never by the status alone: a plain 503 (a proxy,
    // an overloaded server) is a failed read, not a server still starting.
    if is_warming_body(body) {
        return ClientError::Warming;
    }
    ClientError::Status {
        status,
        body: cut_body(body, ERROR_BODY_LIMIT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_503_is_warming_only_with_the_warming_body() {
        let warming = failure_for_status(503, br#"{"error":"not initialized"}"#);
        assert!(matches!(warming, ClientError::Warming));
        let dashboard = failure_for_status(503, br#"{"status":"initializing","message":"x"}"#);
        assert!(matches!(dashboard, ClientError::Warming));
        for body in [&b""[..], b"Service Unavailable", br#"{"error":"down"}"#] {
            let failed = failure_for_status(503, body);
            assert!(
                matches!(failed, ClientError::Status { status: 503, .. }),
                "{:?} → {failed:?}",
                String::from_utf8_lossy(body)
            );
            assert_ne!(failed.class(), super::super::ErrorClass::Warming);
        }
    }
}
