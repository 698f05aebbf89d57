//! The model and account forms' edits of `runtime.toml` (protocol.md §9.4 "Runtime form":
//! the client edits `source_text` from §9.2, previews the exact text with §9.3 and commits it
//! through §9.4 with the revision the form was opened on).
//!
//! An edit is a span-precise change of the opened text — the rest of the file (comments,
//! order, spacing) is kept byte for byte. The text is parsed only to find where to change it;
//! whether the result is a valid runtime config is the server preview's judgement, never a
//! local one (J-5: no local parser stands in for the server).

use serde::{Deserialize, Serialize};
use std::ops::Range;
use toml_edit::{Document, Item, Table};

/// One form edit (surfaces.md System / Config and Runtime: `Enter` edit a parameter, `x`
/// restore a default or clear an override, `a` add an account).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum FormEdit {
    /// Set a model's `max_context_override`.
    SetContextOverride { runtime_id: String, value: u64 },
    /// Clear a model's `max_context_override` (back to the model's own context).
    ClearContextOverride { runtime_id: String },
    /// Add an `[[accounts]]` entry.
    AddAccount {
        integration_id: String,
        group: Option<String>,
        email: Option<String>,
    },
}

impl FormEdit {
    /// What it changes, for the outbox and traces (identifiers only, G-10).
    pub fn target(&self) -> String {
        match self {
            Self::SetContextOverride { runtime_id, .. }
            | Self::ClearContextOverride { runtime_id } => format!("model:{runtime_id}"),
            Self::AddAccount { integration_id, .. } => format!("account:{integration_id}"),
        }
    }
}

/// Why an edit could not be made on the opened text (nothing is sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormEditError {
    #[error("the opened runtime.toml does not parse: {0}")]
    Unparsable(String),
    #[error("model {0} is not in the opened runtime.toml")]
    NoSuchModel(String),
    #[error("model {0} is listed more than once")]
    DuplicateModel(String),
    #[error("account {0} already exists")]
    AccountExists(String),
    #[error("the integration id is empty")]
    EmptyIntegrationId,
    #[error("the edit has no position in the opened text")]
    NoSpan,
}

/// What an edit does to the opened text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edited {
    /// The new text to preview and commit.
    Changed(String),
    /// The text already says this: nothing to send.
    Unchanged,
}

/// A TOML basic string (quotes, escapes for `"`, `\` and control characters).
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn models<'a>(doc: &'a Document<&str>) -> Vec<&'a Table> {
    doc.as_table()
        .get("models")
        .and_then(Item::as_array_of_tables)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

fn the_model<'a>(doc: &'a Document<&str>, runtime_id: &str) -> Result<&'a Table, FormEditError> {
    let found: Vec<&Table> = models(doc)
        .into_iter()
        .filter(|t| t.get("runtime_id").and_then(Item::as_str) == Some(runtime_id))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(FormEditError::NoSuchModel(runtime_id.to_string())),
        _ => Err(FormEditError::DuplicateModel(runtime_id.to_string())),
    }
}

/// The whole line(s) around `span`: from the start of its first line to after its last
/// newline.
fn line_range(text: &str, span: &Range<usize>) -> Range<usize> {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i + 1);
    start..end
}

