//! Read authority: which workspace a read belongs to (protocol.md §2, sources.md G-2, G-6, G-9).

use std::fmt;

/// The workspace a read is scoped to: the served `effective_masc_root` of the epoch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WorkspaceId(pub String);

impl fmt::Display for WorkspaceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The read authority captured at dispatch: workspace and read epoch. The epoch advances when
/// identity is withdrawn or confirmed anew; it is never reset (G-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadScope {
    pub workspace: WorkspaceId,
    pub epoch: u64,
}

/// How responses of an epoch are admitted (§2.2 receipt mode, §2.3 health mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdmissionMode {
    /// Every 2xx/304 must carry exactly one matching `X-MASC-Workspace-Receipt`.
    Receipt,
    /// The server advertises no receipts; admitted on the epoch alone, flagged on every result.
    Health,
}

impl AdmissionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Receipt => "receipt",
            Self::Health => "health",
        }
    }
}

/// Everything a worker needs to make an admitted read: the scope it was dispatched under, the
/// expected root header value and the admission mode of the epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadAuthority {
    pub scope: ReadScope,
    pub expected_root: String,
    pub mode: AdmissionMode,
}

/// Percent-encode a root for the `X-MASC-Expected-Root` / `X-MASC-Workspace-Receipt` headers:
/// every byte outside 0x21..=0x7E, and `%` itself, as `%XX` uppercase (§2.2 point 5).
pub fn encode_root_header(root: &str) -> String {
    let mut out = String::with_capacity(root.len());
    for b in root.bytes() {
        if (0x21..=0x7E).contains(&b) && b != b'%' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decode a root header value. `None` when the escapes are malformed or the bytes are not UTF-8.
pub fn decode_root_header(value: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let b = value[i];
        if b == b'%' {
            let hex = value.get(i + 1..i + 3)?;
            let s = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(s, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_header_round_trips() {
        for root in ["/home/op/demo/.masc", "/tmp/작업 공간/.masc", "/a%b/c"] {
            let enc = encode_root_header(root);
            assert!(enc.bytes().all(|b| (0x21..=0x7E).contains(&b)));
            assert_eq!(decode_root_header(enc.as_bytes()).as_deref(), Some(root));
        }
        assert_eq!(encode_root_header("a b%"), "a%20b%25");
        assert_eq!(decode_root_header(b"%G1"), None);
        assert_eq!(decode_root_header(b"%4"), None);
    }
}
