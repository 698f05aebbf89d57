//! The view actor driven by a fake source (messages sent directly): it paints admitted data,
//! rejects a late result, paints nothing when nothing changed (T.2), and answers keys.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{
    DemandKind, IdentityState, Inboxes, Outlet, SlotSink, SourceControl, SourceEvent, SourceHandle,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot, ROSTER};
use masc_tui::actors::work::TASK_LIST;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::view::actor::{ViewArgs, ViewEvent, spawn_view};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::SLOW_READ_BADGE_AFTER;
use masc_tui::view::keys::ExitCause;
use masc_tui::view::msg::ViewMsg;
use masc_tui::view::sample::{buffer_text, confirmed, roster, roster_observation, roster_ticket};
use masc_tui::view::terminal::presenter::{ByteCounter, ByteRecorder, FrameSink};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::style::Modifier;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

type Events = mpsc::UnboundedReceiver<ViewEvent>;

/// Waits for the first event matching `pred` (the timeout only guards against a hang).
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

async fn frame_with(rx: &mut Events, needle: &str) -> ratatui::buffer::Buffer {
    match wait_for(
        rx,
        |e| matches!(e, ViewEvent::Frame { buffer, .. } if buffer_text(buffer).contains(needle)),
    )
    .await
    {
        ViewEvent::Frame { buffer, .. } => buffer,
        _ => unreachable!(),
    }
}

async fn handled(rx: &mut Events, kind: &'static str) {
    wait_for(rx, |e| matches!(e, ViewEvent::Handled(k) if *k == kind)).await;
}

fn key(c: char) -> ViewMsg {
    ViewMsg::Input(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )))
}

struct Spawned {
    view: ActorRef<ViewMsg>,
    events: Events,
    exit: oneshot::Receiver<ExitCause>,
    done: tokio::task::JoinHandle<()>,
    /// The fake roster source's way to the view: its surface's inbox, then a notification.
    roster: Outlet<KeepersSlot, KeepersObservation>,
}

impl Spawned {
    fn identity(&self, state: IdentityState) {
        self.view
            .cast(ViewMsg::Source(SourceEvent::Identity(state)))
            .unwrap();
    }
}

async fn spawn<B: FrameSink>(backend: B) -> Spawned {
    let (tx, events) = mpsc::unbounded_channel();
    let (exit_tx, exit) = oneshot::channel();
    let inboxes = Inboxes::new();
    let mut args = ViewArgs::new(backend);
    args.observer = Some(tx);
    args.exit = Some(exit_tx);
    args.inboxes = inboxes.clone();
    let (view, done) = spawn_view(args).await.unwrap();
    let roster = Outlet::new(&inboxes, Arc::new(view.clone()));
    Spawned {
        view,
        events,
        exit,
        done,
        roster,
    }
}

/// Confirms epoch 1 and admits a roster of `n` under generation 1.
async fn load(s: &mut Spawned, n: usize) {
    s.identity(confirmed(1, AdmissionMode::Receipt));
    s.roster.dispatched(roster_ticket(1, 1));
    s.roster.slot_event(roster_observation(
        roster_ticket(1, 1),
        roster(n),
        AdmissionMode::Receipt,
    ));
    frame_with(&mut s.events, &format!("KEEPERS {n}")).await;
}

#[tokio::test]
async fn g7_actor_paints_admitted_data_and_rejects_a_late_result() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    frame_with(&mut s.events, "(not loaded yet)").await;
    load(&mut s, 3).await;
    // A second read is dispatched; the first generation's late answer arrives after it.
    s.roster.dispatched(roster_ticket(2, 1));
    s.roster.slot_event(roster_observation(
        roster_ticket(1, 1),
        roster(8),
        AdmissionMode::Receipt,
    ));
    let rejected = wait_for(&mut s.events, |e| matches!(e, ViewEvent::Rejected(_))).await;
    assert!(matches!(
        rejected,
        ViewEvent::Rejected(RejectReason::Superseded)
    ));
    s.roster.slot_event(roster_observation(
        roster_ticket(2, 1),
        roster(4),
        AdmissionMode::Receipt,
    ));
    let buf = frame_with(&mut s.events, "KEEPERS 4").await;
    let text = buffer_text(&buf);
    assert!(text.contains("keeper-0003"));
    assert!(
        !text.contains("keeper-0007"),
        "the late roster of 8 was never applied"
    );
}

