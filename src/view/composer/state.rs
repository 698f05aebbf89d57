//! The composer: buffer + paste spills + slash menu + footer notice, driven by keys and
//! pastes. Pure: no terminal, no network; the chat screen acts on the returned
//! [`ComposerAction`].

use super::buffer::ComposerBuffer;
use super::draft::Draft;
use super::layout::VisualLayout;
use super::paste::{COMPOSER_MAX_ROWS, PasteSpill, PasteStamp, filter_typed, normalise_paste};
use super::slash::{self, CommandSpec, SlashCommand, SlashError};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a failed operator step stays on the footer (C-64, `last_action_window_s`).
pub const NOTICE_WINDOW: Duration = Duration::from_secs(12);

/// What the composer needs to know about the frame the keys act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyContext {
    /// Cells available for text on a composer row.
    pub text_width: u16,
    /// Rows the slash menu can have right now (0: it cannot be shown and intercepts nothing,
    /// C-62).
    pub menu_rows: u16,
    pub now: Instant,
}

/// Up/Down past the first/last row: recall this Keeper's inputs (C-65).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecallDirection {
    Older,
    Newer,
}

/// A message leaving the composer (Enter on a non-command draft).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// The draft as it stood (text, cursor, spills): what to put back if the send fails before
    /// it leaves, and what the outbox records.
    pub draft: Draft,
}

impl OutgoingMessage {
    /// The text as the operator sees it in the composer (placeholders included).
    pub fn drafted_text(&self) -> &str {
        &self.draft.text
    }

    /// Spills whose placeholder is still in the text (a deleted placeholder drops its paste).
    pub fn live_spills(&self) -> impl Iterator<Item = &PasteSpill> {
        self.draft
            .spills
            .iter()
            .filter(|s| self.draft.text.contains(&s.placeholder()))
    }

    /// The text to send when the paste travels in the message itself: each placeholder
    /// replaced by its pasted text (C-68; masc-tui has no file route into a Keeper's working
    /// directory, which is MASC's own fallback too).
    pub fn inline_text(&self) -> String {
        self.substituted(|s| s.text.clone())
    }

    /// The text to send after the runtime delivered each spill as a file into the Keeper's
    /// working directory: each placeholder replaced by the line naming that file.
    pub fn pointed_text(&self) -> String {
        self.substituted(PasteSpill::message_line)
    }

    fn substituted(&self, replacement: impl Fn(&PasteSpill) -> String) -> String {
        let mut text = self.draft.text.clone();
        for spill in &self.draft.spills {
            if let Some(next) = spill.substituted(&text, &replacement(spill)) {
                text = next;
            }
        }
        text
    }
}

/// What a key or paste did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// Not a composer key: the chat screen may use it (Esc back/interrupt, PgUp/PgDn,
    /// Ctrl-E newest, Ctrl-G, Left on an empty composer, Tab without a menu, …; C-65).
    Unhandled,
    /// Taken, nothing changed (a filtered control character, Enter on an empty draft).
    Unchanged,
    /// Taken; the draft, cursor or menu changed (repaint).
    Edited,
    /// Enter on a message draft; the composer is now empty.
    Send(OutgoingMessage),
    /// Enter on a valid command; the composer is now empty.
    Slash(SlashCommand),
    /// Enter on a command that is not one (C-66): reported on the footer, never sent; the
    /// draft stays.
    SlashRejected(SlashError),
    /// Up on the first row / Down on the last row.
    Recall(RecallDirection),
}

/// The result of a bracketed paste.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasteReport {
    /// Held as a spill with a placeholder in the draft (C-68).
    pub spilled: bool,
    /// Bytes past 1 MiB that were dropped (C-68).
    pub dropped_bytes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    /// A failed operator step (C-64).
    Failure,
    /// Something the operator should know (dropped paste bytes).
    Note,
}

/// A footer message with its time (C-64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterNotice {
    pub text: String,
    pub kind: NoticeKind,
    pub at: Instant,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct MenuState {
    selected: usize,
    /// The draft revision at which Esc (or an insertion) closed the menu: it stays closed
    /// until the draft changes (C-61).
    closed_at: Option<u64>,
}

/// The chat composer.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    buffer: ComposerBuffer,
    spills: Vec<PasteSpill>,
    /// Bumped on every text change.
    revision: u64,
    /// Up/Down keep the column they started from.
    goal_x: Option<usize>,
    /// First visual row shown when the draft is taller than the composer.
    scroll_top: usize,
    menu: MenuState,
    notice: Option<FooterNotice>,
    /// The visual rows of the current text at one width, reused by the keys and the paint of
    /// a frame until the text or the width changes (a 2,000-character draft is wrapped once,
    /// not three times, per keystroke).
    layout_cache: RefCell<Option<(u64, usize, Arc<VisualLayout>)>>,
}

