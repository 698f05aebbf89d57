//! One name cursor chain (§7.2; D-1, D-4, D-6): pages of one (connector, scope) read in order,
//! each with the cursor the previous page returned, each merged only after its echoes (connector
//! id, kind, requested cursor) and the repeating-cursor rule are verified (`decode_for`).
//!
//! The chain is an immutable value: a page read takes the chain as it was admitted (`base`)
//! and yields `base + page`; a failed page yields nothing, so the earlier pages stay and the
//! next try uses the same cursor (D-6).

use super::{ConnectorsObservation, ConnectorsSlot};
use crate::actors::contract::{GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::client::{Admitted, QueryString};
use crate::protocol::connectors::{ConnectorNamesPage, NameMapping, NameScope, NamesPageRequest};
use std::sync::Arc;

pub const NAMES_PATH: &str = "/api/v1/gate/connector/names";
/// masc-tui asks for the largest page §7.2 allows.
pub const NAMES_PAGE_LIMIT: u64 = 500;
/// The three chains of every connector (seed 001: server, channel, person).
pub const SCOPES: [NameScope; 3] = [NameScope::Server, NameScope::Channel, NameScope::Person];

pub fn scope_name(scope: NameScope) -> &'static str {
    match scope {
        NameScope::Channel => "channel",
        NameScope::Person => "person",
        NameScope::Server => "server",
    }
}

pub fn chain_key(connector: &str, scope: NameScope) -> ConnectorsSlot {
    ConnectorsSlot::Names {
        connector: connector.to_string(),
        scope: scope_name(scope).to_string(),
    }
}

/// The admitted prefix of one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamesChain {
    pub connector_id: String,
    pub scope: NameScope,
    /// Every mapping of the admitted pages, in id order.
    pub mappings: Vec<NameMapping>,
    pub pages_read: usize,
    /// The cursor of the next page; `None` before the first page and after the last.
    pub next_after_id: Option<String>,
    /// `has_more: false` was read: the chain is complete.
    pub complete: bool,
}

impl NamesChain {
    pub fn fresh(connector_id: &str, scope: NameScope) -> Self {
        Self {
            connector_id: connector_id.to_string(),
            scope,
            mappings: Vec::new(),
            pages_read: 0,
            next_after_id: None,
            complete: false,
        }
    }

    /// The request of the next page; `None` once complete.
    pub fn next_request(&self) -> Option<NamesPageRequest> {
        if self.complete {
            return None;
        }
        Some(NamesPageRequest {
            connector_id: self.connector_id.clone(),
            scope: self.scope,
            after_id: self.next_after_id.clone(),
        })
    }

    /// This chain plus one verified page.
    pub fn extended(&self, page: &ConnectorNamesPage) -> Self {
        let mut next = self.clone();
        next.mappings.extend(page.mappings.iter().cloned());
        next.pages_read += 1;
        next.next_after_id = page.next_cursor().map(str::to_string);
        next.complete = !page.has_more;
        next
    }

    /// The name of `id`, if this prefix has read it.
    pub fn name_of(&self, id: &str) -> Option<&str> {
        self.mappings
            .binary_search_by(|m| m.id.as_str().cmp(id))
            .ok()
            .map(|i| self.mappings[i].name.as_str())
    }
}

/// One page read as the worker produced it: the prefix it extends and the new chain, or why
/// the page failed (the prefix and its cursor stay, D-6).
#[derive(Debug, Clone)]
pub struct NamesPageRead {
    pub base: Arc<NamesChain>,
    pub result: ReadResult<NamesChain>,
}

pub fn page_path(req: &NamesPageRequest) -> String {
    QueryString::new()
        .pair("name", &req.connector_id)
        .pair("scope", scope_name(req.scope))
        .pair("limit", &NAMES_PAGE_LIMIT.to_string())
        .pair_opt("after_id", req.after_id.as_deref())
        .append_to(NAMES_PATH)
}

/// Reads the next page of `base` (the cursor it holds).
pub fn page_reader(base: Arc<NamesChain>) -> Reader<ConnectorsObservation> {
    reader(move |auth, client| {
        let base = base.clone();
        async move {
            let result = match base.next_request() {
                None => Ok(Admitted {
                    value: base.clone(),
                    mode: auth.mode,
                    from_cache: true,
                }),
                Some(req) => {
                    let path = page_path(&req);
                    let checked = req.clone();
                    client
                        .get_with(&auth, &path, move |b: &[u8]| {
                            ConnectorNamesPage::decode_for(b, &checked)
                        })
                        .await
                        .map(|a| Admitted {
                            value: Arc::new(base.extended(&a.value)),
                            mode: a.mode,
                            from_cache: a.from_cache,
                        })
                }
            };
            ConnectorsObservation::Names(Box::new(NamesPageRead { base, result }))
        }
    })
}

pub fn chain_slot(
    base: Arc<NamesChain>,
    generations: GenerationCounter,
) -> SlotSpec<ConnectorsSlot, ConnectorsObservation> {
    SlotSpec {
        key: chain_key(&base.connector_id, base.scope),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: page_reader(base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(ids: &[&str], has_more: bool) -> ConnectorNamesPage {
        ConnectorNamesPage {
            connector_id: "discord".into(),
            kind: NameScope::Channel,
            after_id: Some(None),
            next_after_id: Some(ids.last().map(|s| s.to_string())),
            has_more,
            total: 0,
            limit: Some(500),
            mappings: ids
                .iter()
                .map(|i| NameMapping {
                    id: i.to_string(),
                    name: format!("n{i}"),
                })
                .collect(),
            mapping_scope: None,
            current_workspace_id: None,
            path: None,
            offset: None,
        }
    }

    #[test]
    fn d1_the_chain_follows_the_returned_cursor_and_ends_on_has_more_false() {
        let c = NamesChain::fresh("discord", NameScope::Channel);
        assert_eq!(c.next_request().unwrap().after_id, None);
        let c = c.extended(&page(&["111", "222"], true));
        assert_eq!(c.next_request().unwrap().after_id.as_deref(), Some("222"));
        let c = c.extended(&page(&["333"], false));
        assert!(c.complete && c.next_request().is_none());
        assert_eq!(c.pages_read, 2);
        assert_eq!(c.name_of("222"), Some("n222"));
        assert_eq!(c.name_of("999"), None);
    }

    #[test]
    fn page_path_carries_the_cursor_only_when_there_is_one() {
        let mut req = NamesPageRequest {
            connector_id: "discord".into(),
            scope: NameScope::Person,
            after_id: None,
        };
        assert_eq!(
            page_path(&req),
            "/api/v1/gate/connector/names?name=discord&scope=person&limit=500"
        );
        req.after_id = Some("42".into());
        assert!(page_path(&req).ends_with("&after_id=42"));
    }
}
