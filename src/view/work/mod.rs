//! Work surface state off the screens: the Work part of the model ([`model`]) and the display
//! preparation that runs off the view actor ([`prep`], sources.md ).

pub mod model;
pub mod prep;

pub use model::{GoalDetailModel, PageOutcome, TaskDetailModel, WorkModel};
pub use prep::{PrepJob, PrepKey, PrepPart, PrepState, Prepared, PreparedLine, Shown};