#[tokio::test]
async fn t2_idle_view_writes_zero_bytes() {
    let counter = ByteCounter::default();
    let mut s = spawn(CrosstermBackend::new(counter.clone())).await;
    wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { .. })).await;
    load(&mut s, 5).await;
    let settled = counter.bytes();
    let writes = counter.writes();
    assert!(settled > 0);
    // Messages that change nothing: an unbound key, a retire of a ticket that owns nothing,
    // a stale-epoch dispatch, a spurious frame tick.
    s.view.cast(key('x')).unwrap();
    s.roster.retired(roster_ticket(9, 1));
    s.roster.dispatched(roster_ticket(10, 0));
    s.view.cast(ViewMsg::FrameDue).unwrap();
    handled(&mut s.events, "frame_due").await;
    assert_eq!(counter.bytes(), settled, "an idle TUI writes nothing");
    assert_eq!(counter.writes(), writes);
    // One `j` writes a small differential frame.
    s.view.cast(key('j')).unwrap();
    let ViewEvent::Frame { stats, .. } =
        wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { .. })).await
    else {
        unreachable!()
    };
    assert!(!stats.full);
    assert!(stats.cells > 0);
    let j_bytes = counter.bytes() - settled;
    assert!(
        j_bytes > 0 && j_bytes < settled,
        "differential: {j_bytes} vs full {settled}"
    );
}

/// T.2 with G-4 (the CI failure of stop 6): a background re-read is invisible even when
/// something else paints while it is in flight; once it is slow (`SLOW_READ_BADGE_AFTER`) the
/// view paints its badge by itself (`read_aged`), and the admitted answer removes it.
#[tokio::test]
async fn t2_background_reread_badge_only_when_slow() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    load(&mut s, 3).await;
    let dispatched_at = std::time::Instant::now();
    s.roster.dispatched(roster_ticket(2, 1));
    s.view.cast(key('j')).unwrap();
    let ViewEvent::Frame { buffer, .. } =
        wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { .. })).await
    else {
        unreachable!()
    };
    // Only meaningful if the machine painted before the read became slow (it always should).
    if dispatched_at.elapsed() < SLOW_READ_BADGE_AFTER {
        assert!(
            !buffer_text(&buffer).contains("reading"),
            "a routine re-read painted its badge with an unrelated frame"
        );
    }
    handled(&mut s.events, "read_aged").await;
    assert!(dispatched_at.elapsed() >= SLOW_READ_BADGE_AFTER);
    frame_with(&mut s.events, "reading").await;
    s.roster.slot_event(roster_observation(
        roster_ticket(2, 1),
        roster(3),
        AdmissionMode::Receipt,
    ));
    let ViewEvent::Frame { buffer, .. } =
        wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { .. })).await
    else {
        unreachable!()
    };
    assert!(!buffer_text(&buffer).contains("reading"));
}