fn replace(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The model's own window in `text`: its `max_context` (the bound a context override must stay
/// within); `None` when the text does not parse, the model is not there once, or it has none.
pub fn model_window(text: &str, runtime_id: &str) -> Option<u64> {
    model_number(text, runtime_id, "max_context")
}

/// The model's `max_context_override` in `text` (`None` when it has none, or it is not there).
pub fn context_override(text: &str, runtime_id: &str) -> Option<u64> {
    model_number(text, runtime_id, "max_context_override")
}

fn model_number(text: &str, runtime_id: &str, key: &str) -> Option<u64> {
    let doc = Document::parse(text).ok()?;
    let model = the_model(&doc, runtime_id).ok()?;
    model
        .get(key)
        .and_then(Item::as_integer)
        .and_then(|i| u64::try_from(i).ok())
}

/// Applies `edit` to `text` (the text the form was opened on).
pub fn apply(text: &str, edit: &FormEdit) -> Result<Edited, FormEditError> {
    let doc = Document::parse(text).map_err(|e| FormEditError::Unparsable(e.message().into()))?;
    match edit {
        FormEdit::SetContextOverride { runtime_id, value } => {
            let model = the_model(&doc, runtime_id)?;
            match model.get("max_context_override") {
                Some(item) => {
                    if item.as_integer() == Some(*value as i64) {
                        return Ok(Edited::Unchanged);
                    }
                    let span = item.span().ok_or(FormEditError::NoSpan)?;
                    Ok(Edited::Changed(replace(text, span, &value.to_string())))
                }
                None => {
                    // A new line right after the model's `runtime_id` line.
                    let id_span = model
                        .get("runtime_id")
                        .and_then(Item::span)
                        .ok_or(FormEditError::NoSpan)?;
                    let line = line_range(text, &id_span);
                    let newline = if text[..line.end].ends_with('\n') {
                        ""
                    } else {
                        "\n"
                    };
                    let insert = format!("{newline}max_context_override = {value}\n");
                    Ok(Edited::Changed(replace(text, line.end..line.end, &insert)))
                }
            }
        }
        FormEdit::ClearContextOverride { runtime_id } => {
            let model = the_model(&doc, runtime_id)?;
            let Some((key, _)) = model.get_key_value("max_context_override") else {
                return Ok(Edited::Unchanged);
            };
            let key_span = key.span().ok_or(FormEditError::NoSpan)?;
            let value_span = model
                .get("max_context_override")
                .and_then(Item::span)
                .ok_or(FormEditError::NoSpan)?;
            let line = line_range(text, &(key_span.start..value_span.end));
            Ok(Edited::Changed(replace(text, line, "")))
        }
        FormEdit::AddAccount {
            integration_id,
            group,
            email,
        } => {
            if integration_id.trim().is_empty() {
                return Err(FormEditError::EmptyIntegrationId);
            }
            let exists = doc
                .as_table()
                .get("accounts")
                .and_then(Item::as_array_of_tables)
                .is_some_and(|a| {
                    a.iter().any(|t| {
                        t.get("integration_id").and_then(Item::as_str)
                            == Some(integration_id.as_str())
                    })
                });
            if exists {
                return Err(FormEditError::AccountExists(integration_id.clone()));
            }
            let mut block = String::new();
            if !text.is_empty() && !text.ends_with('\n') {
                block.push('\n');
            }
            block.push_str("\n[[accounts]]\n");
            block.push_str(&format!(
                "integration_id = {}\n",
                toml_string(integration_id)
            ));
            if let Some(g) = group.as_deref().filter(|g| !g.trim().is_empty()) {
                block.push_str(&format!("group = {}\n", toml_string(g)));
            }
            if let Some(e) = email.as_deref().filter(|e| !e.trim().is_empty()) {
                block.push_str(&format!("email = {}\n", toml_string(e)));
            }
            Ok(Edited::Changed(format!("{text}{block}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# ops runtime\n[runtime]\ndefault = \"a.x\"\n\n[[models]]\nruntime_id = \"a.x\" # main\nmax_context = 1000\n\n[[models]]\nruntime_id = \"a.xl\"\nmax_context_override = 500\nmax_context = 2000\n";

    fn changed(e: Result<Edited, FormEditError>) -> String {
        match e {
            Ok(Edited::Changed(t)) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_models_window_is_its_max_context() {
        assert_eq!(model_window(TEXT, "a.x"), Some(1000));
        assert_eq!(model_window(TEXT, "a.xl"), Some(2000));
        assert_eq!(model_window(TEXT, "b.y"), None);
        assert_eq!(model_window("not = [toml", "a.x"), None);
        assert_eq!(context_override(TEXT, "a.xl"), Some(500));
        assert_eq!(context_override(TEXT, "a.x"), None);
    }

    #[test]
    fn set_inserts_after_the_exact_models_id_and_keeps_the_rest() {
        let t = changed(apply(
            TEXT,
            &FormEdit::SetContextOverride {
                runtime_id: "a.x".into(),
                value: 800,
            },
        ));
        assert!(
            t.contains(
                "runtime_id = \"a.x\" # main\nmax_context_override = 800\nmax_context = 1000"
            ),
            "{t}"
        );
        // The other model (whose id has a.x as a prefix) is untouched; so is the comment.
        assert!(t.contains("runtime_id = \"a.xl\"\nmax_context_override = 500\n"));
        assert!(t.starts_with("# ops runtime\n"));
    }

    #[test]
    fn set_replaces_an_existing_value_and_an_equal_value_is_unchanged() {
        let t = changed(apply(
            TEXT,
            &FormEdit::SetContextOverride {
                runtime_id: "a.xl".into(),
                value: 700,
            },
        ));
        assert!(t.contains("max_context_override = 700\n"));
        assert!(!t.contains("= 500"));
        assert_eq!(
            apply(
                TEXT,
                &FormEdit::SetContextOverride {
                    runtime_id: "a.xl".into(),
                    value: 500
                }
            ),
            Ok(Edited::Unchanged)
        );
    }

    #[test]
    fn clear_removes_only_that_line_and_a_missing_override_is_unchanged() {
        let t = changed(apply(
            TEXT,
            &FormEdit::ClearContextOverride {
                runtime_id: "a.xl".into(),
            },
        ));
        assert_eq!(t, TEXT.replace("max_context_override = 500\n", ""));
        assert_eq!(
            apply(
                TEXT,
                &FormEdit::ClearContextOverride {
                    runtime_id: "a.x".into()
                }
            ),
            Ok(Edited::Unchanged)
        );
    }

    #[test]
    fn add_account_appends_an_escaped_block_and_refuses_a_duplicate() {
        let t = changed(apply(
            TEXT,
            &FormEdit::AddAccount {
                integration_id: "team \"b\"".into(),
                group: Some("g".into()),
                email: None,
            },
        ));
        assert!(
            t.ends_with("\n[[accounts]]\nintegration_id = \"team \\\"b\\\"\"\ngroup = \"g\"\n"),
            "{t}"
        );
        assert_eq!(
            apply(
                &t,
                &FormEdit::AddAccount {
                    integration_id: "team \"b\"".into(),
                    group: None,
                    email: None
                }
            ),
            Err(FormEditError::AccountExists("team \"b\"".into()))
        );
    }

    #[test]
    fn unknown_or_duplicate_models_and_unparsable_text_are_refused() {
        let set = |id: &str| FormEdit::SetContextOverride {
            runtime_id: id.into(),
            value: 1,
        };
        assert_eq!(
            apply(TEXT, &set("a")),
            Err(FormEditError::NoSuchModel("a".into()))
        );
        let twice = format!("{TEXT}\n[[models]]\nruntime_id = \"a.x\"\n");
        assert_eq!(
            apply(&twice, &set("a.x")),
            Err(FormEditError::DuplicateModel("a.x".into()))
        );
        assert!(matches!(
            apply("[[models]\n", &set("a.x")),
            Err(FormEditError::Unparsable(_))
        ));
    }
}
