//! The view: the model of `Fetched<T>` slots, the view actor, and pure projections.

pub mod actor;
pub mod admission;
pub mod asks;
pub mod async_request;
pub mod board;
pub mod cells;
pub mod chat;
pub mod clipboard;
pub mod command;
pub mod composer;
pub mod decisions;
pub mod editor;
pub mod fetched;
pub mod keeper_detail;
pub mod keeper_ops;
pub mod keeper_settings;
pub mod keepers;
pub mod keys;
pub mod model;
pub mod msg;
pub mod preparation;
pub mod presenter;
/// Sample data for tests and benches (feature `test-support`; not in the shipped binary).
#[cfg(feature = "test-support")]
pub mod sample;
pub mod saves;
pub mod schedule;
pub mod screens;
pub mod surface;
pub mod system;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod tools_panes;
pub mod tty_input;
pub mod work;