#[tokio::test]
async fn keys_move_selection_and_q_q_quits_while_other_key_cancels() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    load(&mut s, 5).await;
    s.view.cast(key('j')).unwrap();
    s.view.cast(key('j')).unwrap();
    let buf = wait_for(&mut s.events, |e| {
        matches!(e, ViewEvent::Frame { buffer, .. }
            if buffer[(0, 6)].modifier.contains(Modifier::REVERSED))
    })
    .await;
    let ViewEvent::Frame { buffer, .. } = buf else {
        unreachable!()
    };
    assert!(
        buffer_text(&buffer)
            .lines()
            .nth(6)
            .unwrap()
            .contains("keeper-0002")
    );
    s.view.cast(key('q')).unwrap();
    frame_with(&mut s.events, "press q again").await;
    s.view.cast(key('x')).unwrap();
    wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { buffer, .. } if !buffer_text(buffer).contains("press q again"))).await;
    s.view.cast(key('q')).unwrap();
    s.view.cast(key('q')).unwrap();
    assert_eq!(s.exit.await.unwrap(), ExitCause::QuitKey);
    s.done.await.unwrap();
}

#[tokio::test]
async fn ctrl_c_quits_as_interrupt() {
    let s = spawn(TestBackend::new(80, 24)).await;
    s.view
        .cast(ViewMsg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL,
        ))))
        .unwrap();
    assert_eq!(s.exit.await.unwrap(), ExitCause::Interrupt);
}

/// A source's mailbox with control only (like a polled source without commands of its own).
#[derive(Debug)]
enum FakeMsg {
    Control(SourceControl),
}

masc_tui::source_message!(FakeMsg);

struct FakeSource;

impl Actor for FakeSource {
    type Msg = FakeMsg;
    type State = mpsc::UnboundedSender<SourceControl>;
    type Arguments = mpsc::UnboundedSender<SourceControl>;
    async fn pre_start(
        &self,
        _myself: ActorRef<FakeMsg>,
        args: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(args)
    }
    async fn handle(
        &self,
        _myself: ActorRef<FakeMsg>,
        msg: FakeMsg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        let FakeMsg::Control(control) = msg;
        let _ = state.send(control);
        Ok(())
    }
}

#[tokio::test]
async fn g3_r_sends_an_explicit_demand_to_the_source() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    let (tx, mut demands) = mpsc::unbounded_channel();
    let (source, _) = Actor::spawn(None, FakeSource, tx).await.unwrap();
    s.view
        .cast(ViewMsg::Source(SourceEvent::SourceUp {
            source: ROSTER,
            handle: SourceHandle::new(&source),
        }))
        .unwrap();
    s.view.cast(key('r')).unwrap();
    let got = demands.recv().await.unwrap();
    assert!(matches!(got, SourceControl::Demand(DemandKind::Explicit)));
    frame_with(&mut s.events, "refresh requested").await;
}

/// A source no screen on display reads is told so when it comes up, is told it is
/// shown with the frame of its screen, and hidden again when the screen goes; a source the
/// screen reads is told nothing (it starts shown).
#[tokio::test]
async fn sources_are_told_when_their_screen_is_shown_and_hidden() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    let (tx, mut task_list) = mpsc::unbounded_channel();
    let (source, _) = Actor::spawn(None, FakeSource, tx).await.unwrap();
    let (roster_tx, mut roster) = mpsc::unbounded_channel();
    let (roster_source, _) = Actor::spawn(None, FakeSource, roster_tx).await.unwrap();
    for (key, actor) in [(TASK_LIST, &source), (ROSTER, &roster_source)] {
        s.view
            .cast(ViewMsg::Source(SourceEvent::SourceUp {
                source: key,
                handle: SourceHandle::new(actor),
            }))
            .unwrap();
    }
    // The Keepers screen: the task list is hidden, the roster shown.
    assert!(matches!(
        task_list.recv().await.unwrap(),
        SourceControl::Visible(false)
    ));
    let tab = |code| ViewMsg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    // Back one surface: Work.
    s.view.cast(tab(KeyCode::BackTab)).unwrap();
    assert!(matches!(
        task_list.recv().await.unwrap(),
        SourceControl::Visible(true)
    ));
    assert!(matches!(
        roster.recv().await.unwrap(),
        SourceControl::Visible(false)
    ));
    s.view.cast(tab(KeyCode::Tab)).unwrap();
    assert!(matches!(
        task_list.recv().await.unwrap(),
        SourceControl::Visible(false)
    ));
    assert!(matches!(
        roster.recv().await.unwrap(),
        SourceControl::Visible(true)
    ));
    // Nothing else was sent to either.
    frame_with(&mut s.events, "KEEPERS").await;
    assert!(task_list.try_recv().is_err());
    assert!(roster.try_recv().is_err());
}

