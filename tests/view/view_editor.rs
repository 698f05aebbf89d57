//! The `$EDITOR` handoff through the view actor (architecture.md "Editor handoff"): the reader
//! is parked before the terminal is handed over, keys that arrived earlier are handled first
//! (H-3), `Esc` or a move before the editor opens cancels it (H-2), nothing is painted while the
//! editor owns the terminal, and the terminal comes back with a full repaint. The editor here is
//! a scripted shell command; the PTY test (tests/pty) runs the real binary with `EDITOR` set.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{Inboxes, Outlet, SlotSink};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::view::actor::{Suspender, ViewArgs, ViewEvent, spawn_view};
use masc_tui::view::editor::EditorCommand;
use masc_tui::view::msg::ViewMsg;
use masc_tui::view::sample::{buffer_text, confirmed, roster, roster_observation, roster_ticket};
use ractor::ActorRef;
use ratatui::backend::TestBackend;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

type Events = mpsc::UnboundedReceiver<ViewEvent>;

/// Records the handoff's steps; `park_input` waits for the test's go (so the test can queue
/// keys ahead of the park) and answers `parks`.
#[derive(Default)]
struct FakeTerminal {
    steps: Mutex<Vec<&'static str>>,
    gate: Mutex<bool>,
    opened: Condvar,
    refuse_park: bool,
}

impl FakeTerminal {
    fn open_gate(&self) {
        *self.gate.lock().unwrap() = true;
        self.opened.notify_all();
    }
    fn steps(&self) -> Vec<&'static str> {
        self.steps.lock().unwrap().clone()
    }
}

impl Suspender for FakeTerminal {
    fn suspend(&self) {
        self.steps.lock().unwrap().push("suspend");
    }
    fn park_input(&self) -> bool {
        let mut open = self.gate.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
        self.steps.lock().unwrap().push("park");
        !self.refuse_park
    }
    fn resume_input(&self) {
        self.steps.lock().unwrap().push("resume");
    }
    fn release(&self) {
        self.steps.lock().unwrap().push("release");
    }
    fn reclaim(&self) {
        self.steps.lock().unwrap().push("reclaim");
    }
}

struct Rig {
    view: ActorRef<ViewMsg>,
    events: Events,
    terminal: Arc<FakeTerminal>,
    _roster: Outlet<KeepersSlot, KeepersObservation>,
}

async fn wait_for(rx: &mut Events, pred: impl Fn(&ViewEvent) -> bool) -> ViewEvent {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let event = rx.recv().await.expect("view alive");
            if pred(&event) {
                return event;
            }
        }
    })
    .await
    .expect("expected view event")
}

async fn frame_with(rx: &mut Events, needle: &str) -> ViewEvent {
    wait_for(
        rx,
        |e| matches!(e, ViewEvent::Frame { buffer, .. } if buffer_text(buffer).contains(needle)),
    )
    .await
}

async fn frame_with_all(rx: &mut Events, needles: &[&str]) -> ViewEvent {
    wait_for(rx, |e| {
        matches!(e, ViewEvent::Frame { buffer, .. }
            if needles.iter().all(|n| buffer_text(buffer).contains(n)))
    })
    .await
}

fn press(view: &ActorRef<ViewMsg>, code: KeyCode, modifiers: KeyModifiers) {
    view.cast(ViewMsg::Input(Event::Key(KeyEvent::new(code, modifiers))))
        .unwrap();
}

