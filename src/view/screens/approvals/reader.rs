//! The Ask answer reader (`a`; surfaces.md "Approvals / Ask"; sources.md K-1…K-17): one Ask
//! at a time, bound by its id, one question active.
//!
//! Keys: Left/Right or `j`/`k` question, `[`/`]` Ask, PgUp/PgDn scroll, digits choose an option
//! of the active question, `i` writes free text where the question allows it (`Enter` or
//! `Esc` ends writing; every other key is text, `o` and `O` included, K-14), `Enter` `Enter`
//! sends the answer (the first press arms and shows what is sent), `o` expands the recorded
//! origin, `O` opens the inspector pinned to its `Turn_ref`, `f` re-reads the follow-up, `r`
//! re-reads the Asks, `Esc` back.
//!
//! The answer input is drawn only on the question whose Ask id **and** question id equal the
//! input's draft key (K-8); a display that shows another question never re-targets it: the
//! keys then end writing without touching any draft.

use super::asks::{AsksUi, DraftKey, ReaderAsk, ask_ref, latest_answer, may_answer, reader_asks};
use super::follow_up::origin_turn;
use super::workspace;
use crate::actors::asks::{AskRef, AsksCommand};
use crate::actors::decisions::DECISIONS;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::inspector::InspectorSlot;
use crate::protocol::asks::FreeText;
use crate::protocol::outcome::SaveClass;
use crate::view::bindings::{ENTER, ESC, LEFT, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, bind};
use crate::view::command::UiCommand;
use crate::view::editor::{EditPurpose, EditRequest, EditResult};
use crate::view::model::Model;
use crate::view::outgoing::InspectorRequest;
use crate::view::screens::inspector::turn::{Inspector, InspectorTab};
use crate::view::screens::inspector::turn_reads::WidenKey;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod draw;
pub use draw::{footer, render, sends_summary};

/// The reader's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskReader {
    /// The Ask shown, by id: a re-read re-binds it by id, never by position.
    pub ask: AskRef,
    /// The active question (index into the Ask's questions).
    pub question: usize,
    /// First body row shown.
    pub scroll: usize,
    /// The answer input and the draft it writes (K-8); `Some` while writing.
    pub input: Option<DraftKey>,
    /// The first `Enter` armed the answer; the second sends it.
    pub armed: bool,
    /// `o`: the recorded origin is expanded.
    pub origin_open: bool,
    /// `O`: the inspector pinned to the origin's `Turn_ref`.
    pub inspector: Option<Inspector>,
}

impl AskReader {
    pub fn new(ask: AskRef, question: usize) -> Self {
        Self {
            ask,
            question,
            scroll: 0,
            input: None,
            armed: false,
            origin_open: false,
            inspector: None,
        }
    }

    /// Writing free text: every key goes to the text.
    pub fn typing(&self) -> bool {
        self.input.is_some() && self.inspector.is_none()
    }
}

/// The Ask the reader is bound to, and its position among the reader's Asks.
pub fn current<'a>(
    model: &'a Model,
    asks: &'a AsksUi,
    reader: &AskReader,
) -> Option<(usize, usize, ReaderAsk<'a>)> {
    let all = reader_asks(model, asks);
    let n = all.len();
    all.into_iter()
        .enumerate()
        .find(|(_, a)| ask_ref(a.ask) == reader.ask)
        .map(|(i, a)| (i, n, a))
}

