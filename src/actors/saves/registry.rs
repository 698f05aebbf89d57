//! The save kinds this version knows: the hub reads their unsettled rows back after a crash.
//! A new save kind is its own file in this folder plus one line here.

use super::restore::{RestoreSave, Restorer};
use crate::actors::decisions::approval::ApprovalDecision;

pub fn kinds() -> &'static [&'static dyn RestoreSave] {
    &[&Restorer::<ApprovalDecision>::NEW]
}