fn typed(view: &ActorRef<ViewMsg>, text: &str) {
    for c in text.chars() {
        press(view, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

/// A view on a 3-Keeper roster with `editor` as the operator's editor, the chat of the first
/// Keeper open and `draft` typed into its composer.
async fn rig(editor: &str, terminal: FakeTerminal, draft: &str) -> Rig {
    let (tx, mut events) = mpsc::unbounded_channel();
    let inboxes = Inboxes::new();
    let terminal = Arc::new(terminal);
    let mut args = ViewArgs::new(TestBackend::new(100, 30));
    args.observer = Some(tx);
    args.inboxes = inboxes.clone();
    args.suspender = Some(terminal.clone());
    args.editor = Some(EditorCommand(editor.to_string()));
    let (view, _done) = spawn_view(args).await.unwrap();
    let roster_outlet = Outlet::new(&inboxes, Arc::new(view.clone()));
    view.cast(ViewMsg::Source(
        masc_tui::actors::contract::SourceEvent::Identity(confirmed(1, AdmissionMode::Receipt)),
    ))
    .unwrap();
    roster_outlet.dispatched(roster_ticket(1, 1));
    roster_outlet.slot_event(roster_observation(
        roster_ticket(1, 1),
        roster(3),
        AdmissionMode::Receipt,
    ));
    frame_with(&mut events, "KEEPERS 3").await;
    typed(&view, "c");
    typed(&view, draft);
    if !draft.is_empty() {
        frame_with(&mut events, draft).await;
    }
    Rig {
        view,
        events,
        terminal,
        _roster: roster_outlet,
    }
}

fn ctrl_x(view: &ActorRef<ViewMsg>) {
    press(view, KeyCode::Char('x'), KeyModifiers::CONTROL);
}

async fn handled(rx: &mut Events, kind: &'static str) {
    wait_for(rx, |e| matches!(e, ViewEvent::Handled(k) if *k == kind)).await;
}

/// The editor's text becomes the draft (not sent); the terminal is parked, released,
/// reclaimed and resumed in that order, and the frame after it is a full repaint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editor_text_becomes_the_draft_and_the_terminal_comes_back_whole() {
    let mut r = rig(
        "sh -c 'printf \"from the editor 한글\\n\" > \"$1\"' editor",
        FakeTerminal::default(),
        "hello",
    )
    .await;
    ctrl_x(&r.view);
    handled(&mut r.events, "input").await;
    r.terminal.open_gate();
    handled(&mut r.events, "editor_exited").await;
    let frame = frame_with(&mut r.events, "from the editor 한글").await;
    let ViewEvent::Frame { stats, buffer } = frame else {
        unreachable!()
    };
    // A forced frame rewrites every cell (the editor drew over the screen).
    assert!(stats.full, "full repaint after the editor");
    // Issue 27 item 3: the hand-off's own line ended with the hand-off.
    assert!(
        !buffer_text(&buffer).contains("opening the editor"),
        "{}",
        buffer_text(&buffer)
    );
    assert_eq!(
        r.terminal.steps(),
        vec!["park", "release", "reclaim", "resume"]
    );
}

/// H-3: keys that arrived before the reader parked are handled before the editor opens; the
/// editor opens with the draft as it was asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h3_keys_typed_before_the_editor_opened_are_handled_first() {
    // The script records the order: the file it got, then exits unchanged.
    let probe = std::env::temp_dir().join(format!("masc-tui-h3-{}", std::process::id()));
    let script = format!("sh -c 'cat \"$1\" > {}' editor", probe.display());
    let mut r = rig(&script, FakeTerminal::default(), "draft").await;
    ctrl_x(&r.view);
    // Ctrl-R (reasoning toggle) queued behind Ctrl-X, ahead of the park's answer.
    press(&r.view, KeyCode::Char('r'), KeyModifiers::CONTROL);
    handled(&mut r.events, "input").await;
    handled(&mut r.events, "input").await;
    r.terminal.open_gate();
    handled(&mut r.events, "editor_exited").await;
    let seen = std::fs::read_to_string(&probe).unwrap_or_default();
    let _ = std::fs::remove_file(&probe);
    assert_eq!(seen, "draft", "the editor got the draft");
    // Unchanged: the draft stays and the footer says why nothing changed.
    frame_with_all(&mut r.events, &["unchanged", "draft"]).await;
}

/// H-2: `Esc` before the editor opened cancels the edit (the chat stays open: the Esc is the
/// edit's, not the chat's); the reader is resumed and the terminal never released.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_esc_before_the_editor_opened_cancels_it() {
    let mut r = rig(
        "sh -c 'printf changed > \"$1\"' editor",
        FakeTerminal::default(),
        "keep",
    )
    .await;
    ctrl_x(&r.view);
    press(&r.view, KeyCode::Esc, KeyModifiers::NONE);
    handled(&mut r.events, "input").await;
    handled(&mut r.events, "input").await;
    r.terminal.open_gate();
    handled(&mut r.events, "editor_parked").await;
    // Still in the chat with the draft untouched.
    frame_with_all(&mut r.events, &["cancelled", "keep"]).await;
    assert_eq!(r.terminal.steps(), vec!["park", "resume"]);
}

/// A reader that cannot be parked means no handoff: nothing is released, the draft stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_does_not_park_hands_nothing_over() {
    let terminal = FakeTerminal {
        refuse_park: true,
        ..FakeTerminal::default()
    };
    let mut r = rig("sh -c 'printf changed > \"$1\"' editor", terminal, "stay").await;
    ctrl_x(&r.view);
    handled(&mut r.events, "input").await;
    r.terminal.open_gate();
    handled(&mut r.events, "editor_parked").await;
    frame_with(&mut r.events, "no terminal").await;
    assert_eq!(r.terminal.steps(), vec!["park"]);
}

/// The editor exits non-zero (`:cq`): nothing is applied, the draft stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_editor_applies_nothing() {
    let mut r = rig(
        "sh -c 'printf other > \"$1\"; exit 1' editor",
        FakeTerminal::default(),
        "mine",
    )
    .await;
    ctrl_x(&r.view);
    handled(&mut r.events, "input").await;
    r.terminal.open_gate();
    handled(&mut r.events, "editor_exited").await;
    let frame = frame_with(&mut r.events, "status 1").await;
    let ViewEvent::Frame { buffer, .. } = frame else {
        unreachable!()
    };
    let text = buffer_text(&buffer);
    assert!(text.contains("mine") && !text.contains("other"), "{text}");
}