/// A key while the reader is open. Never awaits; commands go to the view actor.
pub fn handle(
    reader: &mut AskReader,
    asks: &mut AsksUi,
    model: &Model,
    page: usize,
    key: KeyEvent,
) -> ReaderOutcome {
    if reader.inspector.is_some() {
        return inspector_key(reader, model, key);
    }
    let ws = workspace(model).unwrap_or_default();
    if let Some(input) = reader.input.clone() {
        return typing_key(reader, asks, model, &ws, input, key);
    }
    let armed = std::mem::take(&mut reader.armed);
    let Some((pos, _, listed)) = current(model, asks, reader) else {
        return match key.code {
            KeyCode::Esc => ReaderOutcome::Close,
            KeyCode::Char('[') | KeyCode::Char(']') => step_ask(reader, model, asks, 0, key),
            _ => ReaderOutcome::Cmd(UiCommand::None),
        };
    };
    let ask = listed.ask;
    let nq = ask.questions.len();
    let question = reader.question.min(nq.saturating_sub(1));
    let repaint = ReaderOutcome::Cmd(UiCommand::Repaint);
    match key.code {
        KeyCode::Esc => ReaderOutcome::Close,
        KeyCode::Left | KeyCode::Char('k') => {
            reader.question = question.saturating_sub(1);
            reader.scroll = 0;
            repaint
        }
        KeyCode::Right | KeyCode::Char('j') => {
            reader.question = (question + 1).min(nq.saturating_sub(1));
            reader.scroll = 0;
            repaint
        }
        KeyCode::Char('[') | KeyCode::Char(']') => step_ask(reader, model, asks, pos, key),
        KeyCode::PageDown => {
            reader.scroll = reader.scroll.saturating_add(page.max(1));
            repaint
        }
        KeyCode::PageUp => {
            reader.scroll = reader.scroll.saturating_sub(page.max(1));
            repaint
        }
        KeyCode::Char(c @ '0'..='9') => {
            let n = if c == '0' {
                10
            } else {
                c as usize - '0' as usize
            };
            if let Some(q) = ask.questions.get(question) {
                let key = DraftKey::of(&ws, ask, q);
                let mut draft = asks.draft(&key).cloned().unwrap_or_default();
                if draft.choose(q, n) {
                    *asks.draft_mut(key) = draft;
                    return repaint;
                }
            }
            ReaderOutcome::Cmd(UiCommand::None)
        }
        KeyCode::Char('i') => match ask.questions.get(question) {
            Some(q) if matches!(q.free_text, FreeText::Allowed { .. }) => {
                reader.input = Some(DraftKey::of(&ws, ask, q));
                repaint
            }
            _ => ReaderOutcome::Notice("this question takes no free text"),
        },
        KeyCode::Enter => match may_answer(model, &ws, listed) {
            Ok(()) if armed => {
                let (intent, shown) = (asks.intent(&ws, ask), ask.clone());
                asks.answered(&ws, &shown);
                ReaderOutcome::Cmd(UiCommand::save::<AskAnswer>(intent))
            }
            Ok(()) => {
                reader.armed = true;
                repaint
            }
            Err(why) => ReaderOutcome::Notice(why),
        },
        KeyCode::Char('o') => {
            reader.origin_open = !reader.origin_open;
            repaint
        }
        KeyCode::Char('O') => {
            let follow = model.asks.follow_up(&ws, &ask_ref(ask));
            match origin_turn(ask, follow) {
                Some(target) => {
                    let have = model
                        .asks
                        .transcripts
                        .get(&target)
                        .is_some_and(|s| s.fetched.last().is_some() || s.in_flight());
                    reader.inspector = Some(Inspector::new(target.clone()));
                    if have {
                        repaint
                    } else {
                        ReaderOutcome::Cmd(UiCommand::send(AsksCommand::Transcript(target)))
                    }
                }
                None => ReaderOutcome::Notice(
                    "no recorded Turn_ref for this Ask (the current turn is never used instead)",
                ),
            }
        }
        KeyCode::Char('f') => {
            let r = ask_ref(ask);
            let answered = latest_answer(model, &ws, &r)
                .and_then(|e| e.phase.class())
                .is_some_and(|c| c == SaveClass::Applied);
            if answered {
                ReaderOutcome::Cmd(UiCommand::send(AsksCommand::Follow {
                    ask: r,
                    workspace: ws,
                }))
            } else {
                ReaderOutcome::Notice("no answer of this session to follow")
            }
        }
        KeyCode::Char('r') => ReaderOutcome::Cmd(UiCommand::Refresh(DECISIONS)),
        _ if armed => repaint,
        _ => ReaderOutcome::Cmd(UiCommand::None),
    }
}

