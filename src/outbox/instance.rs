//! One masc-tui per outbox: an advisory lock (`flock`) on `<outbox>.lock`, held for the
//! process's life.
//!
//! The outbox tells this session's live saves from an earlier run's by its session id: a row
//! another session left unsettled is shown as "an earlier run stopped" with `R retry`. Two live
//! processes on one outbox would each take the other's in-flight saves for an orphan's and
//! offer to send them again, so the second process is refused before it touches the outbox.
//! The holder's pid is written into the lock file for the refusal message; the lock itself,
//! not the file's existence, decides (the kernel drops it when the holder exits, however it
//! exits, so a crashed session never leaves the directory locked).

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Why this process may not use the outbox.
#[derive(Debug, thiserror::Error)]
pub enum InstanceLockError {
    /// Another process holds the lock; `holder` is the pid it wrote (absent while it is still
    /// writing it, or when the file was written by something else).
    #[error(
        "{} is in use by another masc-tui ({}): its outbox holds that session's saves in flight, \
         and a second session would take them for an earlier run's",
        dir.display(),
        holder.map_or_else(|| "pid not known".to_string(), |pid| format!("pid {pid}"))
    )]
    Held {
        /// The state directory (the outbox's directory).
        dir: PathBuf,
        lock_file: PathBuf,
        holder: Option<u32>,
    },
    #[error("lock file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct InstanceLock {
    // Held open for the lock's life: closing the file releases the `flock`.
    _file: File,
    path: PathBuf,
}

/// The lock file that guards `outbox`: `<outbox>.lock` beside it.
pub fn lock_path(outbox: &Path) -> PathBuf {
    let mut name = outbox.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    outbox.with_file_name(name)
}

impl InstanceLock {
    /// Takes the lock guarding `outbox` without waiting, creating its directory and lock file
    /// (0600) as needed, and writes this process's pid into it.
    pub fn acquire(outbox: &Path) -> Result<Self, InstanceLockError> {
        let path = lock_path(outbox);
        let io = |source| InstanceLockError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        crate::private_file::ensure_private(&path).map_err(io)?;
        // Read and write without truncating on open: the holder's pid must survive a refused
        // opener.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let holder = file
                    .read_to_string(&mut text)
                    .ok()
                    .and_then(|_| text.trim().parse::<u32>().ok());
                return Err(InstanceLockError::Held {
                    dir: outbox.parent().unwrap_or(Path::new(".")).to_path_buf(),
                    lock_file: path,
                    holder,
                });
            }
            Err(std::fs::TryLockError::Error(source)) => return Err(io(source)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Self { _file: file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OUTBOX_FILE;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid_until_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = dir.path().join("state").join(OUTBOX_FILE);
        let first = InstanceLock::acquire(&outbox).unwrap();
        assert_eq!(
            first.path(),
            dir.path().join("state/chat-outbox.sqlite3.lock")
        );
        #[cfg(unix)]
        assert_eq!(crate::private_file::mode_of(first.path()).unwrap(), 0o600);
        // A second open file description is a second holder, as another process is.
        match InstanceLock::acquire(&outbox) {
            Err(InstanceLockError::Held { dir: d, holder, .. }) => {
                assert_eq!(holder, Some(std::process::id()));
                assert_eq!(d, dir.path().join("state"));
            }
            other => panic!("expected Held, got {other:?}"),
        }
        let text = std::fs::read_to_string(first.path()).unwrap();
        assert_eq!(text.trim(), std::process::id().to_string(), "pid kept");
        drop(first);
        let again = InstanceLock::acquire(&outbox).unwrap();
        drop(again);
    }

    #[test]
    fn a_holder_that_has_not_written_its_pid_yet_is_named_as_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = dir.path().join(OUTBOX_FILE);
        let path = lock_path(&outbox);
        let holder = File::create(&path).unwrap();
        holder.try_lock().unwrap();
        let err = InstanceLock::acquire(&outbox).unwrap_err();
        assert!(matches!(err, InstanceLockError::Held { holder: None, .. }));
        assert!(err.to_string().contains("pid not known"), "{err}");
    }
}
