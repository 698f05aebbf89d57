//! Shared harness for the PTY end-to-end tests: runs `masc-tui demo` (or a wrapper around it)
//! inside a pseudo-terminal, feeds everything it writes to a `vt100::Parser` on a reader thread
//! and keeps the raw byte stream, so tests can wait for screen conditions and inspect the bytes.
//!
//! Deadlines here are failsafes (a hung child fails the test instead of hanging CI), never
//! timing assertions: every wait is for a condition on the parsed screen, the byte stream, the
//! trace file or the process state.

#![allow(dead_code)]
// Test scaffolding: a failed spawn or a missed failsafe must abort the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub const ROWS: u16 = 40;
pub const COLS: u16 = 120;
/// Failsafe for any single wait (a loaded 2-core machine starts a debug binary slowly).
pub const FAILSAFE: Duration = Duration::from_secs(30);

pub const ALT_SCREEN_ON: &[u8] = b"\x1b[?1049h";
pub const ALT_SCREEN_OFF: &[u8] = b"\x1b[?1049l";
pub const CURSOR_SHOW: &[u8] = b"\x1b[?25h";
pub const PASTE_OFF: &[u8] = b"\x1b[?2004l";
/// Mouse capture (button events) on and off.
pub const MOUSE_ON: &[u8] = b"\x1b[?1000h";
pub const MOUSE_OFF: &[u8] = b"\x1b[?1000l";

/// What the reader thread has seen.
pub struct Seen {
    pub parser: vt100::Parser,
    /// Every byte the child wrote, in order.
    pub bytes: Vec<u8>,
    /// The master side reported end of stream (every slave descriptor closed).
    pub eof: bool,
}

struct Shared {
    seen: Mutex<Seen>,
    changed: Condvar,
    /// Set by [`PtySession::close_master`]: the reader drops its master descriptor after its
    /// next read.
    close_reader: std::sync::atomic::AtomicBool,
}

/// One child process in a PTY. Dropping it kills the child (and `extra_pids`) and waits.
pub struct PtySession {
    child: Box<dyn Child + Send + Sync>,
    writer: Option<Box<dyn Write + Send>>,
    master: Option<Box<dyn MasterPty + Send>>,
    shared: Arc<Shared>,
    reader: Option<std::thread::JoinHandle<()>>,
    /// Processes to SIGKILL on drop besides the PTY child (e.g. the TUI under a wrapper shell).
    pub extra_pids: Vec<u32>,
    /// `XDG_STATE_HOME`, the trace file and (optionally) the demo's `--data` live here.
    pub dir: tempfile::TempDir,
    pub trace_file: PathBuf,
    pub data_dir: Option<PathBuf>,
    exited: bool,
}

/// How to start the demo.
#[derive(Default)]
pub struct DemoOptions {
    /// Pass `--data <tempdir>/data` (the exit line is written under it).
    pub with_data_dir: bool,
    /// Run the TUI as a job of `bash -m` (job control) instead of directly as the session
    /// leader; see `pty_demo_ctrl_z`.
    pub under_job_control_shell: bool,
    /// Start the TUI with SIGHUP ignored (`trap '' HUP; exec …`, like `nohup` or a wrapper
    /// that ignores it): the terminal's end then reaches it only as end of input.
    pub ignore_sighup: bool,
    /// Pass `--compat <release>`: the embedded server plays that MASC release.
    pub compat: Option<&'static str>,
    /// `VISUAL` for the session (`EDITOR` and a developer's own `VISUAL` are removed).
    pub visual: Option<String>,
    /// A fault plan (JSON, docs/fault-plans.md) for the embedded server: `--faults <file>`.
    pub faults: Option<String>,
    /// `TMPDIR` is `<tempdir>/tmp` (empty at start), so what the demo leaves in its temporary
    /// directory can be seen.
    pub own_tmpdir: bool,
    /// Pass `--scale`: the workspace at scale (5,000 Keepers, 20,000 Tasks).
    pub scale: bool,
    /// Connect to a running `serve` instead of starting the demo (the demo-only options are
    /// ignored then).
    pub connect: Option<Connect>,
    /// `XDG_STATE_HOME` of another session (default: this session's own `<tempdir>/state`).
    pub state_home: Option<std::path::PathBuf>,
    /// More arguments after the others.
    pub extra_args: Vec<&'static str>,
    /// The text of the session's config file (`<tempdir>/config/masc-tui/config.toml`, mode
    /// 0600). Without `connect`, the TUI then starts from that file alone (no `demo`).
    pub config: Option<String>,
}

