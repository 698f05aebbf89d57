//! Shared rig of the chat runtime tests: the embedded server (or any base URL), the supervisor
//! with only the chat hub, an ordered view log whose messages are fed, in the view's order,
//! into a real view `Model` (so admission verdicts are the real ones), and the stage recorder.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::registry_entry;
use crate::ordered_view::{OrderedView, Seen};
use masc_tui::actors::chat::{
    CHAT_HUB, ChatCommand, ChatHubConfig, ChatHubSpawner, ChatObservation, ChatSend,
    ChatSendIntent, ChatSlot, ChatSourceConfig, UnknownWindow,
};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::saves::hub::Save;
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveHubSpawner};
use masc_tui::actors::supervisor::{
    RestartPolicy, RuntimeConfig, RuntimeHandle, start_runtime_with,
};
use masc_tui::outbox::{Outbox, OutboxLocation, SharedOutbox};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::model::Model;
use masc_tui::view::screens::chat::ChatPane;
use masc_tui::view::theme::Theme;
use ractor::DerivedActorRef;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

pub const TOKEN: &str = "chat-test-token";
pub const STREAM: &str = "/api/v1/keepers/chat/stream";

/// What the view handles, for the chat surface.
pub type ViewMsg = Seen<ChatSlot, ChatObservation>;

pub struct Rig {
    pub runtime: RuntimeHandle,
    pub log: OrderedView<ChatSlot, ChatObservation>,
    pub model: Model,
    /// The chat hub's typed command handle (from its latest `SourceUp`).
    pub hub: Option<DerivedActorRef<ChatCommand>>,
    /// The save hub's (sends are saves).
    pub saves: Option<DerivedActorRef<SaveCommand>>,
    /// Every side effect the open pane asked for, in order (applied as the view does).
    pub effects: Vec<masc_tui::view::screens::chat::ChatEffect>,
    pub recorder: StageRecorder,
    pub outbox_path: PathBuf,
    /// Every admission verdict of a chat observation: (request id, verdict).
    pub verdicts: Vec<(Option<String>, Result<(), RejectReason>)>,
    /// The chat sources' page-worker panic drill: the next N history-page workers panic
    /// (`ChatSourceConfig::drill_page_panics`).
    pub page_panics: Arc<AtomicU32>,
    _trace: tracing::subscriber::DefaultGuard,
}

pub fn client(base_url: &str, token: Option<&str>) -> WorkspaceClient {
    WorkspaceClient::new(client_config(base_url, token)).unwrap()
}

fn client_config(base_url: &str, token: Option<&str>) -> ClientConfig {
    let mut cc = ClientConfig::new(base_url);
    if let Some(t) = token {
        cc.token = TokenSource::Fixed(t.into());
    }
    cc.request_timeout = Duration::from_secs(5);
    cc.sse_idle_timeout = Duration::from_secs(10);
    cc
}

/// The embedded server with `faults` (playing `compat` when given) and a rig on it, with its
/// outbox in a temp dir the caller keeps.
pub async fn served_rig(
    faults: masc_tui::server::faults::FaultPlan,
    compat: Option<masc_tui::server::compat::MascRelease>,
) -> (masc_tui::server::RunningServer, Rig, tempfile::TempDir) {
    let server = masc_tui::server::start(masc_tui::server::ServeOptions {
        faults,
        test_mode: true,
        auth: masc_tui::server::AuthMode::Token(TOKEN.into()),
        compat,
        ..masc_tui::server::ServeOptions::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rig = rig(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    (server, rig, dir)
}

/// The embedded server in test mode with `faults`, answering this rig's token.
pub async fn token_server(
    faults: masc_tui::server::faults::FaultPlan,
) -> masc_tui::server::RunningServer {
    masc_tui::server::start(masc_tui::server::ServeOptions {
        faults,
        test_mode: true,
        auth: masc_tui::server::AuthMode::Token(TOKEN.into()),
        ..masc_tui::server::ServeOptions::default()
    })
    .await
    .unwrap()
}

/// A POST to the chat stream held far past any client timeout and never handled.
pub fn held_chat_posts() -> masc_tui::server::faults::FaultPlan {
    masc_tui::server::faults::FaultPlan::from_json(&format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"delay_ms":600000}}}}]}}"#
    ))
    .unwrap()
}

