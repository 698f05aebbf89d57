//! The System surface (surfaces.md "System", "Runtime", "Tools"): four panes cycled with
//! `p` — Runtime catalogue, all tools (inventory), Skills catalogue, async runs. Each pane
//! draws its own slot's pending, observation and failure (T-3); none waits for another (T-2).
//! On the Runtime pane `j`/`k` select a model; `Enter`, `x` and `a` open the model and account
//! forms (`form`, I-1…I-5); `e` edits `runtime.toml` itself in `$EDITOR` (`raw`: `S`, `u`, `U`,
//! `X`). The async runs pane selects and opens requests and their source Task (`asyncs`).
//! `available`, `receipts` and `usage` are the Keeper panes (`keeper_panes`): the selected
//! Keeper's effective surface and Skill activation ledger, and cross-Keeper Skill usage.

pub mod asyncs;
pub mod bindings;
mod connectors;
pub mod form;
pub mod keeper_panes;
pub mod logs;
mod panes;
pub mod raw;
mod runtime;
pub mod sources;

use super::ProjectionCtx;
use super::react::{ReactCx, Seen};
use super::widgets::Ring;
pub use super::widgets::{slot_status, slot_status_lines};
use crate::actors::contract::SourceKey;
use crate::view::bindings::{
    DOWN, ENTER, ESC, HOME, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, UP, bind,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::theme::{Theme, Tone};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPane {
    #[default]
    Runtime,
    Tools,
    Skills,
    AsyncRuns,
    Connectors,
    /// The selected Keeper's effective surface (§6.1 `?keeper=`).
    Available,
    /// The selected Keeper's Skill activation ledger (§6.1 `?keeper=`).
    Receipts,
    /// Cross-Keeper Skill usage (§6.2 `surfaces[].usage`).
    Usage,
    /// MASC's log ring (§15.1).
    Logs,
    /// Every supervised source's live numbers from the stage events (`timeline::live`).
    Sources,
}

impl super::widgets::Ring for SystemPane {
    const RING: &'static [Self] = &Self::ALL;
}

impl SystemPane {
    pub const ALL: [SystemPane; 10] = [
        Self::Runtime,
        Self::Tools,
        Self::Skills,
        Self::AsyncRuns,
        Self::Connectors,
        Self::Available,
        Self::Receipts,
        Self::Usage,
        Self::Logs,
        Self::Sources,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Self::Runtime => "Runtime",
            Self::Tools => "all tools",
            Self::Skills => "Skills",
            Self::AsyncRuns => "async runs",
            Self::Connectors => "connectors",
            Self::Available => "available",
            Self::Receipts => "receipts",
            Self::Usage => "usage",
            Self::Sources => "sources",
            Self::Logs => "logs",
        }
    }

    /// The source `r` re-reads on this pane.
    pub fn source(self) -> crate::actors::contract::SourceKey {
        match self {
            Self::Runtime => crate::actors::runtime::RUNTIME,
            Self::Connectors => crate::actors::connectors::CONNECTORS,
            Self::Sources => crate::actors::source_stats::SOURCE_STATS,
            Self::Logs => crate::actors::system_logs::SYSTEM_LOGS,
            _ => crate::actors::tools::TOOLS,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SystemUi {
    pub pane: SystemPane,
    /// Scroll per pane, in rows.
    pub scroll: [usize; SystemPane::ALL.len()],
    /// The selected model on the Runtime pane (index into the catalogue's runtimes).
    pub runtime_selected: usize,
    /// The open model/account form and the ones left with `Esc` (I-3).
    pub forms: form::Forms,
    /// The async runs pane: selection, open request, source Task, id lookup.
    pub asyncs: asyncs::AsyncUi,
    /// The connectors pane: selection, bind form, armed unbind.
    pub connectors: bindings::ConnectorsUi,
    /// The raw `runtime.toml` draft and its saves (J-1…J-5).
    pub raw: raw::RawUi,
    /// The Keeper chosen on `available` / `receipts` (`J` / `K`); `None`: the roster's selection.
    pub surface_keeper: Option<String>,
    /// The sources pane: the selected source and whether its tickets are shown.
    pub sources: sources::SourcesUi,
    /// The logs pane: selection, verbose, the row shown whole.
    pub logs: logs::LogsUi,
}

impl SystemUi {
    pub fn scroll_mut(&mut self) -> &mut usize {
        &mut self.scroll[self.pane.position()]
    }
}

/// The keys of every System pane.
pub const PANES: Table = Table {
    title: "System keys",
    bindings: &[
        bind(
            "p / P",
            &[Press::ch('p'), Press::ch('P')],
            "next / previous pane: Runtime · all tools · Skills · async runs · connectors · available · receipts · usage · logs · sources",
        )
        .footer("pane"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll the pane (Runtime: select a model)",
        )
        .footer("scroll"),
        bind(
            "PgUp / PgDn, Home, g",
            &[PAGE_UP, PAGE_DOWN, HOME, Press::ch('g')],
            "page / top",
        ),
        bind(
            "r",
            &[],
            "re-read this pane's source (Tools: all three reads; the open request or Task; Runtime: one forced follow-up) (the global r)",
        ),
    ],
};

/// The Runtime pane's own keys.
pub const RUNTIME_PANE: Table = Table {
    title: "System · Runtime keys",
    bindings: &[
        bind(
            "Enter / x / a",
            &[ENTER, Press::ch('x'), Press::ch('a')],
            "edit the model's context override / clear it / add an account (a form; Enter saves)",
        )
        .footer("edit / clear / account"),
        bind(
            "e",
            &[Press::ch('e')],
            "runtime.toml in $EDITOR (a fresh read; saved on return: server preview, then CAS)",
        )
        .footer("runtime.toml"),
        bind(
            "S / u / U / X",
            &[
                Press::ch('S'),
                Press::ch('u'),
                Press::ch('U'),
                Press::ch('X'),
            ],
            "send the draft again / keep its text on the newest read / take the newest file / discard",
        ),
        bind(
            "form: Tab, Esc, Ctrl-X",
            &[],
            "next field; leave (input kept, nothing cancelled); close a finished save",
        ),
    ],
};

/// The async runs pane's own keys.
pub const ASYNC_PANE: Table = Table {
    title: "System · async runs keys",
    bindings: &[
        bind(
            "J / K",
            &[Press::ch('J'), Press::ch('K')],
            "select the next / previous request",
        )
        .footer("select"),
        bind(
            "Enter / Right",
            &[ENTER, RIGHT],
            "open the selected request (its own single GET)",
        )
        .footer("detail"),
        bind("o", &[Press::ch('o')], "look up a request by explicit id").footer("look up"),
        bind(
            "t (request detail)",
            &[],
            "open the source Task of the confirmed run",
        ),
        bind("H (source Task)", &[], "read the next older history page"),
        bind("Esc / Left", &[], "Task → request → list"),
    ],
};

/// The connectors pane's own keys.
pub const CONNECTORS_PANE: Table = Table {
    title: "System · connectors keys",
    bindings: &[
        bind(
            "J / K",
            &[Press::ch('J'), Press::ch('K')],
            "select a connector or one of its bindings",
        )
        .footer("select"),
        bind(
            "b",
            &[Press::ch('b')],
            "bind a channel of the selected connector to a Keeper (a save)",
        )
        .footer("bind"),
        bind(
            "x x",
            &[Press::ch('x')],
            "unbind the selected binding (armed: the second x sends)",
        )
        .footer("unbind"),
    ],
};

/// The keys of the panes that read one Keeper (available, receipts).
pub const KEEPER_PANES: Table = Table {
    title: "System · Keeper panes keys",
    bindings: &[bind(
        "J / K",
        &[Press::ch('J'), Press::ch('K')],
        "the next / previous Keeper of the roster (its own ?keeper= read)",
    )
    .footer("Keeper")],
};

/// The sources pane's own keys.
pub const SOURCES_PANE: Table = Table {
    title: "System · sources keys",
    bindings: &[
        bind(
            "j / k",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "select a source or save kind",
        )
        .footer("source"),
        bind(
            "Enter",
            &[ENTER],
            "the selected source's recent tickets: dispatched, worker returned, admitted or rejected and why (Enter again: back)",
        )
        .footer("its tickets"),
        bind("Esc", &[ESC], "back from the tickets to the table"),
    ],
};

fn pane_line(ui: &SystemUi, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled("SYSTEM  ", theme.style(Tone::Strong))];
    for pane in SystemPane::ALL {
        let text = format!(" {} ", pane.title());
        if pane == ui.pane {
            spans.push(Span::styled(
                format!("[{}]", text.trim()),
                theme.style(Tone::Accent),
            ));
        } else {
            spans.push(Span::styled(text, theme.style(Tone::Dim)));
        }
    }
    Line::from(spans)
}

pub fn render(
    model: &Model,
    ui: &SystemUi,
    full: &super::Ui,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    if area.height == 0 {
        return;
    }
    if ui.pane == SystemPane::AsyncRuns && ui.asyncs.task.is_some() {
        // The source Task (A-16), drawn as the Work detail draws it (one Task detail).
        if let Some(work) = full.screen::<super::work::WorkUi>() {
            super::work::detail::render_task(model, work, ctx, area, buf);
        }
        return;
    }
    pane_line(ui, ctx.theme).render(Rect::new(area.x, area.y, area.width, 1), buf);
    if ui.pane == SystemPane::Sources {
        let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        sources::render(model, &ui.sources, ctx, body, buf);
        return;
    }
    if ui.pane == SystemPane::Logs {
        let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        logs::render(model, &ui.logs, ctx, body, buf);
        return;
    }
    let width = area.width as usize;
    let lines = match ui.pane {
        SystemPane::Runtime => runtime::lines(model, ui, ctx, width),
        SystemPane::Tools => panes::tools_lines(model, ctx, width),
        SystemPane::Skills => panes::skills_lines(model, ctx, width),
        SystemPane::AsyncRuns => asyncs::lines(model, &ui.asyncs, ctx, width),
        SystemPane::Connectors => connectors::lines(model, &ui.connectors, ctx, width),
        SystemPane::Available => keeper_panes::available_lines(model, ui, full, ctx, width),
        SystemPane::Receipts => keeper_panes::receipts_lines(model, ui, full, ctx, width),
        SystemPane::Usage => keeper_panes::usage_lines(model, ctx, width),
        SystemPane::Sources | SystemPane::Logs => Vec::new(),
    };
    let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    let scroll = if ui.pane == SystemPane::AsyncRuns && ui.asyncs.open.is_some() {
        ui.asyncs.detail_scroll
    } else {
        ui.scroll[ui.pane.position()]
    };
    let scroll = scroll.min(lines.len().saturating_sub(1));
    // By the terminal's rule: the panes pad and cut by it (T.7, C-70).
    crate::view::terminal::cells::render_lines(lines.iter().skip(scroll), body, buf);
}

/// The ids of the catalogue's runtimes, as listed (the Runtime pane's selection).
fn runtime_ids(model: &Model) -> Vec<String> {
    model
        .runtime
        .catalogue
        .fetched
        .last()
        .and_then(|o| o.value.catalogue.as_ref().ok())
        .map(|c| c.runtimes.iter().map(|r| r.id.clone()).collect())
        .unwrap_or_default()
}

/// Runtime pane keys: `j`/`k` select a model; `Enter`, `x`, `a` open a form.
fn runtime_key(
    ui: &mut SystemUi,
    model: &Model,
    key: crossterm::event::KeyEvent,
) -> Option<crate::view::command::UiCommand> {
    use crate::view::command::UiCommand;
    use crossterm::event::KeyCode;
    if ui.forms.open.is_none()
        && let Some(cmd) = raw::key(&mut ui.raw, model, key)
    {
        return Some(cmd);
    }
    let ids = runtime_ids(model);
    let open = |ui: &mut SystemUi, kind: form::FormKind| {
        ui.forms.open(kind);
        Some(UiCommand::local(form::FormEvent::Open))
    };
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            ui.runtime_selected = (ui.runtime_selected + 1).min(ids.len().saturating_sub(1));
            Some(UiCommand::Repaint)
        }
        KeyCode::Char('k') | KeyCode::Up => {
            ui.runtime_selected = ui.runtime_selected.saturating_sub(1);
            Some(UiCommand::Repaint)
        }
        KeyCode::Enter => {
            let id = ids.get(ui.runtime_selected)?.clone();
            open(ui, form::FormKind::ContextOverride { runtime_id: id })
        }
        KeyCode::Char('x') => {
            let id = ids.get(ui.runtime_selected)?.clone();
            open(ui, form::FormKind::ClearOverride { runtime_id: id })
        }
        KeyCode::Char('a') => open(ui, form::FormKind::AddAccount),
        _ => None,
    }
}

