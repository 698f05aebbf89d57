//! Every source command the view sends, with its source and what its surface model does with
//! it before it leaves. A new source command type is one impl here.

use super::SourceCommand;
use crate::actors::asks::{ASKS, AsksCommand};
use crate::actors::board::{BOARD, BoardCommand};
use crate::actors::chat::{CHAT_HUB, ChatCommand};
use crate::actors::contract::SourceKey;
use crate::actors::inspector::{InspectorCommand, InspectorSlot, TURN_INSPECTOR};
use crate::actors::keeper_detail::{KEEPER_DETAIL, KeeperDetailCommand};
use crate::actors::system_logs::{SYSTEM_LOGS, SystemLogsCommand};
use crate::actors::tools::{TOOLS, ToolsCommand};
use crate::actors::work::{WORK_DETAIL, WorkCommand};
use crate::view::inspector::NotWidened;
use crate::view::model::Model;

impl SourceCommand for WorkCommand {
    type Sent = Self;
    const SOURCE: SourceKey = WORK_DETAIL;
    const NAME: &'static str = "work detail source";

    fn prepare(&self, model: &mut Model) -> Result<Self, String> {
        model.work.on_command(self);
        Ok(self.clone())
    }
}

impl SourceCommand for BoardCommand {
    type Sent = Self;
    const SOURCE: SourceKey = BOARD;
    const NAME: &'static str = "board source";

    fn prepare(&self, model: &mut Model) -> Result<Self, String> {
        model.board.on_command(self);
        Ok(self.clone())
    }
}

impl SourceCommand for KeeperDetailCommand {
    type Sent = Self;
    const SOURCE: SourceKey = KEEPER_DETAIL;
    const NAME: &'static str = "keeper detail source";

    fn prepare(&self, model: &mut Model) -> Result<Self, String> {
        model.keeper_detail.on_command(self);
        Ok(self.clone())
    }
}

impl SourceCommand for ToolsCommand {
    type Sent = Self;
    const SOURCE: SourceKey = TOOLS;
    const NAME: &'static str = "tools source";

    fn prepare(&self, model: &mut Model) -> Result<Self, String> {
        model.tools.on_command(self);
        Ok(self.clone())
    }
}

impl SourceCommand for SystemLogsCommand {
    type Sent = Self;
    const SOURCE: SourceKey = SYSTEM_LOGS;
    const NAME: &'static str = "system logs source";

    fn prepare(&self, model: &mut Model) -> Result<Self, String> {
        model.system_logs.on_command(self);
        Ok(self.clone())
    }
}

impl SourceCommand for AsksCommand {
    type Sent = Self;
    const SOURCE: SourceKey = ASKS;
    const NAME: &'static str = "asks source";

    fn prepare(&self, _model: &mut Model) -> Result<Self, String> {
        Ok(self.clone())
    }
}

impl SourceCommand for ChatCommand {
    type Sent = Self;
    const SOURCE: SourceKey = CHAT_HUB;
    const NAME: &'static str = "chat source";

    fn prepare(&self, _model: &mut Model) -> Result<Self, String> {
        Ok(self.clone())
    }
}

/// An inspector's explicit read (K-15, K-17): `r` re-reads one reading now; `H` re-reads a
/// Keeper's records with the next wider `limit` (50 → 200 → 500, MASC's maximum; K-14).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectorRequest {
    Reread(InspectorSlot),
    Widen { keeper: String },
}

impl InspectorRequest {
    fn slot(&self) -> InspectorSlot {
        match self {
            Self::Reread(slot) => slot.clone(),
            Self::Widen { keeper } => InspectorSlot::Records(keeper.clone()),
        }
    }
}

impl SourceCommand for InspectorRequest {
    type Sent = InspectorCommand;
    const SOURCE: SourceKey = TURN_INSPECTOR;
    const NAME: &'static str = "turn inspector source";

    fn prepare(&self, model: &mut Model) -> Result<InspectorCommand, String> {
        match self {
            Self::Reread(slot) => Ok(model.inspector.reread(slot.clone())),
            Self::Widen { keeper } => model.inspector.widen(keeper).map_err(|e| match e {
                NotWidened::AtMaximum => {
                    "already reading MASC's maximum: its 500 newest turn records".to_string()
                }
            }),
        }
    }

    /// Asked again on the next key or delivery.
    fn unsent(&self, model: &mut Model) {
        model.inspector.unwant(&self.slot());
    }
}

impl SourceCommand for crate::actors::activity::ActivityCommand {
    type Sent = Self;
    const SOURCE: SourceKey = crate::actors::activity::ACTIVITY;
    const NAME: &'static str = "activity source";

    fn prepare(&self, _model: &mut Model) -> Result<Self, String> {
        Ok(self.clone())
    }
}
