//! Who may talk to the embedded server at all (docs/security.md): the request must
//! be addressed to this server (`Host`), a browser page of another origin gets nothing, and a
//! state-changing request must be JSON. Checked first, for every request, in every mode
//! (`--no-auth` and `--test-mode` included), before faults, counting, auth or any handler.
//!
//! - `Host` (or the authority of an absolute-form target) must name the loopback address the
//!   server listens on, `localhost`, or a name given with `--allow-host`, with the port it
//!   listens on (no port = 80). Anything else is 421: a DNS-rebinding page reaches the socket
//!   under its own name and is turned away before any route, public ones included.
//! - `Origin`, when present, must be `http://` + one of those authorities; any other value,
//!   `null` included, is 403 `same_origin_blocked` (§1.3 code). Clients that are not browsers
//!   send no `Origin`.
//! - A request whose method is not GET, HEAD or OPTIONS must carry
//!   `Content-Type: application/json` (parameters such as `charset` allowed), else 415. HTML
//!   forms and "simple" cross-origin requests cannot send that type without a CORS preflight,
//!   and the preflight carries the foreign `Origin`.

use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::net::{IpAddr, SocketAddr};

/// The allow-list of one listening server.
#[derive(Debug, Clone)]
pub struct OriginPolicy {
    port: u16,
    /// Lower-case host names (IPv6 literals bracketed) this server answers to.
    hosts: Vec<String>,
}

/// Why a request was turned away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No usable `Host`, or one naming another server (421).
    Host,
    /// `Origin` of another site, or `null` (403 `same_origin_blocked`).
    Origin,
    /// A state-changing request that is not `application/json` (415).
    ContentType,
}

impl Refusal {
    pub fn response(&self) -> Response {
        let (status, body) = match self {
            Self::Host => (
                StatusCode::MISDIRECTED_REQUEST,
                json!({"error": "host_not_allowed: this server answers only its own loopback address"}),
            ),
            Self::Origin => (
                StatusCode::FORBIDDEN,
                json!({"error": "cross-origin request refused", "auth_error_code": "same_origin_blocked"}),
            ),
            Self::ContentType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                json!({"error": "unsupported_media_type: state-changing requests must be application/json"}),
            ),
        };
        (status, axum::Json(body)).into_response()
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::Origin => "origin",
            Self::ContentType => "content_type",
        }
    }
}

fn host_literal(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

impl OriginPolicy {
    /// The listening address, `localhost`, and the extra names (`--allow-host`).
    pub fn new(addr: SocketAddr, extra_hosts: &[String]) -> Self {
        let mut hosts = vec![host_literal(addr.ip()), "localhost".to_string()];
        for name in extra_hosts {
            let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
            if !name.is_empty() && !hosts.contains(&name) {
                hosts.push(name);
            }
        }
        Self {
            port: addr.port(),
            hosts,
        }
    }

    /// Whether `authority` (`host[:port]`) names this server.
    pub fn allows_authority(&self, authority: &str) -> bool {
        let authority = authority.trim().to_ascii_lowercase();
        let (host, port) = match split_authority(&authority) {
            Some(parts) => parts,
            None => return false,
        };
        let port = match port {
            None => 80,
            Some(p) => match p.parse::<u16>() {
                Ok(p) => p,
                Err(_) => return false,
            },
        };
        port == self.port && self.hosts.iter().any(|h| h == host.trim_end_matches('.'))
    }

    fn allows_origin(&self, origin: &str) -> bool {
        let lower = origin.trim().to_ascii_lowercase();
        match lower.strip_prefix("http://") {
            Some(rest) => !rest.contains('/') && self.allows_authority(rest),
            None => false,
        }
    }

    /// The checks of this module, in order: Host, Origin, content type.
    pub fn check(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let authority = match uri.authority() {
            Some(a) => Some(a.as_str().to_string()),
            None => headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
        };
        if headers.get_all(header::HOST).iter().count() > 1 {
            return Err(Refusal::Host);
        }
        match authority {
            Some(a) if self.allows_authority(&a) => {}
            _ => return Err(Refusal::Host),
        }
        for origin in headers.get_all(header::ORIGIN) {
            match origin.to_str() {
                Ok(o) if self.allows_origin(o) => {}
                _ => return Err(Refusal::Origin),
            }
        }
        if !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
            && !is_json_content_type(headers)
        {
            return Err(Refusal::ContentType);
        }
        Ok(())
    }
}

/// `host` and the optional port of `host[:port]` / `[v6][:port]`; `None` when malformed.
fn split_authority(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.contains('@') || authority.is_empty() {
        return None;
    }
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let host = &authority[..=end];
        let rest = &authority[end + 1..];
        return match rest {
            "" => Some((host, None)),
            _ => rest.strip_prefix(':').map(|p| (host, Some(p))),
        };
    }
    match authority.split_once(':') {
        Some((host, port)) if !port.contains(':') => Some((host, Some(port))),
        Some(_) => None,
        None => Some((authority, None)),
    }
}

