//! Route registration: every family's router is merged here, behind the one middleware layer.

pub mod admin;
pub mod asks;
pub mod async_requests;
pub mod board;
pub mod chat;
mod chat_batch;
pub mod chat_journal;
pub mod chat_reads;
mod chat_script;
pub mod connectors;
pub mod gate_queue;
pub mod goals;
pub mod health;
pub mod held_calls;
pub mod inspector;
pub mod keeper_config;
pub mod keeper_detail;
pub mod keeper_ops;
pub(crate) mod keeper_read;
pub mod keepers;
pub mod mcp;
pub mod operator;
pub mod runtime;
pub mod runtime_probe;
pub mod runtime_trace;
pub mod skills;
pub mod system_logs;
pub mod tasks;
pub mod tools;
pub mod turn_control;

use super::http::error_body;
use super::middleware::workspace_layer;
use super::state::AppState;
use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;

/// The whole application: families, test-mode admin routes, 404 fallback, middleware.
pub fn router(state: AppState) -> Router {
    let mut app = Router::new()
        .merge(health::router())
        .merge(keepers::router())
        .merge(chat::router())
        .merge(tasks::router())
        .merge(goals::router())
        .merge(tools::router())
        .merge(skills::router())
        .merge(async_requests::router())
        .merge(connectors::router())
        .merge(board::router())
        .merge(runtime::router())
        .merge(runtime_probe::router())
        .merge(keeper_config::router())
        .merge(keeper_detail::router())
        .merge(keeper_ops::router())
        .merge(turn_control::router())
        .merge(asks::router())
        .merge(operator::router())
        .merge(held_calls::router())
        .merge(runtime_trace::router())
        .merge(inspector::router())
        .merge(system_logs::router())
        .merge(gate_queue::router())
        .merge(mcp::router());
    if state.test_mode() {
        app = app.merge(admin::router());
    }
    app.fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            workspace_layer,
        ))
        .with_state(state)
}

async fn not_found() -> Response {
    error_body(StatusCode::NOT_FOUND, "not found")
}
