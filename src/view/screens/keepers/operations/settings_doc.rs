//! The settings document the operator edits in `$EDITOR` (H-1…H-7; protocol.md §9.5,
//! §9.6): a small TOML file rendered from one §9.5 snapshot, parsed back strictly, and compared
//! with the same snapshot's fields to make the §9.6 patch (only the changed keys).
//!
//! Fields are kept in patch form (the §9.6 key and its JSON value) so the snapshot, the edited
//! text, the patch and the H-7 restore all speak one shape. TOML has no null: a cleared context
//! override is `"default"` and "all published skills" is `"all"`. A key left out of the file
//! keeps its value (it is not a change); an unknown key or a wrong type is refused with its
//! name, and nothing is sent. The runtime is not edited here (the `U` picker assigns it, H-13).

use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::runtime::form::toml_string;
use serde_json::{Map, Value, json};

/// The editable keys, in the order the file lists them.
pub const KEYS: &[&str] = &[
    "autoboot_enabled",
    "proactive_enabled",
    "sandbox_profile",
    "network_mode",
    "max_context_override",
    "mention_targets",
    "skills",
    "instructions",
];

/// The control key of the file (never a setting; never restored, H-7).
pub const CONFIRM_SHRINK: &str = "confirm_context_shrink";

/// One snapshot's editable fields in §9.6 patch form; a key the server did not report is absent.
pub fn fields_of(snapshot: &KeeperConfigSnapshot) -> Map<String, Value> {
    snapshot.patch_fields()
}

fn string_array(items: &[Value]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|v| toml_string(v.as_str().unwrap_or_default()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A TOML multi-line basic string (the newline after the opening quotes is not part of it).
fn multiline(s: &str) -> String {
    let mut out = String::from("\"\"\"\n");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("\"\"\"");
    out
}

fn render_value(key: &str, v: &Value) -> String {
    match (key, v) {
        ("max_context_override", Value::Null) => "\"default\"".into(),
        ("skills", Value::Object(o)) => match o.get("names").and_then(Value::as_array) {
            Some(names) => string_array(names),
            None => "\"all\"".into(),
        },
        ("instructions", Value::String(s)) => multiline(s),
        (_, Value::String(s)) => toml_string(s),
        (_, Value::Array(items)) => string_array(items),
        (_, other) => other.to_string(),
    }
}

fn hint(key: &str) -> &'static str {
    match key {
        "sandbox_profile" => "  # docker | microvm | remote_ssh",
        "network_mode" => "  # none | inherit",
        "max_context_override" => "  # a positive integer, or \"default\"",
        "skills" => "  # a list of skill names, or \"all\"",
        _ => "",
    }
}

/// The file for `keeper` from `fields` (a snapshot's, or a snapshot's with the operator's
/// earlier changes restored, H-7). The shrink confirmation always starts `false`.
pub fn render(keeper: &str, fields: &Map<String, Value>, restored: &[String]) -> String {
    let mut out = format!(
        "# masc-tui · settings of keeper {}\n\
         # Change values, save and quit: only changed keys are sent, with the revision of the\n\
         # snapshot this file was made from (a change made meanwhile is refused as a conflict).\n\
         # Quitting with an error (:cq) sends nothing. A key left out keeps its value.\n\
         # Lowering max_context_override needs confirm_context_shrink = true.\n",
        toml_string(keeper)
    );
    if !restored.is_empty() {
        out.push_str(&format!(
            "# Restored from your unsaved edit: {} (every other value is current).\n",
            restored.join(", ")
        ));
    }
    for key in KEYS {
        match fields.get(*key) {
            Some(v) => out.push_str(&format!("{key} = {}{}\n", render_value(key, v), hint(key))),
            None => out.push_str(&format!("# {key}: not reported by the server\n")),
        }
    }
    out.push_str(&format!("{CONFIRM_SHRINK} = false\n"));
    out
}

/// What the edited file says.
#[derive(Debug, Clone, PartialEq)]
pub struct EditedSettings {
    /// The keys present in the file, in patch form.
    pub fields: Map<String, Value>,
    pub confirm_context_shrink: bool,
}

pub(super) fn strings(key: &str, v: &toml_edit::Value) -> Result<Vec<Value>, String> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{key} must be a list of strings"))?;
    arr.iter()
        .map(|i| {
            i.as_str()
                .map(|s| json!(s))
                .ok_or_else(|| format!("{key} must be a list of strings"))
        })
        .collect()
}