#[tokio::test]
async fn source_restart_shows_the_failure_beside_the_last_value() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    load(&mut s, 3).await;
    s.roster.dispatched(roster_ticket(2, 1));
    s.view
        .cast(ViewMsg::Source(SourceEvent::SourceRestarted(ROSTER)))
        .unwrap();
    let buf = frame_with(&mut s.events, "source_restarted").await;
    assert!(buffer_text(&buf).contains("keeper-0002"));
}

#[tokio::test]
async fn t5_resize_forces_a_full_frame_and_small_sizes_gate() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    load(&mut s, 3).await;
    s.view.cast(ViewMsg::Input(Event::Resize(40, 10))).unwrap();
    let buf = frame_with(&mut s.events, "terminal too small").await;
    assert_eq!((buf.area.width, buf.area.height), (40, 10));
    s.view.cast(ViewMsg::Input(Event::Resize(90, 20))).unwrap();
    let ev = wait_for(
        &mut s.events,
        |e| matches!(e, ViewEvent::Frame { buffer, .. } if buffer.area.width == 90),
    )
    .await;
    let ViewEvent::Frame { stats, buffer } = ev else {
        unreachable!()
    };
    assert!(stats.full);
    assert!(buffer_text(&buffer).contains("keeper-0000"));
}

#[tokio::test]
async fn search_jumps_live_and_detail_opens_and_closes() {
    let mut s = spawn(TestBackend::new(100, 30)).await;
    load(&mut s, 20).await;
    s.view.cast(key('/')).unwrap();
    for c in "0013".chars() {
        s.view.cast(key(c)).unwrap();
    }
    let buf = wait_for(
        &mut s.events,
        |e| matches!(e, ViewEvent::Frame { buffer, .. } if buffer_text(buffer).contains("/0013")),
    )
    .await;
    let ViewEvent::Frame { buffer, .. } = buf else {
        unreachable!()
    };
    let selected_row = (0..buffer.area.height)
        .find(|&y| buffer[(0, y)].modifier.contains(Modifier::REVERSED) && y > 3)
        .unwrap();
    assert!(
        buffer_text(&buffer)
            .lines()
            .nth(selected_row as usize)
            .unwrap()
            .contains("keeper-0013")
    );
    s.view
        .cast(ViewMsg::Input(Event::Key(KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        ))))
        .unwrap();
    s.view
        .cast(ViewMsg::Input(Event::Key(KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        ))))
        .unwrap();
    frame_with(&mut s.events, "KEEPER keeper-0013").await;
    s.view
        .cast(ViewMsg::Input(Event::Key(KeyEvent::new(
            KeyCode::Esc,
            KeyModifiers::NONE,
        ))))
        .unwrap();
    wait_for(&mut s.events, |e| matches!(e, ViewEvent::Frame { buffer, .. } if !buffer_text(buffer).contains("KEEPER keeper-0013"))).await;
}

type ToolsMsg = masc_tui::actors::read::SourceMsg<
    masc_tui::actors::tools::ToolsSlot,
    masc_tui::actors::tools::ToolsObservation,
    masc_tui::actors::tools::ToolsCommand,
>;

/// A Tools source that only reports the commands it is sent.
struct FakeTools;

impl Actor for FakeTools {
    type Msg = ToolsMsg;
    type State = mpsc::UnboundedSender<masc_tui::actors::tools::ToolsCommand>;
    type Arguments = mpsc::UnboundedSender<masc_tui::actors::tools::ToolsCommand>;
    async fn pre_start(
        &self,
        _myself: ActorRef<ToolsMsg>,
        args: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(args)
    }
    async fn handle(
        &self,
        _myself: ActorRef<ToolsMsg>,
        msg: ToolsMsg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        if let masc_tui::actors::read::SourceMsg::Command(c) = msg {
            let _ = state.send(c);
        }
        Ok(())
    }
}

