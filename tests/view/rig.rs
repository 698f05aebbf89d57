//! Feeding a model without a runtime, as the view actor does: every slot event goes into its
//! surface's typed inbox and is drained at once (`Model::deliver`). The slot type names its
//! payload type here, so a dispatch or retire (which carries no payload) always lands in the
//! inbox its surface drains.

#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use masc_tui::actors::asks::{AsksObservation, AsksSlot};
use masc_tui::actors::board::{BoardObservation, BoardSlot};
use masc_tui::actors::chat::{ChatObservation, ChatSlot};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::tools::{ToolsObservation, ToolsSlot};
use masc_tui::actors::work::{WorkObservation, WorkSlot};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::model::Model;
use masc_tui::view::surface::Drained;
use std::time::Instant;

/// A surface's slot type and the payload type of its inbox.
pub trait SurfaceSlot: masc_tui::actors::contract::SlotKey {
    type Payload: Send + 'static;
}

impl SurfaceSlot for KeepersSlot {
    type Payload = KeepersObservation;
}
impl SurfaceSlot for WorkSlot {
    type Payload = WorkObservation;
}
impl SurfaceSlot for BoardSlot {
    type Payload = BoardObservation;
}
impl SurfaceSlot for ToolsSlot {
    type Payload = ToolsObservation;
}
impl SurfaceSlot for masc_tui::actors::connectors::ConnectorsSlot {
    type Payload = masc_tui::actors::connectors::ConnectorsObservation;
}
impl SurfaceSlot for masc_tui::actors::runtime::RuntimeSlot {
    type Payload = masc_tui::actors::runtime::RuntimeObservation;
}
impl SurfaceSlot for DecisionsSlot {
    type Payload = DecisionsObservation;
}
impl SurfaceSlot for ChatSlot {
    type Payload = ChatObservation;
}
impl SurfaceSlot for masc_tui::actors::keeper_detail::KeeperDetailSlot {
    type Payload = masc_tui::actors::keeper_detail::KeeperDetailObservation;
}
impl SurfaceSlot for AsksSlot {
    type Payload = AsksObservation;
}
impl SurfaceSlot for masc_tui::actors::inspector::InspectorSlot {
    type Payload = masc_tui::actors::inspector::InspectorObservation;
}
impl SurfaceSlot for masc_tui::actors::preparation_report::PreparationReportSlot {
    type Payload = masc_tui::actors::preparation_report::PreparationReportObservation;
}

/// `Dispatched`: what draining it did (`changed`, or `background_reread` for a re-read that
/// keeps its last value shown).
pub fn dispatch<S: SurfaceSlot>(m: &mut Model, ticket: Ticket<S>) -> Drained {
    m.deliver(
        SlotEvent::<S, S::Payload>::Dispatched(ticket),
        Instant::now(),
    )
}

/// `Retired`.
pub fn retire<S: SurfaceSlot>(m: &mut Model, ticket: Ticket<S>) -> Drained {
    m.deliver(SlotEvent::<S, S::Payload>::Retired(ticket), Instant::now())
}

/// `Observed` at `now`: `Ok` when admitted and applied, else the reject reason.
pub fn observe_at<S: SurfaceSlot>(
    m: &mut Model,
    event: SlotEvent<S, S::Payload>,
    now: Instant,
) -> Result<(), RejectReason> {
    assert!(
        matches!(event, SlotEvent::Observed(..)),
        "observe takes an Observed event"
    );
    verdict(m.deliver(event, now))
}

/// `Observed` now: `Ok` when admitted and applied, else the reject reason.
pub fn observe<S: SurfaceSlot>(
    m: &mut Model,
    event: SlotEvent<S, S::Payload>,
) -> Result<(), RejectReason> {
    observe_at(m, event, Instant::now())
}

/// The verdict on the one result a drain handled.
pub fn verdict(drained: Drained) -> Result<(), RejectReason> {
    assert!(
        drained.rejected.len() <= 1,
        "one result, one verdict: {drained:?}"
    );
    match drained.rejected.first() {
        Some(reason) => Err(*reason),
        None => {
            assert!(drained.changed, "an admitted result changes the model");
            Ok(())
        }
    }
}

/// Dispatch, then observe `payload` under the same ticket; panics unless admitted.
pub fn deliver<S: SurfaceSlot>(m: &mut Model, ticket: Ticket<S>, payload: S::Payload)
where
    Ticket<S>: Clone,
{
    dispatch(m, ticket.clone());
    observe(m, SlotEvent::Observed(ticket, payload)).expect("admitted");
}

/// A ticket of `slot` at `generation` in epoch 1 (`sample::scope(1)`).
pub fn ticket<S>(slot: S, generation: u64) -> Ticket<S> {
    Ticket {
        slot,
        generation,
        scope: masc_tui::view::sample::scope(1),
    }
}

/// An admitted value, as the client hands it back.
pub fn admitted<T>(
    value: T,
) -> Result<masc_tui::protocol::client::Admitted<T>, masc_tui::protocol::client::ClientError> {
    Ok(masc_tui::protocol::client::Admitted {
        value: std::sync::Arc::new(value),
        mode: masc_tui::protocol::admission::AdmissionMode::Receipt,
        from_cache: false,
    })
}

/// The whole screen as text, drawn without colour into a `TestBackend` of `ui.area`'s size.
pub fn screen_text(m: &Model, ui: &masc_tui::view::screens::Ui) -> String {
    use masc_tui::view::screens::{ProjectionCtx, render};
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(
        ui.area.width,
        ui.area.height,
    ))
    .unwrap();
    let ctx = ProjectionCtx::now(masc_tui::view::theme::Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    masc_tui::view::sample::buffer_text(t.backend().buffer())
}

