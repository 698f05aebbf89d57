//! The editor hand-off's terminal side: runs the operator's editor on a private temp file with
//! the terminal inherited, and reads the result back. What an edit is for, and who gets its
//! result, is the view's business (`view::editor`); here an edit is only text, a file suffix
//! and a label for the trace.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The editor to run: a shell command line (like git, `VISUAL`/`EDITOR` may carry arguments,
/// e.g. `code --wait`), run as `sh -c '<command> "$1"' sh <file>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorCommand(pub String);

impl EditorCommand {
    /// `VISUAL`, then `EDITOR`, then `vi`; an empty or blank variable counts as unset.
    pub fn from_env() -> Self {
        Self::choose(|name| std::env::var(name).ok())
    }

    /// The choice over any variable lookup (tests pass their own).
    pub fn choose(lookup: impl Fn(&str) -> Option<String>) -> Self {
        ["VISUAL", "EDITOR"]
            .into_iter()
            .filter_map(lookup)
            .find(|value| !value.trim().is_empty())
            .map(Self)
            .unwrap_or_else(|| Self("vi".into()))
    }
}

/// Why an edit never opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// `Esc` before the editor opened (H-2).
    Escaped,
    /// The operator moved to another surface before the editor opened (H-2).
    Moved,
    /// Another edit is open or opening: one terminal, one editor.
    Busy,
}

/// What came back from the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOutcome {
    /// Saved with a change.
    Edited(String),
    /// Saved (or quit) with the text exactly as it was opened.
    Unchanged,
    /// The editor exited non-zero (`:cq`): nothing is applied. `text` is what the file held
    /// then, when it differs from what was opened (kept as a draft, never submitted).
    Aborted {
        status: Option<i32>,
        text: Option<String>,
    },
    /// The file is not UTF-8 text.
    NotText,
    /// The editor could not be started or the temp file not written or read.
    Failed(String),
    /// No terminal to hand over (the reader could not be parked, or no terminal at all).
    NoTerminal,
    Cancelled(CancelReason),
}

impl EditOutcome {
    /// The text to apply, only for a saved change.
    pub fn edited_text(&self) -> Option<&str> {
        match self {
            Self::Edited(text) => Some(text),
            _ => None,
        }
    }
}

impl fmt::Display for EditOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Edited(_) => f.write_str("edited"),
            Self::Unchanged => f.write_str("unchanged: nothing to save"),
            Self::Aborted { status, .. } => match status {
                Some(code) => write!(f, "editor exited with status {code}: nothing applied"),
                None => f.write_str("editor ended by a signal: nothing applied"),
            },
            Self::NotText => f.write_str("not saved: the file is not UTF-8 text"),
            Self::Failed(why) => write!(f, "editor failed: {why}"),
            Self::NoTerminal => f.write_str("no terminal to hand to the editor"),
            Self::Cancelled(CancelReason::Escaped) => f.write_str("edit cancelled (Esc)"),
            Self::Cancelled(CancelReason::Moved) => {
                f.write_str("edit cancelled: left the surface before the editor opened")
            }
            Self::Cancelled(CancelReason::Busy) => f.write_str("another edit is open"),
        }
    }
}

/// A fresh private file for one edit: `create_new` with mode 0600 in the temp directory.
fn temp_path(suffix: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // The suffix is ours (a constant), but keep it to a file-name-safe shape anyway.
    let suffix: String = suffix
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
        .take(16)
        .collect();
    std::env::temp_dir().join(format!("masc-tui-{}-{n}{suffix}", std::process::id()))
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// Removes the temp file when the edit ends, however it ends.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_file(&self.0)
            && err.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(target: "masc_tui::editor", error = %err, "temp file not removed");
        }
    }
}

