//! `masc-tui` (default run mode): open the TUI on a MASC workspace server.
//!
//! `run` parses nothing itself (clap did), sets up tracing and a tokio runtime and calls
//! [`run_tui`], which owns the terminal for the session and returns why it ended.

use crate::actors::contract::{EventSink, Inboxes};
use crate::actors::fleet::supervisor::{FleetConfig, start_fleet};
use crate::actors::supervisor::{RestartPolicy, RuntimeConfig, start_runtime};
use crate::protocol::client::{ClientConfig, WorkspaceClient};
use crate::view::actor::{ViewArgs, spawn_view};
use crate::view::fleet::{FleetMember, FleetRoster};
use crate::view::keys::ExitCause;
use crate::view::terminal::modes::{TerminalGuard, install_panic_hook};
use crate::view::terminal::presenter::sync_output_from_env;
use crate::view::terminal::signals::signal_number;
use crate::view::terminal::tty_input::InputGate;
use crate::view::terminal_link::{
    ExitCauseSlot, spawn_input_pump, spawn_signal_listener, suspender,
};

use anyhow::Context as _;
use ratatui::backend::CrosstermBackend;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub use super::args::{Args, DEFAULT_HOST, DEFAULT_HTTP_PORT, Look, StartSurface, ThemeName};

/// Session options beyond the client configuration.
#[derive(Debug, Clone)]
pub struct TuiOptions {
    /// The theme and the mouse.
    pub look: Look,
    /// The expected workspace base path (`MASC_BASE_PATH`), if any.
    pub expected_base_path: Option<PathBuf>,
    /// Honour panic drills on sources (tests and demo only).
    pub fault_drills: bool,
    /// The outbox this session claimed (`cli::state`).
    pub outbox: crate::outbox::OutboxLocation,
    /// A read-only session's banner (`--read-only` on a held state directory).
    pub read_only: Option<String>,
    /// The surface in front at start.
    pub start: StartSurface,
    /// Every configured workspace's background watch (empty: no fleet).
    pub fleet: Vec<crate::actors::fleet::WatchTarget>,
    /// The configured workspace this session reads, if it is a named one.
    pub active: Option<crate::actors::fleet::FleetName>,
}

/// `q q`.
pub const EXIT_QUIT: i32 = 0;
/// An abnormal end (the view or the actor runtime failed).
pub const EXIT_ABNORMAL: i32 = 1;
/// The terminal went away: end of input or a read error on it (told apart from a quit and a
/// signal, so a wrapper script knows the session did not end by choice).
pub const EXIT_TERMINAL_LOST: i32 = 3;

/// The process exit status of a session (README "Exit codes"): 0 only for `q q`; a signal
/// ends with the conventional 128 + its number (SIGHUP 129, SIGINT 130, SIGQUIT 131,
/// SIGTERM 143); `Ctrl-C` typed in the TUI is an interrupt like SIGINT (130).
pub fn exit_code(cause: &ExitCause) -> i32 {
    match cause {
        ExitCause::QuitKey | ExitCause::Shutdown => EXIT_QUIT,
        ExitCause::Interrupt => 128 + signal_hook::consts::SIGINT,
        ExitCause::Signal(name) => signal_number(name).map_or(EXIT_ABNORMAL, |n| 128 + n),
        ExitCause::TerminalLost(_) => EXIT_TERMINAL_LOST,
        ExitCause::Abnormal(_) => EXIT_ABNORMAL,
    }
}

