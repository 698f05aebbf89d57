//! [`SourceShell`]: the one actor every source built on the read machinery runs in. A source
//! is its state ([`SourceState`]): what it does on a command, a demand, an identity change and
//! a worker's return. The shell does the rest the same way for all of them — the mailbox
//! ([`SourceMsg`]), the panic drill, the cadence (its timer, visibility, re-arming after a
//! completed read: [`Ctl`]), retiring every read when the actor stops, and spawning under the
//! supervisor with the typed command handle.

use super::drill::inject_panic;
use super::msg::{NoCommands, SourceMsg};
use super::{CadenceTimer, WorkerReturn};
use crate::actors::contract::{
    DemandKind, IdentityState, Payload, SlotKey, SourceContext, SourceControl, SourceHandle,
    SourceKey, SourceSpawner,
};
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
use std::marker::PhantomData;
use std::time::Duration;

/// The mailbox of the source whose state is `T`.
pub type ShellMsg<T> =
    SourceMsg<<T as SourceState>::Slot, <T as SourceState>::Payload, <T as SourceState>::Command>;

/// The source's own reference (its workers return through it; its timers tick into it).
pub type Myself<T> = ActorRef<ShellMsg<T>>;

/// What a source's handlers may do besides changing their own state: reach the source's own
/// reference, and steer its cadence (a source without one ignores both calls).
pub struct Ctl<T: SourceState> {
    pub myself: Myself<T>,
    cadence: Option<CadenceTimer<ShellMsg<T>>>,
}

impl<T: SourceState> Ctl<T> {
    /// Arms the next poll one period from now (a read completed, an object was opened).
    pub fn reschedule(&mut self) {
        if let Some(cadence) = self.cadence.as_mut() {
            cadence.reschedule(&self.myself);
        }
    }

    /// The completed read failed: the next poll sooner, with a doubling delay up to the
    /// period ([`CadenceTimer::retry`]).
    pub fn retry(&mut self) {
        if let Some(cadence) = self.cadence.as_mut() {
            cadence.retry(&self.myself);
        }
    }

    /// No poll is due (no epoch: a tick would only be refused; the next confirmation reads
    /// and re-arms it).
    pub fn cancel_cadence(&mut self) {
        if let Some(cadence) = self.cadence.as_mut() {
            cadence.cancel();
        }
    }

    fn set_visible(&mut self, visible: bool) {
        if let Some(cadence) = self.cadence.as_mut() {
            cadence.set_visible(visible, &self.myself);
        }
    }

    /// A source with a cadence that no surface on screen shows.
    fn is_hidden(&self) -> bool {
        self.cadence.as_ref().is_some_and(CadenceTimer::is_hidden)
    }
}

/// How long a hidden source holds back a confirmation that follows a time without one (the
/// session's start, a reconnect) before it reads: the surface in front reads first, so its
/// first values do not queue behind every other source's on the server, the client's decode
/// pool and the view. Anything that needs the source sooner — being shown, a demand, a
/// command — hands it the confirmation at once.
pub const HIDDEN_FIRST_READ_AFTER: Duration = Duration::from_millis(300);

/// What a source starts from, and the poll period it names, if any (the shell keeps the
/// timer).
pub trait StartArgs: Send + 'static {
    fn period(&self) -> Option<Duration>;
}

/// A poll period.
impl StartArgs for Duration {
    fn period(&self) -> Option<Duration> {
        Some(*self)
    }
}

/// Nothing: the source reads on commands only.
impl StartArgs for () {
    fn period(&self) -> Option<Duration> {
        None
    }
}

/// One source: its state and how it answers what every source receives.
pub trait SourceState: Send + Sized + 'static {
    type Slot: SlotKey;
    type Payload: Payload;
    /// Its own commands ([`NoCommands`] when the view never steers it).
    type Command: Send + 'static;
    /// What its spawner hands it besides the supervisor's context (a period, slot specs…).
    type Args: StartArgs;

    /// The state at (re)start.
    fn start(ctx: SourceContext, myself: &Myself<Self>, args: Self::Args) -> Self;

    fn command(&mut self, ctl: &mut Ctl<Self>, command: Self::Command);

    /// Default: nothing (a source whose reads start from its commands only).
    fn demand(&mut self, _ctl: &mut Ctl<Self>, _kind: DemandKind) {}

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState);

    /// A worker's return. `true` when a read completed and the cadence re-arms after it.
    fn returned(
        &mut self,
        ctl: &mut Ctl<Self>,
        ret: WorkerReturn<Self::Slot, Self::Payload>,
    ) -> bool;

    /// The actor is stopping: retire what is in flight (`reason`: `source_stopped`).
    fn stop(&mut self, reason: &str);
}

