//! Pastes (C-68, T.7), the slash menu and grammar (C-59…C-62, C-66), drafts per Keeper per
//! workspace, and footer notices (C-64).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::protocol::admission::WorkspaceId;
use masc_tui::view::composer::slash::ThinkingChoice;
use masc_tui::view::composer::{
    Composer, ComposerAction, Draft, DraftKey, DraftPersistError, DraftPersistence, DraftStore,
    KeyContext, PasteStamp, SlashCommand, SlashError,
};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn ctx_at(now: Instant) -> KeyContext {
    KeyContext {
        text_width: 60,
        menu_rows: 6,
        now,
    }
}

fn ctx() -> KeyContext {
    ctx_at(Instant::now())
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn type_str(c: &mut Composer, s: &str) {
    for ch in s.chars() {
        c.handle_key(key(KeyCode::Char(ch)), &ctx());
    }
}

fn stamp() -> PasteStamp {
    PasteStamp {
        minute: "20261019-0930".into(),
        nonce: "0badc0de".into(),
    }
}

// ----- paste -----

#[test]
fn c68_small_paste_is_normalised_inline() {
    let mut c = Composer::new();
    type_str(&mut c, ">");
    let r = c.paste("a\r\nb\rc\td\u{1b}[2Je\u{9b}", &stamp(), &ctx());
    assert!(!r.spilled);
    assert_eq!(r.dropped_bytes, 0);
    assert_eq!(c.text(), ">a\nb\nc d [2Je ");
    assert!(c.text().chars().all(|ch| ch == '\n' || !ch.is_control()));
}

#[test]
fn c68_paste_of_51_lines_becomes_a_placeholder_and_is_expanded_on_send() {
    let mut c = Composer::new();
    type_str(&mut c, "see: ");
    let body: String = (1..=51).map(|i| format!("line {i}\r\n")).collect();
    let r = c.paste(&body, &stamp(), &ctx());
    assert!(r.spilled);
    let normalised = body.replace("\r\n", "\n");
    // 51 line feeds → 52 lines as MASC counts them.
    let placeholder = format!(
        "[pasted 52 line(s), {} bytes → pasted-20261019-0930-0badc0de.txt]",
        normalised.len()
    );
    assert_eq!(c.text(), format!("see: {placeholder}"));
    type_str(&mut c, " thanks");
    let ComposerAction::Send(m) = c.handle_key(key(KeyCode::Enter), &ctx()) else {
        panic!("send")
    };
    assert_eq!(m.drafted_text(), format!("see: {placeholder} thanks"));
    assert_eq!(m.inline_text(), format!("see: {normalised} thanks"));
    assert!(
        m.pointed_text()
            .contains("pasted-20261019-0930-0badc0de.txt -- read that file")
    );
    assert_eq!(m.live_spills().count(), 1);
}

#[test]
fn c68_paste_over_8_kib_on_one_line_spills_too() {
    let mut c = Composer::new();
    let r = c.paste(&"x".repeat(8 * 1024 + 1), &stamp(), &ctx());
    assert!(r.spilled);
    assert!(c.text().starts_with("[pasted 1 line(s), 8193 bytes"));
    let mut d = Composer::new();
    assert!(!d.paste(&"x".repeat(8 * 1024), &stamp(), &ctx()).spilled);
    assert_eq!(d.text().len(), 8 * 1024);
}

#[test]
fn c68_more_than_one_mib_reports_the_dropped_bytes_on_the_footer() {
    let now = Instant::now();
    let mut c = Composer::new();
    let r = c.paste(&"y".repeat(1024 * 1024 + 4096), &stamp(), &ctx_at(now));
    assert_eq!(r.dropped_bytes, 4096);
    assert!(r.spilled);
    let ComposerAction::Send(m) = c.handle_key(key(KeyCode::Enter), &ctx_at(now)) else {
        panic!("send")
    };
    assert_eq!(m.inline_text().len(), 1024 * 1024);
    let notice = c.notice(now).map(|n| n.text.clone()).unwrap_or_default();
    assert!(notice.contains("4096"), "{notice}");
    assert!(
        c.notice(now + Duration::from_secs(13)).is_none(),
        "C-64: 12 s window"
    );
}

#[test]
fn c68_backspace_removes_a_placeholder_whole_and_drops_its_paste() {
    let mut c = Composer::new();
    type_str(&mut c, "a ");
    c.paste(&"z\n".repeat(60), &stamp(), &ctx());
    assert_eq!(c.spills().len(), 1);
    c.handle_key(key(KeyCode::Backspace), &ctx());
    assert_eq!(c.text(), "a ");
    assert!(c.spills().is_empty());
}

#[test]
fn c68_an_edited_placeholder_sends_no_paste() {
    let mut c = Composer::new();
    c.paste(&"z\n".repeat(60), &stamp(), &ctx());
    c.handle_key(key(KeyCode::Left), &ctx());
    c.handle_key(key(KeyCode::Backspace), &ctx());
    let ComposerAction::Send(m) = c.handle_key(key(KeyCode::Enter), &ctx()) else {
        panic!("send")
    };
    assert_eq!(m.live_spills().count(), 0);
    assert_eq!(m.inline_text(), m.drafted_text());
}

// ----- slash -----

#[test]
fn c66_unknown_word_is_reported_and_never_sent() {
    let now = Instant::now();
    let mut c = Composer::new();
    type_str(&mut c, "/frobnicate now");
    let a = c.handle_key(key(KeyCode::Enter), &ctx_at(now));
    assert_eq!(
        a,
        ComposerAction::SlashRejected(SlashError::Unknown("frobnicate".into()))
    );
    assert_eq!(c.text(), "/frobnicate now", "the draft stays for fixing");
    let notice = c.notice(now).map(|n| n.text.clone()).unwrap_or_default();
    assert!(notice.contains("/frobnicate"), "{notice}");
}

#[test]
fn c66_prefix_of_a_command_is_not_that_command() {
    let mut c = Composer::new();
    type_str(&mut c, "/hel");
    // Menu closed with Esc so Enter is the plain submit path.
    c.handle_key(key(KeyCode::Esc), &ctx());
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx()),
        ComposerAction::SlashRejected(SlashError::Unknown("hel".into()))
    );
}

