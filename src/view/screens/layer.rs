//! The layer stack: what is drawn over the surface — the Keeper chat, the approvals view, the
//! `?` help, the chat's `/queue` and `/context` — after helix's compositor
//! (`helix-term/src/compositor.rs`). A key or a paste is offered to the top layer first; it
//! consumes it or passes it down, and what every layer passes reaches the global keys and the
//! surface. Layers paint bottom-up over the surface; the cursor is the top layer's (a popup
//! hides the composer's). An overlay is a [`Layer`] in its own folder, opened by one push.
//!
//! While a layer handles a key, a paste, an edit or a reaction it is taken out of the stack: it
//! gets itself (`&mut self`) and the rest of the UI (the layers below and above it, the
//! surfaces), and closes itself with [`LayerCx::close`]. A layer it pushes goes on top.
//!
//! What a layer's feature keeps after the layer closes (the chat's drafts, the Ask answers) is a
//! [`Kept`] value beside the stack, one per type, made on first use; it reacts even while its
//! layer is closed (a held chat input released after the chat closed).

use super::reaction::{ReactCx, Seen};
use super::{EditOwner, ProjectionCtx, Ui};
use crate::actors::contract::SourceKey;
use crate::view::command::UiCommand;
use crate::view::editor::EditResult;
use crate::view::model::Model;
use crate::view::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;
use std::fmt;

/// What a layer did with a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// The layer took the key; its command runs (the layers below never see the key).
    Consumed(UiCommand),
    /// Not this layer's key: offered to the layer below, at the bottom to the global keys and
    /// the surface.
    Passed,
}

/// The footer while a layer is in front.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerFooter {
    /// The layer painted the footer row itself (the chat's composer footer, C-63).
    Painted,
    /// Its spans, after the notice.
    Spans(Vec<Span<'static>>),
}

/// The help a layer shows under `?`: its bindings, more sections (the chat's commands), and
/// whether the ring's keys (`Tab`, `r`, `L`, `?`, `q q`) reach past it.
#[derive(Debug, Clone, Copy)]
pub struct LayerHelp {
    pub table: &'static crate::view::bindings::Table,
    pub more: &'static [fn() -> crate::view::bindings::Section],
    pub ring: bool,
}

impl LayerHelp {
    /// A layer that passes the keys it does not bind to the ring.
    pub const fn passing(table: &'static crate::view::bindings::Table) -> Self {
        Self {
            table,
            more: &[],
            ring: true,
        }
    }
}

/// What a layer is handed while it handles a key, a paste or an edit's result.
pub struct LayerCx<'a> {
    /// The UI without this layer.
    pub ui: &'a mut Ui,
    pub model: &'a Model,
    closed: bool,
}

impl<'a> LayerCx<'a> {
    pub fn new(ui: &'a mut Ui, model: &'a Model) -> Self {
        Self {
            ui,
            model,
            closed: false,
        }
    }

    /// Closes this layer once it returns (it is not put back on the stack).
    pub fn close(&mut self) {
        self.closed = true;
    }
}

/// One overlay over the surface.
pub trait Layer: Any + Send + fmt::Debug {
    /// Takes every key before the global keys (quit arming, `q`, `?`, `Tab`). A layer that
    /// does not (the approvals list) is offered a key only after the global quit arming had
    /// its turn, and passes what it leaves to the global keys.
    fn captures(&self) -> bool {
        true
    }

    /// A key offered to this layer.
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled;

    /// A bracketed paste offered to this layer: `Some(changed)` when it took it, `None` to
    /// pass it down.
    fn paste(&mut self, _cx: &mut LayerCx<'_>, _text: &str) -> Option<bool> {
        None
    }

    /// Paints the layer: `frame` is the whole terminal, `body` the rows between the header and
    /// the footer. Returns the terminal cursor cell, shown when this is the top layer.
    fn render(
        &self,
        model: &Model,
        ui: &Ui,
        ctx: &ProjectionCtx,
        frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)>;

    /// Covers the whole body: the surface and the layers below are not painted, and the
    /// footer is painted after this layer (a popup is painted over the footer).
    fn covers_body(&self) -> bool {
        false
    }

    /// The footer while this is the top layer with one; `None`: the footer of what is below.
    fn footer(&self, _model: &Model, _ui: &Ui, _theme: Theme) -> Option<LayerFooter> {
        None
    }

    /// What `?` lists while this is the top layer; `None`: the help of what is below.
    fn help(&self) -> Option<LayerHelp> {
        None
    }

    /// The smallest frame this layer draws in (T.5), when it is not the whole app's.
    fn minimum(&self) -> Option<(u16, u16)> {
        None
    }