pub(super) fn one_of(key: &str, v: &toml_edit::Value, allowed: &[&str]) -> Result<Value, String> {
    match v.as_str() {
        Some(s) if allowed.contains(&s) => Ok(json!(s)),
        _ => Err(format!("{key} must be one of {}", allowed.join(", "))),
    }
}

fn parse_value(key: &str, v: &toml_edit::Value) -> Result<Value, String> {
    let bool_of = |v: &toml_edit::Value| {
        v.as_bool()
            .map(Value::Bool)
            .ok_or_else(|| format!("{key} must be true or false"))
    };
    match key {
        "autoboot_enabled" | "proactive_enabled" => bool_of(v),
        "sandbox_profile" => one_of(key, v, &["docker", "microvm", "remote_ssh"]),
        "network_mode" => one_of(key, v, &["none", "inherit"]),
        "max_context_override" => match (v.as_integer(), v.as_str()) {
            (Some(n), _) if n > 0 => Ok(json!(n)),
            (_, Some("default")) => Ok(Value::Null),
            _ => Err(format!("{key} must be a positive integer or \"default\"")),
        },
        "mention_targets" => strings(key, v).map(Value::Array),
        "skills" => match v.as_str() {
            Some("all") => Ok(json!({})),
            Some(_) => Err(format!("{key} must be a list of skill names or \"all\"")),
            None => strings(key, v).map(|names| json!({ "names": names })),
        },
        "instructions" => v
            .as_str()
            .map(|s| json!(s))
            .ok_or_else(|| format!("{key} must be a string")),
        _ => Err(format!("unknown key {key}")),
    }
}

/// The top-level `key = value` pairs of an edited file, in order; a table or invalid TOML is
/// refused with the parser's last line.
pub(super) fn top_level_values(text: &str) -> Result<Vec<(String, toml_edit::Value)>, String> {
    let doc = toml_edit::Document::parse(text.to_string()).map_err(|e| {
        let msg = e.to_string();
        format!(
            "not valid TOML: {}",
            msg.lines().last().unwrap_or_default().trim()
        )
    })?;
    doc.as_table()
        .iter()
        .map(|(key, item)| match item.as_value() {
            Some(v) => Ok((key.to_string(), v.clone())),
            None => Err(format!("{key} must be a value, not a table")),
        })
        .collect()
}

/// Parses the edited file strictly. `Err` names the first problem (nothing is sent).
pub fn parse(text: &str) -> Result<EditedSettings, String> {
    let mut fields = Map::new();
    let mut confirm = false;
    for (key, value) in top_level_values(text)? {
        let key = key.as_str();
        let value = &value;
        if key == CONFIRM_SHRINK {
            confirm = value
                .as_bool()
                .ok_or_else(|| format!("{CONFIRM_SHRINK} must be true or false"))?;
            continue;
        }
        fields.insert(key.to_string(), parse_value(key, value)?);
    }
    Ok(EditedSettings {
        fields,
        confirm_context_shrink: confirm,
    })
}

/// The §9.6 patch: every key the file has whose value differs from `base` (the snapshot the
/// file was made from). Leaving `remote_ssh` adds `"remote_endpoint": null` (§9.7).
pub fn patch(base: &Map<String, Value>, edited: &EditedSettings) -> Map<String, Value> {
    let mut patch = Map::new();
    for key in KEYS {
        if let Some(v) = edited.fields.get(*key)
            && base.get(*key) != Some(v)
        {
            patch.insert((*key).to_string(), v.clone());
        }
    }
    let leaving_ssh = base.get("sandbox_profile") == Some(&json!("remote_ssh"))
        && patch
            .get("sandbox_profile")
            .is_some_and(|p| p != &json!("remote_ssh"));
    if leaving_ssh {
        patch.insert("remote_endpoint".into(), Value::Null);
    }
    patch
}