#[test]
fn c59_menu_filters_as_you_type() {
    let mut c = Composer::new();
    assert!(c.menu_candidates().is_none());
    type_str(&mut c, "/");
    let all = c.menu_candidates().map(|v| v.len()).unwrap_or(0);
    // Issue 27 item 2: only the commands masc-tui runs.
    assert_eq!(all, masc_tui::view::composer::slash::COMMANDS.len());
    assert!(all >= 13, "{all}");
    type_str(&mut c, "t");
    let names: Vec<&str> = c
        .menu_candidates()
        .unwrap_or_default()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, vec!["thinking", "tools"]);
}

#[test]
fn c60_arrows_only_select_tab_inserts_enter_runs() {
    let mut c = Composer::new();
    type_str(&mut c, "/th");
    let before = c.text().to_string();
    // One candidate (thinking); Down wraps to itself and never edits the draft.
    c.handle_key(key(KeyCode::Down), &ctx());
    assert_eq!(c.text(), before);
    assert_eq!(
        c.handle_key(key(KeyCode::Tab), &ctx()),
        ComposerAction::Edited
    );
    assert_eq!(c.text(), "/thinking ");
    type_str(&mut c, "full");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx()),
        ComposerAction::Slash(SlashCommand::Thinking(Some(ThinkingChoice::Full)))
    );
    assert!(c.is_empty());
}

#[test]
fn c60_enter_puts_the_candidate_then_the_next_enter_runs() {
    let mut c = Composer::new();
    type_str(&mut c, "/he");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx()),
        ComposerAction::Edited
    );
    assert_eq!(c.text(), "/help");
    assert!(
        c.menu_candidates().is_none(),
        "closed until the draft changes"
    );
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx()),
        ComposerAction::Slash(SlashCommand::Help)
    );
}

#[test]
fn c60_selection_moves_through_candidates() {
    let mut c = Composer::new();
    type_str(&mut c, "/");
    assert_eq!(c.menu_selected(), 0);
    c.handle_key(key(KeyCode::Down), &ctx());
    c.handle_key(key(KeyCode::Down), &ctx());
    assert_eq!(c.menu_selected(), 2);
    c.handle_key(key(KeyCode::Up), &ctx());
    assert_eq!(c.menu_selected(), 1);
    c.handle_key(key(KeyCode::Tab), &ctx());
    assert_eq!(c.text(), "/copy");
}

#[test]
fn c61_esc_closes_the_menu_until_the_draft_changes() {
    let mut c = Composer::new();
    type_str(&mut c, "/st");
    assert!(c.menu_candidates().is_some());
    assert_eq!(
        c.handle_key(key(KeyCode::Esc), &ctx()),
        ComposerAction::Edited
    );
    assert!(c.menu_candidates().is_none());
    // A second Esc is the chat screen's (back / interrupt).
    assert_eq!(
        c.handle_key(key(KeyCode::Esc), &ctx()),
        ComposerAction::Unhandled
    );
    type_str(&mut c, "e");
    assert!(
        c.menu_candidates().is_some(),
        "the draft changed: the menu is back"
    );
}

