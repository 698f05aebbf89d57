//! The `runtime.toml` model: revision, parse into catalogue/lanes/accounts/assignments,
//! validation, line-preserving assignment edits and the §9.2 read fields.

use super::FILE_NAME;
use crate::server::store::rfc3339;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// `source_revision` of §9: sha256 of `runtime_config_source`, 0x00, then the text.
pub fn source_revision(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"runtime_config_source\0");
    h.update(text.as_bytes());
    hex::encode(h.finalize())
}

/// Path of the config file inside a workspace base.
pub fn config_path(base: &str) -> String {
    format!("{}/config/{FILE_NAME}", base.trim_end_matches('/'))
}

#[derive(Debug, Clone)]
pub struct Model {
    pub runtime_id: String,
    pub provider: String,
    pub provider_id: String,
    pub model_id: String,
    pub max_context: Option<i64>,
    pub max_context_override: Option<i64>,
    pub max_output_tokens: Option<i64>,
    pub is_local: bool,
    pub quota_scope: Option<String>,
}

impl Model {
    pub fn effective_max_context(&self) -> i64 {
        self.max_context_override
            .or(self.max_context)
            .unwrap_or(8_192)
    }
}

#[derive(Debug, Clone)]
pub struct Account {
    pub integration_id: String,
    pub group: Option<String>,
    pub email: Option<String>,
}

/// The parsed configuration.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub default: Option<String>,
    pub media_failover: Vec<String>,
    pub models: Vec<Model>,
    pub lanes: Vec<(String, Vec<String>)>,
    pub accounts: Vec<Account>,
    /// Explicit keeper assignments, in file order.
    pub keepers: Vec<(String, String)>,
}

impl Parsed {
    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.runtime_id == id)
    }

    pub fn assignment(&self, keeper: &str) -> Option<&str> {
        self.keepers
            .iter()
            .find(|(k, _)| k == keeper)
            .map(|(_, r)| r.as_str())
    }

    /// Runtime a keeper runs on: its assignment, else the default.
    pub fn effective_runtime(&self, keeper: &str) -> Option<String> {
        self.assignment(keeper)
            .map(str::to_string)
            .or_else(|| self.default.clone())
    }

    /// Validation issues: unknown runtime references are errors, gaps are warnings.
    pub fn issues(&self) -> Vec<Value> {
        let mut out = Vec::new();
        let known = |id: &str| self.model(id).is_some();
        let mut check = |key: String, id: &str| {
            if !known(id) {
                out.push(
                    json!({"key": key, "kind": "unknown_runtime", "severity": "error",
                                "detail": format!("runtime {id} is not in [[models]]")}),
                );
            }
        };
        if let Some(d) = &self.default {
            check("runtime.default".into(), d);
        }
        for (i, m) in self.media_failover.iter().enumerate() {
            check(format!("runtime.media_failover[{i}]"), m);
        }
        for (lane, ids) in &self.lanes {
            for (i, id) in ids.iter().enumerate() {
                check(format!("lanes.{lane}.runtimes[{i}]"), id);
            }
        }
        for (k, r) in &self.keepers {
            check(format!("keepers.{k}.runtime"), r);
        }
        for (i, m) in self.models.iter().enumerate() {
            if m.max_context.is_none() {
                out.push(json!({"key": format!("models[{i}].max_context"), "kind": "missing_key",
                                "severity": "warning",
                                "detail": format!("{} has no max_context; 8192 assumed", m.runtime_id)}));
            }
        }
        for a in &self.accounts {
            if a.email.is_none() {
                out.push(json!({"key": format!("accounts.{}", a.integration_id),
                                "kind": "account_email_missing", "severity": "warning",
                                "detail": "no email configured for this account"}));
            }
        }
        out
    }

    pub fn validation(&self) -> Value {
        let issues = self.issues();
        let valid = !issues.iter().any(|i| i["severity"] == "error");
        json!({"valid": valid, "issues": issues})
    }

    pub fn is_valid(&self) -> bool {
        !self.issues().iter().any(|i| i["severity"] == "error")
    }
}

fn text_of(t: &dyn toml_edit::TableLike, key: &str) -> Option<String> {
    t.get(key).and_then(|i| i.as_str()).map(str::to_string)
}

