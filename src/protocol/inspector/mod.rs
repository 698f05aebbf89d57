//! The §14.11 reads behind the turn inspector (`O`) and the context inspector (`/context`):
//! a Keeper's turn records and one turn's serialized provider input (protocol.md §14.11;
//! sources.md K-14…K-17).

pub mod provider_input;
pub mod turn_records;

use crate::protocol::client::{QueryString, path_segment};

pub use provider_input::ProviderInput;
pub use turn_records::{TurnRecord, TurnRecordsPage};

/// `GET /api/v1/keepers/{name}/turn-records?limit=`.
pub fn turn_records_target(keeper: &str, limit: u32) -> String {
    QueryString::new()
        .pair("limit", &limit.to_string())
        .append_to(&format!(
            "/api/v1/keepers/{}/turn-records",
            path_segment(keeper)
        ))
}

/// `GET /api/v1/keepers/{name}/provider-input?turn_ref=`.
pub fn provider_input_target(keeper: &str, turn_ref: &str) -> String {
    QueryString::new()
        .pair("turn_ref", turn_ref)
        .append_to(&format!(
            "/api/v1/keepers/{}/provider-input",
            path_segment(keeper)
        ))
}