fn plain(mods: KeyModifiers) -> bool {
    !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

impl Composer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A composer holding a put-away draft.
    pub fn from_draft(draft: Draft) -> Self {
        let mut c = Self::default();
        c.restore_draft(draft);
        c
    }

    pub fn buffer(&self) -> &ComposerBuffer {
        &self.buffer
    }

    /// The visual rows of the draft at `width` cells (memoised per text revision and width).
    pub fn visual_layout(&self, width: usize) -> Arc<VisualLayout> {
        let mut cache = self.layout_cache.borrow_mut();
        if let Some((rev, w, layout)) = cache.as_ref()
            && *rev == self.revision
            && *w == width
        {
            return Arc::clone(layout);
        }
        let layout = Arc::new(VisualLayout::new(self.buffer.text(), width));
        *cache = Some((self.revision, width, Arc::clone(&layout)));
        layout
    }

    pub fn text(&self) -> &str {
        self.buffer.text()
    }

    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn spills(&self) -> &[PasteSpill] {
        &self.spills
    }

    pub fn scroll_top(&self) -> usize {
        self.scroll_top
    }

    /// The current footer notice if still inside its window.
    pub fn notice(&self, now: Instant) -> Option<&FooterNotice> {
        self.notice
            .as_ref()
            .filter(|n| now.saturating_duration_since(n.at) < NOTICE_WINDOW)
    }

    /// Ends the footer notice (its owner moved on: Esc, an overlay opened).
    pub fn clear_notice(&mut self) {
        self.notice = None;
    }

    /// Shows a failed operator step on the footer (C-64) and traces it.
    pub fn report_failure(&mut self, text: impl Into<String>, now: Instant) {
        let text = text.into();
        tracing::info!(target: "masc_tui::composer", notice = %text, "operator step failed");
        self.notice = Some(FooterNotice {
            text,
            kind: NoticeKind::Failure,
            at: now,
        });
    }

    /// A snapshot of the draft (text, cursor, spills still referenced) to put away.
    pub fn draft(&self) -> Draft {
        Draft {
            text: self.buffer.text().to_string(),
            cursor: self.buffer.cursor(),
            spills: self
                .spills
                .iter()
                .filter(|s| self.buffer.text().contains(&s.placeholder()))
                .cloned()
                .collect(),
        }
    }

    /// Takes the draft out, leaving the composer empty.
    pub fn take_draft(&mut self) -> Draft {
        let d = self.draft();
        self.clear();
        d
    }

    /// Puts a draft back (navigation back to this Keeper, a send that failed before leaving).
    pub fn restore_draft(&mut self, draft: Draft) {
        self.buffer = ComposerBuffer::with_text(&draft.text, draft.cursor);
        self.spills = draft.spills;
        self.changed();
    }

    /// Replaces the text (recall); the cursor goes to the end.
    pub fn set_text(&mut self, text: &str) {
        self.buffer.set_text(text);
        self.spills.clear();
        self.changed();
    }

    pub fn clear(&mut self) {
        self.buffer.clear();
        self.spills.clear();
        self.scroll_top = 0;
        self.changed();
    }

    fn changed(&mut self) {
        self.revision += 1;
        self.goal_x = None;
        self.menu.selected = 0;
    }

    // ----- slash menu (C-59…C-62) -----

    /// Candidates while the draft is on its command word and the menu was not dismissed.
    pub fn menu_candidates(&self) -> Option<Vec<&'static CommandSpec>> {
        if self.menu.closed_at == Some(self.revision) {
            return None;
        }
        slash::candidates(self.buffer.text()).filter(|c| !c.is_empty())
    }

    /// The menu is open and there is room for it: only then does it take keys (C-62).
    pub fn menu_visible(&self, ctx: &KeyContext) -> bool {
        ctx.menu_rows > 0 && self.menu_candidates().is_some()
    }

    /// Index of the selected candidate (clamped).
    pub fn menu_selected(&self) -> usize {
        let n = self.menu_candidates().map_or(0, |c| c.len());
        self.menu.selected.min(n.saturating_sub(1))
    }

    fn menu_move(&mut self, down: bool) -> ComposerAction {
        let n = self.menu_candidates().map_or(0, |c| c.len());
        if n == 0 {
            return ComposerAction::Unchanged;
        }
        let cur = self.menu_selected();
        self.menu.selected = if down {
            (cur + 1) % n
        } else {
            (cur + n - 1) % n
        };
        ComposerAction::Edited
    }

    /// Tab / Enter with the menu open (C-60): put the candidate into the draft; Enter on a
    /// draft that already is the candidate runs it.
    fn menu_accept(&mut self, enter: bool, ctx: &KeyContext) -> ComposerAction {
        let Some(spec) = self
            .menu_candidates()
            .and_then(|c| c.get(self.menu_selected()).copied())
        else {
            return ComposerAction::Unchanged;
        };
        let word = self.buffer.text().trim_start_matches('/');
        if enter && spec.matches_word(word) {
            self.menu.closed_at = Some(self.revision);
            return self.submit(ctx);
        }
        self.buffer.set_text(&spec.insertion());
        self.changed();
        self.menu.closed_at = Some(self.revision);
        ComposerAction::Edited
    }

    // ----- keys -----

    /// Handles one key (C-65). Release events are ignored.
    pub fn handle_key(&mut self, key: KeyEvent, ctx: &KeyContext) -> ComposerAction {
        if key.kind == KeyEventKind::Release {
            return ComposerAction::Unchanged;
        }
        let action = self.dispatch(key, ctx);
        if matches!(action, ComposerAction::Edited) {
            self.keep_cursor_visible(ctx.text_width);
        }
        action
    }

    fn dispatch(&mut self, key: KeyEvent, ctx: &KeyContext) -> ComposerAction {
        let mods = key.modifiers;
        let ctrl = mods.contains(KeyModifiers::CONTROL);
        let alt = mods.contains(KeyModifiers::ALT);
        let menu = self.menu_visible(ctx);
        match key.code {
            KeyCode::Enter if mods.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) => {
                self.edit(ComposerBuffer::insert_newline)
            }
            KeyCode::Enter if menu => self.menu_accept(true, ctx),
            KeyCode::Enter => self.submit(ctx),
            KeyCode::Char('j') if ctrl => self.edit(ComposerBuffer::insert_newline),
            KeyCode::Tab if menu => self.menu_accept(false, ctx),
            KeyCode::BackTab if menu => self.menu_move(false),
            KeyCode::Up if menu => self.menu_move(false),
            KeyCode::Down if menu => self.menu_move(true),
            KeyCode::Esc if menu => {
                self.menu.closed_at = Some(self.revision);
                ComposerAction::Edited
            }
            KeyCode::Up => self.vertical(false, ctx),
            KeyCode::Down => self.vertical(true, ctx),
            KeyCode::Backspace if alt => self.edit(ComposerBuffer::kill_word_back),
            KeyCode::Char('w') if ctrl => self.edit(ComposerBuffer::kill_word_back),
            KeyCode::Backspace => self.erase(true),
            KeyCode::Char('h') if ctrl => self.erase(true),
            KeyCode::Delete => self.erase(false),
            KeyCode::Left if self.buffer.is_empty() => ComposerAction::Unhandled,
            KeyCode::Left if ctrl => self.motion(ComposerBuffer::move_word_left),
            KeyCode::Right if ctrl => self.motion(ComposerBuffer::move_word_right),
            KeyCode::Left => self.motion(ComposerBuffer::move_left),
            KeyCode::Right => self.motion(ComposerBuffer::move_right),
            KeyCode::Home => self.motion(ComposerBuffer::move_line_start),
            KeyCode::End => self.motion(ComposerBuffer::move_line_end),
            KeyCode::Char('a') if ctrl => self.motion(ComposerBuffer::move_line_start),
            KeyCode::Char('u') if ctrl => {
                if self.buffer.is_empty() {
                    ComposerAction::Unchanged
                } else {
                    self.clear();
                    ComposerAction::Edited
                }
            }
            KeyCode::Char('k') if ctrl => self.edit(ComposerBuffer::kill_to_line_end),
            KeyCode::Char(c) if plain(mods) => match filter_typed(c) {
                Some(c) => {
                    self.buffer.insert_char(c);
                    self.changed();
                    ComposerAction::Edited
                }
                None => ComposerAction::Unchanged,
            },
            _ => ComposerAction::Unhandled,
        }
    }

    fn edit(&mut self, op: impl FnOnce(&mut ComposerBuffer) -> bool) -> ComposerAction {
        let before = self.buffer.text().len();
        let done = op(&mut self.buffer);
        if done || self.buffer.text().len() != before {
            self.changed();
            ComposerAction::Edited
        } else {
            ComposerAction::Unchanged
        }
    }

    fn motion(&mut self, op: impl FnOnce(&mut ComposerBuffer) -> bool) -> ComposerAction {
        self.goal_x = None;
        if op(&mut self.buffer) {
            ComposerAction::Edited
        } else {
            ComposerAction::Unchanged
        }
    }

    /// Backspace/Delete; a spill placeholder goes as one piece, with its paste (C-68).
    fn erase(&mut self, back: bool) -> ComposerAction {
        let text = self.buffer.text();
        let cursor = self.buffer.cursor();
        let hit = self.spills.iter().position(|s| {
            let p = s.placeholder();
            if back {
                text[..cursor].ends_with(&p)
            } else {
                text[cursor..].starts_with(&p)
            }
        });
        if let Some(i) = hit {
            let p = self.spills[i].placeholder();
            let start = if back { cursor - p.len() } else { cursor };
            let mut rest = String::with_capacity(text.len() - p.len());
            rest.push_str(&text[..start]);
            rest.push_str(&text[start + p.len()..]);
            self.buffer = ComposerBuffer::with_text(&rest, start);
            self.spills.remove(i);
            self.changed();
            return ComposerAction::Edited;
        }
        if back {
            self.edit(ComposerBuffer::backspace)
        } else {
            self.edit(ComposerBuffer::delete)
        }
    }

    /// Up/Down across visual rows at the current width; past the edge, recall (C-65).
    fn vertical(&mut self, down: bool, ctx: &KeyContext) -> ComposerAction {
        let layout = self.visual_layout(usize::from(ctx.text_width));
        let text = self.buffer.text();
        let cur = layout.cursor_cell(text, self.buffer.cursor());
        let goal = *self.goal_x.get_or_insert(cur.x);
        let target = if down {
            cur.row + 1
        } else if cur.row == 0 {
            return ComposerAction::Recall(RecallDirection::Older);
        } else {
            cur.row - 1
        };
        // A cursor past a full last row sits on a row of its own; its row above is that row.
        let target = target.min(layout.rows.len());
        if target >= layout.rows.len() {
            return if down {
                ComposerAction::Recall(RecallDirection::Newer)
            } else {
                ComposerAction::Unchanged
            };
        }
        match layout.offset_at(text, target, goal) {
            Some(at) if self.buffer.set_cursor(at) => {
                self.keep_cursor_visible(ctx.text_width);
                ComposerAction::Edited
            }
            _ => ComposerAction::Unchanged,
        }
    }

    fn submit(&mut self, ctx: &KeyContext) -> ComposerAction {
        let text = self.buffer.text();
        if text.trim().is_empty() {
            return ComposerAction::Unchanged;
        }
        if slash::is_command_draft(text) {
            return match slash::parse(text) {
                Ok(cmd) => {
                    self.clear();
                    ComposerAction::Slash(cmd)
                }
                Err(e) => {
                    self.report_failure(e.to_string(), ctx.now);
                    ComposerAction::SlashRejected(e)
                }
            };
        }
        let draft = self.take_draft();
        ComposerAction::Send(OutgoingMessage { draft })
    }

    // ----- paste (C-68) -----

    /// A bracketed paste: normalised, cut at 1 MiB, and either inserted or held as a spill
    /// whose placeholder is inserted.
    pub fn paste(&mut self, raw: &str, stamp: &PasteStamp, ctx: &KeyContext) -> PasteReport {
        let pasted = normalise_paste(raw);
        let spill = PasteSpill::of_paste(&pasted.text, stamp);
        let spilled = spill.is_some();
        match spill {
            Some(spill) => {
                self.buffer.insert_str(&spill.placeholder());
                self.spills.push(spill);
            }
            None => self.buffer.insert_str(&pasted.text),
        }
        if pasted.dropped_bytes > 0 {
            let text = format!(
                "붙여넣기가 1 MiB를 넘어 {} bytes를 버렸습니다",
                pasted.dropped_bytes
            );
            tracing::info!(target: "masc_tui::composer", dropped = pasted.dropped_bytes,
                "paste cut at 1 MiB");
            self.notice = Some(FooterNotice {
                text,
                kind: NoticeKind::Note,
                at: ctx.now,
            });
        }
        if !pasted.text.is_empty() {
            self.changed();
            self.keep_cursor_visible(ctx.text_width);
        }
        PasteReport {
            spilled,
            dropped_bytes: pasted.dropped_bytes,
        }
    }

    // ----- viewport -----

    /// The cursor row stays inside the `composer_max_rows` window.
    fn keep_cursor_visible(&mut self, width: u16) {
        let layout = self.visual_layout(usize::from(width));
        let cur = layout.cursor_cell(self.buffer.text(), self.buffer.cursor());
        self.scroll_top = visible_top(self.scroll_top, cur.row, layout.rows_with_cursor(cur));
    }
}

/// The first row of the window that shows `cursor_row`, starting from `top` and moving as
/// little as possible (C-19 `composer_max_rows`).
pub fn visible_top(top: usize, cursor_row: usize, total_rows: usize) -> usize {
    let max_top = total_rows.saturating_sub(COMPOSER_MAX_ROWS);
    let mut top = top.min(max_top);
    if cursor_row < top {
        top = cursor_row;
    } else if cursor_row >= top + COMPOSER_MAX_ROWS {
        top = cursor_row + 1 - COMPOSER_MAX_ROWS;
    }
    top
}
