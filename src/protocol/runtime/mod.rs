//! Runtime catalogue and configuration (protocol.md §9.1–§9.4).

pub mod form;
pub mod probe;
pub mod raw;
pub mod resolved;

pub use probe::*;
pub use raw::*;
pub use resolved::*;

use sha2::{Digest, Sha256};

/// §9: `source_revision` = lowercase hex SHA-256 of `runtime_config_source`, 0x00, the text.
pub fn runtime_source_revision(source_text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"runtime_config_source");
    h.update([0u8]);
    h.update(source_text.as_bytes());
    hex::encode(h.finalize())
}

/// 64 lowercase hex digits (the canonical revision form).
pub fn is_canonical_revision(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
