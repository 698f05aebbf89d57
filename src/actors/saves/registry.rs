//! The save kinds the hub reads back after a crash (their unsettled rows of an earlier run are
//! posted as restored receipts once per workspace). A new save kind is its own file beside its
//! surface plus one line here. The chat send (`chat_send`) is not listed: its chat reads its
//! sends back itself when it opens, because a chat shows only the Keeper it is open on.

use super::restore::{RestoreSave, Restorer};
use crate::actors::board::compose::BoardPost;
use crate::actors::chat::{TurnInterrupt, TurnSteer};
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::actors::keepers::ops::{
    assignment::AssignmentSave, create::CreateSave, lifecycle::LifecycleSave, sandbox::SandboxSave,
    settings::SettingsSave,
};
use crate::actors::system::binding::{ConnectorBind, ConnectorUnbind};
use crate::actors::system::runtime_form::RuntimeForm;
use crate::actors::system::runtime_raw::RuntimeRaw;

pub fn kinds() -> &'static [&'static dyn RestoreSave] {
    &[
        &Restorer::<ApprovalDecision>::NEW,
        &Restorer::<RuntimeForm>::NEW,
        &Restorer::<RuntimeRaw>::NEW,
        &Restorer::<AskAnswer>::NEW,
        &Restorer::<SandboxSave>::NEW,
        &Restorer::<AssignmentSave>::NEW,
        &Restorer::<LifecycleSave>::NEW,
        &Restorer::<ConnectorBind>::NEW,
        &Restorer::<ConnectorUnbind>::NEW,
        &Restorer::<BoardPost>::NEW,
        &Restorer::<SettingsSave>::NEW,
        &Restorer::<TurnInterrupt>::NEW,
        &Restorer::<TurnSteer>::NEW,
        &Restorer::<CreateSave>::NEW,
        &Restorer::<HeldCallDecision>::NEW,
    ]
}