/// Exactly one `Content-Type` whose media type is `application/json`.
fn is_json_content_type(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use std::net::Ipv4Addr;

    fn policy() -> OriginPolicy {
        OriginPolicy::new(
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8935),
            &["Masc.Internal".into()],
        )
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn check(method: Method, pairs: &[(&'static str, &str)]) -> Result<(), Refusal> {
        policy().check(&method, &Uri::from_static("/health"), &headers(pairs))
    }

    #[test]
    fn host_must_name_this_server() {
        for ok in [
            "127.0.0.1:8935",
            "localhost:8935",
            "LOCALHOST:8935",
            "masc.internal:8935",
        ] {
            assert_eq!(check(Method::GET, &[("host", ok)]), Ok(()), "{ok}");
        }
        for bad in [
            "evil.example:8935",
            "127.0.0.1:8936",
            "127.0.0.1",
            "127.0.0.2:8935",
            "127.0.0.1:8935:1",
            "user@127.0.0.1:8935",
            "[::1]:8935",
            "",
        ] {
            assert_eq!(
                check(Method::GET, &[("host", bad)]),
                Err(Refusal::Host),
                "{bad}"
            );
        }
        assert_eq!(check(Method::GET, &[]), Err(Refusal::Host), "no Host");
        assert_eq!(
            check(
                Method::GET,
                &[("host", "127.0.0.1:8935"), ("host", "evil.example")]
            ),
            Err(Refusal::Host)
        );
        let v6 = OriginPolicy::new("[::1]:80".parse().unwrap(), &[]);
        assert!(v6.allows_authority("[::1]"));
        assert!(v6.allows_authority("[::1]:80"));
        assert!(!v6.allows_authority("::1"));
    }

    #[test]
    fn foreign_origin_is_refused_on_every_method() {
        let host = ("host", "127.0.0.1:8935");
        for origin in [
            "http://evil.example",
            "null",
            "https://127.0.0.1:8935",
            "http://127.0.0.1:8935/x",
        ] {
            assert_eq!(
                check(Method::GET, &[host, ("origin", origin)]),
                Err(Refusal::Origin),
                "{origin}"
            );
        }
        let json = ("content-type", "application/json");
        assert_eq!(
            check(
                Method::POST,
                &[host, json, ("origin", "http://localhost:8935")]
            ),
            Ok(())
        );
    }

    #[test]
    fn writes_must_be_json() {
        let host = ("host", "127.0.0.1:8935");
        for ct in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
        ] {
            assert_eq!(check(Method::POST, &[host, ("content-type", ct)]), Ok(()));
        }
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
        ] {
            assert_eq!(
                check(Method::POST, &[host, ("content-type", ct)]),
                Err(Refusal::ContentType),
                "{ct}"
            );
        }
        assert_eq!(check(Method::POST, &[host]), Err(Refusal::ContentType));
        assert_eq!(check(Method::DELETE, &[host]), Err(Refusal::ContentType));
        assert_eq!(check(Method::GET, &[host]), Ok(()), "reads need no type");
    }
}
