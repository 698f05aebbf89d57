//! The Keeper panes of Tools (surfaces.md "Tools": `available`, `receipts`, `usage`;
//! protocol.md §6.1 `?keeper=`, §6.2 `surfaces[].usage`): what each pane has to show, as one
//! typed value per state.
//!
//! - `available` (the selected Keeper's effective surface) and `receipts` (its Skill
//!   activation ledger) are two parts of one read, `GET /api/v1/dashboard/tools?keeper=`, the
//!   Keeper fixed at selection ([`SelectedSurface`]). Each part is projected on its own: the
//!   surface may be available while the ledger is unavailable, and the reverse.
//! - `usage` (cross-Keeper Skill usage) is the Skills catalogue's `surfaces[].usage`, so it
//!   has the catalogue slot's pending and failure, never the Keeper read's.
//! - Not requested (no Keeper selected, or never read), loading, warming, failed with or
//!   without the last value, not served (the route, or a part this MASC release does not
//!   send), unavailable with the server's reason, and a normal empty answer are different
//!   [`PaneState`] values (G-5): none of them reads as `0` or as an empty list.

use crate::protocol::decode::SinceRelease;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::{
    AvailableSurface, KeeperSurface, SkillActivations, ToolsInventoryRead,
};
use crate::view::admission::Slot;
use crate::view::fetched::{Fetched, Observed, SlotFailure};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// The Keeper the `available` and `receipts` panes show, and its `?keeper=` read. A new
/// selection is a new value: the old Keeper's answer never fits it.
#[derive(Debug, Default)]
pub struct SelectedSurface {
    pub keeper: String,
    pub read: Slot<Arc<ToolsInventoryRead>>,
}

impl SelectedSurface {
    pub fn new(keeper: String) -> Self {
        Self {
            keeper,
            read: Slot::default(),
        }
    }
}

/// Why a pane has no data that is not a failure: the server said it cannot give it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    pub reason: String,
    pub detail: Option<String>,
}

/// What a Tools pane has to show. `T` is the pane's own data.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneState<T> {
    /// Nothing to read yet: no Keeper is selected (`available`, `receipts`).
    NoKeeper,
    /// Never dispatched.
    NotRequested,
    /// The first read is in flight.
    Loading,
    /// The server is still computing it (§6.1 warming): not empty.
    Warming,
    /// The last read failed; `last` is the pane's data from the previous good read.
    Failed { error: SlotFailure, last: Option<T> },
    /// This MASC does not serve it: `what` names the missing route or key.
    NotServed { what: String },
    /// The server answered that it cannot give it, and why.
    Unavailable(Unavailable),
    /// A normal answer with nothing in it.
    Empty,
    /// The data; `reading` while a re-read is in flight, `observed_at` when it was read.
    Shown {
        value: T,
        reading: bool,
        observed_at: Instant,
    },
}

/// One row of the Skill activation ledger, read tolerantly (MASC releases vary).
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationRow {
    pub skill: Option<String>,
    pub activations: Option<u64>,
    pub last_activated_at: Option<String>,
    /// The row as sent, when it has none of the fields above.
    pub raw: Option<String>,
}

/// One Keeper × Skill line of cross-Keeper usage (§6.2).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    pub keeper: String,
    pub skill: String,
    pub invocations: u64,
    pub deliveries: u64,
    pub actions: u64,
    pub last_used_at: Option<String>,
}

/// Cross-Keeper usage with what the server says of its coverage.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    pub rows: Vec<UsageRow>,
    /// `(ledgers loaded, Keepers whose ledger was unavailable)`; `None` when not reported.
    pub coverage: Option<(u64, Vec<String>)>,
    /// Skills whose usage the server did not report (`usage: null`, its ledger not read yet):
    /// their absence from `rows` is not "never used".
    pub unreported: Vec<String>,
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn unavailable(reason: &Value, detail: Option<&Value>) -> Unavailable {
    Unavailable {
        reason: text_of(reason),
        detail: detail.filter(|d| !d.is_null()).map(text_of),
    }
}

/// One part of a settled inventory, as a pane sees it.
enum Part<T> {
    Data(T),
    Empty,
    Warming,
    NotServed(String),
    Unavailable(Unavailable),
}

/// Projects one part of the `?keeper=` read through the slot's state.
fn keeper_part<T: Clone>(
    selected: Option<&SelectedSurface>,
    part: impl Fn(&ToolsInventoryRead) -> Part<T>,
) -> PaneState<T> {
    let Some(selected) = selected else {
        return PaneState::NoKeeper;
    };
    fetched_part(&selected.read.fetched, part)
}

fn fetched_part<V: Clone, T: Clone>(
    fetched: &Fetched<Arc<V>>,
    part: impl Fn(&V) -> Part<T>,
) -> PaneState<T> {
    let shown = |o: &Observed<Arc<V>>, reading: bool| match part(&o.value) {
        Part::Data(value) => PaneState::Shown {
            value,
            reading,
            observed_at: o.observed_at,
        },
        Part::Empty => PaneState::Empty,
        Part::Warming => PaneState::Warming,
        Part::NotServed(what) => PaneState::NotServed { what },
        Part::Unavailable(u) => PaneState::Unavailable(u),
    };
    match fetched {
        Fetched::NotRequested => PaneState::NotRequested,
        Fetched::Loading => PaneState::Loading,
        Fetched::Warming { .. } => PaneState::Warming,
        Fetched::Ready(o) => shown(o, false),
        Fetched::Refreshing { last, .. } => shown(last, true),
        Fetched::Failed { last, error, .. } => PaneState::Failed {
            error: error.clone(),
            last: last.as_ref().and_then(|o| match part(&o.value) {
                Part::Data(v) => Some(v),
                _ => None,
            }),
        },
        Fetched::NotServed { route, .. } => PaneState::NotServed {
            what: route.to_string(),
        },
    }
}

