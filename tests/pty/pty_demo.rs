//! End-to-end terminal tests: `masc-tui demo` in a real pseudo-terminal (portable-pty), its
//! output parsed by a terminal emulator (vt100): the roster, keys, quit and help as an operator
//! sees them, and chat-screen.md T.2, T.5, T.6.
//!
//! All tests live in one test binary so they run in parallel (the idle test spends most of
//! its time waiting for roster poll cycles).

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The seeded roster is laid out in cell columns: names start under `KEEPER`, and the
/// lifecycle column starts under `LIFECYCLE` on every row, including the row whose name is
/// Korean (two cells per character).
fn assert_roster_columns(screen: &vt100::Screen) {
    let header = row_of(screen, "LIFECYCLE").expect("roster header row");
    let name_col = column_of(screen, header, "KEEPER").expect("KEEPER column");
    let life_col = column_of(screen, header, "LIFECYCLE").expect("LIFECYCLE column");
    for name in ["rondo", "sangsu", "하늘", "beacon"] {
        let row = row_of(screen, name).unwrap_or_else(|| panic!("row of {name}"));
        assert_eq!(
            column_of(screen, row, name),
            Some(name_col),
            "{name} starts under KEEPER"
        );
        let lifecycle = ["running", "paused", "stopped", "failed"]
            .iter()
            .filter_map(|word| column_of(screen, row, word))
            .min();
        assert_eq!(
            lifecycle,
            Some(life_col),
            "{name}'s lifecycle starts under LIFECYCLE: {:?}",
            row_text(screen, row)
        );
    }
    let sky = row_of(screen, "하늘").expect("하늘 row");
    let cell = screen.cell(sky, name_col).expect("cell");
    assert!(cell.is_wide(), "하 takes two cells");
    assert!(
        screen
            .cell(sky, name_col + 1)
            .is_some_and(|c| c.is_wide_continuation()),
        "the second cell of 하 is its continuation"
    );
    assert_eq!(
        screen
            .cell(sky, name_col + 2)
            .map(|c| c.contents().to_string()),
        Some("늘".to_string())
    );
}

/// Whether the row holding `name` is drawn as the selection (reversed).
fn selected(screen: &vt100::Screen, name: &str) -> bool {
    row_of(screen, name)
        .and_then(|row| column_of(screen, row, name).map(|col| row_selected(screen, row, col)))
        .unwrap_or(false)
}

fn wait_selected(session: &PtySession, name: &str) {
    session.wait_for(&format!("{name} selected"), |s| {
        let screen = s.parser.screen();
        selected(screen, name) && screen.contents().matches("KEEPERS").count() == 1
    });
    let seen = session.seen();
    let screen = seen.parser.screen();
    for other in ["rondo", "sangsu", "하늘", "mira", "beacon"] {
        if other != name {
            assert!(!selected(screen, other), "{other} must not be selected too");
        }
    }
}

const QUIT_ARMED: &str = "press q again to quit";

/// Roster rows appear, `j` moves the selection, `q q` quits with exit status 0, and
/// the terminal is restored (T.6).
#[test]
fn pty_demo_roster_and_quit() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    assert_roster_columns(session.seen().parser.screen());
    assert_raw_mode(&session);
    wait_selected(&session, "rondo");

    session.send(b"j");
    wait_selected(&session, "sangsu");

    session.send(b"q");
    session.wait_for_text(QUIT_ARMED);
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
    assert_cooked_mode(&session);
}