    /// The sources whose slots this layer shows, when it hides the surface's
    /// ([`super::shown_sources`]).
    fn shown_sources(&self) -> Option<&'static [SourceKey]> {
        None
    }

    /// Where an edit asked while this layer is in front goes back to; `None`: this layer asks
    /// for no edits (the one below owns them).
    fn edit_owner(&self) -> Option<EditOwner> {
        None
    }

    /// The result of an edit this layer asked for.
    fn edited(&mut self, cx: &mut LayerCx<'_>, result: EditResult) -> UiCommand {
        cx.ui.notice.text = Some(result.notice());
        UiCommand::Repaint
    }

    /// The reaction hook ([`super::react`]) while this layer is open. `ui` is the UI without
    /// it; the layer cannot close itself here.
    fn react(&mut self, _ui: &mut Ui, _cx: &mut ReactCx<'_>, _seen: Seen) {}
}

/// What a layer's feature keeps after the layer closes, made on first use.
pub trait Kept: Any + Send + fmt::Debug + Default {
    /// The feature's reaction hook, whether its layer is open or not (it reaches its kept
    /// value through `ui.layers`).
    fn react(_ui: &mut Ui, _cx: &mut ReactCx<'_>, _seen: Seen) {}
}

type KeptReaction = fn(&mut Ui, &mut ReactCx<'_>, Seen);

/// A kept value and its feature's reaction.
struct KeptEntry {
    value: Box<dyn Any + Send>,
    name: &'static str,
    react: KeptReaction,
}

impl fmt::Debug for KeptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The open layers, bottom first, and what their features keep.
#[derive(Debug, Default)]
pub struct Layers {
    stack: Vec<Box<dyn Layer>>,
    kept: Vec<KeptEntry>,
}

impl Layers {
    /// The kept value of type `K`, if it was made.
    pub fn kept<K: Kept>(&self) -> Option<&K> {
        self.kept.iter().find_map(|k| k.value.downcast_ref::<K>())
    }

    pub fn kept_mut<K: Kept>(&mut self) -> Option<&mut K> {
        self.kept
            .iter_mut()
            .find_map(|k| k.value.downcast_mut::<K>())
    }

    /// Runs `f` on the kept value of type `K`, made first if it was not.
    pub fn with_kept<K: Kept, R>(&mut self, f: impl FnOnce(&mut K) -> R) -> R {
        if let Some(kept) = self
            .kept
            .iter_mut()
            .find_map(|k| k.value.downcast_mut::<K>())
        {
            return f(kept);
        }
        let mut fresh = K::default();
        let out = f(&mut fresh);
        self.kept.push(KeptEntry {
            value: Box::new(fresh),
            name: std::any::type_name::<K>(),
            react: K::react,
        });
        out
    }

    /// Opens `layer` on top.
    pub fn push<L: Layer>(&mut self, layer: L) {
        self.stack.push(Box::new(layer));
    }

    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    pub fn len(&self) -> usize {
        self.stack.len()
    }

    /// The open layers, top first.
    pub fn top_down(&self) -> impl Iterator<Item = &dyn Layer> {
        self.stack.iter().rev().map(|l| l.as_ref())
    }

    /// The topmost open layer of type `L`.
    pub fn find<L: Layer>(&self) -> Option<&L> {
        self.stack
            .iter()
            .rev()
            .find_map(|l| (l.as_ref() as &dyn Any).downcast_ref::<L>())
    }

    pub fn find_mut<L: Layer>(&mut self) -> Option<&mut L> {
        self.stack
            .iter_mut()
            .rev()
            .find_map(|l| (l.as_mut() as &mut dyn Any).downcast_mut::<L>())
    }

    /// Closes the topmost layer of type `L` and every layer opened over it; returns it.
    pub fn remove<L: Layer>(&mut self) -> Option<L> {
        let at = self
            .stack
            .iter()
            .rposition(|l| (l.as_ref() as &dyn Any).is::<L>())?;
        self.stack.truncate(at + 1);
        let layer: Box<dyn Any> = self.stack.pop()?;
        layer.downcast::<L>().ok().map(|l| *l)
    }

    /// Takes the layer at `index` out of the stack.
    fn take(&mut self, index: usize) -> Box<dyn Layer> {
        self.stack.remove(index)
    }

    /// Puts a layer taken out back at `index` (below the layers it pushed meanwhile).
    fn put_back(&mut self, index: usize, layer: Box<dyn Layer>) {
        let index = index.min(self.stack.len());
        self.stack.insert(index, layer);
    }

    fn get(&self, index: usize) -> Option<&dyn Layer> {
        self.stack.get(index).map(|l| l.as_ref())
    }

    /// Index of the lowest layer painted: the topmost one covering the body (or the bottom).
    fn first_painted(&self) -> Option<usize> {
        self.stack.iter().rposition(|l| l.covers_body())
    }
}

/// Runs `f` on the layer at `index` taken out of the stack, and puts it back unless it closed.
fn with_layer<R>(
    ui: &mut Ui,
    model: &Model,
    index: usize,
    f: impl FnOnce(&mut dyn Layer, &mut LayerCx<'_>) -> R,
) -> R {
    let mut layer = ui.layers.take(index);
    let mut cx = LayerCx::new(ui, model);
    let out = f(layer.as_mut(), &mut cx);
    if !cx.closed {
        ui.layers.put_back(index, layer);
    }
    out
}

/// The reaction hook of every feature with a kept value, in the order they were made.
pub fn react_kept(ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
    let hooks: Vec<KeptReaction> = ui.layers.kept.iter().map(|k| k.react).collect();
    for react in hooks {
        react(ui, cx, seen);
    }
}

/// The reaction hook on every open layer, bottom up.
pub fn react_open(ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
    let mut index = 0;
    while index < ui.layers.len() {
        let mut layer = ui.layers.take(index);
        layer.react(ui, cx, seen);
        ui.layers.put_back(index, layer);
        index += 1;
    }
}

/// Where a key ends up after the layers.
pub enum KeyRoute {
    /// A layer consumed it.
    Taken(UiCommand),
    /// Every layer passed it: the global keys and the surface. `global_seen`: the global
    /// quit arming already had its turn (before a layer that does not capture).
    Below { global_seen: bool },
}

/// Offers `key` to the layers, top first. `global` runs once, before the first layer that
/// does not capture every key: `Some(cmd)` ends the key there (quit arming, a Ctrl key no
/// layer below takes).
pub fn offer_key(
    ui: &mut Ui,
    model: &Model,
    key: KeyEvent,
    mut global: impl FnMut(&mut Ui) -> Option<UiCommand>,
) -> KeyRoute {
    let mut global_seen = false;
    let mut index = ui.layers.len();
    while index > 0 {
        index -= 1;
        let captures = ui.layers.get(index).is_some_and(|l| l.captures());
        if !captures && !global_seen {
            global_seen = true;
            if let Some(cmd) = global(ui) {
                return KeyRoute::Taken(cmd);
            }
        }
        if index >= ui.layers.len() {
            continue;
        }
        match with_layer(ui, model, index, |layer, cx| layer.key(cx, key)) {
            Handled::Consumed(cmd) => return KeyRoute::Taken(cmd),
            Handled::Passed => {}
        }
    }
    KeyRoute::Below { global_seen }
}

/// Offers a paste to the layers, top first; `None` when every layer passed it.
pub fn offer_paste(ui: &mut Ui, model: &Model, text: &str) -> Option<bool> {
    let mut index = ui.layers.len();
    while index > 0 {
        index -= 1;
        if let Some(changed) = with_layer(ui, model, index, |layer, cx| layer.paste(cx, text)) {
            return Some(changed);
        }
    }
    None
}

/// Hands an edit's result to the open layer that owns `owner`; `None` when it is not open.
pub fn deliver_edit(
    ui: &mut Ui,
    model: &Model,
    owner: &EditOwner,
    result: EditResult,
) -> Result<UiCommand, EditResult> {
    let found = ui
        .layers
        .stack
        .iter()
        .rposition(|l| l.edit_owner().as_ref() == Some(owner));
    match found {
        Some(index) => Ok(with_layer(ui, model, index, |layer, cx| {
            layer.edited(cx, result)
        })),
        None => Err(result),
    }
}

/// The first answer of the layers, top first.
pub fn top_down<T>(ui: &Ui, f: impl FnMut(&dyn Layer) -> Option<T>) -> Option<T> {
    ui.layers.top_down().find_map(f)
}

/// Paints the layers bottom-up from the topmost one covering the body (the surface only when
/// none does; `surface` paints it), with `footer` painted after the body layers and before the
/// popups. Returns the top layer's cursor.
pub fn render(
    model: &Model,
    ui: &Ui,
    ctx: &ProjectionCtx,
    frame: Rect,
    buf: &mut Buffer,
    surface: impl FnOnce(&mut Buffer),
    footer: impl FnOnce(&mut Buffer),
) -> Option<(u16, u16)> {
    let body = super::body_area(frame);
    let first = ui.layers.first_painted();
    if first.is_none() {
        surface(buf);
    }
    let mut footer = Some(footer);
    let mut cursor = None;
    for layer in &ui.layers.stack[first.unwrap_or(0)..] {
        if !layer.covers_body()
            && let Some(footer) = footer.take()
        {
            footer(buf);
        }
        cursor = layer.render(model, ui, ctx, frame, body, buf);
    }
    if let Some(footer) = footer.take() {
        footer(buf);
    }
    cursor
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::keys::{handle_key, handle_paste};
    use crate::view::screens::help::{HelpLayer, is_open};
    use crate::view::screens::{Tab, render_with_cursor};
    use crate::view::theme::Theme;
    use crossterm::event::{KeyCode, KeyModifiers};

    /// An overlay as a future one is written: it takes `x` (and closes on `Esc`), passes
    /// everything else down, and draws a cursor.
    #[derive(Debug, Default)]
    struct Probe {
        took: Vec<char>,
        captures: bool,
    }

    impl Layer for Probe {
        fn captures(&self) -> bool {
            self.captures
        }

        fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
            match key.code {
                KeyCode::Char(c @ 'x') => {
                    self.took.push(c);
                    Handled::Consumed(UiCommand::Repaint)
                }
                KeyCode::Esc => {
                    cx.close();
                    Handled::Consumed(UiCommand::Repaint)
                }
                _ => Handled::Passed,
            }
        }

        fn paste(&mut self, _cx: &mut LayerCx<'_>, text: &str) -> Option<bool> {
            self.took.extend(text.chars());
            Some(true)
        }

        fn render(
            &self,
            _model: &Model,
            _ui: &Ui,
            _ctx: &ProjectionCtx,
            _frame: Rect,
            body: Rect,
            buf: &mut Buffer,
        ) -> Option<(u16, u16)> {
            buf.set_string(body.x, body.y, "probe", ratatui::style::Style::default());
            Some((body.x, body.y))
        }
    }

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn cursor(ui: &Ui) -> Option<(u16, u16)> {
        let model = Model::default();
        let ctx = ProjectionCtx::now(Theme::plain());
        let mut buf = Buffer::empty(ui.area);
        render_with_cursor(&model, ui, &ctx, ui.area, &mut buf)
    }

    /// A layer is offered a key before the global keys and the surface; what it passes
    /// reaches them; it closes itself; a paste goes to it first.
    #[test]
    fn a_pushed_layer_takes_keys_first_and_passes_the_rest_down() {
        let model = Model::default();
        let mut ui = Ui::default().with_layer(Probe::default());
        assert_eq!(handle_key(&mut ui, &model, press('x')), UiCommand::Repaint);
        assert_eq!(ui.layer::<Probe>().map(|p| p.took.clone()), Some(vec!['x']));
        // `Tab` is not the probe's: the global keys move the surface, the probe stays.
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
        );
        assert_eq!(ui.tab, Tab::Board);
        assert!(ui.layer::<Probe>().is_some());
        assert!(handle_paste(&mut ui, &model, "yz"));
        assert_eq!(
            ui.layer::<Probe>().map(|p| p.took.clone()),
            Some(vec!['x', 'y', 'z'])
        );
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        );
        assert!(ui.layers.is_empty());
    }

