//! The one list of sources: what the supervisor spawns, each source's cadence, and the slots
//! it owns (the trace names of the slot kinds whose `SlotKey::source` is that source; a test
//! holds the two in step). A new source is its own folder plus one line here.

use crate::actors::contract::{SourceKey, SourceSpawner};
use crate::outbox::{OutboxLocation, SharedOutbox};
use std::sync::Arc;
use std::time::Duration;

/// One supervised source.
#[derive(Clone)]
pub struct SourceEntry {
    pub spawner: Arc<dyn SourceSpawner>,
    /// The slot kinds it owns, by trace name.
    pub slots: &'static [&'static str],
}

impl SourceEntry {
    pub fn key(&self) -> SourceKey {
        self.spawner.key()
    }
}

fn entry(slots: &'static [&'static str], spawner: impl SourceSpawner) -> SourceEntry {
    SourceEntry {
        spawner: Arc::new(spawner),
        slots,
    }
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Every supervised source (the workspace actor aside, which the supervisor starts itself).
/// `roster` is the Keepers roster cadence and `outbox` where saves (chat sends included) are
/// recorded (both configurable for tests).
pub fn sources(roster: Duration, outbox: &OutboxLocation) -> Vec<SourceEntry> {
    use crate::actors::{
        activity, asks, board, chat, connectors, decisions, gate_queue, inspector, keeper_detail,
        keepers, preparation_report, runtime, saves, source_stats, system_logs, tools, work,
    };
    // One outbox (one session) for the runtime: the save hub writes every save, the chat
    // sources read their sends back.
    let outbox = SharedOutbox::new(outbox.clone());
    let mut entries = vec![
        entry(
            &["keepers_roster"],
            keepers::KeepersRosterSpawner { cadence: roster },
        ),
        // No cadence: reads only on `e` (the settings preparation, H-1).
        entry(
            &["keeper_settings"],
            keepers::settings::KeeperSettingsSpawner::default(),
        ),
        // 10 s, as the Tools source: the Tools body MASC serves from a background snapshot.
        entry(
            &["keeper_waiting_inventory"],
            keepers::WaitingInventorySpawner { cadence: secs(10) },
        ),
        entry(
            &[
                "keeper_meta",
                "keeper_context",
                "keeper_metrics",
                "keeper_settings_snapshot",
            ],
            keeper_detail::KeeperDetailSpawner::new(secs(15)),
        ),
        entry(
            &["workspace_gate", "tool_approval_modes"],
            keeper_detail::WorkspaceGateSpawner { cadence: secs(30) },
        ),
        // The chat hub has no cadence: its sources read on open, PgUp and reconciliation.
        entry(
            &["chat_history", "chat_restore", "chat_reconcile"],
            chat::ChatHubSpawner {
                config: chat::ChatHubConfig {
                    outbox: outbox.clone(),
                    ..chat::ChatHubConfig::default()
                },
            },
        ),
        entry(&["planning"], work::PlanningSpawner { cadence: secs(15) }),
        entry(
            &["task_list", "goal_linked_tasks"],
            work::TaskListSpawner::new(secs(10)),
        ),
        entry(
            &[
                "task_body",
                "task_history",
                "task_history_legacy",
                "goal_timeline",
            ],
            work::WorkDetailSpawner::new(secs(10)),
        ),
        entry(
            &["board_posts", "hearth_census", "board_post"],
            board::BoardSpawner::new(secs(20)),
        ),
        // 10 s: a cold inventory answers "warming" first (§6.1); the next poll settles it.
        entry(
            &[
                "tools_inventory",
                "skills_catalog",
                "async_requests",
                "async_request",
                "keeper_surface",
            ],
            tools::ToolsSpawner::new(secs(10)),
        ),
        // 5 s while the System `logs` pane is shown: a delta (`since_seq`) after the first read.
        entry(
            &["system_logs", "system_logs_older"],
            system_logs::SystemLogsSpawner::new(secs(5)),
        ),
        entry(
            &["runtime_catalogue"],
            runtime::RuntimeCatalogueSpawner::new(secs(30)),
        ),
        // Read on demand only: opening a form, a base re-read.
        entry(&["runtime_config"], runtime::RuntimeConfigSpawner),
        entry(
            &["connectors_status", "connector_names"],
            connectors::ConnectorsSpawner::new(secs(30)),
        ),
        entry(
            &["operator_approvals", "open_asks", "held_tool_calls"],
            decisions::DecisionsSpawner { cadence: secs(15) },
        ),
        // 10 s: a new pending row is in MASC's answer at once (its cache is keyed by the
        // queue's revision), and a decision is settled by this read.
        // No cadence: one observer feed per confirmed epoch, reconnecting by itself (§15.2).
        entry(&["activity_feed"], activity::ActivitySpawner::default()),
        entry(
            &["gate_queue"],
            gate_queue::GateQueueSpawner { cadence: secs(10) },
        ),
        // No cadence: follow-ups start after an answer, transcripts when a turn is pinned.
        // Read only while a chat's details are expanded (M-9); a failure before the save is
        // re-read on the turns cadence (the Keeper detail's 15 s) until saved (M-2).
        entry(
            &["preparation_report"],
            preparation_report::PreparationReportSpawner::new(secs(15)),
        ),
        entry(
            &["ask_follow_up", "turn_transcript"],
            asks::AsksSpawner::default(),
        ),
        // No cadence: §14.11 reads when an inspector opens (`O`, `/context`) or on `r` (K-17).
        entry(
            &["turn_records", "provider_input"],
            inspector::InspectorSpawner::default(),
        ),
        // Saves have no cadence: each is one submitted write (its kinds: saves::registry).
        entry(
            saves::registry::trace_names(),
            saves::SaveHubSpawner { outbox },
        ),
    ];
    // 2 s, no network: the live Sources view's snapshot of every source listed above.
    let owners = entries
        .iter()
        .map(|e| {
            (
                e.key().0.to_string(),
                e.slots.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect();
    entries.push(entry(
        &["source_stats"],
        source_stats::SourceStatsSpawner {
            cadence: secs(2),
            owners: Arc::new(owners),
        },
    ));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::contract::SlotKey;

    fn owner_of<S: SlotKey>(slots: &[S]) -> Vec<(String, SourceKey)> {
        slots.iter().map(|s| (s.trace_name(), s.source())).collect()
    }

    /// The registry's slot lists and the slot types' own `source()` say the same thing.
    #[test]
    fn every_slot_kind_is_listed_under_the_source_that_owns_it() {
        use crate::actors::board::BoardSlot;
        use crate::actors::connectors::ConnectorsSlot;
        use crate::actors::decisions::DecisionsSlot;
        use crate::actors::keepers::KeepersSlot;
        use crate::actors::runtime::RuntimeSlot;
        use crate::actors::tools::ToolsSlot;
        use crate::actors::work::WorkSlot;
        let mut kinds = Vec::new();
        kinds.extend(owner_of(&[KeepersSlot::Roster, KeepersSlot::Settings]));
        kinds.extend(owner_of(&[crate::actors::keepers::WaitingSlot::Inventory]));
        {
            use crate::actors::keeper_detail::KeeperDetailSlot as D;
            kinds.extend(owner_of(&[
                D::Meta("k".into()),
                D::Context("k".into()),
                D::Metrics("k".into()),
                D::Settings("k".into()),
                D::WorkspaceGate,
                D::ToolModes,
            ]));
        }
        kinds.extend(owner_of(&[
            WorkSlot::Planning,
            WorkSlot::TaskList,
            WorkSlot::GoalLinkedTasks,
            WorkSlot::TaskBody("t".into()),
            WorkSlot::TaskHistory("t".into()),
            WorkSlot::TaskHistoryLegacy("t".into()),
            WorkSlot::GoalTimeline("g".into()),
        ]));
        kinds.extend(owner_of(&[
            BoardSlot::Posts,
            BoardSlot::Census,
            BoardSlot::Post("p".into()),
        ]));
        kinds.extend(owner_of(&[
            ToolsSlot::ToolsInventory,
            ToolsSlot::SkillsCatalog,
            ToolsSlot::AsyncRequests,
            ToolsSlot::AsyncRequest("r".into()),
            ToolsSlot::KeeperSurface("k".into()),
        ]));
        kinds.extend(owner_of(&[RuntimeSlot::Catalogue, RuntimeSlot::Config]));
        kinds.extend(owner_of(&[ConnectorsSlot::Status]));
        let names = ConnectorsSlot::Names {
            connector: "discord".into(),
            scope: "channel".into(),
        };
        assert_eq!(names.trace_name(), "connector_names:discord:channel");
        kinds.push(("connector_names".into(), names.source()));
        kinds.extend(owner_of(&[
            crate::actors::source_stats::SourceStatsSlot::Snapshot,
        ]));
        kinds.extend(owner_of(&[
            DecisionsSlot::Approvals,
            DecisionsSlot::Asks,
            DecisionsSlot::HeldCalls,
        ]));
        let (ask, turn) = (
            crate::actors::asks::AskRef {
                keeper: "k".into(),
                ask_id: "a".into(),
            },
            crate::actors::asks::TurnTarget {
                keeper: "k".into(),
                turn_ref: "t#1".into(),
            },
        );
        kinds.extend(owner_of(&[
            crate::actors::asks::AsksSlot::FollowUp(ask),
            crate::actors::asks::AsksSlot::Transcript(turn),
        ]));
        kinds.extend(owner_of(&[
            crate::actors::preparation_report::PreparationReportSlot::Report,
        ]));
        kinds.extend(owner_of(&[crate::actors::saves::journal::SaveJournalSlot]));
        kinds.extend(owner_of(&[crate::actors::gate_queue::GateQueueSlot::Queue]));
        kinds.extend(owner_of(&[crate::actors::activity::ActivitySlot::Feed]));
        kinds.extend(owner_of(&[
            crate::actors::system_logs::SystemLogsSlot::Window,
            crate::actors::system_logs::SystemLogsSlot::Older,
        ]));
        kinds.extend(owner_of(&[
            crate::actors::inspector::InspectorSlot::Records("k".into()),
            crate::actors::inspector::InspectorSlot::Input(crate::actors::asks::TurnTarget {
                keeper: "k".into(),
                turn_ref: "t#1".into(),
            }),
        ]));
        for (kind, slot) in [
            (
                "chat_history",
                crate::actors::chat::ChatSlot::History { keeper: "k".into() },
            ),
            (
                "chat_restore",
                crate::actors::chat::ChatSlot::Restore { keeper: "k".into() },
            ),
            (
                "chat_reconcile",
                crate::actors::chat::ChatSlot::Reconcile {
                    keeper: "k".into(),
                    request_id: "r".into(),
                },
            ),
        ] {
            assert!(slot.trace_name().starts_with(&format!("{kind}:")));
            kinds.push((kind.into(), slot.source()));
        }
        // Every save kind's slot: the hub's one list names them; the hub checks, on each
        // ticket it makes, that the kind's slot is its own and carries the kind's name.
        kinds.extend(
            crate::actors::saves::registry::KINDS
                .iter()
                .map(|k| (format!("save:{}", k.kind()), crate::actors::saves::SAVES)),
        );
        let registry = sources(Duration::from_secs(5), &OutboxLocation::StateDir);
        for (name, owner) in &kinds {
            let listed: Vec<SourceKey> = registry
                .iter()
                .filter(|e| e.slots.contains(&name.as_str()))
                .map(SourceEntry::key)
                .collect();
            assert_eq!(listed, vec![*owner], "slot kind {name}");
        }
        let total: usize = registry.iter().map(|e| e.slots.len()).sum();
        assert_eq!(total, kinds.len(), "a listed slot kind has no slot type");
        let mut keys: Vec<SourceKey> = registry.iter().map(SourceEntry::key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), registry.len(), "a source is listed twice");
    }
}
