//! The terminal room: everything that speaks to the terminal and knows nothing of MASC —
//! bytes in (`tty_input`), cells and frames out (`cells`, `cell_copy`, `damage`, `presenter`),
//! when a frame may be painted (`schedule`), the clipboard escape (`clipboard`), the terminal's
//! modes and their hand-over (`modes`), the ending signals (`signals`) and the editor hand-off's
//! terminal side (`editor`).
//!
//! The room imports no model, no actor, no protocol type and no screen: from the crate it uses
//! only its own modules, `view::text` (cell widths, the sanitiser) and `crate::sanitize`. What
//! joins it to the view actor lives outside (`view::terminal_link`), so the room can be tested
//! and reused with no workspace behind it. `tests::the_room_imports_no_model` holds this.

pub mod cell_copy;
pub mod cells;
pub mod clipboard;
pub mod damage;
pub mod editor;
pub mod modes;
pub mod presenter;
pub mod schedule;
pub mod signals;
pub mod tty_input;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// What the room may name from the rest of the crate.
    const ALLOWED: &[&str] = &[
        "crate::view::terminal",
        "crate::view::text",
        "crate::sanitize",
    ];

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).expect("the room's folder is readable");
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                out.push(path);
            }
        }
    }

    /// Every `crate::…` path a source names (in `use` lines and inline), comments included:
    /// a doc link to a model is a dependency of the reader's too.
    fn crate_paths(source: &str) -> Vec<String> {
        let mut paths = Vec::new();
        let mut rest = source;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            paths.push(tail[..end].trim_end_matches(':').to_string());
            rest = &tail[end..];
        }
        paths
    }

    /// How many modules below the room's own `mod.rs` a file's module sits.
    fn module_depth(room: &Path, file: &Path) -> usize {
        let relative = file.strip_prefix(room).expect("a file inside the room");
        let folders = relative.components().count() - 1;
        if file.file_name().is_some_and(|name| name == "mod.rs") {
            folders
        } else {
            folders + 1
        }
    }

    #[test]
    fn the_room_imports_no_model() {
        let room = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/view/terminal");
        let mut files = Vec::new();
        rust_files(&room, &mut files);
        assert!(files.len() >= 10, "the room's files are found: {files:?}");
        let mut outside = Vec::new();
        for file in &files {
            let whole = std::fs::read_to_string(file).expect("a room file is readable");
            // This checker names what it looks for; the rest of every file counts, its tests
            // included.
            let source = if *file == room.join("mod.rs") {
                whole.split("#[cfg(test)]").next().unwrap_or_default()
            } else {
                whole.as_str()
            };
            for path in crate_paths(source) {
                let allowed = ALLOWED
                    .iter()
                    .any(|ok| path == *ok || path.starts_with(&format!("{ok}::")));
                if !allowed {
                    outside.push(format!("{}: {path}", file.display()));
                }
            }
            // A relative path out of the room counts as well: from a file `depth` modules
            // below the room, `super::` repeated `depth + 1` times leaves it (an inline test
            // module makes this stricter, never looser).
            let escape = "super::".repeat(module_depth(&room, file) + 1);
            for line in source.lines() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                if code.contains(&escape) {
                    outside.push(format!("{}: {code}", file.display()));
                }
            }
        }
        assert!(outside.is_empty(), "the terminal room names: {outside:#?}");
    }

    #[test]
    fn a_model_import_is_caught() {
        // Built at run time, so this file itself names no model.
        let model = format!("{}::view::model::Model", "crate");
        let source = format!("use {model};\nuse crate::view::text::x;");
        assert_eq!(
            crate_paths(&source),
            [model.as_str(), "crate::view::text::x"]
        );
        assert!(crate_paths("no paths here").is_empty());
        let room = Path::new("/r");
        assert_eq!(module_depth(room, Path::new("/r/mod.rs")), 0);
        assert_eq!(module_depth(room, Path::new("/r/cells.rs")), 1);
        assert_eq!(module_depth(room, Path::new("/r/tty_input/mod.rs")), 1);
        assert_eq!(
            module_depth(room, Path::new("/r/tty_input/parse/keys.rs")),
            3
        );
    }
}