/// The roster read of `rows` admitted into `m` (ticket 1, epoch 1, receipt mode).
pub fn admit_roster(m: &mut Model, rows: Vec<masc_tui::protocol::keepers::KeeperRowSlot>) {
    use masc_tui::protocol::admission::AdmissionMode;
    use masc_tui::view::sample;
    let t = sample::roster_ticket(1, 1);
    dispatch(m, t.clone());
    observe(
        m,
        sample::roster_observation(t, sample::roster_of(rows), AdmissionMode::Receipt),
    )
    .unwrap();
}
impl SurfaceSlot for masc_tui::actors::keepers::WaitingSlot {
    type Payload = masc_tui::actors::keepers::WaitingObservation;
}

/// The mounted screens' own state as the tests read and set it (each screen owns its state;
/// the central `Ui` holds none of it).
pub trait ScreensOf {
    fn work(&self) -> &masc_tui::view::screens::work::WorkUi;
    fn work_mut(&mut self) -> &mut masc_tui::view::screens::work::WorkUi;
    fn board(&self) -> &masc_tui::view::screens::board::BoardUi;
    fn board_mut(&mut self) -> &mut masc_tui::view::screens::board::BoardUi;
    fn system(&self) -> &masc_tui::view::screens::system::SystemUi;
    fn system_mut(&mut self) -> &mut masc_tui::view::screens::system::SystemUi;
    fn keepers(&self) -> &masc_tui::view::screens::keepers::KeepersScreen;
    fn keepers_mut(&mut self) -> &mut masc_tui::view::screens::keepers::KeepersScreen;
    fn roster(&self) -> &masc_tui::view::screens::RosterUi {
        &self.keepers().roster
    }
    fn roster_mut(&mut self) -> &mut masc_tui::view::screens::RosterUi {
        &mut self.keepers_mut().roster
    }
    /// The Ask drafts kept beside the layers (none until the first one is typed).
    fn asks(&self) -> &masc_tui::view::screens::approvals::asks::AsksUi;
}

impl ScreensOf for masc_tui::view::screens::Ui {
    fn work(&self) -> &masc_tui::view::screens::work::WorkUi {
        self.screen().unwrap()
    }
    fn work_mut(&mut self) -> &mut masc_tui::view::screens::work::WorkUi {
        self.screen_mut().unwrap()
    }
    fn board(&self) -> &masc_tui::view::screens::board::BoardUi {
        self.screen().unwrap()
    }
    fn board_mut(&mut self) -> &mut masc_tui::view::screens::board::BoardUi {
        self.screen_mut().unwrap()
    }
    fn system(&self) -> &masc_tui::view::screens::system::SystemUi {
        self.screen().unwrap()
    }
    fn system_mut(&mut self) -> &mut masc_tui::view::screens::system::SystemUi {
        self.screen_mut().unwrap()
    }
    fn keepers(&self) -> &masc_tui::view::screens::keepers::KeepersScreen {
        self.screen().unwrap()
    }
    fn keepers_mut(&mut self) -> &mut masc_tui::view::screens::keepers::KeepersScreen {
        self.screen_mut().unwrap()
    }
    fn asks(&self) -> &masc_tui::view::screens::approvals::asks::AsksUi {
        static NONE_YET: std::sync::LazyLock<masc_tui::view::screens::approvals::asks::AsksUi> =
            std::sync::LazyLock::new(Default::default);
        self.layers.kept().unwrap_or(&NONE_YET)
    }
}

/// The intent of a Keeper operation of kind `K`, when `cmd` is one (`screens::keepers::KeeperOp`).
pub fn keeper_op<K: masc_tui::view::save_path::SaveCompanion>(
    cmd: &masc_tui::view::command::UiCommand,
) -> Option<K::Intent> {
    cmd.as_local::<masc_tui::view::screens::keepers::KeeperOp>()
        .and_then(|op| op.0.intent::<K>())
        .cloned()
}

/// Runs a chat event as the view actor does, with `saves` as the save hub (no other source).
pub fn chat_event(
    event: masc_tui::view::screens::chat::ChatEvent,
    model: &mut Model,
    ui: &mut masc_tui::view::screens::Ui,
    saves: Option<&ractor::DerivedActorRef<masc_tui::actors::saves::SaveCommand>>,
) -> Option<String> {
    let mut fx =
        masc_tui::view::effects::Effects::detached(model, masc_tui::view::theme::Theme::plain())
            .with_save_hub(saves.cloned());
    masc_tui::view::screens::chat::dispatch(event, ui, &mut fx)
}

/// The chat's reaction to admitted observations, as the view actor runs it after a delivery.
pub fn chat_observed(
    model: &mut Model,
    ui: &mut masc_tui::view::screens::Ui,
    saves: Option<&ractor::DerivedActorRef<masc_tui::actors::saves::SaveCommand>>,
) -> bool {
    let mut fx =
        masc_tui::view::effects::Effects::detached(model, masc_tui::view::theme::Theme::plain())
            .with_save_hub(saves.cloned());
    masc_tui::view::screens::chat::after_observed(ui, &mut fx)
}
impl SurfaceSlot for masc_tui::actors::source_stats::SourceStatsSlot {
    type Payload = masc_tui::actors::source_stats::SourceStatsObservation;
}