fn special(code: KeyCode, modifiers: KeyModifiers) -> ViewMsg {
    ViewMsg::Input(Event::Key(KeyEvent::new(code, modifiers)))
}

/// surfaces.md "Tools": the view actor tells the Tools
/// source which Keeper the `available` pane reads as soon as what is in front changes —
/// entering the pane selects the roster's Keeper, leaving the System tab selects none (the read
/// stops), and a tab switch alone back onto the pane selects it again (no System key).
#[tokio::test]
async fn tools_item2_the_keeper_panes_read_follows_the_tab_without_a_system_key() {
    use masc_tui::actors::tools::{TOOLS, ToolsCommand};
    let mut s = spawn(TestBackend::new(120, 30)).await;
    load(&mut s, 3).await;
    let (tx, mut sent) = mpsc::unbounded_channel();
    let (tools, _) = Actor::spawn(None, FakeTools, tx).await.unwrap();
    s.view
        .cast(ViewMsg::Source(SourceEvent::SourceUp {
            source: TOOLS,
            handle: SourceHandle::new(&tools).with_commands::<_, ToolsCommand>(&tools),
        }))
        .unwrap();
    let mut next_select = async || loop {
        match tokio::time::timeout(Duration::from_secs(5), sent.recv()).await {
            Ok(Some(ToolsCommand::SelectKeeper { keeper })) => return keeper,
            Ok(Some(_)) => continue,
            other => panic!("no SelectKeeper: {other:?}"),
        }
    };
    // Keepers → Board → System; Runtime → … → available.
    s.view
        .cast(special(KeyCode::Tab, KeyModifiers::NONE))
        .unwrap();
    s.view
        .cast(special(KeyCode::Tab, KeyModifiers::NONE))
        .unwrap();
    frame_with(&mut s.events, "[Runtime]").await;
    for _ in 0..5 {
        s.view.cast(key('p')).unwrap();
    }
    frame_with(&mut s.events, "[available]").await;
    assert_eq!(next_select().await.as_deref(), Some("keeper-0000"));
    s.view
        .cast(special(KeyCode::BackTab, KeyModifiers::SHIFT))
        .unwrap();
    assert_eq!(next_select().await, None, "leaving the tab stops the read");
    s.view
        .cast(special(KeyCode::Tab, KeyModifiers::NONE))
        .unwrap();
    assert_eq!(
        next_select().await.as_deref(),
        Some("keeper-0000"),
        "a tab switch alone reads it again"
    );
}

/// The text of the roster row drawn selected (reversed from its first cell), if any.
fn selected_row(buffer: &ratatui::buffer::Buffer) -> Option<String> {
    let text = buffer_text(buffer);
    (0..buffer.area.height)
        .find(|&y| {
            buffer[(0, y)].modifier.contains(Modifier::REVERSED)
                && text
                    .lines()
                    .nth(y as usize)
                    .is_some_and(|l| l.contains("keeper-"))
        })
        .and_then(|y| text.lines().nth(y as usize).map(str::to_string))
}

