//! The stage before a commit: what a save will change ([`Preview`]), made by its kind's
//! companion from the model's current value ([`super::SaveCompanion::preview`]) and shown in the
//! confirmation layer (`screens::confirm`). Nothing is registered or sent while it is shown; the
//! confirming key submits the same request again, marked confirmed.

use super::diff::{self, DiffLine};
use crate::view::text::sanitize;

/// One field a save changes: its value now, as the model shows it, and the value sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub field: String,
    /// `None`: the model holds no value for it (not read, or not reported by this server).
    pub old: Option<String>,
    pub new: String,
}

impl Change {
    pub fn new(field: impl Into<String>, old: Option<String>, new: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            old,
            new: new.into(),
        }
    }

    /// `field: old → new` (sanitised; an unread old value says so).
    pub fn words(&self) -> String {
        let old = self
            .old
            .as_deref()
            .map_or_else(|| "(not read)".to_string(), |o| sanitize(o).into_owned());
        format!("{}: {old} → {}", sanitize(&self.field), sanitize(&self.new))
    }

    /// Whether the value sent is the value shown now.
    pub fn unchanged(&self) -> bool {
        self.old.as_deref() == Some(self.new.as_str())
    }
}

/// What a save will change, shown before it is committed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    /// What is asked, in a few words (`pause alpha`, `save runtime.toml`).
    pub title: String,
    /// Each field it changes, old → new.
    pub changes: Vec<Change>,
    /// What it removes for good, each named (a deleted Keeper's files, the bindings unbound).
    pub removes: Vec<String>,
    /// A file it rewrites: the unified diff from the text it was opened on.
    pub diff: Vec<DiffLine>,
    /// What else the operator should know before committing (no undo, what the server checks).
    pub notes: Vec<String>,
}

impl Preview {
    pub fn titled(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Self::default()
        }
    }

    pub fn change(mut self, change: Change) -> Self {
        self.changes.push(change);
        self
    }

    pub fn removes(mut self, what: impl Into<String>) -> Self {
        self.removes.push(what.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// With the unified diff of a file `old` → `new`, and its line counts as a note.
    pub fn file(mut self, name: &str, old: &str, new: &str) -> Self {
        self.diff = diff::unified(old, new);
        let (removed, added) = diff::counts(old, new);
        self.notes.push(if self.diff.is_empty() {
            format!("{}: no line changes", sanitize(name))
        } else {
            format!("{}: -{removed} +{added} lines", sanitize(name))
        });
        self
    }

    /// The preview as plain rows, before wrapping: changes, removals, notes, then the diff.
    pub fn rows(&self) -> Vec<PreviewRow> {
        let mut rows: Vec<PreviewRow> = self
            .changes
            .iter()
            .map(|c| PreviewRow::Change(c.words()))
            .collect();
        if !self.removes.is_empty() {
            rows.push(PreviewRow::Heading("removes, for good:".into()));
            rows.extend(
                self.removes
                    .iter()
                    .map(|r| PreviewRow::Removed(format!("- {}", sanitize(r)))),
            );
        }
        rows.extend(
            self.notes
                .iter()
                .map(|n| PreviewRow::Note(sanitize(n).into_owned())),
        );
        rows.extend(self.diff.iter().map(|d| {
            let text = sanitize(&d.text()).into_owned();
            match d {
                DiffLine::Hunk(_) => PreviewRow::Heading(text),
                DiffLine::Same(_) => PreviewRow::Note(text),
                DiffLine::Removed(_) => PreviewRow::Removed(text),
                DiffLine::Added(_) => PreviewRow::Added(text),
            }
        }));
        rows
    }

    /// Everything the preview says, one string (tests and the trace).
    pub fn text(&self) -> String {
        let mut out = sanitize(&self.title).into_owned();
        for row in self.rows() {
            out.push('\n');
            out.push_str(row.text());
        }
        out
    }
}

/// One row of a preview, by what it says (its tone on screen).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewRow {
    Change(String),
    Heading(String),
    Removed(String),
    Added(String),
    Note(String),
}

impl PreviewRow {
    pub fn text(&self) -> &str {
        match self {
            Self::Change(t)
            | Self::Heading(t)
            | Self::Removed(t)
            | Self::Added(t)
            | Self::Note(t) => t,
        }
    }
}

/// A value as a preview shows it: `(none)` for an absent one.
pub fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "(none)".to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_says_old_and_new_and_an_unread_old_value_says_so() {
        let c = Change::new("max_context_override", Some("160000".into()), "150000");
        assert_eq!(c.words(), "max_context_override: 160000 → 150000");
        assert!(!c.unchanged());
        let c = Change::new("paused", None, "yes");
        assert_eq!(c.words(), "paused: (not read) → yes");
    }

    #[test]
    fn a_file_preview_holds_its_diff_and_counts() {
        let p = Preview::titled("save runtime.toml").file("runtime.toml", "a\nb\n", "a\nc\n");
        let text = p.text();
        assert!(text.contains("runtime.toml: -1 +1 lines"), "{text}");
        assert!(text.contains("-b") && text.contains("+c"), "{text}");
    }

    #[test]
    fn server_text_in_a_preview_is_sanitised() {
        let p = Preview::titled("t").change(Change::new("instructions", None, "a\u{1b}[2Jb"));
        assert!(!p.text().contains('\u{1b}'));
    }
}
