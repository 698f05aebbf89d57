//! The view: the model of `Fetched<T>` slots, the view actor, and pure projections.

pub mod fetched;
