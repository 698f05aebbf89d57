//! The view: the model of `Fetched<T>` slots, the view actor, and pure projections.

pub mod actor;
pub mod admission;
pub mod approvals;
pub mod board;
pub mod chat;
pub mod command;
pub mod composer;
pub mod connectors;
pub mod editor;
pub mod effects;
pub mod fetched;
pub mod field;
pub mod frame;
pub mod inspector;
pub mod keepers;
pub mod keys;
pub mod model;
pub mod msg;
pub mod outgoing;
pub mod preparation_report;
pub mod runtime;
/// Sample data for tests and benches (feature `test-support`; not in the shipped binary).
#[cfg(feature = "test-support")]
pub mod sample;
pub mod save_path;
pub mod saves;
pub mod screens;
pub mod surface;
pub mod terminal;
pub mod terminal_link;
pub mod text;
pub mod theme;
pub mod tools;
pub mod tracked;
pub mod transcript;
pub mod work;
