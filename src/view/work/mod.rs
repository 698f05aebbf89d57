//! Work surface state off the screens: the Work part of the model ([`model`]), the open
//! detail's slots ([`detail`]) and the row layout that runs off the view actor
//! ([`layout`], sources.md ).

pub mod detail;
pub mod layout;
pub mod model;

pub use detail::{GoalDetailModel, PageOutcome, TaskDetailModel};
pub use layout::{LaidOut, LaidOutLine, LayoutJob, LayoutKey, LayoutPart, RowLayouts, Shown};
pub use model::{TaskListShown, WorkModel};
