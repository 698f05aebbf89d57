//! Route registration: every family's router is merged here, behind the one middleware layer.

pub mod admin;
pub mod health;
pub mod keepers;

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
        .merge(keepers::router());
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