/// What the shell starts a source with.
pub struct ShellArgs<A> {
    /// The source's name in supervision and in the panic drill.
    pub key: SourceKey,
    pub ctx: SourceContext,
    pub args: A,
}

/// The actor state: the source's own, and what the shell keeps for every source.
pub struct Shell<T: SourceState> {
    state: T,
    ctl: Ctl<T>,
    key: SourceKey,
    fault_drills: bool,
    /// The identity the source was last handed is confirmed.
    confirmed: bool,
    /// A confirmation held back while hidden ([`HIDDEN_FIRST_READ_AFTER`]) and its timer.
    deferred: Option<(IdentityState, tokio::task::JoinHandle<()>)>,
}

impl<T: SourceState> Shell<T> {
    fn on_identity(&mut self, identity: IdentityState) {
        let confirmed = matches!(identity, IdentityState::Confirmed { .. });
        if confirmed && !self.confirmed && self.ctl.is_hidden() {
            let myself = self.ctl.myself.clone();
            let timer = tokio::spawn(async move {
                tokio::time::sleep(HIDDEN_FIRST_READ_AFTER).await;
                let _ = myself.cast(SourceMsg::IdentityDue);
            });
            if let Some((_, earlier)) = self.deferred.replace((identity, timer)) {
                earlier.abort();
            }
            return;
        }
        if let Some((_, timer)) = self.deferred.take() {
            timer.abort();
        }
        self.hand(identity);
    }

    /// Hands the source a confirmation held back, if any.
    fn deliver_deferred(&mut self) {
        if let Some((identity, timer)) = self.deferred.take() {
            timer.abort();
            self.hand(identity);
        }
    }

    fn hand(&mut self, identity: IdentityState) {
        self.confirmed = matches!(identity, IdentityState::Confirmed { .. });
        self.state.identity(&mut self.ctl, identity);
    }
}

/// The actor; one instance per source.
pub struct SourceShell<T>(PhantomData<fn() -> T>);

impl<T> Default for SourceShell<T> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T: SourceState> Actor for SourceShell<T> {
    type Msg = ShellMsg<T>;
    type State = Shell<T>;
    type Arguments = ShellArgs<T::Args>;

    async fn pre_start(
        &self,
        myself: Myself<T>,
        args: ShellArgs<T::Args>,
    ) -> Result<Shell<T>, ActorProcessingErr> {
        let fault_drills = args.ctx.fault_drills;
        let shown = args.ctx.shown_at_start;
        let cadence = args.args.period().map(|period| {
            let timer = CadenceTimer::new(period);
            if shown {
                timer
            } else {
                timer.starting_hidden()
            }
        });
        Ok(Shell {
            state: T::start(args.ctx, &myself, args.args),
            ctl: Ctl { myself, cadence },
            key: args.key,
            fault_drills,
            confirmed: false,
            deferred: None,
        })
    }