/// At scale: the roster route answers at most 200 rows (§4.1;
/// `demo --scale` has 5,000 Keepers), so from the top the 200th `j` has no row to move to —
/// the selection stays, no frame is asked for and nothing is written (T.2). The bench pressed
/// 200 `j` from the top and counted that key as one that "painted nothing"; the product is
/// right and the bench now goes back to the top (Home, untimed) before the last row.
#[tokio::test]
async fn issue15_j_on_the_last_of_200_roster_rows_writes_nothing_and_k_moves_back() {
    let counter = ByteCounter::default();
    let mut s = spawn(CrosstermBackend::new(counter.clone())).await;
    s.identity(confirmed(1, AdmissionMode::Receipt));
    let mut shown = roster(200);
    shown.total = 5_012;
    shown.limit = Some(200);
    shown.truncated = true;
    s.roster.dispatched(roster_ticket(1, 1));
    s.roster.slot_event(roster_observation(
        roster_ticket(1, 1),
        shown,
        AdmissionMode::Receipt,
    ));
    frame_with(&mut s.events, "KEEPERS 200 loaded of 5012").await;
    for _ in 0..199 {
        s.view.cast(key('j')).unwrap();
    }
    wait_for(&mut s.events, |e| {
        matches!(e, ViewEvent::Frame { buffer, .. }
            if selected_row(buffer).is_some_and(|row| row.contains("keeper-0199")))
    })
    .await;
    // Everything the 199 keys asked for is painted: a frame tick finds nothing pending.
    s.view.cast(ViewMsg::FrameDue).unwrap();
    handled(&mut s.events, "frame_due").await;
    let (bytes, writes) = (counter.bytes(), counter.writes());
    // The 200th `j`: handled, no frame asked for, nothing written.
    s.view.cast(key('j')).unwrap();
    s.view.cast(ViewMsg::FrameDue).unwrap();
    // Every event up to the key's handling and then the tick's: no frame among them.
    let mut painted = false;
    for until in ["input", "frame_due"] {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), s.events.recv())
                .await
                .expect("view event")
                .expect("view alive");
            match event {
                ViewEvent::Frame { .. } => painted = true,
                ViewEvent::Handled(kind) if kind == until => break,
                _ => {}
            }
        }
    }
    assert!(!painted, "the last row's `j` painted a frame");
    assert_eq!(counter.bytes(), bytes, "the last row's `j` wrote nothing");
    assert_eq!(counter.writes(), writes);
    // `k` moves the selection back up and paints a differential frame.
    s.view.cast(key('k')).unwrap();
    let ViewEvent::Frame { stats, .. } = wait_for(&mut s.events, |e| {
        matches!(e, ViewEvent::Frame { buffer, .. }
            if selected_row(buffer).is_some_and(|row| row.contains("keeper-0198")))
    })
    .await
    else {
        unreachable!()
    };
    assert!(!stats.full && stats.cells > 0);
    assert!(counter.bytes() > bytes);
}

/// The kept frame, in the actor: with nothing but keys and frame ticks reaching the
/// view, a `j` past the page's last row moves the rows with the terminal's scroll region
/// (`CSI top;bottom r`, `CSI 1 S`, `CSI r`) and paints only the row brought in. Before, the
/// actor's check for Work preparations after every message took `&mut` of the model, which
/// counts as a change: every frame was a whole one and each such `j` rewrote the whole list
/// (≈ 6.7 kB a key at 200×60 in `demo --scale`, against ≈ 0.5 kB).
#[tokio::test]
async fn issue15_j_past_the_page_scrolls_the_terminal_in_the_actor() {
    let recorder = ByteRecorder::default();
    let mut s = spawn(CrosstermBackend::new(recorder.clone())).await;
    load(&mut s, 200).await;
    let settled = recorder.take();
    assert!(!settled.is_empty());
    let mut scrolled = 0;
    for i in 1..=40 {
        s.view.cast(key('j')).unwrap();
        let needle = format!("keeper-{i:04}");
        wait_for(&mut s.events, |e| {
            matches!(e, ViewEvent::Frame { buffer, .. }
                if selected_row(buffer).is_some_and(|row| row.contains(&needle)))
        })
        .await;
        let frame = recorder.take();
        if frame.windows(4).any(|w| w == b"\x1b[1S") {
            scrolled += 1;
        }
    }
    // 80×24 (the backend's fallback size): the page ends well before row 40.
    assert!(
        scrolled >= 20,
        "keys that scrolled the terminal: {scrolled} of 40"
    );
}
