//! The workspace identity as the workspace actor judges it (protocol.md §2.1), and why a
//! demand was made (G-3).

use crate::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityState {
    /// No `/health` answer yet, or it could not be read.
    Unconfirmed { reason: String },
    /// `startup.state_ready: false`: only `/health` is polled.
    Booting,
    /// Served base differs from the expected one.
    Mismatch { expected: String, served: String },
    /// A read epoch is open.
    Confirmed {
        scope: ReadScope,
        base_path: String,
        mode: AdmissionMode,
    },
}

impl IdentityState {
    /// The read authority of a confirmed epoch.
    pub fn authority(&self) -> Option<ReadAuthority> {
        match self {
            Self::Confirmed { scope, mode, .. } => Some(ReadAuthority {
                scope: scope.clone(),
                expected_root: scope.workspace.0.clone(),
                mode: *mode,
            }),
            _ => None,
        }
    }
}

/// Why a demand was made (G-3: cadence shares the in-flight read; explicit supersedes or
/// coalesces per source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemandKind {
    Cadence,
    Explicit,
}