fn step_ask(
    reader: &mut AskReader,
    model: &Model,
    asks: &AsksUi,
    pos: usize,
    key: KeyEvent,
) -> ReaderOutcome {
    let all = reader_asks(model, asks);
    if all.is_empty() {
        return ReaderOutcome::Cmd(UiCommand::None);
    }
    let next = match key.code {
        KeyCode::Char(']') => (pos + 1) % all.len(),
        _ => (pos + all.len() - 1) % all.len(),
    };
    if let Some(a) = all.get(next) {
        *reader = AskReader {
            inspector: None,
            ..AskReader::new(ask_ref(a.ask), 0)
        };
    }
    ReaderOutcome::Cmd(UiCommand::Repaint)
}

fn typing_key(
    reader: &mut AskReader,
    asks: &mut AsksUi,
    model: &Model,
    ws: &str,
    input: DraftKey,
    key: KeyEvent,
) -> ReaderOutcome {
    // K-8: write only while the question shown is the one the input is bound to.
    let shown = current(model, asks, reader).and_then(|(_, _, a)| {
        a.ask
            .questions
            .get(reader.question)
            .map(|q| input.names(a.ask, q) && input.workspace == ws)
    });
    if shown != Some(true) {
        reader.input = None;
        return ReaderOutcome::Notice("the question changed on screen: writing ended, draft kept");
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        // Ctrl-E: the free text in `$EDITOR` (VISUAL, EDITOR, vi); the draft stays here and
        // the edited text comes back to this draft only (`edited`).
        if key.code == KeyCode::Char('e') {
            let text = asks
                .draft(&input)
                .map(|d| d.text.clone())
                .unwrap_or_default();
            asks.editing = Some(input);
            return ReaderOutcome::Cmd(UiCommand::Edit(EditRequest::new(
                EditPurpose::AskAnswer,
                text,
                ".txt",
            )));
        }
        return ReaderOutcome::Cmd(UiCommand::None);
    }
    match key.code {
        KeyCode::Esc | KeyCode::Enter => {
            reader.input = None;
        }
        KeyCode::Backspace => {
            asks.draft_mut(input).text.pop();
        }
        KeyCode::Char(c) => asks.draft_mut(input).text.push(c),
        _ => return ReaderOutcome::Cmd(UiCommand::None),
    }
    ReaderOutcome::Cmd(UiCommand::Repaint)
}

/// The free text back from `$EDITOR`: it replaces the text of the draft the edit was asked
/// for (its Ask id and question id, K-8) only when edited — one line break the editor leaves
/// at the end of the file is not part of the answer. An unchanged, aborted or failed edit
/// leaves the draft as it was; the returned notice says so.
pub fn edited(asks: &mut AsksUi, result: &EditResult) -> Option<String> {
    let key = asks.editing.take();
    match (key, result.outcome.edited_text()) {
        (Some(key), Some(text)) if result.purpose == EditPurpose::AskAnswer => {
            let text = text.strip_suffix('\n').unwrap_or(text);
            asks.draft_mut(key).text = text.to_string();
            None
        }
        _ => Some(result.notice()),
    }
}

/// Pasted text while writing: appended to the bound draft.
pub fn paste(reader: &mut AskReader, asks: &mut AsksUi, text: &str) -> bool {
    match &reader.input {
        Some(key) if reader.inspector.is_none() => {
            asks.draft_mut(key.clone()).text.push_str(text);
            true
        }
        _ => false,
    }
}

