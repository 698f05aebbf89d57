//! glibc's allocator, tuned once at process start so a workspace at scale keeps a low peak RSS.
//!
//! `demo` runs the embedded server and the TUI in one process. With glibc's defaults every
//! thread that meets a busy arena gets an arena of its own (up to 8 per core), and the large
//! bodies of a workspace at scale (a 4.5 MB task list, its decode) are freed into whichever
//! arena served them, where the pages stay resident; the dynamic mmap threshold, raised by the
//! first large free, moves the next large bodies into those arenas too. Measured with
//! `benches/scale_pty.py` (docs/performance.md, the scale row): two arenas and a fixed 128 KiB
//! mmap threshold (large blocks mapped, and unmapped when freed) lower the process's peak RSS
//! without a measurable cost on the key path.
//!
//! An operator's own `MALLOC_ARENA_MAX` / `MALLOC_MMAP_THRESHOLD_` wins (glibc read it before
//! `main`); `MASC_TUI_MALLOC=default` leaves glibc's defaults alone. Other C libraries: nothing.

/// Arenas for every thread of the process.
pub const ARENA_MAX: i32 = 2;
/// Blocks from this size up are mapped on their own and returned to the kernel when freed.
pub const MMAP_THRESHOLD: i32 = 128 * 1024;

/// What [`tune`] decides from the environment (pure, so it is tested without touching glibc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    pub arena_max: Option<i32>,
    pub mmap_threshold: Option<i32>,
}

/// The tuning for this environment: `get` reads a variable.
pub fn tuning_for(get: impl Fn(&str) -> Option<String>) -> Tuning {
    if get("MASC_TUI_MALLOC").as_deref() == Some("default") {
        return Tuning {
            arena_max: None,
            mmap_threshold: None,
        };
    }
    Tuning {
        arena_max: get("MALLOC_ARENA_MAX").is_none().then_some(ARENA_MAX),
        mmap_threshold: get("MALLOC_MMAP_THRESHOLD_")
            .is_none()
            .then_some(MMAP_THRESHOLD),
    }
}

/// Applies the tuning of the process environment. Call first in `main`, before any thread.
pub fn tune() -> Tuning {
    let tuning = tuning_for(|name| std::env::var(name).ok());
    apply(tuning);
    tuning
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn apply(tuning: Tuning) {
    // SAFETY: mallopt only sets glibc's allocator parameters; it is called before any other
    // thread exists, and an unaccepted value is refused by glibc (return 0), never undefined.
    unsafe {
        if let Some(n) = tuning.arena_max {
            libc::mallopt(libc::M_ARENA_MAX, n);
        }
        if let Some(n) = tuning.mmap_threshold {
            libc::mallopt(libc::M_MMAP_THRESHOLD, n);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn apply(_: Tuning) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn issue15_tuned_unless_the_operator_chose() {
        assert_eq!(
            tuning_for(env(&[])),
            Tuning {
                arena_max: Some(ARENA_MAX),
                mmap_threshold: Some(MMAP_THRESHOLD),
            }
        );
        assert_eq!(
            tuning_for(env(&[("MALLOC_ARENA_MAX", "8")])),
            Tuning {
                arena_max: None,
                mmap_threshold: Some(MMAP_THRESHOLD),
            }
        );
        assert_eq!(
            tuning_for(env(&[("MALLOC_MMAP_THRESHOLD_", "65536")])).mmap_threshold,
            None
        );
        assert_eq!(
            tuning_for(env(&[("MASC_TUI_MALLOC", "default")])),
            Tuning {
                arena_max: None,
                mmap_threshold: None,
            }
        );
    }
}