fn strings(item: Option<&toml_edit::Item>) -> Vec<String> {
    item.and_then(|i| i.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Parse the config text; `Err` holds the parser's message.
pub fn parse(text: &str) -> Result<Parsed, String> {
    let doc = toml_edit::Document::parse(text.to_string()).map_err(|e| e.to_string())?;
    let root = doc.as_table();
    let mut p = Parsed::default();
    if let Some(rt) = root.get("runtime").and_then(|i| i.as_table_like()) {
        p.default = text_of(rt, "default");
        p.media_failover = strings(rt.get("media_failover"));
    }
    if let Some(models) = root.get("models").and_then(|i| i.as_array_of_tables()) {
        for (i, m) in models.iter().enumerate() {
            let id =
                text_of(m, "runtime_id").ok_or(format!("models[{i}]: runtime_id is required"))?;
            let (prov_default, model_default) = id.split_once('.').unwrap_or((id.as_str(), ""));
            p.models.push(Model {
                provider_id: text_of(m, "provider_id").unwrap_or_else(|| prov_default.to_string()),
                model_id: text_of(m, "model_id").unwrap_or_else(|| model_default.to_string()),
                provider: text_of(m, "provider").unwrap_or_else(|| prov_default.to_string()),
                max_context: m.get("max_context").and_then(|i| i.as_integer()),
                max_context_override: m.get("max_context_override").and_then(|i| i.as_integer()),
                max_output_tokens: m.get("max_output_tokens").and_then(|i| i.as_integer()),
                is_local: m.get("is_local").and_then(|i| i.as_bool()).unwrap_or(false),
                quota_scope: text_of(m, "quota_scope"),
                runtime_id: id,
            });
        }
    }
    if let Some(lanes) = root.get("lanes").and_then(|i| i.as_table_like()) {
        for (id, item) in lanes.iter() {
            let ids = item
                .as_table_like()
                .map(|t| strings(t.get("runtimes")))
                .unwrap_or_default();
            p.lanes.push((id.to_string(), ids));
        }
    }
    if let Some(accounts) = root.get("accounts").and_then(|i| i.as_array_of_tables()) {
        for a in accounts.iter() {
            if let Some(id) = text_of(a, "integration_id") {
                p.accounts.push(Account {
                    integration_id: id,
                    group: text_of(a, "group"),
                    email: text_of(a, "email"),
                });
            }
        }
    }
    if let Some(keepers) = root.get("keepers").and_then(|i| i.as_table_like()) {
        for (name, item) in keepers.iter() {
            if let Some(r) = item.as_table_like().and_then(|t| text_of(t, "runtime")) {
                p.keepers.push((name.to_string(), r));
            }
        }
    }
    Ok(p)
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn key(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        s.to_string()
    } else {
        quote(s)
    }
}

/// Rewrite the text so `keepers.<keeper>.runtime` is `runtime` (or absent with `None`),
/// touching only that line (comments and layout stay).
pub fn set_assignment(text: &str, keeper: &str, runtime: Option<&str>) -> Result<String, String> {
    let doc = toml_edit::Document::parse(text.to_string()).map_err(|e| e.to_string())?;
    let table = doc
        .as_table()
        .get("keepers")
        .and_then(|k| k.as_table_like())
        .and_then(|k| k.get(keeper));
    let value_span = table
        .and_then(|t| t.as_table_like())
        .and_then(|t| t.get("runtime"))
        .map(|v| v.span());
    let mut out = text.to_string();
    match (value_span, runtime) {
        (Some(Some(span)), Some(r)) => out.replace_range(span, &quote(r)),
        (Some(Some(span)), None) => {
            let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let end = text[span.end..]
                .find('\n')
                .map_or(text.len(), |i| span.end + i + 1);
            out.replace_range(start..end, "");
        }
        (Some(None), _) => return Err(format!("keepers.{keeper}.runtime has no location")),
        (None, None) => {}
        (None, Some(r)) => match table {
            Some(t) => {
                let span = t
                    .as_table()
                    .and_then(|t| t.span())
                    .ok_or(format!("keepers.{keeper} is not a standard table"))?;
                let at = text[span.end..]
                    .find('\n')
                    .map_or(text.len(), |i| span.end + i + 1);
                let mut line = format!("runtime = {}\n", quote(r));
                if at == text.len() && !text.ends_with('\n') {
                    line.insert(0, '\n');
                }
                out.insert_str(at, &line);
            }
            None => {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&format!(
                    "\n[keepers.{}]\nruntime = {}\n",
                    key(keeper),
                    quote(r)
                ));
            }
        },
    }
    Ok(out)
}

/// `model_bindings` (§9.2 extension).
pub fn model_bindings(path: &str, revision: &str, parsed: Result<&Parsed, &str>) -> Value {
    match parsed {
        Err(e) => {
            json!({"state": "unavailable", "reason": format!("runtime config parse failed: {e}")})
        }
        Ok(p) if p.models.is_empty() => json!({"state": "unavailable", "reason": "no model table"}),
        Ok(p) => json!({
            "state": "ready",
            "path": path,
            "source_revision": revision,
            "bindings": p.models.iter().map(|m| json!({
                "runtime_id": m.runtime_id, "provider_id": m.provider_id,
                "model_id": m.model_id, "max_context_override": m.max_context_override,
            })).collect::<Vec<_>>(),
        }),
    }
}

pub fn accounts_json(p: &Parsed) -> (Value, Value) {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for a in &p.accounts {
        if let Some(g) = &a.group {
            match groups.iter_mut().find(|(n, _)| n == g) {
                Some((_, ids)) => ids.push(a.integration_id.clone()),
                None => groups.push((g.clone(), vec![a.integration_id.clone()])),
            }
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(_, ids)| json!({"integration_ids": ids}))
        .collect();
    let emails: Vec<Value> = p
        .accounts
        .iter()
        .map(|a| match &a.email {
            Some(e) => json!({"integration_id": a.integration_id, "state": "read", "email": e}),
            None => json!({"integration_id": a.integration_id, "state": "not_read",
                           "cause": "no email configured"}),
        })
        .collect();
    (Value::Array(groups), Value::Array(emails))
}

/// The §9.2 fields of a text (also embedded in commit receipts).
pub fn raw_fields(text: &str, path: &str, operation: &str, updated_at: i64) -> Value {
    let revision = source_revision(text);
    let parsed = parse(text);
    let validation = match &parsed {
        Ok(p) => p.validation(),
        Err(e) => json!({"valid": false, "issues": [], "parse_error": e}),
    };
    let (groups, emails) = match &parsed {
        Ok(p) => accounts_json(p),
        Err(_) => (Value::Null, json!([])),
    };
    let bindings = model_bindings(path, &revision, parsed.as_ref().map_err(String::as_str));
    json!({
        "ok": true,
        "source_revision": revision,
        "path": path,
        "file_name": FILE_NAME,
        "source_text": text,
        "validation": validation,
        "application": {
            "operation": operation,
            "routing": {"status": "applied", "requires_restart": false,
                        "applied_at": rfc3339(updated_at)},
            "keeper_overlay": {"status": "not_configured", "configured_count": 0,
                               "requires_restart": false, "pending_keys": [], "applied_keys": [],
                               "preempted_keys": [], "applied_at": null},
        },
        "account_groups": groups,
        "account_emails": emails,
        "model_bindings": bindings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::runtime::SEED_CONFIG;

    #[test]
    fn seed_config_parses_valid_with_assignments() {
        let p = parse(SEED_CONFIG).unwrap();
        assert_eq!(p.models.len(), 6);
        assert!(p.is_valid(), "{:?}", p.issues());
        assert_eq!(p.assignment("하늘"), Some("openai.gpt-5"));
        assert_eq!(p.assignment("sangsu"), None);
        assert_eq!(
            p.effective_runtime("sangsu").as_deref(),
            Some("anthropic.claude-sonnet-4")
        );
    }

    #[test]
    fn assignment_edits_touch_one_line() {
        let changed = set_assignment(SEED_CONFIG, "하늘", Some("local.qwen3-32b")).unwrap();
        assert_eq!(
            parse(&changed).unwrap().assignment("하늘"),
            Some("local.qwen3-32b")
        );
        assert!(changed.contains("# 런타임 설정"));
        let removed = set_assignment(&changed, "하늘", None).unwrap();
        assert_eq!(parse(&removed).unwrap().assignment("하늘"), None);
        let added = set_assignment(&removed, "하늘", Some("openai.gpt-5")).unwrap();
        assert_eq!(
            parse(&added).unwrap().assignment("하늘"),
            Some("openai.gpt-5")
        );
        let fresh = set_assignment(SEED_CONFIG, "new keeper", Some("openai.gpt-5")).unwrap();
        assert_eq!(
            parse(&fresh).unwrap().assignment("new keeper"),
            Some("openai.gpt-5")
        );
    }

    #[test]
    fn revision_is_prefixed_sha256() {
        let mut bytes = b"runtime_config_source".to_vec();
        bytes.push(0);
        bytes.extend_from_slice("[runtime]\n".as_bytes());
        assert_eq!(
            source_revision("[runtime]\n"),
            hex::encode(Sha256::digest(&bytes))
        );
        assert_ne!(source_revision(""), hex::encode(Sha256::digest(b"")));
    }
}
