//! The declaration a new Keeper is created from (protocol.md §9.9; sources.md
//! H-14): a TOML file in `$EDITOR` with MASC's `/up` keys, parsed back strictly into the body of
//! the create-only POST. Required: `name`, `sandbox_profile`, `network_mode` (non-blank) and
//! `instructions`; the rest is optional and sent only when present. Unknown keys and wrong
//! types are refused by name (nothing is sent); the text is kept as the draft.

use super::settings_doc::{one_of, strings, top_level_values};
use crate::protocol::runtime::form::toml_string;
use serde_json::{Map, Value, json};

/// The file `a` opens when there is no draft.
pub fn template() -> String {
    "# masc-tui · a new keeper. Fill in, save and quit: it is created once (create-only: a name\n\
     # that exists is refused, never changed). Quitting with an error (:cq) sends nothing.\n\
     name = \"\"\n\
     sandbox_profile = \"docker\"  # docker | microvm | remote_ssh\n\
     network_mode = \"none\"  # none | inherit\n\
     instructions = \"\"\"\n\"\"\"\n\
     # Optional (uncomment to send):\n\
     # remote_endpoint = \"user@host:22\"  # required for remote_ssh\n\
     # mention_targets = [\"@name\"]\n\
     # max_context_override = 200000\n\
     # activation_mode = \"on_demand\"  # autonomous | on_demand | manual\n\
     # runtime_id = \"provider.model\"\n\
     # autoboot_enabled = true\n\
     # proactive_enabled = false\n\
     # sandbox_image = \"image:tag\"\n\
     # microvm_backend = \"backend\"\n"
        .to_string()
}

/// A declaration that parsed: the name and the body to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub name: String,
    pub body: Map<String, Value>,
}

fn text(key: &str, v: &toml_edit::Value) -> Result<String, String> {
    match v.as_str().map(str::trim) {
        Some(s) if !s.is_empty() => Ok(s.to_string()),
        _ => Err(format!("{key} must be a non-blank string")),
    }
}

fn parse_value(key: &str, v: &toml_edit::Value) -> Result<Value, String> {
    match key {
        "name" => {
            let name = text(key, v)?;
            if name.contains('/') || name.chars().count() > 64 || name.chars().any(char::is_control)
            {
                return Err(format!("name {} is not a keeper name", toml_string(&name)));
            }
            Ok(json!(name))
        }
        "sandbox_profile" => one_of(key, v, &["docker", "microvm", "remote_ssh"]),
        "network_mode" => one_of(key, v, &["none", "inherit"]),
        "activation_mode" => one_of(key, v, &["autonomous", "on_demand", "manual"]),
        "instructions" => v
            .as_str()
            .map(|s| json!(s))
            .ok_or_else(|| format!("{key} must be a string")),
        "remote_endpoint" | "sandbox_image" | "microvm_backend" | "runtime_id" => {
            text(key, v).map(Value::String)
        }
        "mention_targets" => strings(key, v).map(Value::Array),
        "max_context_override" => match v.as_integer() {
            Some(n) if n > 0 => Ok(json!(n)),
            _ => Err(format!("{key} must be a positive integer")),
        },
        "autoboot_enabled" | "proactive_enabled" => v
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| format!("{key} must be true or false")),
        _ => Err(format!("unknown key {key}")),
    }
}

/// Parses the returned file. `Err` names the first problem.
pub fn parse(text: &str) -> Result<Declaration, String> {
    let mut body = Map::new();
    for (key, value) in top_level_values(text)? {
        let parsed = parse_value(&key, &value)?;
        body.insert(key, parsed);
    }
    for key in ["name", "sandbox_profile", "network_mode", "instructions"] {
        if !body.contains_key(key) {
            return Err(format!("{key} is required"));
        }
    }
    if body.get("sandbox_profile") == Some(&json!("remote_ssh"))
        && !body.contains_key("remote_endpoint")
    {
        return Err("remote_ssh needs remote_endpoint".into());
    }
    let name = body
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Ok(Declaration { name, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_needs_a_name_and_a_filled_one_parses_h14_s9_9() {
        assert_eq!(
            parse(&template()).unwrap_err(),
            "name must be a non-blank string"
        );
        let filled = template()
            .replace("name = \"\"", "name = \"scout-2\"")
            .replace("# autoboot_enabled = true", "autoboot_enabled = true");
        let d = parse(&filled).unwrap();
        assert_eq!(d.name, "scout-2");
        assert_eq!(
            Value::Object(d.body),
            json!({"name":"scout-2","sandbox_profile":"docker","network_mode":"none",
                   "instructions":"","autoboot_enabled":true})
        );
    }

    #[test]
    fn unknown_keys_wrong_types_and_missing_fields_are_refused() {
        assert_eq!(
            parse("name = \"a\"\ncolour = 1\n").unwrap_err(),
            "unknown key colour"
        );
        assert!(parse("name = \"a/b\"\n").is_err());
        assert_eq!(
            parse("name = \"a\"\nsandbox_profile = \"docker\"\nnetwork_mode = \"none\"\n")
                .unwrap_err(),
            "instructions is required"
        );
        assert_eq!(
            parse("name = \"a\"\nsandbox_profile = \"remote_ssh\"\nnetwork_mode = \"inherit\"\ninstructions = \"x\"\n")
                .unwrap_err(),
            "remote_ssh needs remote_endpoint"
        );
    }
}