/// Where a TUI connects: a server's URL, token and base path.
#[derive(Clone)]
pub struct Connect {
    pub url: String,
    pub token: String,
    pub base_path: String,
}

/// A `masc-tui serve` the test started, with its seeded workspace in a temp dir; stopped when
/// dropped.
pub struct Served {
    pub connect: Connect,
    child: std::process::Child,
    _dir: tempfile::TempDir,
}

impl Served {
    /// The requests the server answered with `method`, from its request log
    /// (`/__admin/requests`, test mode).
    pub fn requests(&self, method: &str) -> u64 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let log: serde_json::Value = runtime.block_on(async {
            reqwest::Client::new()
                .get(format!("{}/__admin/requests", self.connect.url))
                .bearer_auth(&self.connect.token)
                .send()
                .await
                .expect("request log")
                .json()
                .await
                .expect("request log json")
        });
        log["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .filter(|r| r["method"] == method)
            .filter_map(|r| r["count"].as_u64())
            .sum()
    }

    /// Starts `serve` (test mode: its request log is readable) on a free loopback port; its
    /// printed line says where to connect.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`start`](Self::start) with more `serve` arguments (e.g. `--calm`).
    pub fn start_with(extra: &[&str]) -> Self {
        use std::io::BufRead;
        let dir = tempfile::Builder::new()
            .prefix("masc-tui-serve-")
            .tempdir()
            .expect("temp dir");
        let mut child = std::process::Command::new(binary())
            .args(["serve", "--test-mode", "--port", "0", "--data"])
            .arg(dir.path().join("ws"))
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn serve");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("serve's stdout"))
            .read_line(&mut line)
            .expect("serve's line");
        let word = |name: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .unwrap_or_else(|| panic!("no {name} in {line:?}"))
                .to_string()
        };
        Self {
            connect: Connect {
                url: word("MASC_URL="),
                token: word("MASC_TOKEN="),
                base_path: word("MASC_BASE_PATH="),
            },
            child,
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_masc-tui")
}

impl PtySession {
    pub fn demo(opts: DemoOptions) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("masc-tui-pty-")
            .tempdir()
            .expect("temp dir");
        let trace_file = dir.path().join("trace.jsonl");
        let state_home = opts
            .state_home
            .clone()
            .unwrap_or_else(|| dir.path().join("state"));
        std::fs::create_dir_all(&state_home).expect("state dir");
        let mut demo_args: Vec<String> = match &opts.connect {
            Some(to) => vec![
                "--url".into(),
                to.url.clone(),
                "--token".into(),
                to.token.clone(),
                "--base-path".into(),
                to.base_path.clone(),
            ],
            None if opts.config.is_some() => Vec::new(),
            None => vec!["demo".into()],
        };
        if let Some(text) = &opts.config {
            let path = dir
                .path()
                .join("config")
                .join("masc-tui")
                .join("config.toml");
            std::fs::create_dir_all(path.parent().expect("config dir")).expect("config dir");
            std::fs::write(&path, text).expect("config file");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .expect("config mode");
        }
        demo_args.push("--trace-file".into());
        demo_args.push(trace_file.display().to_string());
        let data_dir = opts.with_data_dir.then(|| {
            let data = dir.path().join("data");
            std::fs::create_dir_all(&data).expect("data dir");
            data
        });
        if let Some(data) = &data_dir {
            demo_args.push("--data".into());
            demo_args.push(data.display().to_string());
        }
        if let Some(plan) = &opts.faults {
            let path = dir.path().join("faults.json");
            std::fs::write(&path, plan).expect("fault plan");
            demo_args.push("--faults".into());
            demo_args.push(path.display().to_string());
        }
        if opts.scale {
            demo_args.push("--scale".into());
        }
        if let Some(release) = opts.compat {
            demo_args.push("--compat".into());
            demo_args.push(release.into());
        }
        demo_args.extend(opts.extra_args.iter().map(|a| a.to_string()));
        let mut cmd = if opts.under_job_control_shell {
            // `bash -m`: job control without an interactive shell. The TUI becomes its own
            // process group in the same session as bash, so its group is not orphaned and
            // SIGTSTP really stops it. After it stops, bash reads one line from the terminal
            // (the test's "user" at the prompt), then `fg` gives the job the terminal back and
            // continues it, exactly as a shell user's `fg` does.
            let mut cmd = CommandBuilder::new("bash");
            let mut script = String::from("\"$0\"");
            for i in 1..=demo_args.len() {
                script.push_str(&format!(" \"${i}\""));
            }
            script.push_str("; status=$?; if [ $status -ge 128 ]; then read -r _; fg; status=$?; fi; exit $status");
            cmd.args(["--noprofile", "--norc", "-m", "-c", &script, binary()]);
            cmd.args(&demo_args);
            cmd
        } else if opts.ignore_sighup {
            // `exec` keeps the pid: the TUI is the session leader with SIGHUP ignored.
            let mut cmd = CommandBuilder::new("sh");
            cmd.args(["-c", "trap '' HUP; exec \"$0\" \"$@\"", binary()]);
            cmd.args(&demo_args);
            cmd
        } else {
            let mut cmd = CommandBuilder::new(binary());
            cmd.args(&demo_args);
            cmd
        };
        cmd.cwd(dir.path());
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_STATE_HOME", &state_home);
        // No operator's config file reaches a test session.
        cmd.env("XDG_CONFIG_HOME", dir.path().join("config"));
        if opts.own_tmpdir {
            let tmp = dir.path().join("tmp");
            std::fs::create_dir_all(&tmp).expect("tmp dir");
            cmd.env("TMPDIR", &tmp);
        }
        for var in [
            "NO_COLOR",
            "MASC_TUI_SYNC",
            "TERM_PROGRAM",
            "MASC_TOKEN",
            "MASC_HOST",
            "MASC_HTTP_PORT",
            "MASC_BASE_PATH",
            "MASC_TUI_WORKSPACE",
            "MASC_TUI_CONFIG",
            "MASC_TUI_THEME",
            "MASC_TUI_START",
            "RUST_LOG",
            "VISUAL",
            "EDITOR",
        ] {
            cmd.env_remove(var);
        }
        if let Some(visual) = &opts.visual {
            cmd.env("VISUAL", visual);
        }

        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let child = pair.slave.spawn_command(cmd).expect("spawn masc-tui");
        // Only the child holds the slave now, so its exit ends our reads.
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        let shared = Arc::new(Shared {
            seen: Mutex::new(Seen {
                parser: vt100::Parser::new(
                    std::num::NonZeroU16::new(ROWS).expect("ROWS is not 0"),
                    std::num::NonZeroU16::new(COLS).expect("COLS is not 0"),
                    0,
                ),
                bytes: Vec::new(),
                eof: false,
            }),
            changed: Condvar::new(),
            close_reader: std::sync::atomic::AtomicBool::new(false),
        });
        let feed = Arc::clone(&shared);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => 0,
                    Ok(n) => n,
                };
                let mut seen = feed.seen.lock().unwrap_or_else(|p| p.into_inner());
                if n == 0 {
                    seen.eof = true;
                    feed.changed.notify_all();
                    return;
                }
                seen.parser.process(&buf[..n]);
                seen.bytes.extend_from_slice(&buf[..n]);
                feed.changed.notify_all();
                if feed.close_reader.load(std::sync::atomic::Ordering::SeqCst) {
                    // Dropping `reader` closes the last master descriptor.
                    return;
                }
            }
        });
        Self {
            child,
            writer: Some(writer),
            master: Some(pair.master),
            shared,
            reader: Some(reader),
            extra_pids: Vec::new(),
            dir,
            trace_file,
            data_dir,
            exited: false,
        }
    }

    /// The PTY child's pid (the TUI itself unless run under a wrapper shell).
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("child pid")
    }

    pub fn seen(&self) -> MutexGuard<'_, Seen> {
        self.shared.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The terminal is resized to `cols`×`rows` (the emulator too); the TUI gets SIGWINCH.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.seen().parser.set_size(
            std::num::NonZeroU16::new(rows).expect("rows is not 0"),
            std::num::NonZeroU16::new(cols).expect("cols is not 0"),
        );
        self.master
            .as_ref()
            .expect("the master is open")
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
    }

    pub fn byte_count(&self) -> usize {
        self.seen().bytes.len()
    }

    /// Waits (failsafe `FAILSAFE`) until `cond` holds; panics with the screen contents
    /// otherwise. `cond` is re-checked on new output and every 50 ms.
    pub fn wait_for(&self, what: &str, mut cond: impl FnMut(&Seen) -> bool) {
        let deadline = Instant::now() + FAILSAFE;
        let mut seen = self.seen();
        loop {
            if cond(&seen) {
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                panic!(
                    "failsafe: gave up waiting for {what}; eof={} screen:\n{}",
                    seen.eof,
                    seen.parser.screen().contents()
                );
            }
            // Woken by new output, or after a short slice for conditions on other state
            // (process state, files).
            seen = self
                .shared
                .changed
                .wait_timeout(seen, (deadline - now).min(Duration::from_millis(50)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Waits until the screen shows `text` somewhere.
    pub fn wait_for_text(&self, text: &str) {
        self.wait_for(&format!("{text:?} on screen"), |s| {
            s.parser.screen().contents().contains(text)
        });
    }

    /// Waits until the seeded roster is painted (the Keepers surface is the start surface).
    pub fn wait_for_roster(&self) {
        self.wait_for("the seeded roster rows", |s| {
            let screen = s.parser.screen();
            s.parser.screen().alternate_screen()
                && row_of(screen, "rondo").is_some()
                && row_of(screen, "beacon").is_some()
        });
    }

    /// From the roster: waits for rondo (the demo's first row) to be selected, opens its chat
    /// with `c`, and waits for its title and loaded transcript.
    pub fn open_rondo_chat(&mut self) {
        self.wait_for("rondo selected", |s| {
            let screen = s.parser.screen();
            row_of(screen, "rondo")
                .and_then(|row| {
                    column_of(screen, row, "rondo").map(|c| row_selected(screen, row, c))
                })
                .unwrap_or(false)
        });
        self.send(b"c");
        self.wait_for("chat title and transcript", |s| {
            let contents = s.parser.screen().contents();
            contents.contains("chat · rondo") && !contents.contains("loading…")
        });
    }

    pub fn send(&mut self, bytes: &[u8]) {
        let writer = self.writer.as_mut().expect("the master is open");
        writer.write_all(bytes).expect("write to pty");
        writer.flush().expect("flush pty");
    }

    /// Closes every master descriptor (the terminal emulator going away): the reader is told
    /// to stop after its next read, a resize makes the TUI repaint so that read comes, then
    /// our writer and master are dropped and the reader is joined. The slave is hung up once
    /// the reader's descriptor closes.
    pub fn close_master(&mut self) {
        self.shared
            .close_reader
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let master = self.master.take().expect("the master is open");
        master
            .resize(PtySize {
                rows: ROWS,
                cols: COLS - 1,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
        drop(self.writer.take());
        drop(master);
        if let Some(reader) = self.reader.take() {
            reader.join().expect("reader thread");
        }
    }

    /// Waits for the PTY child to exit (failsafe) and returns its status. The reader has then
    /// also seen end of stream, so `bytes` holds everything the child wrote.
    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        self.wait_for("end of the child's output", |s| s.eof);
        self.reap()
    }

    /// Waits (failsafe) for the PTY child to exit and reaps it, without waiting for the end of
    /// its output (after [`close_master`](Self::close_master) nobody reads it any more).
    pub fn reap(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + FAILSAFE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.exited = true;
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "failsafe: child closed its terminal but did not exit"
            );
            // The child closed the terminal as its last act; reaping follows promptly.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// True while the PTY child has not exited.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// `q` `q` from a surface (the first arms), then the child exits 0 with the terminal
    /// restored.
    pub fn quit_q_q(&mut self) {
        self.send(b"q");
        self.wait_for_text("press q again to quit");
        self.send(b"q");
        let status = self.wait_exit();
        assert!(status.success(), "exit status {status:?}");
        assert_terminal_restored(&self.seen());
    }

    /// Stage events of `source` with `stage` in the trace file so far.
    pub fn trace_count(&self, stage: &str, source: &str) -> usize {
        trace_count(&self.trace_file, stage, source)
    }

    /// Waits (failsafe) until the trace holds at least `n` `stage` events of `source`. Polls
    /// the file: the child's trace writes carry no notification we could wait on.
    pub fn wait_for_trace(&self, stage: &str, source: &str, n: usize) {
        let deadline = Instant::now() + FAILSAFE;
        loop {
            if self.trace_count(stage, source) >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "failsafe: trace never reached {n} {stage} events of {source}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `stty -a` on the pty (through the master: on Linux its termios requests reach
    /// the slave) and returns its output; `None` when that is not possible here.
    pub fn stty(&self) -> Option<String> {
        use std::os::fd::BorrowedFd;
        let fd = self.master.as_ref()?.as_raw_fd()?;
        // SAFETY: the master stays open for the whole call (we own it); the clone is our own.
        let owned = unsafe { BorrowedFd::borrow_raw(fd) }
            .try_clone_to_owned()
            .ok()?;
        let out = std::process::Command::new("stty")
            .arg("-a")
            .stdin(std::process::Stdio::from(owned))
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for PtySession {
    fn drop(&mut self) {
        for pid in &self.extra_pids {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        if !self.exited && matches!(self.child.try_wait(), Ok(None)) {
            // portable-pty sends SIGHUP first (the TUI shuts down cleanly), then SIGKILL.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The reader ends with the child's terminal; joining a thread stuck on a grandchild
        // that kept the slave open would hang the test, so it is detached instead.
        drop(self.reader.take());
    }
}

/// Stage events of `source` with `stage` in a JSON-lines trace file.
pub fn trace_count(path: &Path, stage: &str, source: &str) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["stage"] == stage && v["source"] == source)
        .count()
}

/// The first screen row whose text contains `needle`.
pub fn row_of(screen: &vt100::Screen, needle: &str) -> Option<u16> {
    (0..ROWS).find(|&r| row_text(screen, r).contains(needle))
}

pub fn row_text(screen: &vt100::Screen, row: u16) -> String {
    screen.contents_between(row, 0, row, COLS)
}

/// The column where `text` starts on `row`, counted in cells (wide characters take two).
pub fn column_of(screen: &vt100::Screen, row: u16, text: &str) -> Option<u16> {
    let first = text.chars().next()?.to_string();
    (0..COLS).find(|&c| {
        screen
            .cell(row, c)
            .is_some_and(|cell| cell.contents() == first)
            && cells_text(screen, row, c, text.chars().count()).as_deref() == Some(text)
    })
}

/// `n` characters read cell by cell from (row, col), skipping wide-character continuations.
fn cells_text(screen: &vt100::Screen, row: u16, col: u16, n: usize) -> Option<String> {
    let mut out = String::new();
    let mut c = col;
    let mut taken = 0;
    while taken < n {
        let cell = screen.cell(row, c)?;
        if !cell.is_wide_continuation() {
            out.push_str(cell.contents());
            taken += 1;
        }
        c += 1;
    }
    Some(out)
}

/// Whether the cells of `row` that hold text are drawn reversed (the selection style).
pub fn row_selected(screen: &vt100::Screen, row: u16, col: u16) -> bool {
    screen.cell(row, col).is_some_and(|c| c.inverse())
}

/// Position of the last occurrence of `needle` in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// T.6: the byte stream after the last frame leaves the alternate screen, shows the cursor and
/// turns bracketed paste off, and the emulated terminal agrees.
pub fn assert_terminal_restored(seen: &Seen) {
    let bytes = &seen.bytes;
    let entered = rfind(bytes, ALT_SCREEN_ON).expect("the TUI entered the alternate screen");
    let tail = &bytes[entered..];
    // The restoration is the last thing written: find the alternate-screen exit, then the
    // other two must be in the same closing sequence, after every frame.
    let left = rfind(tail, ALT_SCREEN_OFF).expect("alternate screen exit (CSI ?1049l)");
    let last_frame_start = rfind(tail, b"\x1b[?2026h").unwrap_or(0);
    assert!(
        left > last_frame_start,
        "alternate screen exit must follow the last frame"
    );
    let closing = &tail[last_frame_start..];
    assert!(
        rfind(closing, CURSOR_SHOW).is_some(),
        "cursor show (CSI ?25h) after the last frame"
    );
    assert!(
        rfind(closing, PASTE_OFF).is_some(),
        "bracketed paste off (CSI ?2004l) after the last frame"
    );
    if rfind(bytes, MOUSE_ON).is_some() {
        assert!(
            rfind(closing, MOUSE_OFF).is_some(),
            "mouse capture off (CSI ?1000l) after the last frame"
        );
    }
    let screen = seen.parser.screen();
    assert!(
        !screen.alternate_screen(),
        "terminal left on the alternate screen"
    );
    assert!(!screen.hide_cursor(), "cursor left hidden");
    assert!(!screen.bracketed_paste(), "bracketed paste left on");
}

/// Canonical mode and echo are back on the pty (raw mode was left). Skipped (with a note)
/// when `stty` cannot be run here.
pub fn assert_cooked_mode(session: &PtySession) {
    let Some(text) = session.stty() else {
        eprintln!("stty not runnable on the pty; raw-mode check skipped");
        return;
    };
    let flags: Vec<&str> = text.split([' ', ';', '\n']).collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo"),
        "terminal left in raw mode: {text}"
    );
}

/// The state letter of `/proc/<pid>/stat` (`T`: stopped), or `None` when the process is gone.
pub fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is parenthesised and may hold spaces: the state follows the last ')'.
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

/// The pids of `parent`'s children (from `/proc/<pid>/stat`).
pub fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// The TUI holds the pty in raw mode (no canonical input, no echo). Skipped like
/// [`assert_cooked_mode`].
pub fn assert_raw_mode(session: &PtySession) {
    let Some(text) = session.stty() else {
        eprintln!("stty not runnable on the pty; raw-mode check skipped");
        return;
    };
    let flags: Vec<&str> = text.split([' ', ';', '\n']).collect();
    assert!(
        flags.contains(&"-icanon") && flags.contains(&"-echo"),
        "terminal not in raw mode: {text}"
    );
}

/// `utime + stime` of a process in clock ticks (`/proc/<pid>/stat` fields 14 and 15); also
/// readable while it is a zombie, before it is reaped.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: fields are counted after its `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): utime is field 14, stime field 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 when that cannot be asked).
pub fn clock_ticks_per_second() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}