/// Runs the TUI; returns the process exit code ([`exit_code`]).
pub fn run(mut args: Args) -> anyhow::Result<i32> {
    // The configuration first: a malformed file or a missing workspace starts nothing.
    let resolved = super::config::resolve(&args)?;
    for note in &resolved.notes {
        let _ = super::out::text(
            &mut super::out::SafeStderr,
            &format!("masc-tui: note: {note}"),
        );
    }
    args.look.theme = Some(resolved.theme.value);
    // Claimed before anything else is opened or painted: a refused session leaves nothing
    // behind and prints its refusal on the terminal it was started from.
    let state = super::state::claim_as(args.state_dir.as_deref(), args.read_only)?;
    let trace_file = super::state::ClaimedState::trace_file(
        args.trace_file.as_deref(),
        args.state_dir.as_deref(),
    );
    let _trace = init_tracing(trace_file.as_deref(), args.otlp.as_deref())?;
    state.trace_unlocked();
    let cfg = resolved.client_config(args.strict_receipts);
    let base_path = resolved.base_path.as_ref().map(|b| b.value.clone());
    let options = TuiOptions {
        look: args.look,
        expected_base_path: base_path.clone(),
        fault_drills: false,
        outbox: state.outbox.clone(),
        read_only: state.read_only.clone(),
        start: resolved.start.value,
        fleet: resolved.fleet_targets(args.strict_receipts),
        active: resolved
            .workspace
            .as_ref()
            .map(|w| crate::actors::fleet::FleetName(w.value.clone())),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let cause = runtime.block_on(async {
        // A named workspace's token source must give a token (and a token file be
        // owner-only) before the terminal is taken.
        resolved.ensure_token().await?;
        run_tui(cfg, options).await
    })?;
    write_exit_line(base_path.as_deref(), &cause);
    Ok(exit_code(&cause))
}

/// Owns the terminal for one session: enters it, starts the view actor, the input pump and
/// the signal listener (and, once wired, the actor runtime), waits for the view to end, stops
/// everything and restores the terminal. Returns why the session ended.
///
/// Expects a configured client (`client_cfg`); the runtime hook below starts the sources.
pub async fn run_tui(client_cfg: ClientConfig, options: TuiOptions) -> anyhow::Result<ExitCause> {
    install_panic_hook();
    let client = WorkspaceClient::new(client_cfg).context("workspace client")?;
    let guard = TerminalGuard::enter(!options.look.no_mouse).context("entering the terminal")?;
    // Parks the terminal reader while `$EDITOR` owns the terminal.
    let input_gate = InputGate::default();
    // One frame = one write: the buffer is flushed once per frame by the presenter.
    let backend = CrosstermBackend::new(BufWriter::with_capacity(1 << 20, std::io::stdout()));
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    // The view drains these inboxes; the runtime's sources post into them.
    let inboxes = Inboxes::new();
    let args = ViewArgs {
        inboxes: inboxes.clone(),
        backend,
        sync_output: sync_output_from_env(),
        theme: options.look.theme(),
        suspender: Some(suspender(&guard, input_gate.clone())),
        exit: Some(exit_tx),
        observer: None,
        editor: None,
        read_only: options.read_only.clone(),
        start: options.start.tab(),
        fleet: fleet_roster(&options),
    };
    let (view, view_done) = spawn_view(args).await.context("starting the view")?;
    let signal_cause: ExitCauseSlot = Arc::new(Mutex::new(None));
    let (signals, signal_task) =
        match spawn_signal_listener(view.clone(), Arc::clone(&signal_cause), input_gate.clone()) {
            Ok(listener) => listener,
            Err(err) => {
                view.stop(None);
                let _ = view_done.await;
                guard.restore();
                return Err(anyhow::Error::new(err).context("installing signal handlers"));
            }
        };
    if let Err(err) = spawn_input_pump(view.clone(), Arc::clone(&signal_cause), input_gate) {
        view.stop(None);
        let _ = view_done.await;
        signals.close();
        signal_task.abort();
        guard.restore();
        return Err(anyhow::Error::new(err).context("reading the terminal"));
    }

    let runtime_cfg = RuntimeConfig {
        expected_base: options
            .expected_base_path
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        fault_drills: options.fault_drills,
        outbox: options.outbox.clone(),
        shown_at_start: Some(shown_at_start(options.start.tab())),
        ..RuntimeConfig::default()
    };
    let events: Arc<dyn EventSink> = Arc::new(view.clone());
    let inboxes_for_fleet = inboxes.clone();
    let runtime = match start_runtime(client.clone(), events, inboxes, runtime_cfg).await {
        Ok(runtime) => runtime,
        Err(err) => {
            // Tear the session down in order before reporting: the terminal is restored by
            // the guard, never left raw.
            view.stop(None);
            let _ = view_done.await;
            signals.close();
            signal_task.abort();
            guard.restore();
            return Err(anyhow::anyhow!("starting the actor runtime: {err}"));
        }
    };

    let fleet = if options.fleet.is_empty() {
        None
    } else {
        let cfg = FleetConfig {
            targets: options.fleet.clone(),
            period: crate::actors::fleet::DEFAULT_ROUND,
            active: options.active.clone(),
            active_period: crate::actors::fleet::ACTIVE_ROUND,
            restart: RestartPolicy::default(),
            fault_drills: options.fault_drills,
        };
        let events: Arc<dyn EventSink> = Arc::new(view.clone());
        match start_fleet(cfg, events, inboxes_for_fleet).await {
            Ok(fleet) => Some(fleet),
            Err(err) => {
                // The session still reads its own workspace; the picker says nothing is
                // watched.
                tracing::warn!(target: "masc_tui::fleet", error = %err, "the fleet watch could not start");
                None
            }
        }
    };

    let joined = view_done.await;
    if let Some(fleet) = fleet {
        fleet.stop().await;
    }
    runtime.stop().await;
    signals.close();
    signal_task.abort();
    guard.restore();

    let recorded = signal_cause.lock().ok().and_then(|mut c| c.take());
    let cause = match (exit_rx.await, recorded, joined) {
        (Ok(ExitCause::Shutdown), Some(signal), _) => signal,
        (Ok(cause), _, _) => cause,
        (Err(_), _, Err(err)) => ExitCause::Abnormal(format!("view task failed: {err}")),
        (Err(_), _, Ok(())) => ExitCause::Abnormal("view actor stopped without a cause".into()),
    };
    tracing::info!(target: "masc_tui::session", exit = %cause, "session ends");
    Ok(cause)
}

/// The picker's list and the header's colour: the configured workspaces in file order.
fn fleet_roster(options: &TuiOptions) -> FleetRoster {
    FleetRoster {
        members: options
            .fleet
            .iter()
            .map(|t| FleetMember {
                name: t.name.clone(),
                colour: t.colour,
            })
            .collect(),
        active: options.active.clone(),
    }
}

/// The sources the surface in front at start shows (`view::screens::shown_sources`): the
/// others read their first value after these (`actors::read::shell`).
fn shown_at_start(tab: crate::view::screens::Tab) -> Vec<crate::actors::contract::SourceKey> {
    let ui = crate::view::screens::Ui {
        tab,
        ..crate::view::screens::Ui::default()
    };
    crate::view::screens::shown_sources(&ui).to_vec()
}

/// Stage traces and diagnostics go to a JSON-lines file (never the terminal the TUI paints):
/// `--trace-file`, else `$XDG_STATE_HOME/masc-tui/trace-<pid>.jsonl`; with `--otlp`, every
/// ticket also goes to that collector as a span.
pub fn init_tracing(
    trace_file: Option<&std::path::Path>,
    otlp: Option<&str>,
) -> anyhow::Result<crate::timeline::TraceGuard> {
    crate::timeline::init_tracing(trace_file.map(std::path::Path::to_path_buf), otlp)
        .context("setting up the trace")
}

/// T.6: one `[masc-tui] exit: …` line per session in `<base>/.masc/logs/masc-tui-<pid>.log`
/// (only when the base path is known; a cause over 200 bytes is cut on a char boundary). The
/// log is owner-only (0600): a cause can quote a server's error text.
pub fn write_exit_line(base: Option<&std::path::Path>, cause: &ExitCause) {
    let Some(base) = base else { return };
    let dir = base.join(".masc").join("logs");
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(format!("masc-tui-{}.log", std::process::id()));
    let text = cut_cause(&cause.to_string(), 200);
    if let Ok(mut f) = crate::private_file::open_private(&path, false) {
        let _ = writeln!(f, "[masc-tui] exit: {text}");
    }
}

fn cut_cause(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}[+{} bytes]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_exit_codes_tell_a_quit_from_a_signal_and_a_lost_terminal() {
        assert_eq!(exit_code(&ExitCause::QuitKey), 0);
        assert_eq!(exit_code(&ExitCause::Interrupt), 130);
        assert_eq!(exit_code(&ExitCause::Signal("SIGHUP")), 129);
        assert_eq!(exit_code(&ExitCause::Signal("SIGINT")), 130);
        assert_eq!(exit_code(&ExitCause::Signal("SIGQUIT")), 131);
        assert_eq!(exit_code(&ExitCause::Signal("SIGTERM")), 143);
        assert_eq!(
            exit_code(&ExitCause::TerminalLost("end of input".into())),
            3
        );
        assert_eq!(exit_code(&ExitCause::Abnormal("x".into())), 1);
    }

    #[test]
    fn t6_exit_cause_is_cut_on_a_char_boundary() {
        let long = "가".repeat(100);
        let cut = cut_cause(&long, 200);
        // 300 bytes; 200 falls inside a 3-byte scalar, so the cut is at 198.
        assert!(cut.ends_with("[+102 bytes]"));
        assert!(cut.starts_with(&"가".repeat(66)));
        assert_eq!(cut_cause("short", 200), "short");
    }
}