    async fn handle(
        &self,
        _myself: Myself<T>,
        msg: ShellMsg<T>,
        shell: &mut Shell<T>,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Control(SourceControl::Identity(identity)) => {
                shell.on_identity(identity);
                return Ok(());
            }
            SourceMsg::Control(SourceControl::Visible(false)) => {
                shell.ctl.set_visible(false);
                return Ok(());
            }
            SourceMsg::IdentityDue => {
                shell.deliver_deferred();
                return Ok(());
            }
            // Everything else may need the workspace: a confirmation held back is handed
            // over first.
            _ => shell.deliver_deferred(),
        }
        let (state, ctl) = (&mut shell.state, &mut shell.ctl);
        match msg {
            SourceMsg::Command(command) => state.command(ctl, command),
            SourceMsg::Control(SourceControl::Demand(kind)) => state.demand(ctl, kind),
            SourceMsg::Control(SourceControl::Identity(_)) | SourceMsg::IdentityDue => {}
            SourceMsg::Control(SourceControl::Visible(visible)) => ctl.set_visible(visible),
            SourceMsg::Control(SourceControl::InjectPanic) => {
                inject_panic(shell.fault_drills, shell.key)
            }
            SourceMsg::Returned(ret) => {
                let failed = read_failed(&ret);
                if state.returned(ctl, ret) {
                    if failed {
                        ctl.retry();
                    } else {
                        ctl.reschedule();
                    }
                }
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: Myself<T>,
        shell: &mut Shell<T>,
    ) -> Result<(), ActorProcessingErr> {
        if let Some((_, timer)) = shell.deferred.take() {
            timer.abort();
        }
        shell.state.stop("source_stopped");
        Ok(())
    }
}

/// Whether a worker's return is a failed read: a caught panic, or a read whose outcome is an
/// error class. `ok` and a route this MASC does not serve (asking sooner would not change the
/// answer) are not failures.
fn read_failed<S: SlotKey, P: Payload>(ret: &WorkerReturn<S, P>) -> bool {
    let outcome = ret.outcome_class();
    outcome != "ok" && !outcome.starts_with("not_served")
}

/// Spawns the source whose state is `T` linked to the supervisor; its handle carries the
/// typed reference for its commands.
pub fn spawn_shell<T: SourceState>(
    key: SourceKey,
    ctx: SourceContext,
    args: T::Args,
    supervisor: ActorCell,
) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>>
where
    ShellMsg<T>: From<T::Command>,
    T::Command: TryFrom<ShellMsg<T>>,
{
    super::spawn_source_with::<SourceShell<T>, T::Command>(
        SourceShell::default(),
        ShellArgs { key, ctx, args },
        supervisor,
    )
}

/// A source's spawner, as the registry lists it: its key and the arguments its state starts
/// with. Every [`SourceSpawner`] of a shell source is this.
pub trait ShellSpawner: Send + Sync + 'static {
    type State: SourceState;
    fn key(&self) -> SourceKey;
    fn args(&self) -> <Self::State as SourceState>::Args;
}

impl<X: ShellSpawner> SourceSpawner for X
where
    ShellMsg<X::State>: From<<X::State as SourceState>::Command>,
    <X::State as SourceState>::Command: TryFrom<ShellMsg<X::State>>,
{
    fn key(&self) -> SourceKey {
        ShellSpawner::key(self)
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        spawn_shell::<X::State>(ShellSpawner::key(self), ctx, self.args(), supervisor)
    }
}

/// A source state that is one source's own: its supervision key.
pub trait OwnKey: SourceState {
    const KEY: SourceKey;
}

/// The spawner of a source whose state starts from a period (its poll, or a re-check of its
/// own).
pub struct Every<T> {
    pub period: Duration,
    state: PhantomData<fn() -> T>,
}

impl<T> Every<T> {
    pub const fn new(period: Duration) -> Self {
        Self {
            period,
            state: PhantomData,
        }
    }
}

impl<T: OwnKey> ShellSpawner for Every<T>
where
    T::Args: From<Duration>,
{
    type State = T;

    fn key(&self) -> SourceKey {
        T::KEY
    }

    fn args(&self) -> T::Args {
        self.period.into()
    }
}

/// The spawner of a source whose state starts from nothing (it reads on commands only).
pub struct OnCommand<T>(PhantomData<fn() -> T>);

impl<T> Default for OnCommand<T> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T: OwnKey<Args = ()>> ShellSpawner for OnCommand<T> {
    type State = T;

    fn key(&self) -> SourceKey {
        T::KEY
    }

    fn args(&self) {}
}

impl<S, P> From<NoCommands> for SourceMsg<S, P, NoCommands> {
    fn from(never: NoCommands) -> Self {
        match never {}
    }
}

impl<S, P> TryFrom<SourceMsg<S, P, NoCommands>> for NoCommands {
    type Error = SourceMsg<S, P, NoCommands>;
    fn try_from(m: SourceMsg<S, P, NoCommands>) -> Result<Self, Self::Error> {
        match m {
            SourceMsg::Command(never) => match never {},
            other => Err(other),
        }
    }
}
