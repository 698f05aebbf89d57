//! The save kinds this version knows: the hub reads their unsettled rows back after a crash.
//! A new save kind is its own file in this folder plus one line here.

use super::approval::ApprovalDecision;
use super::hub::{RestoreSave, Restorer};

pub fn kinds() -> &'static [&'static dyn RestoreSave] {
    &[&Restorer::<ApprovalDecision>::NEW]
}
