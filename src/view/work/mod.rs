//! Work surface state off the screens: the Work part of the model ([`model`]), the open
//! detail's slots ([`detail`]) and the display preparation that runs off the view actor
//! ([`prep`], sources.md ).

pub mod detail;
pub mod model;
pub mod prep;

pub use detail::{GoalDetailModel, PageOutcome, TaskDetailModel};
pub use model::{TaskListShown, WorkModel};
pub use prep::{PrepJob, PrepKey, PrepPart, PrepState, Prepared, PreparedLine, Shown};