/// System keys: `p`/`P` panes, scrolling; `r` is global.
pub fn handle(ui: &mut SystemUi, key: crossterm::event::KeyEvent, body_rows: u16) -> bool {
    use crossterm::event::KeyCode;
    let page = body_rows.saturating_sub(1).max(1) as usize;
    match key.code {
        KeyCode::Char('p') => ui.pane = ui.pane.next(),
        KeyCode::Char('P') => ui.pane = ui.pane.previous(),
        KeyCode::Char('j') | KeyCode::Down => *ui.scroll_mut() += 1,
        KeyCode::Char('k') | KeyCode::Up => {
            let s = ui.scroll_mut();
            *s = s.saturating_sub(1);
        }
        KeyCode::PageDown => *ui.scroll_mut() += page,
        KeyCode::PageUp => {
            let s = ui.scroll_mut();
            *s = s.saturating_sub(page);
        }
        KeyCode::Home | KeyCode::Char('g') => *ui.scroll_mut() = 0,
        _ => return false,
    }
    true
}

/// The System surface as a [`Screen`](super::screen::Screen): its state is its own.
impl super::screen::Screen for SystemUi {
    fn tab(&self) -> super::Tab {
        super::Tab::System
    }

    fn render(
        &self,
        model: &Model,
        ui: &super::Ui,
        ctx: &ProjectionCtx,
        area: Rect,
        buf: &mut Buffer,
    ) {
        render(model, self, ui, ctx, area, buf);
    }