fn inspector_key(reader: &mut AskReader, model: &Model, key: KeyEvent) -> ReaderOutcome {
    let Some(ins) = reader.inspector.as_mut() else {
        return ReaderOutcome::Cmd(UiCommand::None);
    };
    let repaint = ReaderOutcome::Cmd(UiCommand::Repaint);
    match key.code {
        KeyCode::Esc => {
            reader.inspector = None;
            repaint
        }
        KeyCode::Char(c @ '1'..='4') => {
            ins.tab = InspectorTab::ALL[c as usize - '1' as usize];
            repaint
        }
        KeyCode::Left => {
            ins.tab = InspectorTab::ALL[(ins.tab.index() + 3) % 4];
            repaint
        }
        KeyCode::Right => {
            ins.tab = InspectorTab::ALL[(ins.tab.index() + 1) % 4];
            repaint
        }
        KeyCode::Char('j') | KeyCode::Down => {
            ins.scroll_by(1);
            repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            ins.scroll_by(-1);
            repaint
        }
        KeyCode::PageDown => {
            ins.scroll_by(10);
            repaint
        }
        KeyCode::PageUp => {
            ins.scroll_by(-10);
            repaint
        }
        // K-14: the pinned turn is older than the records page — read a wider page (MASC has
        // no cursor, only `limit`: 50 → 200 → 500), shown on `1:record`.
        KeyCode::Char('H') => {
            ins.tab = InspectorTab::Record;
            let records = InspectorSlot::Records(ins.target.keeper.clone());
            match crate::view::screens::inspector::turn_reads::widen_key(model, &ins.target) {
                Ok(WidenKey::Wider) => {
                    ReaderOutcome::Cmd(UiCommand::send(InspectorRequest::Widen {
                        keeper: ins.target.keeper.clone(),
                    }))
                }
                Ok(WidenKey::Again) => {
                    ReaderOutcome::Cmd(UiCommand::send(InspectorRequest::Reread(records)))
                }
                Err(why) => ReaderOutcome::Notice(why),
            }
        }
        // K-15: the three readings are independent reads, each re-read on `r`.
        KeyCode::Char('r') => ReaderOutcome::Cmd(UiCommand::Many(vec![
            UiCommand::send(AsksCommand::Transcript(ins.target.clone())),
            UiCommand::send(InspectorRequest::Reread(InspectorSlot::Records(
                ins.target.keeper.clone(),
            ))),
            UiCommand::send(InspectorRequest::Reread(InspectorSlot::Input(
                ins.target.clone(),
            ))),
        ])),
        _ => ReaderOutcome::Cmd(UiCommand::None),
    }
}

/// What a reader key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderOutcome {
    Cmd(UiCommand),
    /// Nothing done; say why in the footer.
    Notice(&'static str),
    /// `Esc`: back to the Approvals view.
    Close,
}

/// The reader's keys, for `?`.
pub const READER: Table = Table {
    title: "Ask reader keys",
    bindings: &[
        bind(
            "Left / Right, j / k",
            &[LEFT, RIGHT, Press::ch('j'), Press::ch('k')],
            "previous / next question",
        ),
        bind(
            "[ / ]",
            &[Press::ch('['), Press::ch(']')],
            "previous / next Ask",
        ),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "scroll"),
        bind(
            "1-9, 0",
            &[
                Press::ch('1'),
                Press::ch('2'),
                Press::ch('3'),
                Press::ch('4'),
                Press::ch('5'),
                Press::ch('6'),
                Press::ch('7'),
                Press::ch('8'),
                Press::ch('9'),
                Press::ch('0'),
            ],
            "choose an option of the active question (0 is the tenth)",
        ),
        bind(
            "i",
            &[Press::ch('i')],
            "write free text where the question allows it (Ctrl-E: in $EDITOR); Enter or Esc ends writing",
        ),
        bind(
            "Enter Enter",
            &[ENTER],
            "send the answer (the first press arms and shows what is sent)",
        ),
        bind("o", &[Press::ch('o')], "expand the recorded origin"),
        bind(
            "O",
            &[Press::ch('O')],
            "open the inspector pinned to the origin's Turn_ref",
        ),
        bind(
            "f",
            &[Press::ch('f')],
            "re-read the follow-up of this session's answer",
        ),
        bind("r", &[], "re-read the Asks (the global r)"),
        bind("Esc", &[ESC], "back to Approvals"),
    ],
};