/// The `available` pane: the selected Keeper's effective surface (§6.1).
pub fn available(selected: Option<&SelectedSurface>) -> PaneState<AvailableSurface> {
    keeper_part(selected, |read| match read {
        ToolsInventoryRead::Warming { .. } => Part::Warming,
        ToolsInventoryRead::Settled(inv) => match &inv.effective_keeper_surface {
            SinceRelease::NotInRelease => {
                Part::NotServed("effective_keeper_surface (not sent by this MASC release)".into())
            }
            // Asked with `?keeper=` and answered null: the server computed none.
            SinceRelease::Sent(None) => Part::Unavailable(Unavailable {
                reason: "not_computed".into(),
                detail: Some("the server sent no surface for this Keeper".into()),
            }),
            SinceRelease::Sent(Some(KeeperSurface::Warming)) => Part::Warming,
            SinceRelease::Sent(Some(KeeperSurface::Unavailable { reason, detail })) => {
                Part::Unavailable(unavailable(reason, detail.as_ref()))
            }
            SinceRelease::Sent(Some(KeeperSurface::Available(s))) => {
                if s.tools.is_empty()
                    && s.instruction_skills.is_empty()
                    && s.composition_skills.is_empty()
                {
                    Part::Empty
                } else {
                    Part::Data((**s).clone())
                }
            }
        },
    })
}

fn activation_row(v: &Value) -> ActivationRow {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let skill = field("skill")
        .or_else(|| field("skill_name"))
        .or_else(|| field("name"));
    let activations = v
        .get("activations")
        .or_else(|| v.get("count"))
        .and_then(Value::as_u64);
    let last_activated_at = field("last_activated_at").or_else(|| field("activated_at"));
    let raw = (skill.is_none() && activations.is_none() && last_activated_at.is_none())
        .then(|| v.to_string());
    ActivationRow {
        skill,
        activations,
        last_activated_at,
        raw,
    }
}

/// The `receipts` pane: the selected Keeper's Skill activation ledger (§6.1).
pub fn receipts(selected: Option<&SelectedSurface>) -> PaneState<Vec<ActivationRow>> {
    keeper_part(selected, |read| match read {
        ToolsInventoryRead::Warming { .. } => Part::Warming,
        ToolsInventoryRead::Settled(inv) => match &inv.skill_activations {
            SinceRelease::NotInRelease => {
                Part::NotServed("skill_activations (not sent by this MASC release)".into())
            }
            SinceRelease::Sent(None) => Part::Unavailable(Unavailable {
                reason: "not_computed".into(),
                detail: Some("the server sent no ledger for this Keeper".into()),
            }),
            SinceRelease::Sent(Some(SkillActivations::Unavailable { reason, detail })) => {
                Part::Unavailable(unavailable(reason, detail.as_ref()))
            }
            SinceRelease::Sent(Some(SkillActivations::NoLedger { status })) => {
                Part::Unavailable(Unavailable {
                    reason: status.clone(),
                    detail: Some("no ledger to show".into()),
                })
            }
            SinceRelease::Sent(Some(SkillActivations::Available { ledger })) => match ledger {
                Value::Array(rows) if rows.is_empty() => Part::Empty,
                Value::Array(rows) => Part::Data(rows.iter().map(activation_row).collect()),
                Value::Object(o) if o.is_empty() => Part::Empty,
                other => Part::Data(vec![activation_row(other)]),
            },
        },
    })
}

/// The `usage` pane: cross-Keeper Skill usage from the Skills catalogue (§6.2), newest first.
pub fn usage(skills: &Fetched<Arc<SkillsSnapshotRead>>) -> PaneState<Usage> {
    fetched_part(skills, |read| match read {
        SkillsSnapshotRead::Ready(ready) => {
            let mut rows: Vec<UsageRow> = ready
                .surfaces
                .iter()
                .flat_map(|s| {
                    s.usage.iter().map(|u| UsageRow {
                        keeper: u.keeper.clone(),
                        skill: s.reference.identity.name.clone(),
                        invocations: u.invocations,
                        deliveries: u.deliveries,
                        actions: u.actions,
                        last_used_at: u.last_used_at.clone(),
                    })
                })
                .collect();
            rows.sort_by(|a, b| {
                a.keeper
                    .cmp(&b.keeper)
                    .then(b.invocations.cmp(&a.invocations))
                    .then(a.skill.cmp(&b.skill))
            });
            let coverage = ready
                .usage_coverage
                .as_ref()
                .map(|c| (c.ledgers_loaded, c.unavailable.clone()));
            let unreported: Vec<String> = ready
                .surfaces
                .iter()
                .filter(|s| !s.usage_reported)
                .map(|s| s.reference.identity.name.clone())
                .collect();
            if rows.is_empty()
                && unreported.is_empty()
                && coverage.as_ref().is_none_or(|(_, u)| u.is_empty())
            {
                Part::Empty
            } else {
                Part::Data(Usage {
                    rows,
                    coverage,
                    unreported,
                })
            }
        }
        SkillsSnapshotRead::NotRegistered => Part::Unavailable(Unavailable {
            reason: "not_registered".into(),
            detail: Some("no Skills catalogue on this server".into()),
        }),
        SkillsSnapshotRead::Uninitialized => Part::Unavailable(Unavailable {
            reason: "uninitialized".into(),
            detail: Some("the Skills catalogue is not initialised yet".into()),
        }),
        SkillsSnapshotRead::InvalidWorkspace => Part::Unavailable(Unavailable {
            reason: "invalid_workspace".into(),
            detail: None,
        }),
    })
}