    fn footer(&self, _ui: &super::Ui, theme: Theme) -> Vec<Span<'static>> {
        match self.pane {
            SystemPane::AsyncRuns => asyncs::footer(&self.asyncs, theme),
            SystemPane::Connectors => bindings::footer(&self.connectors, theme),
            _ => Vec::new(),
        }
    }

    fn typing(&self) -> bool {
        match self.pane {
            SystemPane::Runtime => self.forms.open.is_some(),
            SystemPane::AsyncRuns => self.asyncs.typing(),
            SystemPane::Connectors => self.connectors.typing(),
            _ => false,
        }
    }

    fn typing_key(&mut self, ui: &mut super::Ui, model: &Model, key: KeyEvent) -> UiCommand {
        match self.pane {
            SystemPane::Runtime => form::key(&mut self.forms, model, key),
            SystemPane::Connectors => {
                bindings::typing_key(&mut self.connectors, &mut ui.notice.text, model, key)
            }
            _ => asyncs::typing_key(&mut self.asyncs, &mut ui.notice.text, model, key),
        }
    }

    fn typing_footer(&self, ui: &super::Ui, theme: Theme) -> Vec<Span<'static>> {
        if self.pane == SystemPane::Runtime {
            return vec![Span::styled(
                " form · Enter save · Tab field · Esc leave · Ctrl-X close a finished save",
                theme.style(Tone::Dim),
            )];
        }
        self.footer(ui, theme)
    }

    fn bindings(&self) -> Vec<&'static Table> {
        let own: Option<&'static Table> = match self.pane {
            SystemPane::Runtime => Some(&RUNTIME_PANE),
            SystemPane::AsyncRuns => Some(&ASYNC_PANE),
            SystemPane::Connectors => Some(&CONNECTORS_PANE),
            SystemPane::Sources => Some(&SOURCES_PANE),
            SystemPane::Logs => Some(&logs::LOGS_PANE),
            pane if keeper_panes::reads_keeper(pane) => Some(&KEEPER_PANES),
            _ => None,
        };
        own.into_iter().chain([&PANES]).collect()
    }

    /// `runtime.toml` came back from `$EDITOR`: the raw draft's continuation (J-1, J-2).
    fn edited(
        &mut self,
        ui: &mut super::Ui,
        model: &Model,
        result: crate::view::editor::EditResult,
    ) -> UiCommand {
        if result.purpose != crate::view::editor::EditPurpose::RuntimeConfig {
            ui.notice.text = Some(result.notice());
            return UiCommand::Repaint;
        }
        let (cmd, notice) = raw::edited(&mut self.raw, model, result);
        if notice.is_some() {
            ui.notice.text = notice;
        }
        cmd
    }

    fn handle_key(&mut self, ui: &mut super::Ui, model: &Model, key: KeyEvent) -> UiCommand {
        let cmd = self.pane_key(ui, model, key);
        // Entering or leaving the Keeper panes selects (or stops) the `?keeper=` read.
        match cmd {
            UiCommand::None | UiCommand::Repaint => {
                keeper_panes::select_command(self, ui, model).unwrap_or(cmd)
            }
            other => other,
        }
    }

    fn refresh(&mut self, ui: &mut super::Ui) -> UiCommand {
        if self.pane == SystemPane::AsyncRuns
            && let Some(cmd) = asyncs::refresh(&self.asyncs, ui.area)
        {
            return cmd;
        }
        UiCommand::Refresh(self.pane.source())
    }

    fn shown_sources(&self) -> &'static [SourceKey] {
        use crate::actors::connectors::CONNECTORS;
        use crate::actors::runtime::{RUNTIME, RUNTIME_CONFIG};
        use crate::actors::source_stats::SOURCE_STATS;
        use crate::actors::system_logs::SYSTEM_LOGS;
        use crate::actors::tools::TOOLS;
        &[
            TOOLS,
            RUNTIME,
            RUNTIME_CONFIG,
            CONNECTORS,
            SOURCE_STATS,
            SYSTEM_LOGS,
        ]
    }

    fn react(&mut self, ui: &mut super::Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        match seen {
            Seen::Delivered => {
                form::adopt_source(&mut self.forms, cx.model());
                if let Some(edit) = raw::follow_reads(&mut self.raw, cx.model()) {
                    cx.run(UiCommand::Edit(edit));
                }
            }
            // A restarted Tools source lost the open request's read and the selected Keeper's
            // surface read: open them again.
            Seen::Restarted(crate::actors::tools::TOOLS) => {
                let model = cx.model();
                let again = [model.tools.reopen_command(), model.tools.reselect_command()];
                for cmd in again.into_iter().flatten() {
                    if let Err(stopped) = cx.send(crate::actors::tools::TOOLS, cmd) {
                        ui.notice.text = Some(tools_not_sent(stopped).into());
                    }
                }
                return;
            }
            Seen::Restarted(_) => return,
            Seen::Key | Seen::Identity => {}
        }
        // A revision conflict that just landed (or `C`) opens its three-way view.
        let form_conflict = form::open_conflict(&mut self.forms, cx.model());
        for layer in [raw::open_conflict(&mut self.raw), form_conflict]
            .into_iter()
            .flatten()
        {
            super::conflict::open(ui, layer);
            cx.repaint();
        }
        // A tab switch, a palette jump or a roster read arriving later starts or stops the
        // Keeper panes' read.
        if let Some(cmd) = keeper_panes::owed(self, ui, cx.model()) {
            cx.run(UiCommand::send(cmd));
        }
    }
}

