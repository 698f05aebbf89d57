//! Sample data for view tests, benches and demos: rosters, tickets and identities built in
//! code (no network, no fixtures), and a buffer-to-text helper for assertions.

use crate::actors::contract::{IdentityState, SlotEvent, Ticket};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use crate::protocol::client::{Admitted, ClientError};
use crate::protocol::keepers::{
    ActivationMode, KeeperRoster, KeeperRow, KeeperRowSlot, KeeperStatus,
};
use ratatui::buffer::Buffer;
use std::sync::Arc;

pub const WORKSPACE: &str = "/home/op/demo/.masc";
pub const BASE_PATH: &str = "/home/op/demo";

pub fn scope(epoch: u64) -> ReadScope {
    ReadScope {
        workspace: WorkspaceId(WORKSPACE.into()),
        epoch,
    }
}

pub fn confirmed(epoch: u64, mode: AdmissionMode) -> IdentityState {
    IdentityState::Confirmed {
        scope: scope(epoch),
        base_path: BASE_PATH.into(),
        mode,
    }
}

pub fn roster_ticket(generation: u64, epoch: u64) -> Ticket<KeepersSlot> {
    Ticket {
        slot: KeepersSlot::Roster,
        generation,
        scope: scope(epoch),
    }
}

/// A row with every optional field absent.
pub fn bare_row(name: &str, status: KeeperStatus) -> KeeperRow {
    KeeperRow {
        name: name.into(),
        status,
        runtime_class: None,
        agent_name: None,
        keepalive_running: None,
        autoboot_enabled: None,
        proactive_enabled: None,
        runtime_id: None,
        meta: None,
        created_at: None,
        updated_at: None,
        health: None,
        paused: None,
        phase: None,
        activation_mode: None,
        candle_balance_milli: None,
        effective_meta_error: None,
        current_task: None,
        turn_started_at: None,
    }
}

/// A filled row; `i` varies status, flags and sandbox.
pub fn keeper_row(i: usize) -> KeeperRow {
    const STATUSES: [KeeperStatus; 7] = [
        KeeperStatus::Active,
        KeeperStatus::Busy,
        KeeperStatus::Listening,
        KeeperStatus::Idle,
        KeeperStatus::Inactive,
        KeeperStatus::Offline,
        KeeperStatus::Error,
    ];
    const SANDBOXES: [&str; 3] = ["docker", "microvm", "local"];
    let mut row = bare_row(&format!("keeper-{i:04}"), STATUSES[i % STATUSES.len()]);
    row.autoboot_enabled = Some(i.is_multiple_of(2));
    row.proactive_enabled = Some(i.is_multiple_of(3));
    row.activation_mode = Some(ActivationMode::OnDemand);
    row.phase = Some(
        if i.is_multiple_of(2) {
            "running"
        } else {
            "idle"
        }
        .into(),
    );
    row.runtime_id = Some(format!("claude-sonnet-4-5-20250929-{i:06x}"));
    row.current_task = Some(format!("task-{:03} review the board digest", i % 500));
    row.turn_started_at = Some(1_700_000_000.0 + i as f64);
    let mut meta = serde_json::Map::new();
    meta.insert(
        "sandbox_profile".into(),
        serde_json::Value::String(SANDBOXES[i % SANDBOXES.len()].into()),
    );
    row.meta = Some(meta);
    row
}

pub fn roster_of(rows: Vec<KeeperRowSlot>) -> KeeperRoster {
    KeeperRoster {
        count: rows.len() as u64,
        total: rows.len() as u64,
        limit: None,
        truncated: false,
        candle: None,
        rows,
    }
}

/// A roster of `n` filled rows.
pub fn roster(n: usize) -> KeeperRoster {
    roster_of(
        (0..n)
            .map(|i| KeeperRowSlot::Row(Box::new(keeper_row(i))))
            .collect(),
    )
}

/// The roster read of `ticket` produced `roster`.
pub fn roster_observation(
    ticket: Ticket<KeepersSlot>,
    roster: KeeperRoster,
    mode: AdmissionMode,
) -> SlotEvent<KeepersSlot, KeepersObservation> {
    SlotEvent::Observed(
        ticket,
        KeepersObservation::Roster(Ok(Admitted {
            value: Arc::new(roster),
            mode,
            from_cache: false,
        })),
    )
}

/// The roster read of `ticket` failed with `error`.
pub fn roster_failure(
    ticket: Ticket<KeepersSlot>,
    error: ClientError,
) -> SlotEvent<KeepersSlot, KeepersObservation> {
    SlotEvent::Observed(ticket, KeepersObservation::Roster(Err(error)))
}

/// The buffer's symbols, one `String` per row (wide graphemes once, their hidden cells
/// skipped), for assertions.
pub fn buffer_lines(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (area.top()..area.bottom())
        .map(|y| {
            let mut line = String::new();
            let mut skip = 0usize;
            for x in area.left()..area.right() {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                let symbol = buf[(x, y)].symbol();
                line.push_str(symbol);
                skip = crate::view::text::display_width(symbol).saturating_sub(1);
            }
            line
        })
        .collect()
}

/// All rows joined with `\n`.
pub fn buffer_text(buf: &Buffer) -> String {
    buffer_lines(buf).join("\n")
}

/// A mouse event of `kind` at (`column`, `row`), without modifiers.
pub fn mouse_at(
    kind: crossterm::event::MouseEventKind,
    column: u16,
    row: u16,
) -> crossterm::event::MouseEvent {
    crossterm::event::MouseEvent {
        kind,
        column,
        row,
        modifiers: crossterm::event::KeyModifiers::NONE,
    }
}
