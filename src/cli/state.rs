//! The state directory a TUI session claims before it starts: where its outbox is, and the
//! lock that makes that outbox this process's alone (`outbox::InstanceLock`).

use crate::outbox::{InstanceLock, InstanceLockError, OUTBOX_FILE, OutboxLocation};
use std::path::{Path, PathBuf};

/// The exit code of a session refused because another masc-tui holds its state directory.
pub const EXIT_STATE_DIR_IN_USE: i32 = 4;

/// Another masc-tui holds the state directory: the refusal the binary edge prints (with what
/// to do) and ends with [`EXIT_STATE_DIR_IN_USE`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{0}. Quit that session, give this one its own state directory: --state-dir DIR (or \
     MASC_TUI_STATE_DIR=DIR), or look without saving: --read-only"
)]
pub struct StateDirInUse(pub InstanceLockError);

/// The claimed state directory, held for the session's life.
#[derive(Debug)]
pub struct ClaimedState {
    /// The outbox the runtime opens (resolved once: the lock and the outbox are one file pair).
    pub outbox: OutboxLocation,
    /// The directory the outbox is in.
    pub dir: Option<PathBuf>,
    /// `None` when the lock could not be taken for a reason other than another holder (no
    /// state directory at all, an unwritable one); `unlocked` says why.
    _lock: Option<InstanceLock>,
    /// Why the session runs without the lock (traced once tracing is up).
    pub unlocked: Option<String>,
    /// A temporary state directory (a `demo` without `--data`), removed when dropped.
    _temp: Option<tempfile::TempDir>,
    /// `--read-only` on a directory another masc-tui holds: what the banner says (no outbox,
    /// no saves).
    pub read_only: Option<String>,
}

/// Claims `dir` (or, with none, `$XDG_STATE_HOME/masc-tui`, else `~/.local/state/masc-tui`).
/// Another holder refuses the session ([`StateDirInUse`]); a directory that cannot be made or
/// locked at all leaves the session to run, its outbox unavailable (every write then refused
/// as "not sent"), with the reason in `unlocked`.
pub fn claim(dir: Option<&Path>) -> Result<ClaimedState, StateDirInUse> {
    claim_as(dir, false)
}

/// [`claim`]; with `read_only`, a directory another masc-tui holds gives a read-only session
/// instead of a refusal: no outbox is opened (the holder's saves are never read as an earlier
/// run's), every write is refused before it leaves, and a banner says so.
pub fn claim_as(dir: Option<&Path>, read_only: bool) -> Result<ClaimedState, StateDirInUse> {
    let outbox = match dir {
        Some(dir) => Ok(dir.join(OUTBOX_FILE)),
        None => OutboxLocation::StateDir.resolve(),
    };
    let path = match outbox {
        Ok(path) => path,
        Err(err) => {
            return Ok(ClaimedState {
                outbox: OutboxLocation::StateDir,
                dir: None,
                _lock: None,
                unlocked: Some(err.to_string()),
                _temp: None,
                read_only: None,
            });
        }
    };
    let state_dir = path.parent().map(Path::to_path_buf);
    let (lock, unlocked) = match InstanceLock::acquire(&path) {
        Ok(lock) => (Some(lock), None),
        Err(held @ InstanceLockError::Held { .. }) if read_only => {
            let InstanceLockError::Held { holder, .. } = &held else {
                return Err(StateDirInUse(held));
            };
            let holder =
                holder.map_or_else(|| "another masc-tui".to_string(), |p| format!("pid {p}"));
            return Ok(ClaimedState {
                outbox: OutboxLocation::ReadOnly,
                dir: state_dir,
                _lock: None,
                unlocked: None,
                _temp: None,
                read_only: Some(format!(
                    "READ-ONLY: {holder} holds this state directory · no saves"
                )),
            });
        }
        Err(held @ InstanceLockError::Held { .. }) => return Err(StateDirInUse(held)),
        Err(other) => (None, Some(other.to_string())),
    };
    Ok(ClaimedState {
        outbox: OutboxLocation::File(path),
        dir: state_dir,
        _lock: lock,
        unlocked,
        _temp: None,
        read_only: None,
    })
}