/// Why a Tools command was not sent.
fn tools_not_sent(stopped: bool) -> &'static str {
    if stopped {
        "not sent: tools source stopped"
    } else {
        "not sent: tools source not running"
    }
}

impl SystemUi {
    fn pane_key(&mut self, ui: &mut super::Ui, model: &Model, key: KeyEvent) -> UiCommand {
        if let Some(cmd) = keeper_panes::handle(self, ui, model, key) {
            return cmd;
        }
        if self.pane == SystemPane::Runtime
            && let Some(cmd) = runtime_key(self, model, key)
        {
            return cmd;
        }
        if self.pane == SystemPane::AsyncRuns {
            let page_rows = super::work::state::page_rows_for(ui.area);
            if let Some(cmd) = asyncs::handle(self, ui, model, key, page_rows) {
                return cmd;
            }
        }
        if self.pane == SystemPane::Connectors
            && let Some(cmd) = bindings::handle(&mut self.connectors, model, key)
        {
            return cmd;
        }
        if self.pane == SystemPane::Logs {
            let page = usize::from(super::body_area(ui.area).height.saturating_sub(4)).max(1);
            if let Some(cmd) = logs::key(&mut self.logs, model, key, page) {
                return cmd;
            }
        }
        if self.pane == SystemPane::Sources && sources::key(&mut self.sources, model, key) {
            return UiCommand::Repaint;
        }
        let rows = super::body_area(ui.area).height;
        if handle(self, key, rows) {
            UiCommand::Repaint
        } else {
            UiCommand::None
        }
    }
}