pub async fn rig(base_url: &str, token: Option<&str>, outbox_path: PathBuf) -> Rig {
    // A short unknown window: a 404 here is "absent" within a test's patience.
    rig_with(base_url, token, outbox_path, |_, source| {
        source.unknown_window = Some(UnknownWindow(Duration::from_millis(300)));
    })
    .await
}

/// A rig whose client and chat source `tune` adjusts first.
pub async fn rig_with(
    base_url: &str,
    token: Option<&str>,
    outbox_path: PathBuf,
    tune: impl FnOnce(&mut ClientConfig, &mut ChatSourceConfig),
) -> Rig {
    let mut client_config = client_config(base_url, token);
    let page_panics = Arc::new(AtomicU32::new(0));
    let mut source = ChatSourceConfig {
        recheck_after: Duration::from_millis(25),
        max_rechecks: 800,
        unknown_window: None,
        drill_page_panics: page_panics.clone(),
    };
    tune(&mut client_config, &mut source);
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let log = OrderedView::new();
    let cfg = RuntimeConfig {
        expected_base: None,
        health_interval: Duration::from_millis(50),
        keepers_roster_interval: Duration::from_secs(3600),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        },
        fault_drills: false,
        outbox: OutboxLocation::File(outbox_path.clone()),
        shown_at_start: None,
    };
    let outbox = SharedOutbox::new(OutboxLocation::File(outbox_path.clone()));
    let hub = ChatHubSpawner {
        config: ChatHubConfig {
            outbox: outbox.clone(),
            source,
        },
    };
    let entries = vec![
        registry_entry(hub),
        registry_entry(SaveHubSpawner { outbox }),
    ];
    let runtime = start_runtime_with(
        WorkspaceClient::new(client_config).unwrap(),
        log.sink(),
        log.inboxes(),
        cfg,
        entries,
    )
    .await
    .unwrap();
    let mut rig = Rig {
        runtime,
        log,
        model: Model::default(),
        hub: None,
        saves: None,
        effects: Vec::new(),
        recorder,
        outbox_path,
        verdicts: Vec::new(),
        page_panics,
        _trace: trace,
    };
    rig.pump_until(|m| m.gate().current().is_some()).await;
    while rig.hub.is_none() || rig.saves.is_none() {
        rig.pump_one().await;
    }
    rig
}

impl Rig {
    /// Feeds view messages into the model until `pred` holds (checked first).
    pub async fn pump_until(&mut self, pred: impl Fn(&Model) -> bool) {
        while !pred(&self.model) {
            self.pump_one().await;
        }
    }

    /// Feeds view messages until the open pane's newest history page is in.
    pub async fn pump_until_ready(&mut self) {
        self.pump_until(|m| {
            m.chat
                .pane
                .as_ref()
                .is_some_and(|p| p.history == masc_tui::view::screens::chat::HistoryState::Ready)
        })
        .await;
    }

    /// Feeds view messages until the open pane's send `id` satisfies `pred`.
    pub async fn pump_until_send(
        &mut self,
        id: &str,
        pred: impl Fn(&masc_tui::view::screens::chat::PendingSend) -> bool,
    ) {
        self.pump_until(|m| {
            m.chat
                .pane
                .as_ref()
                .and_then(|p| p.send(id))
                .is_some_and(&pred)
        })
        .await;
    }

