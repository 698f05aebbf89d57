//! Keys and tickets (sources.md G-2, G-6, G-7).
//!
//! A [`SourceKey`] names a supervised source actor (what the supervisor restarts and the
//! registry lists). A [`SlotKey`] names one owned read slot of a surface; each surface defines
//! its own slot type beside its source, so a result for another surface's slot cannot even be
//! expressed. A [`Ticket`] is captured at dispatch and carried back with the result.

use crate::protocol::admission::ReadScope;
use std::fmt;
use std::hash::Hash;

/// The supervision key of one source actor: a stable name, used in traces and the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceKey(pub &'static str);

impl SourceKey {
    /// The workspace actor (`GET /health` cadence); supervised like a source.
    pub const WORKSPACE: SourceKey = SourceKey("workspace");

    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One owned read slot of a surface. Parameterised slots (per task, per post, per chain)
/// carry their object so a result for another object never fits the slot.
pub trait SlotKey: Clone + Eq + Hash + fmt::Debug + Send + Sync + 'static {
    /// The stable name of the slot in traces and the timeline report. Object ids stay out
    /// (G-10), except identifiers that name the slot itself (a Keeper, a connector).
    fn trace_name(&self) -> String;
    /// The source actor that owns this slot: its restart or stop touches this slot.
    fn source(&self) -> SourceKey;
}

/// Captured at dispatch; a result is applied only while this ticket still owns its slot and
/// its scope's epoch is current. Generations are per slot and never reset (G-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ticket<S> {
    pub slot: S,
    pub generation: u64,
    pub scope: ReadScope,
}

impl<S: SlotKey> crate::timeline::stage::StageTicket for Ticket<S> {
    fn stage_source(&self) -> String {
        self.slot.trace_name()
    }
    fn stage_generation(&self) -> u64 {
        self.generation
    }
    fn stage_epoch(&self) -> u64 {
        self.scope.epoch
    }
    fn stage_workspace(&self) -> Option<&str> {
        Some(&self.scope.workspace.0)
    }
}
