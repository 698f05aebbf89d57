//! The confirmation stage of the save path, as the view runs it ([`submit`]) and shows it
//! ([`ConfirmLayer`]).
//!
//! A save whose kind previews it ([`crate::view::save_path::SaveCompanion::preview`]) is not
//! registered or sent on its first submit: its preview opens in the confirmation layer over
//! whatever asked for it. The layer's confirming key (the key that asked, pressed again: `p`
//! `p`, `x` `x`, `Enter` `Enter`; `Enter` after an edit's continuation) keeps the request as
//! confirmed ([`Confirmed`]) and runs the very command that asked again — so the screen's own
//! follow-up (a picker that closes, a form that follows its save) runs on the commit, not on
//! the preview; `↑`/`↓`/`PgUp`/`PgDn` scroll a long preview; any other key closes it and does
//! nothing else (nothing was registered or sent, so nothing is cancelled on the server). The
//! box fits the frame and wraps every row: nothing it says is cut at 80 or 160 columns.

use super::help::clear_wide_overhang;
use super::layer::{Handled, Kept, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::actors::saves::SaveCommand;
use crate::view::bindings::{DOWN, PAGE_DOWN, PAGE_UP, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::save_path::{
    self, Preview, PreviewRow, SaveRefusal, SaveRequest, SubmitStage, Submitted,
};
use crate::view::text::{sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ractor::DerivedActorRef;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

/// The widest the box grows (cells): a preview reads better as a column than across a wide
/// terminal.
const MAX_WIDTH: u16 = 100;

const CONFIRM: Table = Table {
    title: "Confirm a save keys",
    bindings: &[
        bind("the same key again", &[], "commit what the preview shows"),
        bind(
            "Up / Down, PgUp / PgDn",
            &[UP, DOWN, PAGE_UP, PAGE_DOWN],
            "scroll the preview",
        ),
        bind("any other key", &[], "cancel: nothing is sent"),
    ],
};

/// The saves the operator confirmed, kept beside the layers until the command the confirming
/// key runs begins its stage ([`begin`], which takes them).
#[derive(Debug, Default)]
pub struct Confirmed(Vec<SaveRequest>);

impl Kept for Confirmed {}

/// What asked for a save: the key that was pressed (`None`: an edit's continuation or a
/// reaction) and the command it ran, which the confirming key runs again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asking {
    pub key: Option<KeyCode>,
    pub command: UiCommand,
}

impl Asking {
    pub fn new(key: Option<KeyCode>, command: UiCommand) -> Self {
        Self { key, command }
    }
}

/// The confirmation stage of the command `asking` ran: the confirmations the operator just gave
/// (kept by the confirming key, each used once) for its saves ([`SubmitStage`]).
pub fn begin(ui: &mut Ui, asking: &Asking) -> SubmitStage {
    let confirmed = ui
        .layers
        .kept_mut::<Confirmed>()
        .map(|c| std::mem::take(&mut c.0))
        .unwrap_or_default();
    SubmitStage::new(asking.key, confirmed)
}

/// The command `command` ended: the saves its stage staged open one confirmation layer over
/// what is in front (the unbinds of one key are previewed together), whose key runs `command`
/// again with them confirmed; confirmations it did not use are forgotten.
pub fn finish(ui: &mut Ui, stage: SubmitStage, command: UiCommand) {
    let again = stage.key().is_some();
    let mut staged = stage.into_staged().into_iter();
    let Some(first) = staged.next() else {
        return;
    };
    let mut layer = ConfirmLayer::staged(first, command, again);
    for more in staged {
        layer.join(more);
    }
    open(ui, layer);
}

/// Submits `request` as one command's stage (`asking`): a request the operator confirmed
/// commits; one whose kind previews it opens the confirmation layer, and nothing is registered
/// or sent.
pub fn submit(
    ui: &mut Ui,
    model: &mut Model,
    hub: Option<&DerivedActorRef<SaveCommand>>,
    request: SaveRequest,
    asking: Asking,
) -> Result<Submitted, SaveRefusal> {
    let mut stage = begin(ui, &asking);
    let result = stage.submit(model, hub, request);
    finish(ui, stage, asking.command);
    result
}

/// A save waiting for its confirming key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmLayer {
    pub preview: Preview,
    /// The key that commits.
    pub key: KeyCode,
    /// The requests the confirming key confirms.
    pub requests: Vec<SaveRequest>,
    /// What the confirming key runs (the command that asked, again).
    pub on_confirm: UiCommand,
    /// The key that asked is pressed again (`false`: nothing was pressed, an edit came back).
    pub again: bool,
    /// Rows scrolled past.
    pub scroll: usize,
}

impl ConfirmLayer {
    pub fn new(preview: Preview, key: KeyCode, on_confirm: UiCommand) -> Self {
        Self {
            preview,
            key,
            requests: Vec::new(),
            on_confirm,
            again: true,
            scroll: 0,
        }
    }

    /// The layer of a staged save: confirming it runs `command` with the save confirmed.
    pub fn staged(staged: save_path::Staged, command: UiCommand, again: bool) -> Self {
        Self {
            preview: staged.preview,
            key: staged.key,
            requests: vec![staged.request],
            on_confirm: command,
            again,
            scroll: 0,
        }
    }

    /// Confirms these requests too (saves asked by the same command).
    pub fn confirming(mut self, requests: Vec<SaveRequest>) -> Self {
        self.requests.extend(requests);
        self
    }

    /// Another save of the same command: its preview below this one's.
    fn join(&mut self, staged: save_path::Staged) {
        let p = staged.preview;
        self.preview.title = format!("{} · {}", self.preview.title, p.title);
        self.preview.changes.extend(p.changes);
        self.preview.removes.extend(p.removes);
        self.preview.notes.extend(p.notes);
        self.preview.diff.extend(p.diff);
        self.requests.push(staged.request);
    }

    /// `p again to pause alpha · any other key cancels`.
    pub fn prompt(&self) -> String {
        format!(
            "{}{} to {} · any other key cancels",
            key_words(self.key),
            if self.again { " again" } else { "" },
            sanitize(&self.preview.title)
        )
    }

    /// The rows the box shows at an inner width of `width` cells, wrapped, with their tones.
    pub fn lines(&self, width: usize) -> Vec<(String, Tone)> {
        let mut out = Vec::new();
        for row in self.preview.rows() {
            let tone = match &row {
                PreviewRow::Change(_) => Tone::Strong,
                PreviewRow::Heading(_) => Tone::Accent,
                PreviewRow::Removed(_) => Tone::Bad,
                PreviewRow::Added(_) => Tone::Good,
                PreviewRow::Note(_) => Tone::Dim,
            };
            out.extend(wrap(row.text(), width).into_iter().map(|l| (l, tone)));
        }
        out
    }
}

/// How a key is named in the prompt.
pub fn key_words(key: KeyCode) -> String {
    match key {
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".into(),
        other => format!("{other}"),
    }
}

/// Opens the confirmation of a save over what is in front.
pub fn open(ui: &mut Ui, layer: ConfirmLayer) {
    ui.notice.text = Some(layer.prompt());
    ui.layers.push(layer);
}

impl Layer for ConfirmLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if plain && key.code == self.key {
            cx.close();
            cx.ui.notice.text = None;
            let requests = self.requests.clone();
            cx.ui
                .layers
                .with_kept::<Confirmed, _>(|c| c.0.extend(requests));
            return Handled::Consumed(self.on_confirm.clone());
        }
        match key.code {
            KeyCode::Down => self.scroll = self.scroll.saturating_add(1),
            KeyCode::Up => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown => self.scroll = self.scroll.saturating_add(10),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            _ => {
                cx.close();
                cx.ui.notice.text = Some(format!(
                    "cancelled: {} — nothing sent",
                    sanitize(&self.preview.title)
                ));
            }
        }
        Handled::Consumed(UiCommand::Repaint)
    }

    fn render(
        &self,
        _model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        _frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        render_box(self, ctx.theme, body, buf);
        None
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Spans(vec![Span::styled(
            format!(" · {}", self.prompt()),
            theme.style(Tone::Warn),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp {
            table: &CONFIRM,
            more: &[],
            ring: false,
        })
    }
}

/// The box: the title, the prompt, then the preview's rows from `scroll`, all wrapped to the
/// box's inner width; centred in `body`.
fn render_box(layer: &ConfirmLayer, theme: Theme, body: Rect, buf: &mut Buffer) {
    if body.width < 4 || body.height < 3 {
        return;
    }
    let width = body.width.min(MAX_WIDTH);
    let inner = usize::from(width - 2);
    let mut head: Vec<Line<'static>> = wrap(&sanitize(&layer.preview.title), inner)
        .into_iter()
        .map(|l| Line::styled(l, theme.style(Tone::Strong)))
        .collect();
    head.extend(
        wrap(&layer.prompt(), inner)
            .into_iter()
            .map(|l| Line::styled(l, theme.style(Tone::Warn))),
    );
    let rows = layer.lines(inner);
    let room = usize::from(body.height - 2).saturating_sub(head.len());
    let scroll = layer.scroll.min(rows.len().saturating_sub(room));
    let shown: Vec<Line<'static>> = rows
        .into_iter()
        .skip(scroll)
        .take(room)
        .map(|(text, tone)| Line::styled(text, theme.style(tone)))
        .collect();
    let more = layer.lines(inner).len() > scroll + shown.len();
    let mut lines = head;
    lines.extend(shown);
    let height = (lines.len() as u16 + 2).min(body.height);
    let pane = Rect::new(
        body.x + (body.width - width) / 2,
        body.y + (body.height - height) / 2,
        width,
        height,
    );
    Clear.render(pane, buf);
    clear_wide_overhang(pane, buf);
    let title = if more || scroll > 0 {
        " confirm · ↑/↓ more "
    } else {
        " confirm "
    };
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(pane, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::keys::handle_key;
    use crate::view::save_path::Change;
    use crate::view::screens::render;

    fn layer() -> ConfirmLayer {
        ConfirmLayer::new(
            Preview::titled("delete alpha")
                .removes("metrics, decision and feedback logs, runtime directory, memory snapshots and journal, configuration, chat history, agent files and tokens")
                .change(Change::new("fiber", Some("stopped".into()), "deleted"))
                .note("no undo: the server removes these files"),
            KeyCode::Char('x'),
            UiCommand::Quit(crate::view::command::ExitCause::QuitKey),
        )
    }

    fn screen_text(ui: &Ui, w: u16, h: u16) -> String {
        let model = Model::default();
        let ctx = ProjectionCtx::now(Theme::plain());
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        render(&model, ui, &ctx, area, &mut buf);
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The delete preview names every thing removed and its prompt, wrapped
    /// inside the frame at 80 and at 160 columns (not cut at the edge).
    #[test]
    fn the_preview_wraps_whole_at_80_and_160_columns() {
        for w in [80u16, 160] {
            let mut ui = Ui {
                area: Rect::new(0, 0, w, 24),
                ..Ui::default()
            };
            ui.layers.push(layer());
            let text = screen_text(&ui, w, 24);
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            for part in [
                "x again to delete alpha",
                "any other key cancels",
                "agent files and tokens",
                "fiber: stopped → deleted",
            ] {
                assert!(flat.contains(part), "{w} columns lack {part:?}:\n{text}");
            }
        }
    }

    /// The confirming key runs the held command and closes; any other key closes and runs
    /// nothing; scrolling keeps it open.
    #[test]
    fn only_the_confirming_key_commits() {
        let model = Model::default();
        let mut ui = Ui::default();
        ui.layers.push(layer());
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Down)),
            UiCommand::Repaint
        );
        assert!(ui.layer::<ConfirmLayer>().is_some());
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('p'))),
            UiCommand::Repaint
        );
        assert!(ui.layers.is_empty());
        assert!(
            ui.notice
                .text
                .as_deref()
                .is_some_and(|n| n.contains("nothing sent"))
        );
        ui.layers.push(layer());
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('x'))),
            UiCommand::Quit(crate::view::command::ExitCause::QuitKey)
        );
        assert!(ui.layers.is_empty());
    }
}
