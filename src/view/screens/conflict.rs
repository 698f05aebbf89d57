//! The three-way view of a CAS conflict (a `runtime.toml` save, a runtime form): the draft the
//! operator wrote, the base it was edited from, and what the server holds now — shown as
//! `1` your changes (base → draft), `2` their changes (base → now) and `3` what an overwrite
//! would lose. Nothing is decided for the operator: `r` rebases the draft's changes onto the
//! server's file (refused with the lines both changed), `t` takes theirs, `o` overwrites —
//! only after its own confirmation layer listing exactly what of theirs is lost. `Esc` closes
//! it with the draft kept and nothing sent. What each choice does is the owning screen's: the
//! layer holds the commands it was opened with.

use super::confirm::ConfirmLayer;
use super::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::view::bindings::{DOWN, ESC, PAGE_DOWN, PAGE_UP, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::save_path::diff::{self, DiffLine};
use crate::view::save_path::{Preview, PreviewRow};
use crate::view::text::{sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

const CONFLICT: Table = Table {
    title: "Save conflict keys",
    bindings: &[
        bind(
            "1 / 2 / 3",
            &[Press::ch('1'), Press::ch('2'), Press::ch('3')],
            "your changes / their changes / what an overwrite loses",
        ),
        bind(
            "Up / Down, PgUp / PgDn",
            &[UP, DOWN, PAGE_UP, PAGE_DOWN],
            "scroll",
        ),
        bind(
            "r",
            &[Press::ch('r')],
            "rebase: your changes on the server's file (then previewed)",
        ),
        bind(
            "t",
            &[Press::ch('t')],
            "take theirs: the server's file replaces the draft",
        ),
        bind(
            "o",
            &[Press::ch('o')],
            "overwrite: previews what is lost, o again commits",
        ),
        bind("Esc", &[ESC], "close: the draft is kept, nothing is sent"),
    ],
};

/// The three texts of a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreeWay {
    /// What is saved (`runtime.toml`).
    pub name: String,
    /// The text the draft was edited from.
    pub base: String,
    /// The operator's draft.
    pub draft: String,
    /// What the server holds now, and its revision.
    pub current: String,
    pub current_revision: String,
}

impl ThreeWay {
    /// What an overwrite loses of the server's changes, as a preview of its own.
    pub fn overwrite_preview(&self) -> Preview {
        let mut preview = Preview::titled(format!("overwrite {} with your draft", self.name));
        let lost = diff::lost(&self.base, &self.current, &self.draft);
        if lost.is_empty() {
            preview =
                preview.note("their changes are all in your draft: nothing of theirs is lost");
        } else {
            preview = preview.removes(format!(
                "the other change to {} (revision {}): the lines below",
                self.name,
                short(&self.current_revision)
            ));
        }
        preview.diff = lost;
        preview.note("- their line your draft drops · + a line of the base your draft brings back")
    }
}

fn short(revision: &str) -> &str {
    revision.get(..12).unwrap_or(revision)
}

/// A choice in a conflict's three-way view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The draft's changes made again on the server's file.
    Rebase,
    /// The server's file replaces the draft.
    TakeTheirs,
    /// The draft is sent on the server's revision (after the confirmation of what is lost).
    Overwrite,
}

/// Which comparison the layer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictView {
    Yours,
    Theirs,
    Lost,
}

/// The open three-way view, with what each choice runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictLayer {
    pub three: ThreeWay,
    pub view: ConflictView,
    pub scroll: usize,
    pub on_rebase: UiCommand,
    pub on_theirs: UiCommand,
    /// Runs only after the overwrite's own confirmation.
    pub on_overwrite: UiCommand,
}

impl ConflictLayer {
    pub fn new(
        three: ThreeWay,
        on_rebase: UiCommand,
        on_theirs: UiCommand,
        on_overwrite: UiCommand,
    ) -> Self {
        Self {
            three,
            view: ConflictView::Theirs,
            scroll: 0,
            on_rebase,
            on_theirs,
            on_overwrite,
        }
    }

    fn diff(&self) -> Vec<DiffLine> {
        let t = &self.three;
        match self.view {
            ConflictView::Yours => diff::unified(&t.base, &t.draft),
            ConflictView::Theirs => diff::unified(&t.base, &t.current),
            ConflictView::Lost => diff::lost(&t.base, &t.current, &t.draft),
        }
    }

    /// The rows shown at `width` cells: the view's heading, then its diff.
    pub fn lines(&self, width: usize) -> Vec<(String, Tone)> {
        let heading = match self.view {
            ConflictView::Yours => "1 your changes (the base you edited → your draft)",
            ConflictView::Theirs => "2 their changes (the base you edited → the server now)",
            ConflictView::Lost => "3 what an overwrite loses of theirs",
        };
        let mut out = vec![(heading.to_string(), Tone::Accent)];
        let rows = Preview {
            diff: self.diff(),
            ..Preview::default()
        }
        .rows();
        if rows.is_empty() {
            out.push(("(no lines)".into(), Tone::Dim));
        }
        for row in rows {
            let tone = match &row {
                PreviewRow::Removed(_) => Tone::Bad,
                PreviewRow::Added(_) => Tone::Good,
                PreviewRow::Heading(_) => Tone::Accent,
                _ => Tone::Dim,
            };
            out.extend(wrap(row.text(), width).into_iter().map(|l| (l, tone)));
        }
        out
    }
}