/// H-7: the current `fields` with only the operator's earlier changes (`changed`, a failed
/// save's patch) put back. Returns the fields and the names of the restored keys.
pub fn restore(
    fields: &Map<String, Value>,
    changed: &Map<String, Value>,
) -> (Map<String, Value>, Vec<String>) {
    let mut out = fields.clone();
    let mut restored = Vec::new();
    for key in KEYS {
        if let Some(v) = changed.get(*key) {
            out.insert((*key).to_string(), v.clone());
            restored.push((*key).to_string());
        }
    }
    (out, restored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode::WireDecode;

    const SNAP: &str = r#"{"name":"rondo","config_revision":{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}},"execution":{"selected_runtime_id":"r"},"sandbox_profile":"docker","network_mode":"none","autoboot_enabled":true,"max_context_override":180000,"prompt":{"instructions":"Keep \"green\".\nReport \\ board."},"proactive":{"enabled":false},"skills":{"names":null},"workspace":{"mention_targets":["@rondo","@한글"]}}"#;

    fn base() -> Map<String, Value> {
        fields_of(&KeeperConfigSnapshot::decode(SNAP.as_bytes()).unwrap())
    }

    #[test]
    fn the_rendered_file_parses_back_to_the_same_fields_with_no_patch_h3() {
        let text = render("rondo", &base(), &[]);
        let edited = parse(&text).unwrap();
        assert_eq!(edited.fields, base());
        assert!(!edited.confirm_context_shrink);
        assert!(patch(&base(), &edited).is_empty());
    }

    #[test]
    fn only_changed_keys_are_patched_s9_6() {
        let text = render("rondo", &base(), &[])
            .replace("autoboot_enabled = true", "autoboot_enabled = false")
            .replace(
                "max_context_override = 180000",
                "max_context_override = \"default\"",
            );
        let p = patch(&base(), &parse(&text).unwrap());
        assert_eq!(
            Value::Object(p),
            json!({"autoboot_enabled": false, "max_context_override": null})
        );
    }

    #[test]
    fn a_left_out_key_is_no_change_and_unknown_or_mistyped_keys_are_refused() {
        let text = render("rondo", &base(), &[]).replace("autoboot_enabled = true\n", "");
        assert!(patch(&base(), &parse(&text).unwrap()).is_empty());
        assert_eq!(
            parse("colour = \"red\"\n").unwrap_err(),
            "unknown key colour"
        );
        assert!(parse("autoboot_enabled = \"yes\"\n").is_err());
        assert!(parse("max_context_override = 0\n").is_err());
        assert!(parse("sandbox_profile = \"local\"\n").is_err());
        assert!(
            parse("autoboot_enabled = \n")
                .unwrap_err()
                .starts_with("not valid TOML")
        );
    }

    #[test]
    fn leaving_remote_ssh_clears_the_endpoint_s9_7() {
        let mut b = base();
        b.insert("sandbox_profile".into(), json!("remote_ssh"));
        let edited = parse("sandbox_profile = \"docker\"\n").unwrap();
        let p = patch(&b, &edited);
        assert_eq!(p.get("remote_endpoint"), Some(&Value::Null));
    }

    #[test]
    fn restore_puts_back_only_the_changed_fields_h7() {
        let mut current = base();
        current.insert("proactive_enabled".into(), json!(true)); // changed by someone else
        let mut changed = Map::new();
        changed.insert("autoboot_enabled".into(), json!(false));
        changed.insert("remote_endpoint".into(), Value::Null);
        let (fields, restored) = restore(&current, &changed);
        assert_eq!(restored, ["autoboot_enabled"]);
        assert_eq!(fields["autoboot_enabled"], json!(false));
        assert_eq!(
            fields["proactive_enabled"],
            json!(true),
            "current value kept"
        );
        let text = render("rondo", &fields, &restored);
        assert!(text.contains("Restored from your unsaved edit: autoboot_enabled"));
        assert!(
            text.contains("confirm_context_shrink = false"),
            "never reused"
        );
    }
}
