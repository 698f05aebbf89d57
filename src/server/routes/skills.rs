//! Skills family: the closed `GET /api/v1/skills` catalogue snapshot (§6.2), state `ready`.

use crate::server::http::{ApiResult, Guard, Public, json_ok};
use crate::server::state::AppState;
use crate::server::store::skills as store;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/skills", get(snapshot))
}

async fn snapshot(_: Guard<Public>, State(state): State<AppState>) -> ApiResult {
    let body = state
        .store()
        .read(|conn| {
            let rows = store::list(conn)?;
            let mut sources: Vec<String> = rows.iter().map(|r| r.source_id.clone()).collect();
            sources.sort();
            sources.dedup();
            let source_index = |id: &str| sources.iter().position(|s| s == id).unwrap_or(0);
            let mut skills = Vec::new();
            let mut effective = Vec::new();
            let mut rejections = Vec::new();
            let mut surfaces = Vec::new();
            for r in &rows {
                let reference = store::reference(&r.name, &r.source_id);
                if let Some(err) = &r.error {
                    rejections.push(json!({
                        "source_index": source_index(&r.source_id),
                        "source_id": r.source_id,
                        "package_id": r.name,
                        "content_revision": store::content_revision(&r.name),
                        "reason": {"kind": "document_rejected",
                                   "diagnostics": [{"code": "missing_description", "message": err}]},
                    }));
                    surfaces.push(json!({
                        "reference": reference, "kind": "unavailable",
                        "usage": store::usage(conn, &r.name)?, "error": err,
                    }));
                    continue;
                }
                skills.push(json!({
                    "reference": reference, "kind": r.kind, "description": r.description,
                    "source_index": source_index(&r.source_id),
                }));
                effective.push(reference.clone());
                let profile = if r.kind == "composition" {
                    json!({
                        "flow": {
                            "nodes": [{"id": "fetch", "tool_name": "masc_board_list",
                                       "dependencies": [], "batch_index": 0, "batch_size": 1,
                                       "execution_mode": "serial", "statically_read_only": true}],
                            "batches": [{"index": 0, "execution_mode": "serial",
                                         "node_ids": ["fetch"]}],
                        },
                        "plan": {"node_count": 1, "batch_count": 1, "max_parallelism": 1},
                        "context": {"body_bytes": 980 + r.description.len(),
                                    "discovery_bytes": 240},
                    })
                } else {
                    json!({"context": {"body_bytes": 1_400 + r.description.len(),
                                       "discovery_bytes": 180}})
                };
                surfaces.push(json!({
                    "reference": reference, "kind": r.kind,
                    "usage": store::usage(conn, &r.name)?, "profile": profile,
                }));
            }
            let source_rows: Vec<Value> = sources
                .iter()
                .map(|s| json!({"source_id": s, "kind": if s == "workspace" {"workspace"} else {"project"}}))
                .collect();
            Ok(json!({
                "schema": "masc.skill-snapshot/v1",
                "state": "ready",
                "snapshot": {
                    "snapshot_revision": "snapshot-12",
                    "catalog_revision": "catalog-12",
                    "config": {"kind": "configured", "path": "config/skills.toml"},
                    "sources": source_rows,
                    "skills": skills,
                    "effective_skills": effective,
                    "shadows": [],
                    "rejections": rejections,
                },
                "surfaces": surfaces,
                "usage_coverage": {
                    "ledgers_loaded": store::ledger_keepers(conn)?.len(),
                    "unavailable": ["juno"],
                },
            }))
        })
        .await?;
    Ok(json_ok(body))
}
