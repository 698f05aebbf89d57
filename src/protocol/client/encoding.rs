//! Percent-encoding of path segments and query values (§1.2), plus the log-safe form of a
//! request target (G-10: no query values in diagnostics).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but the RFC 3986 unreserved set (`A-Z a-z 0-9 - . _ ~`) is encoded.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One path segment (a keeper name, an id), percent-encoded UTF-8. `/` is encoded too, so a
/// name can never address another route.
pub fn path_segment(segment: &str) -> String {
    utf8_percent_encode(segment, COMPONENT).to_string()
}

/// A query string builder: `QueryString::new().pair("task_id", id).pair("limit", "20")`
/// renders `?task_id=...&limit=20` with keys and values percent-encoded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryString {
    rendered: String,
}

impl QueryString {
    pub fn new() -> Self {
        Self::default()
    }

    /// Append `key=value`.
    pub fn pair(mut self, key: &str, value: &str) -> Self {
        self.rendered
            .push(if self.rendered.is_empty() { '?' } else { '&' });
        self.rendered
            .push_str(&utf8_percent_encode(key, COMPONENT).to_string());
        self.rendered.push('=');
        self.rendered
            .push_str(&utf8_percent_encode(value, COMPONENT).to_string());
        self
    }

    /// Append `key=value` only when a value is given.
    pub fn pair_opt(self, key: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.pair(key, v),
            None => self,
        }
    }

    /// `?k=v&...`, or the empty string when no pair was added.
    pub fn as_str(&self) -> &str {
        &self.rendered
    }

    /// `path` followed by this query.
    pub fn append_to(&self, path: &str) -> String {
        format!("{path}{}", self.rendered)
    }
}

/// The request target with every query value removed: `/a/b?x=1&y=2` → `/a/b?x=&y=`.
/// Query values may carry ids, cursors or text; diagnostics keep only the route shape.
pub fn loggable_target(path_and_query: &str) -> String {
    match path_and_query.split_once('?') {
        None => path_and_query.to_string(),
        Some((path, query)) => {
            let keys: Vec<&str> = query
                .split('&')
                .map(|pair| pair.split_once('=').map_or(pair, |(k, _)| k))
                .collect();
            format!("{path}?{}=", keys.join("=&"))
        }
    }
}

/// At most `max` bytes of `body` as text, cut back to a character start (invalid bytes become
/// U+FFFD). Used for diagnostic excerpts of error bodies.
pub fn cut_body(body: &[u8], max: usize) -> String {
    let mut end = body.len().min(max);
    // Step back out of a UTF-8 continuation run so a character is never split.
    while end > 0 && end < body.len() && (body[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    String::from_utf8_lossy(&body[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_queries_are_encoded() {
        assert_eq!(path_segment("a b/c"), "a%20b%2Fc");
        assert_eq!(path_segment("키퍼"), "%ED%82%A4%ED%8D%BC");
        assert_eq!(path_segment("alpha-1_x.y~"), "alpha-1_x.y~");
        let q = QueryString::new()
            .pair("task_id", "t 1&x=2")
            .pair_opt("before", None)
            .pair("limit", "5");
        assert_eq!(q.as_str(), "?task_id=t%201%26x%3D2&limit=5");
        assert_eq!(QueryString::new().append_to("/p"), "/p");
    }

    #[test]
    fn log_target_drops_query_values() {
        assert_eq!(loggable_target("/a"), "/a");
        assert_eq!(
            loggable_target("/a?task_id=secret&limit=5"),
            "/a?task_id=&limit="
        );
        assert_eq!(loggable_target("/a?flag"), "/a?flag=");
    }

    #[test]
    fn body_cut_is_bounded() {
        let body = "é".repeat(2000);
        let cut = cut_body(body.as_bytes(), 2048);
        assert_eq!(cut.len(), 2048);
        assert!(cut.chars().all(|c| c == 'é'));
        let cut = cut_body("aé".as_bytes(), 2);
        assert_eq!(cut, "a");
    }
}