    /// Feeds the next view message into the model (in the view's order).
    pub async fn pump_one(&mut self) {
        self.log
            .wait_for(|_| true)
            .await
            .expect("failsafe: no further view message");
        let msg = self.log.seen.last().unwrap().clone();
        match msg {
            ViewMsg::SourceUp { source, handle } if source == CHAT_HUB => {
                self.hub = handle.commands::<ChatCommand>();
            }
            ViewMsg::SourceUp { source, handle } if source == SAVES => {
                self.saves = handle.commands::<SaveCommand>();
            }
            ViewMsg::Identity(state) => {
                self.model.on_identity(state);
            }
            ViewMsg::Slot(event) => {
                let rid = match &event {
                    SlotEvent::Observed(_, c) => Some(c.request_id().map(str::to_string)),
                    _ => None,
                };
                let drained = self.model.deliver(event, std::time::Instant::now());
                self.apply_effects();
                if let Some(rid) = rid {
                    let verdict = match drained.rejected.first() {
                        Some(reason) => Err(*reason),
                        None => Ok(()),
                    };
                    self.verdicts.push((rid, verdict));
                }
            }
            _ => {}
        }
    }

    /// Opens `keeper`'s chat the way the chat screen does (pane first, then the hub).
    pub fn open(&mut self, keeper: &str) {
        let ws = self.model.gate().current().map(|s| s.workspace.clone());
        self.model.chat.pane = Some(ChatPane::new(keeper, ws, Theme::plain()));
        self.cast(ChatCommand::Open {
            keeper: keeper.into(),
        });
    }

    /// Opens `keeper`'s chat and waits for its newest history page.
    pub async fn open_ready(&mut self, keeper: &str) {
        self.open(keeper);
        self.pump_until_ready().await;
    }

    /// Sends `text` the way the chat screen does; returns the request id.
    pub fn send(&mut self, keeper: &str, text: &str) -> String {
        let scope = self.model.gate().current().cloned().unwrap();
        let intent = ChatSendIntent {
            keeper: keeper.into(),
            request_id: masc_tui::outbox::new_request_id(),
            text: text.into(),
            control_token: None,
            attempt: 0,
        };
        self.model
            .chat
            .pane
            .as_mut()
            .unwrap()
            .register_send(&intent.request_id, text);
        self.submit(intent.clone(), scope);
        intent.request_id
    }

    /// Submits a send to the save hub the way the chat screen does (the pane registers it
    /// first: see [`Rig::send`]).
    pub fn submit(&self, intent: ChatSendIntent, scope: masc_tui::protocol::admission::ReadScope) {
        self.saves
            .as_ref()
            .unwrap()
            .send_message(SaveCommand::Submit(Save::<ChatSend>::submission(
                intent.save_id(),
                intent,
                scope,
            )))
            .unwrap();
    }

    /// Applies the pane's side effects the way the view does after an admitted observation:
    /// a send that ended unknown is reconciled by its chat source, a mark is recorded. Every effect is kept in
    /// [`Rig::effects`].
    pub fn apply_effects(&mut self) {
        let effects = self
            .model
            .chat
            .pane
            .as_mut()
            .map(|p| p.take_effects())
            .unwrap_or_default();
        for effect in &effects {
            match effect {
                masc_tui::view::screens::chat::ChatEffect::Reconcile { keeper, request_id } => {
                    self.cast(ChatCommand::Reconcile {
                        keeper: keeper.clone(),
                        request_id: request_id.clone(),
                    });
                }
                masc_tui::view::screens::chat::ChatEffect::Mark { request_id, mark } => {
                    self.cast(ChatCommand::Mark {
                        request_id: request_id.clone(),
                        mark: mark.clone(),
                    });
                }
                _ => {}
            }
        }
        self.effects.extend(effects);
    }

    pub fn cast(&self, cmd: ChatCommand) {
        self.hub.as_ref().unwrap().send_message(cmd).unwrap();
    }

    pub fn pane(&self) -> &ChatPane {
        self.model.chat.pane.as_ref().unwrap()
    }

    pub fn outbox(&self) -> Outbox {
        Outbox::open_path(&self.outbox_path).unwrap()
    }

    pub async fn stop(self) {
        self.runtime.stop().await;
    }
}