#[test]
fn c62_a_menu_without_room_intercepts_nothing() {
    let mut c = Composer::new();
    type_str(&mut c, "/he");
    let no_room = KeyContext {
        menu_rows: 0,
        ..ctx()
    };
    assert!(!c.menu_visible(&no_room));
    // Up is not a menu key here: it recalls.
    assert!(matches!(
        c.handle_key(key(KeyCode::Up), &no_room),
        ComposerAction::Recall(_)
    ));
    // Enter is the plain submit: "/he" is not a command.
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &no_room),
        ComposerAction::SlashRejected(SlashError::Unknown("he".into()))
    );
}

// ----- drafts -----

fn ws(name: &str) -> WorkspaceId {
    WorkspaceId(name.into())
}

#[test]
fn drafts_are_kept_per_keeper_and_per_workspace() {
    let mut store = DraftStore::new();
    let mut c = Composer::new();
    type_str(&mut c, "alpha 초안");
    c.handle_key(key(KeyCode::Left), &ctx());
    let alpha_a = DraftKey::new(ws("/a"), "alpha");
    store.put(alpha_a.clone(), c.take_draft());
    // Same Keeper name in another workspace is another draft.
    type_str(&mut c, "other workspace");
    store.put(DraftKey::new(ws("/b"), "alpha"), c.take_draft());
    type_str(&mut c, "beta");
    store.put(DraftKey::new(ws("/a"), "beta"), c.take_draft());
    assert_eq!(store.len(), 3);
    let back = Composer::from_draft(store.get(&alpha_a).cloned().unwrap_or_default());
    assert_eq!(back.text(), "alpha 초안");
    assert_eq!(back.buffer().cursor(), "alpha 초".len(), "cursor kept");
    assert_eq!(
        store
            .get(&DraftKey::new(ws("/b"), "alpha"))
            .map(|d| d.text.as_str()),
        Some("other workspace")
    );
}

#[test]
fn a_draft_with_a_spill_survives_navigation_and_a_failed_send() {
    let mut c = Composer::new();
    c.paste(&"q\n".repeat(80), &stamp(), &ctx());
    let mut store = DraftStore::new();
    let key_a = DraftKey::new(ws("/a"), "alpha");
    store.put(key_a.clone(), c.take_draft());
    let mut back = Composer::from_draft(store.take(&key_a).unwrap_or_default());
    assert_eq!(back.spills().len(), 1);
    let ComposerAction::Send(m) = back.handle_key(key(KeyCode::Enter), &ctx()) else {
        panic!("send")
    };
    // The send failed before it left: the draft goes back whole.
    back.restore_draft(m.draft.clone());
    assert_eq!(back.text(), m.drafted_text());
    assert_eq!(back.spills().len(), 1);
}

/// (Keeper, stored text or removal) per mirror call.
type MirrorCalls = Arc<Mutex<Vec<(String, Option<String>)>>>;

#[derive(Clone, Default)]
struct Recording {
    calls: MirrorCalls,
    fail: bool,
}

impl DraftPersistence for Recording {
    fn store(&mut self, key: &DraftKey, draft: Option<&Draft>) -> Result<(), DraftPersistError> {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push((key.keeper.clone(), draft.map(|d| d.text.clone())));
        }
        if self.fail {
            Err(DraftPersistError("disk full".into()))
        } else {
            Ok(())
        }
    }
}

#[test]
fn persistence_hook_mirrors_changes_and_its_failure_loses_nothing() {
    let rec = Recording {
        fail: true,
        ..Recording::default()
    };
    let calls = rec.calls.clone();
    let mut store = DraftStore::with_persistence(Box::new(rec));
    let k = DraftKey::new(ws("/a"), "alpha");
    let d = Draft {
        text: "keep me".into(),
        cursor: 2,
        spills: vec![],
    };
    store.put(k.clone(), d.clone());
    store.put(k.clone(), d.clone()); // unchanged: not written again
    assert_eq!(
        store.get(&k),
        Some(&d),
        "a failed mirror keeps the draft in memory"
    );
    store.put(k.clone(), Draft::default());
    assert!(store.get(&k).is_none());
    let calls = calls.lock().map(|c| c.clone()).unwrap_or_default();
    assert_eq!(
        calls,
        vec![
            ("alpha".to_string(), Some("keep me".to_string())),
            ("alpha".to_string(), None)
        ]
    );
}
