//! masc-tui: a terminal console for operators of a MASC workspace.
//!
//! Layers (see docs/architecture.md):
//! - [`protocol`]: wire types, decoders and the admitted HTTP client (no ratatui, no ractor).
//! - [`server`]: the embedded MASC-compatible workspace server with fault plans.
//! - [`actors`]: supervised source actors, the workspace actor and the supervisor.
//! - [`view`]: the view actor, the `Fetched<T>` model and pure projections.
//! - [`timeline`]: the tracing JSON layer and the timeline report.

pub mod actors;
pub mod cli;
pub mod outbox;
pub mod private_file;
pub mod protocol;
pub mod sanitize;
pub mod server;
pub mod timeline;
pub mod view;