/// A state directory of its own for a throwaway session (`demo` without `--data`): its outbox
/// would only hold saves for a workspace removed at exit, so it is removed with it.
pub fn claim_temporary() -> anyhow::Result<ClaimedState> {
    use anyhow::Context as _;
    let temp = tempfile::Builder::new()
        .prefix("masc-tui-state-")
        .tempdir()
        .context("creating a temporary state directory")?;
    let mut claimed = claim(Some(temp.path()))?;
    claimed._temp = Some(temp);
    Ok(claimed)
}

impl ClaimedState {
    /// Traces why the session runs without the lock, if it does (call once tracing is up).
    pub fn trace_unlocked(&self) {
        if let Some(reason) = &self.unlocked {
            tracing::warn!(
                target: "masc_tui::outbox",
                reason = %reason,
                "state directory not locked: this session's outbox may be unavailable"
            );
        }
    }

    /// The trace file: `--trace-file`, else `trace-<pid>.jsonl` in an explicitly chosen state
    /// directory, else `None` (the tracing layer's default under `$XDG_STATE_HOME`).
    pub fn trace_file(explicit: Option<&Path>, state_dir: Option<&Path>) -> Option<PathBuf> {
        explicit.map(Path::to_path_buf).or_else(|| {
            state_dir.map(|dir| dir.join(format!("trace-{}.jsonl", std::process::id())))
        })
    }
}

/// The exit code an error ends the process with: [`EXIT_STATE_DIR_IN_USE`] for a refused
/// state directory, else 2 (usage or start-up error).
pub fn exit_code_of(err: &anyhow::Error) -> i32 {
    if err.downcast_ref::<StateDirInUse>().is_some() {
        EXIT_STATE_DIR_IN_USE
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_directory_refuses_a_second_claim_and_names_the_way_out() {
        let dir = tempfile::tempdir().unwrap();
        let first = claim(Some(dir.path())).unwrap();
        assert_eq!(
            first.outbox,
            OutboxLocation::File(dir.path().join(OUTBOX_FILE))
        );
        assert!(first.unlocked.is_none());
        let refused = claim(Some(dir.path())).unwrap_err();
        let text = refused.to_string();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("--state-dir DIR"), "{text}");
        assert_eq!(exit_code_of(&anyhow::Error::new(refused)), 4);
        assert_eq!(exit_code_of(&anyhow::anyhow!("bad flag")), 2);
        assert!(text.contains("--read-only"), "{text}");
        // Read-only: past the lock, with no outbox at all and the banner's words.
        let looking = claim_as(Some(dir.path()), true).unwrap();
        assert_eq!(looking.outbox, OutboxLocation::ReadOnly);
        assert!(looking.outbox.resolve().is_err(), "no outbox to open");
        let banner = looking.read_only.clone().unwrap();
        assert!(
            banner.contains(&format!("pid {}", std::process::id())),
            "{banner}"
        );
        drop(looking);
        assert!(
            claim(Some(dir.path())).is_err(),
            "the holder still holds it"
        );
        drop(first);
        assert!(claim(Some(dir.path())).is_ok(), "released with the holder");
        let free = claim_as(Some(dir.path()), true).unwrap();
        assert!(
            free.read_only.is_none(),
            "a free directory is claimed as usual"
        );
    }

    #[test]
    fn an_unusable_state_directory_runs_unlocked_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let claimed = claim(Some(&blocker.join("state"))).unwrap();
        assert!(claimed.unlocked.is_some());
    }

    #[test]
    fn a_temporary_state_directory_goes_with_the_claim() {
        let claimed = claim_temporary().unwrap();
        let dir = claimed.dir.clone().unwrap();
        assert!(dir.join("chat-outbox.sqlite3.lock").exists());
        drop(claimed);
        assert!(!dir.exists());
    }
}
