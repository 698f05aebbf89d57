//! Records the commit the binary is built from for `masc-tui --version`
//! (`MASC_TUI_BUILD_COMMIT`): `git rev-parse` in this package's own work tree, or `unknown`
//! when there is none (a source tarball) or git is missing. `MASC_TUI_BUILD_COMMIT` set in the
//! environment wins (a packager building outside git).
//!
//! Cargo re-runs this script only when HEAD or the ref it points to moves (the files git
//! rewrites on a commit, a checkout or a rebase), never on a source edit: a re-run rebuilds the
//! whole package, so it must not happen more often than the commit really changes.

use std::path::{Path, PathBuf};
use std::process::Command;

const COMMIT_VAR: &str = "MASC_TUI_BUILD_COMMIT";

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={COMMIT_VAR}");
    if let Some(given) = std::env::var(COMMIT_VAR)
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        println!("cargo:rustc-env={COMMIT_VAR}={}", given.trim());
        return;
    }
    let Some(manifest_dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        println!("cargo:rustc-env={COMMIT_VAR}=unknown");
        return;
    };
    println!("cargo:rustc-env={COMMIT_VAR}={}", commit(&manifest_dir));
}

/// The short commit of this package's work tree (and, as `rerun-if-changed` lines, the files
/// whose change moves it); `unknown` outside a work tree of its own.
fn commit(manifest_dir: &Path) -> String {
    // A package unpacked inside some other repository must not report that repository's
    // commit: the work tree's top must be this package's directory.
    let top = git(manifest_dir, &["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let same_tree = match (
        top.as_deref().map(Path::canonicalize),
        manifest_dir.canonicalize(),
    ) {
        (Some(Ok(top)), Ok(dir)) => top == dir,
        _ => false,
    };
    if !same_tree {
        return "unknown".into();
    }
    let path_of = |name: &str| {
        git(manifest_dir, &["rev-parse", "--git-path", name]).map(|p| {
            let p = PathBuf::from(p);
            if p.is_absolute() {
                p
            } else {
                manifest_dir.join(p)
            }
        })
    };
    // HEAD moves by a checkout; HEAD's reflog (this work tree's own) gains a line on every
    // commit, checkout, reset and rebase; the branch's loose ref is rewritten on each commit.
    // packed-refs is watched only when neither exists (it is shared by every work tree, so a
    // change there rebuilds them all).
    let branch_ref = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"]);
    let mut watched: Vec<PathBuf> = [Some("HEAD"), Some("logs/HEAD"), branch_ref.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(path_of)
        .filter(|p| p.exists())
        .collect();
    if watched.len() < 2
        && let Some(packed) = path_of("packed-refs").filter(|p| p.exists())
    {
        watched.push(packed);
    }
    for path in watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    git(manifest_dir, &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into())
}
