//! Keeper sources. The roster (`GET /api/v1/gate/keepers?detailed=true`) is the first; the
//! per-Keeper detail reads (turn census, settings snapshot) join it here.
//! Ownership contract and tested faults: docs/audits/keepers-roster.md.

pub mod roster;
