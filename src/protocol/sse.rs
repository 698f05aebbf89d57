//! Server-sent-events framing (the byte level only; event meaning lives in each family).
//!
//! `data:` lines are joined with `\n`; a blank line ends an event; lines starting with `:` are
//! comments; `id:` and `event:` are kept. Incremental: feed bytes as they arrive.

/// One framed event as the server sent it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// Framing failure: the stream is not valid UTF-8 at a line boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseFramingError {
    #[error("line {line} is not valid UTF-8")]
    InvalidUtf8 { line: usize },
}

/// Incremental SSE framer. Bytes in, complete frames out; a partial trailing event stays
/// buffered and is reported by [`SseFramer::finish`] as unterminated.
#[derive(Debug, Default)]
pub struct SseFramer {
    buf: Vec<u8>,
    current: SseFrame,
    has_fields: bool,
    has_data: bool,
    lines_seen: usize,
}

impl SseFramer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed bytes; returns the frames completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseFrame>, SseFramingError> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.lines_seen += 1;
            let text = String::from_utf8(line).map_err(|_| SseFramingError::InvalidUtf8 {
                line: self.lines_seen,
            })?;
            if let Some(frame) = self.take_line(&text) {
                out.push(frame);
            }
        }
        Ok(out)
    }

    fn take_line(&mut self, line: &str) -> Option<SseFrame> {
        if line.is_empty() {
            if self.has_fields {
                self.has_fields = false;
                self.has_data = false;
                return Some(std::mem::take(&mut self.current));
            }
            return None;
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "id" => self.current.id = Some(value.to_string()),
            "event" => self.current.event = Some(value.to_string()),
            _ => {}
        }
        self.has_fields = true;
        None
    }

    /// True when bytes of an unterminated event (or line) remain: the stream was cut mid-event.
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.has_fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_across_pushes() {
        let mut f = SseFramer::new();
        assert!(f.push(b"data: {\"a\"").unwrap().is_empty());
        let frames = f
            .push(b":1}\n\n: comment\nid: 7\ndata: x\ndata: y\n\n")
            .unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].data, "{\"a\":1}");
        assert_eq!(frames[1].data, "x\ny");
        assert_eq!(frames[1].id.as_deref(), Some("7"));
        assert!(!f.has_partial());
        f.push(b"data: cut").unwrap();
        assert!(f.has_partial());
    }

    #[test]
    fn crlf_lines() {
        let mut f = SseFramer::new();
        let frames = f.push(b"data: a\r\n\r\n").unwrap();
        assert_eq!(frames[0].data, "a");
    }
}