    /// The global quit arming has its turn before a layer that does not capture every key,
    /// after one that does.
    #[test]
    fn quit_arming_comes_before_a_layer_that_does_not_capture() {
        let model = Model::default();
        let mut ui = Ui::default().with_layer(Probe::default());
        handle_key(&mut ui, &model, press('q'));
        assert!(
            ui.quit_armed,
            "the probe passed q: the global keys armed quitting"
        );
        assert_eq!(handle_key(&mut ui, &model, press('x')), UiCommand::Repaint);
        assert!(!ui.quit_armed);
        assert!(
            ui.layer::<Probe>().is_some_and(|p| p.took.is_empty()),
            "the key after q only cancelled"
        );
        let mut ui = Ui::default().with_layer(Probe {
            captures: true,
            ..Probe::default()
        });
        ui.quit_armed = true;
        handle_key(&mut ui, &model, press('x'));
        assert!(ui.quit_armed, "a capturing layer took the key first");
        assert_eq!(ui.layer::<Probe>().map(|p| p.took.len()), Some(1));
    }

    /// The cursor is the top layer's: a help opened over the probe hides it; closing the help
    /// shows it again. `?` over a layer without help of its own lists the surface's keys.
    #[test]
    fn the_cursor_is_the_top_layers() {
        let model = Model::default();
        let mut ui = Ui::default().with_layer(Probe::default());
        assert_eq!(cursor(&ui), Some((0, 2)));
        handle_key(&mut ui, &model, press('?'));
        assert!(is_open(&ui));
        assert_eq!(
            ui.layer::<HelpLayer>().map(|h| h.title().to_string()),
            Some(format!("{} keys", Tab::Keepers.title()))
        );
        assert_eq!(cursor(&ui), None);
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        );
        assert!(!is_open(&ui) && ui.layer::<Probe>().is_some());
        assert_eq!(cursor(&ui), Some((0, 2)));
    }

    /// Closing a layer closes what was opened over it.
    #[test]
    fn removing_a_layer_closes_the_layers_over_it() {
        let mut ui = Ui::default()
            .with_layer(Probe::default())
            .with_layer(HelpLayer::new(Vec::new()));
        assert!(ui.layers.remove::<Probe>().is_some());
        assert!(ui.layers.is_empty());
    }
}
