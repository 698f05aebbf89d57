//! The process signals that end or resize a session, by name and number, and whether one was
//! ignored when the process started.

/// The name of an ending signal (`ExitCause::Signal`).
pub fn signal_name(signal: i32) -> &'static str {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    match signal {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGQUIT => "SIGQUIT",
        _ => "signal",
    }
}

/// The number of a signal named by [`ExitCause::Signal`] (for the 128+n exit status).
pub fn signal_number(name: &str) -> Option<i32> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    match name {
        "SIGTERM" => Some(SIGTERM),
        "SIGHUP" => Some(SIGHUP),
        "SIGINT" => Some(SIGINT),
        "SIGQUIT" => Some(SIGQUIT),
        _ => None,
    }
}

/// Whether `signal` was ignored (`SIG_IGN`) when this process started, from the `SigIgn` mask
/// of `/proc/self/status` (Linux; elsewhere `false`). Read before any handler is installed.
pub fn ignored_at_start(signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    sig_ignored_in_status(&status, signal)
}

fn sig_ignored_in_status(status: &str, signal: i32) -> bool {
    let Some(mask) = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
    else {
        return false;
    };
    (1..=64).contains(&signal) && mask & (1u64 << (signal - 1)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_sighup_ignored_at_start_is_read_from_the_sigign_mask() {
        let status = "Name:\tmasc-tui\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000001\n";
        assert!(sig_ignored_in_status(status, signal_hook::consts::SIGHUP));
        assert!(!sig_ignored_in_status(status, signal_hook::consts::SIGTERM));
        assert!(!sig_ignored_in_status("SigIgn:\t0000000000000000\n", 1));
        assert!(!sig_ignored_in_status("garbage", 1));
    }

    #[test]
    fn an_ending_signal_is_named_and_numbered_alike() {
        assert_eq!(signal_number("SIGQUIT"), Some(3));
        assert_eq!(signal_name(signal_hook::consts::SIGQUIT), "SIGQUIT");
        assert_eq!(
            signal_number(signal_name(signal_hook::consts::SIGHUP)),
            Some(1)
        );
        assert_eq!(signal_number("SIGUSR1"), None);
    }
}