/// `demo --compat v0.24.0` runs the TUI on the embedded server
/// playing MASC v0.24.0 — no receipts, the extension and newer routes answering MASC's 404, the
/// August runtime catalogue. Every surface is visited and checked: System › Runtime draws the
/// August catalogue with only its missing parts unavailable (defect 2); Skills, async runs and
/// connector names say "not served by this MASC" with what to do; the Overview's Asks read
/// "not served", never `0 · data unreliable`; Work › Tasks lists the goal-linked tasks marked
/// partial, and a task opens with the legacy recent events marked "not the full history"; the
/// header stays `● connected` and names what is absent (defect 6); `q q` quits with exit
/// status 0 and the terminal restored.
#[test]
fn pty_demo_compat_v0_24_0_runs_every_surface_and_quits() {
    let mut session = PtySession::demo(DemoOptions {
        compat: Some("v0.24.0"),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    // Keepers → Board → System (the Runtime pane first).
    session.send(b"\t");
    session.send(b"\t");
    session.wait_for_text("(declared: not sent by this MASC)");
    // Runtime → all tools → Skills → async runs → connectors.
    session.send(b"p");
    session.send(b"p");
    session.wait_for_text("skills catalogue: not served by this MASC");
    session.send(b"p");
    session.wait_for_text("async requests: not served by this MASC");
    session.send(b"p");
    session.wait_for_text("connector names: not served by this MASC");
    session.wait_for_text("name unknown: this MASC does not serve the names route");
    // The header: connected, the absent capabilities named; never degraded.
    session.wait_for_text("● connected");
    session.wait_for_text("not served:");
    // System → Overview: Asks are not served, never `0 · data unreliable`.
    session.send(b"\t");
    session.wait_for_text("not served by this MASC — upgrade MASC, or read");
    assert_no_text(&session, "data unreliable");
    // Overview → Work, then Tasks: the goal-linked tasks, marked partial.
    session.send(b"\t");
    session.send(b"t");
    session.wait_for_text("TASKS (from goal links)");
    session.wait_for_text("partial: from goal links; tasks without a goal are not listed");
    session.wait_for_text("goals read");
    // Enter: the task body is not served (the goal links' row stands in) and the history is
    // the legacy recent events, marked.
    session.send(b"\r");
    session.wait_for_text("from goal links (not the task body):");
    session.wait_for_text("legacy recent events: not the full history, no older pages");
    assert_no_text(&session, "degraded");
    assert_no_text(&session, "read failed");
    session.send(b"q");
    session.wait_for_text(QUIT_ARMED);
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
    assert_cooked_mode(&session);
}

/// The screen does not show `text` now.
fn assert_no_text(session: &PtySession, text: &str) {
    let seen = session.seen();
    let screen = seen.parser.screen().contents();
    assert!(!screen.contains(text), "{text:?} on screen:\n{screen}");
}

/// The session's exit lines (T.6) in the demo's data dir.
fn exit_lines(session: &PtySession, pid: u32) -> Vec<String> {
    let data = session.data_dir.clone().expect("data dir");
    let log = data
        .join(".masc")
        .join("logs")
        .join(format!("masc-tui-{pid}.log"));
    let text =
        std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("exit log {}: {e}", log.display()));
    // The cause can quote a server's error text: owner-only, like every private file.
    assert_eq!(
        masc_tui::private_file::mode_of(&log).expect("exit log mode"),
        0o600,
        "exit log mode"
    );
    text.lines().map(str::to_string).collect()
}

/// Sends `signal` to the demo and checks the clean shutdown: exit status 128 + its number
/// (a signal never exits 0 like `q q`), terminal restored, cooked mode, and one exit
/// line naming the signal.
fn signal_restores_terminal(signal: &str, status_code: u32) {
    let mut session = PtySession::demo(DemoOptions {
        with_data_dir: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    let pid = session.pid();
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let status = session.wait_exit();
    assert_eq!(status.exit_code(), status_code, "exit status {status:?}");
    assert_terminal_restored(&session.seen());
    assert_cooked_mode(&session);
    assert_eq!(
        exit_lines(&session, pid),
        [format!("[masc-tui] exit: normal (signal SIG{signal})")],
        "one exit line per session"
    );
}

/// T.6: SIGTERM shuts down cleanly and exits 143.
#[test]
fn pty_demo_sigterm_restores_terminal() {
    signal_restores_terminal("TERM", 143);
}

/// SIGQUIT (`Ctrl-\` in a cooked terminal, `kill -QUIT`) restores the
/// terminal like SIGTERM — no core dump with the terminal left raw — and exits 131.
#[test]
fn pty_demo_sigquit_restores_terminal() {
    signal_restores_terminal("QUIT", 131);
}

/// The terminal goes away (every master descriptor closed) while SIGHUP is
/// ignored, so the hangup reaches the TUI only as end of input / EIO on the terminal. It
/// ends through the `q q` shutdown path (exit line, exit status 3) and never spins: its CPU
/// time from the close to its exit, read from `/proc` while it is an unreaped zombie, stays
/// small (a spinning reader burns a whole core until the failsafe).
#[test]
fn pty_demo_terminal_gone_with_sighup_ignored_exits_without_spinning() {
    let mut session = PtySession::demo(DemoOptions {
        with_data_dir: true,
        ignore_sighup: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    let pid = session.pid();
    let before = cpu_ticks(pid).expect("cpu ticks of the TUI");
    let closed = std::time::Instant::now();
    session.close_master();
    let deadline = closed + FAILSAFE;
    while !matches!(proc_state(pid), Some('Z') | None) {
        assert!(
            std::time::Instant::now() < deadline,
            "failsafe: the TUI outlived its terminal (state {:?}, {} cpu ticks since the close)",
            proc_state(pid),
            cpu_ticks(pid).unwrap_or(0).saturating_sub(before)
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let wall = closed.elapsed();
    let after = cpu_ticks(pid).unwrap_or(before);
    let status = session.reap();
    let cpu_ms = after.saturating_sub(before) * 1000 / clock_ticks_per_second();
    eprintln!("terminal gone → exit: {wall:?} wall, {cpu_ms} ms cpu");
    assert!(
        cpu_ms < 500,
        "{cpu_ms} ms of CPU between the terminal's end and the exit: the reader spun"
    );
    assert_eq!(status.exit_code(), 3, "exit status {status:?}");
    let lines = exit_lines(&session, pid);
    assert_eq!(lines.len(), 1, "one exit line: {lines:?}");
    assert!(
        lines[0].starts_with("[masc-tui] exit: normal (terminal lost: "),
        "{lines:?}"
    );
}

/// T.2: once settled, an idle TUI writes nothing, across two roster poll cycles whose data
/// does not change (each read dispatched and its result admitted: the trace shows both).
#[test]
fn pty_demo_idle_writes_nothing() {
    let session = PtySession::demo(DemoOptions::default());
    // Settled: the roster on screen means the first read's frame has been written and parsed,
    // and a "waits on" line past `reading…` / `not loaded yet` that the waiting inventory (its
    // own source, read beside the roster) was admitted and painted; nothing else is pending at
    // startup. The byte count is taken under the same lock.
    session.wait_for_roster();
    session.wait_for("the waiting inventory's first read painted", |s| {
        let text = s.parser.screen().contents();
        text.contains("waits on: ")
            && !text.contains("waits on: reading")
            && !text.contains("waits on: not loaded yet")
    });
    let before = session.byte_count();
    let dispatched = session.trace_count("dispatch", "keepers_roster");
    let admitted = session.trace_count("admit", "keepers_roster");
    assert!(
        dispatched >= 1 && admitted >= 1,
        "the roster on screen was read"
    );
    // The idle window: two cadence cycles (dispatch, read, admission) and then the dispatch
    // of the third, a full cadence interval after the second admission, so anything either
    // cycle could have painted has been written by then.
    session.wait_for_trace("admit", "keepers_roster", admitted + 2);
    session.wait_for_trace("dispatch", "keepers_roster", dispatched + 3);
    let seen = session.seen();
    let written = &seen.bytes[before..];
    assert!(
        written.is_empty(),
        "an idle TUI wrote {} bytes across two unchanged roster reads: {:?}",
        written.len(),
        String::from_utf8_lossy(written)
    );
    drop(seen);
    // The window really held two applied reads with the same data.
    assert!(session.trace_count("admit", "keepers_roster") >= admitted + 2);
}

/// surfaces.md global keys: `q` then any other key cancels the quit.
#[test]
fn pty_demo_q_then_other_key_cancels() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    wait_selected(&session, "rondo");
    session.send(b"q");
    session.wait_for_text(QUIT_ARMED);
    session.send(b"j");
    // The cancelling key is consumed by the cancel: the footer returns, the selection stays.
    session.wait_for("the quit to be cancelled", |s| {
        let text = s.parser.screen().contents();
        !text.contains(QUIT_ARMED) && text.contains("q q quit")
    });
    wait_selected(&session, "rondo");
    assert!(session.running(), "q then j must not quit");
    // A later single q arms again rather than quitting on the old q.
    session.send(b"q");
    session.wait_for_text(QUIT_ARMED);
    assert!(session.running());
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}

/// `?` lists the keys of the surface and the global keys; Esc closes; `/` searches
/// and jumps the selection live.
#[test]
fn pty_demo_help_and_search() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"?");
    session.wait_for("the help overlay", |s| {
        let text = s.parser.screen().contents();
        [
            "Keepers keys",
            "move selection",
            "search by name",
            "Global keys",
            "q q",
            "Ctrl-Z",
        ]
        .iter()
        .all(|k| text.contains(k))
    });
    session.send(b"\x1b");
    session.wait_for("the help overlay to close", |s| {
        let text = s.parser.screen().contents();
        !text.contains("Global keys") && row_of(s.parser.screen(), "sangsu").is_some()
    });
    wait_selected(&session, "rondo");

    session.send(b"/");
    session.wait_for_text("Esc cancel");
    session.send(b"sang");
    wait_selected(&session, "sangsu");
    session.send(b"\r");
    session.wait_for_text("/sang (n/N)");
    wait_selected(&session, "sangsu");

    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// T.6: Ctrl-Z restores the shell's terminal and stops the process; `fg` continues it, raw
/// mode comes back and the whole screen is repainted.
///
/// Job control needs a shell: a process that is its own session leader (how a PTY spawns a
/// child) is an orphaned process group, and the kernel discards SIGTSTP for those. So the
/// TUI runs as a job of `bash -m`, which after the stop reads one line (the user at the
/// prompt) and then runs `fg`.
#[test]
fn pty_demo_ctrl_z() {
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("bash absent, skipping the job-control test");
        return;
    }
    let mut session = PtySession::demo(DemoOptions {
        under_job_control_shell: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    let shell = session.pid();
    let tui = children_of(shell);
    assert_eq!(tui.len(), 1, "bash runs exactly the TUI: {tui:?}");
    let tui = tui[0];
    session.extra_pids.push(tui);
    let frames_before = session.seen().bytes.len();

    session.send(b"\x1a");
    session.wait_for("the TUI to stop with the terminal restored", |s| {
        !s.parser.screen().alternate_screen() && proc_state(tui) == Some('T')
    });
    {
        let seen = session.seen();
        assert!(rfind(&seen.bytes[frames_before..], ALT_SCREEN_OFF).is_some());
        assert_terminal_restored(&seen);
    }
    assert_cooked_mode(&session);

    // The user at the prompt: bash reads the line, then `fg`.
    let resumed_from = session.byte_count();
    session.send(b"\n");
    session.wait_for("a complete repaint after fg", |s| {
        let screen = s.parser.screen();
        s.bytes.len() > resumed_from
            && screen.alternate_screen()
            && screen.hide_cursor()
            && row_of(screen, "rondo").is_some()
            && row_of(screen, "beacon").is_some()
    });
    assert_ne!(proc_state(tui), Some('T'));
    {
        // Full: the resumed frame clears the screen and paints every row again.
        let seen = session.seen();
        let resumed = &seen.bytes[resumed_from..];
        assert!(
            rfind(resumed, b"\x1b[2J").is_some(),
            "the resumed frame is full"
        );
        assert!(
            rfind(resumed, ALT_SCREEN_ON).is_some(),
            "alternate screen re-entered"
        );
    }
    wait_selected(&session, "rondo");
    assert_raw_mode(&session);
    // Raw mode is back: single keys reach the TUI without a newline.
    session.send(b"j");
    wait_selected(&session, "sangsu");

    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}

/// The scale walk (`demo --scale`): the roster says how many of how many are loaded, `/k-02500`
/// (beyond MASC's 200) asks the server by name and selects that Keeper; Work › Tasks shows the
/// scaled ids whole, and scaled Task bodies in statuses that carry an assignee decode.
#[test]
fn pty_demo_scale_walk_reaches_every_keeper_and_reads_scaled_tasks() {
    let mut session = PtySession::demo(DemoOptions {
        scale: true,
        ..DemoOptions::default()
    });
    session.wait_for_text("KEEPERS 200 loaded of 50");
    session.send(b"/k-02500\r");
    session.wait_for("k-02500 found and selected", |s| {
        let screen = s.parser.screen();
        row_of(screen, "k-02500").is_some_and(|row| {
            row_text(screen, row).contains("◆ found")
                && column_of(screen, row, "k-02500")
                    .is_some_and(|col| row_selected(screen, row, col))
        })
    });
    // Keepers → Board → System → Overview → Work, then Tasks.
    session.send(b"\t\t\t\t");
    session.send(b"t");
    for id in ["task-s00002", "task-s00004"] {
        session.send(b"/");
        session.send(id.as_bytes());
        session.send(b"\r");
        session.wait_for(&format!("{id} whole and selected"), |s| {
            let screen = s.parser.screen();
            screen.contents().contains(&format!("▸ {id} "))
        });
        session.send(b"\r");
        // The description is in the decoded body only (the list shows the title).
        session.wait_for_text("Generated by --scale.");
        session.wait_for_text("HISTORY");
        assert_no_text(&session, "read failed");
        // Back to the list; the search is cleared for the next id.
        session.send(b"\x1b");
        session.wait_for_text("TASKS");
        session.send(b"\x1b");
    }
    session.send(b"q");
    session.wait_for_text(QUIT_ARMED);
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