/// Writes `text` to a private temp file named with `suffix`, runs `editor` on it with the
/// terminal inherited, waits for it and reads the file back. `label` names the edit in the
/// trace. The caller has handed the terminal over.
pub async fn run_editor(
    text: &str,
    suffix: &str,
    label: &str,
    editor: &EditorCommand,
) -> EditOutcome {
    let opened = text;
    let path = temp_path(suffix);
    if let Err(err) = write_private(&path, opened) {
        return EditOutcome::Failed(format!("temp file: {err}"));
    }
    let file = TempFile(path);
    let started = std::time::Instant::now();
    let status = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{} \"$1\"", editor.0))
        .arg("sh")
        .arg(&file.0)
        .kill_on_drop(true)
        .status()
        .await;
    let status = match status {
        Ok(status) => status,
        Err(err) => return EditOutcome::Failed(format!("could not start the editor: {err}")),
    };
    tracing::info!(
        target: "masc_tui::editor",
        purpose = label,
        status = ?status.code(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "editor exited"
    );
    let bytes = match std::fs::read(&file.0) {
        Ok(bytes) => bytes,
        // An editor that deleted or renamed the file and exited 0: nothing to read back.
        Err(err) => return EditOutcome::Failed(format!("reading the edited file: {err}")),
    };
    let text = String::from_utf8(bytes);
    // `sh` says 127 (not found) or 126 (not executable) when the editor never ran.
    if matches!(status.code(), Some(126 | 127)) && text.as_deref().ok() == Some(opened) {
        return EditOutcome::Failed(format!(
            "could not run `{}` (exit {}): set VISUAL or EDITOR",
            crate::view::text::sanitize(&editor.0),
            status.code().unwrap_or_default()
        ));
    }
    if !status.success() {
        let text = text.ok().filter(|t| t.as_str() != opened);
        return EditOutcome::Aborted {
            status: status.code(),
            text,
        };
    }
    match text {
        Err(_) => EditOutcome::NotText,
        Ok(text) if text == opened => EditOutcome::Unchanged,
        Ok(text) => EditOutcome::Edited(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `editor` on `text` as a Markdown edit.
    async fn edit(text: &str, editor: &EditorCommand) -> EditOutcome {
        run_editor(text, ".md", "board post", editor).await
    }

    /// A scripted editor: a shell command line run on the file (`$1`).
    fn script(body: &str) -> EditorCommand {
        EditorCommand(format!("sh -c '{body}' editor"))
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn visual_wins_over_editor_and_vi_is_the_last_resort() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            EditorCommand::choose(env(&[("VISUAL", "nvim"), ("EDITOR", "nano")])).0,
            "nvim"
        );
        assert_eq!(
            EditorCommand::choose(env(&[("VISUAL", "  "), ("EDITOR", "nano")])).0,
            "nano"
        );
        assert_eq!(EditorCommand::choose(env(&[])).0, "vi");
    }

    #[test]
    fn a_saved_change_comes_back_as_edited_text() {
        let out = block_on(edit("old\n", &script("printf \"new 한글 ✓\\n\" > \"$1\"")));
        assert_eq!(out, EditOutcome::Edited("new 한글 ✓\n".into()));
    }

    #[test]
    fn an_editor_that_changes_nothing_is_unchanged() {
        let out = block_on(edit("same\n", &script("true")));
        assert_eq!(out, EditOutcome::Unchanged);
    }

    #[test]
    fn a_non_zero_exit_is_aborted_and_keeps_what_was_written() {
        let out = block_on(edit("a", &script("printf b > \"$1\"; exit 3")));
        assert_eq!(
            out,
            EditOutcome::Aborted {
                status: Some(3),
                text: Some("b".into())
            }
        );
        let out = block_on(edit("a", &script("exit 1")));
        assert_eq!(
            out,
            EditOutcome::Aborted {
                status: Some(1),
                text: None
            }
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_not_text() {
        let out = block_on(edit("a", &script("printf \"\\377\\376\" > \"$1\"")));
        assert_eq!(out, EditOutcome::NotText);
    }

    #[test]
    fn the_file_is_private_and_removed_afterwards() {
        // The scripted editor records the file's mode and path for the test to check.
        let probe = std::env::temp_dir().join(format!("masc-tui-probe-{}", std::process::id()));
        let probe_s = probe.display().to_string();
        let out = block_on(edit(
            "secret",
            &script(&format!(
                "stat -c %a \"$1\" > {probe_s}; echo \"$1\" >> {probe_s}"
            )),
        ));
        assert_eq!(out, EditOutcome::Unchanged);
        let seen = std::fs::read_to_string(&probe).expect("probe written");
        let _ = std::fs::remove_file(&probe);
        let mut lines = seen.lines();
        assert_eq!(lines.next(), Some("600"));
        let path = lines.next().expect("path recorded");
        assert!(path.ends_with(".md"), "{path}");
        assert!(!Path::new(path).exists(), "temp file removed");
    }

    #[test]
    fn an_editor_that_cannot_start_is_a_failure_not_an_edit() {
        let out = block_on(edit(
            "a",
            &EditorCommand("/nonexistent/editor-binary".into()),
        ));
        // sh runs and reports 127: the editor never ran.
        assert!(
            matches!(&out, EditOutcome::Failed(why) if why.contains("127")),
            "{out:?}"
        );
    }
}