/// Opens the three-way view of a conflict over what is in front.
pub fn open(ui: &mut Ui, layer: ConflictLayer) {
    ui.notice.text = Some(format!(
        "{} changed on the server: r rebase · t take theirs · o overwrite · Esc keeps the draft",
        sanitize(&layer.three.name)
    ));
    ui.layers.push(layer);
}

impl Layer for ConflictLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return Handled::Consumed(UiCommand::None);
        }
        match key.code {
            KeyCode::Char('1') => self.set(ConflictView::Yours),
            KeyCode::Char('2') => self.set(ConflictView::Theirs),
            KeyCode::Char('3') => self.set(ConflictView::Lost),
            KeyCode::Down => self.scroll = self.scroll.saturating_add(1),
            KeyCode::Up => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown => self.scroll = self.scroll.saturating_add(10),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            KeyCode::Char('r') => {
                cx.close();
                return Handled::Consumed(self.on_rebase.clone());
            }
            KeyCode::Char('t') => {
                cx.close();
                return Handled::Consumed(self.on_theirs.clone());
            }
            KeyCode::Char('o') => {
                // The overwrite's own confirmation, over this view: cancelling it comes back
                // here; confirming it closes both.
                super::confirm::open(
                    cx.ui,
                    ConfirmLayer::new(
                        self.three.overwrite_preview(),
                        KeyCode::Char('o'),
                        self.on_overwrite.clone(),
                    ),
                );
            }
            KeyCode::Esc => {
                cx.close();
                cx.ui.notice.text = Some(format!(
                    "{}: the draft is kept, nothing sent",
                    sanitize(&self.three.name)
                ));
            }
            _ => {}
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
        let theme = ctx.theme;
        if body.width < 4 || body.height < 3 {
            return None;
        }
        let inner = usize::from(body.width - 2);
        let head = format!(
            "{} changed on the server (now @ {}) since the base you edited",
            sanitize(&self.three.name),
            short(&self.three.current_revision)
        );
        let keys = "1 yours · 2 theirs · 3 lost by an overwrite · r rebase · t take theirs · o overwrite · Esc keep the draft";
        let mut lines: Vec<Line<'static>> = wrap(&head, inner)
            .into_iter()
            .map(|l| Line::styled(l, theme.style(Tone::Bad)))
            .chain(
                wrap(keys, inner)
                    .into_iter()
                    .map(|l| Line::styled(l, theme.style(Tone::Warn))),
            )
            .collect();
        let rows = self.lines(inner);
        let room = usize::from(body.height - 2).saturating_sub(lines.len());
        let scroll = self.scroll.min(rows.len().saturating_sub(room));
        lines.extend(
            rows.into_iter()
                .skip(scroll)
                .take(room)
                .map(|(t, tone)| Line::styled(t, theme.style(tone))),
        );
        Clear.render(body, buf);
        Paragraph::new(lines)
            .block(Block::bordered().title(" conflict "))
            .render(body, buf);
        None
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Spans(vec![Span::styled(
            " · r rebase · t theirs · o overwrite · Esc keep",
            theme.style(Tone::Warn),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp {
            table: &CONFLICT,
            more: &[],
            ring: false,
        })
    }
}

impl ConflictLayer {
    fn set(&mut self, view: ConflictView) {
        self.view = view;
        self.scroll = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::keys::handle_key;

    fn three() -> ThreeWay {
        ThreeWay {
            name: "runtime.toml".into(),
            base: "a = 1\nb = 2\n".into(),
            draft: "a = 9\nb = 2\n".into(),
            current: "a = 1\nb = 3\n".into(),
            current_revision: "f".repeat(64),
        }
    }

    fn layer() -> ConflictLayer {
        ConflictLayer::new(
            three(),
            UiCommand::Refresh(crate::actors::keepers::ROSTER),
            UiCommand::Repaint,
            UiCommand::Quit(crate::view::command::ExitCause::QuitKey),
        )
    }

    /// The three views are shown, and the overwrite needs its own
    /// confirmation naming what of theirs is lost.
    #[test]
    fn the_three_views_and_an_overwrite_that_needs_its_own_confirmation() {
        let model = Model::default();
        let mut ui = Ui::default();
        open(&mut ui, layer());
        let text = |ui: &Ui| {
            ui.layer::<ConflictLayer>()
                .map(|l| {
                    l.lines(78)
                        .into_iter()
                        .map(|(t, _)| t)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default()
        };
        assert!(text(&ui).contains("+b = 3"), "theirs first:\n{}", text(&ui));
        handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('1')));
        assert!(text(&ui).contains("+a = 9"), "{}", text(&ui));
        handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('3')));
        assert!(text(&ui).contains("-b = 3"), "{}", text(&ui));
        // `o` previews; the overwrite command is not run yet.
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('o'))),
            UiCommand::Repaint
        );
        let confirm = ui.layer::<ConfirmLayer>().expect("the overwrite preview");
        assert!(confirm.preview.text().contains("-b = 3"));
        // Another key cancels the overwrite, back to the three views.
        handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('x')));
        assert!(ui.layer::<ConfirmLayer>().is_none());
        assert!(ui.layer::<ConflictLayer>().is_some());
        handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('o')));
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Char('o'))),
            UiCommand::Quit(crate::view::command::ExitCause::QuitKey)
        );
        // `Esc` keeps the draft and sends nothing.
        let mut ui = Ui::default();
        open(&mut ui, layer());
        assert_eq!(
            handle_key(&mut ui, &model, KeyEvent::from(KeyCode::Esc)),
            UiCommand::Repaint
        );
        assert!(ui.layers.is_empty());
    }
}
