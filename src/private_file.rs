//! Files only their owner may read: the server's SQLite store, the chat
//! outbox and the trace file hold workspace text, tokens in flight and operator input, so they
//! are created with mode 0600 (and an existing file is narrowed to 0600) before SQLite or the
//! tracing layer opens them. SQLite gives its `-wal` and `-shm` files the mode of the main
//! database file, so narrowing the main file covers them too.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// The mode of every private file.
pub const PRIVATE_MODE: u32 = 0o600;

/// Creates `path` empty with mode 0600 when it does not exist; narrows an existing file to
/// 0600. Never truncates. Parent directories must exist.
pub fn ensure_private(path: &Path) -> io::Result<()> {
    let file = open_options().append(true).open(path)?;
    narrow(&file)
}

/// Opens `path` for writing, created with mode 0600 (an existing file is narrowed to 0600),
/// truncated when `truncate`, otherwise appended to.
pub fn open_private(path: &Path, truncate: bool) -> io::Result<File> {
    let mut options = open_options();
    if truncate {
        options.write(true).truncate(true);
    } else {
        options.append(true);
    }
    let file = options.open(path)?;
    narrow(&file)?;
    Ok(file)
}

fn open_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(PRIVATE_MODE);
    }
    options
}

#[cfg(unix)]
fn narrow(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = file.metadata()?.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(PRIVATE_MODE))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_file: &File) -> io::Result<()> {
    Ok(())
}

/// The permission bits of `path` (tests and diagnostics).
#[cfg(unix)]
pub fn mode_of(path: &Path) -> io::Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn created_and_existing_files_end_up_0600() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("fresh.sqlite3");
        ensure_private(&fresh).unwrap();
        assert_eq!(mode_of(&fresh).unwrap(), 0o600);

        let old = dir.path().join("old.sqlite3");
        std::fs::write(&old, b"kept").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
        ensure_private(&old).unwrap();
        assert_eq!(mode_of(&old).unwrap(), 0o600);
        assert_eq!(std::fs::read(&old).unwrap(), b"kept", "never truncated");

        let trace = dir.path().join("trace.jsonl");
        std::fs::write(&trace, b"old").unwrap();
        std::fs::set_permissions(&trace, std::fs::Permissions::from_mode(0o666)).unwrap();
        drop(open_private(&trace, true).unwrap());
        assert_eq!(mode_of(&trace).unwrap(), 0o600);
        assert_eq!(std::fs::read(&trace).unwrap(), b"", "truncated on request");
    }
}
