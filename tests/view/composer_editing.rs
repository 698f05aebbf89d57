//! Composer editing through keys (C-65, C-70, C-71, T.7): grapheme-aware with Korean, emoji
//! ZWJ sequences and combining marks; width-correct cursor cells; control characters never
//! enter the buffer.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::view::composer::{
    Composer, ComposerAction, KeyContext, PendingEvent, PendingState, PendingStep, RecallDirection,
    VisualLayout, pending,
};
use std::time::Instant;

fn ctx(width: u16) -> KeyContext {
    KeyContext {
        text_width: width,
        menu_rows: 6,
        now: Instant::now(),
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_str(c: &mut Composer, s: &str, width: u16) {
    for ch in s.chars() {
        c.handle_key(key(KeyCode::Char(ch)), &ctx(width));
    }
}

fn cursor_cell(c: &Composer, width: u16) -> (usize, usize) {
    let l = VisualLayout::new(c.text(), usize::from(width));
    let cell = l.cursor_cell(c.text(), c.buffer().cursor());
    (cell.row, cell.x)
}

#[test]
fn c70_cursor_moves_by_display_cells_over_korean_emoji_and_combining() {
    let mut c = Composer::new();
    // Precomposed Korean as the terminal's IME delivers it, an emoji, e + U+0301.
    type_str(&mut c, "A한🙂e\u{301}", 80);
    assert_eq!(cursor_cell(&c, 80), (0, 1 + 2 + 2 + 1));
    c.handle_key(key(KeyCode::Left), &ctx(80));
    assert_eq!(
        cursor_cell(&c, 80),
        (0, 5),
        "one Left skips e + combining mark"
    );
    c.handle_key(key(KeyCode::Left), &ctx(80));
    assert_eq!(
        cursor_cell(&c, 80),
        (0, 3),
        "one Left skips the 2-cell emoji"
    );
    c.handle_key(key(KeyCode::Left), &ctx(80));
    assert_eq!(
        cursor_cell(&c, 80),
        (0, 1),
        "one Left skips the 2-cell syllable"
    );
}

#[test]
fn c65_backspace_removes_a_whole_zwj_family_and_a_flag() {
    let mut c = Composer::new();
    type_str(&mut c, "가👩\u{200D}👩\u{200D}👧🇰🇷", 80);
    assert_eq!(
        c.handle_key(key(KeyCode::Backspace), &ctx(80)),
        ComposerAction::Edited
    );
    assert_eq!(c.text(), "가👩\u{200D}👩\u{200D}👧");
    c.handle_key(key(KeyCode::Backspace), &ctx(80));
    assert_eq!(c.text(), "가");
    c.handle_key(key(KeyCode::Backspace), &ctx(80));
    assert_eq!(c.text(), "");
    assert_eq!(
        c.handle_key(key(KeyCode::Backspace), &ctx(80)),
        ComposerAction::Unchanged
    );
}

#[test]
fn conjoining_jamo_from_the_terminal_is_one_grapheme() {
    // Some IMEs deliver decomposed jamo (L V T); they form one cluster.
    let mut c = Composer::new();
    type_str(&mut c, "\u{1112}\u{1161}\u{11AB}x", 80);
    c.handle_key(key(KeyCode::Left), &ctx(80));
    c.handle_key(key(KeyCode::Left), &ctx(80));
    assert_eq!(c.buffer().cursor(), 0);
    c.handle_key(key(KeyCode::Delete), &ctx(80));
    assert_eq!(c.text(), "x");
}

#[test]
fn t7_typed_control_characters_never_enter_the_buffer() {
    let mut c = Composer::new();
    for ch in [
        '\u{1b}', '\u{7f}', '\u{9b}', '\u{85}', '\t', '\r', '\n', '\0', '\u{7}',
    ] {
        let a = c.handle_key(key(KeyCode::Char(ch)), &ctx(80));
        assert_eq!(a, ComposerAction::Unchanged, "{ch:?}");
    }
    assert!(c.is_empty());
    type_str(&mut c, "ok", 80);
    assert_eq!(c.text(), "ok");
}

#[test]
fn c65_enter_submits_and_ctrl_j_inserts_a_newline() {
    let mut c = Composer::new();
    type_str(&mut c, "첫 줄", 80);
    assert_eq!(c.handle_key(ctrl('j'), &ctx(80)), ComposerAction::Edited);
    type_str(&mut c, "둘째 줄", 80);
    match c.handle_key(key(KeyCode::Enter), &ctx(80)) {
        ComposerAction::Send(m) => {
            assert_eq!(m.drafted_text(), "첫 줄\n둘째 줄");
            assert_eq!(m.inline_text(), "첫 줄\n둘째 줄");
        }
        other => panic!("expected Send, got {other:?}"),
    }
    assert!(c.is_empty(), "the composer is empty after a send");
}

#[test]
fn empty_or_whitespace_only_never_submits() {
    let mut c = Composer::new();
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx(80)),
        ComposerAction::Unchanged
    );
    type_str(&mut c, "   ", 80);
    c.handle_key(ctrl('j'), &ctx(80));
    type_str(&mut c, " \u{3000}", 80);
    assert_eq!(
        c.handle_key(key(KeyCode::Enter), &ctx(80)),
        ComposerAction::Unchanged
    );
    assert!(!c.is_empty(), "the whitespace draft stays");
}

#[test]
fn c65_kill_keys() {
    let mut c = Composer::new();
    type_str(&mut c, "hello big world", 80);
    c.handle_key(ctrl('w'), &ctx(80));
    assert_eq!(c.text(), "hello big ");
    c.handle_key(
        KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT),
        &ctx(80),
    );
    assert_eq!(c.text(), "hello ", "ESC DEL deletes the last word");
    c.handle_key(ctrl('a'), &ctx(80));
    c.handle_key(key(KeyCode::Right), &ctx(80));
    c.handle_key(ctrl('k'), &ctx(80));
    assert_eq!(c.text(), "h");
    c.handle_key(ctrl('u'), &ctx(80));
    assert!(c.is_empty(), "Ctrl-U clears (C-65)");
}

#[test]
fn c65_keys_that_belong_to_the_chat_screen_are_unhandled() {
    let mut c = Composer::new();
    // Left on an empty composer at cursor 0 opens the Keeper list.
    assert_eq!(
        c.handle_key(key(KeyCode::Left), &ctx(80)),
        ComposerAction::Unhandled
    );
    assert_eq!(c.handle_key(ctrl('e'), &ctx(80)), ComposerAction::Unhandled);
    assert_eq!(
        c.handle_key(key(KeyCode::PageUp), &ctx(80)),
        ComposerAction::Unhandled
    );
    assert_eq!(
        c.handle_key(key(KeyCode::Esc), &ctx(80)),
        ComposerAction::Unhandled
    );
    assert_eq!(
        c.handle_key(key(KeyCode::Tab), &ctx(80)),
        ComposerAction::Unhandled
    );
    type_str(&mut c, "x", 80);
    assert_eq!(
        c.handle_key(key(KeyCode::Left), &ctx(80)),
        ComposerAction::Edited
    );
}

#[test]
fn word_motion_over_korean() {
    let mut c = Composer::new();
    type_str(&mut c, "안녕하세요 키퍼 님", 80);
    let left = KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL);
    c.handle_key(left, &ctx(80));
    c.handle_key(left, &ctx(80));
    assert_eq!(&c.text()[c.buffer().cursor()..], "키퍼 님");
    c.handle_key(
        KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL),
        &ctx(80),
    );
    assert_eq!(&c.text()[c.buffer().cursor()..], " 님");
}

#[test]
fn up_down_move_across_visual_rows_then_recall() {
    // Width 6: "가나다라마바" = 12 cells → rows "가나다" | "라마바".
    let mut c = Composer::new();
    type_str(&mut c, "가나다라마바", 6);
    // The cursor after a full row gets a cell of its own on the next row.
    assert_eq!(cursor_cell(&c, 6), (2, 0));
    c.handle_key(key(KeyCode::Left), &ctx(6));
    assert_eq!(cursor_cell(&c, 6), (1, 4));
    assert_eq!(
        c.handle_key(key(KeyCode::Up), &ctx(6)),
        ComposerAction::Edited
    );
    assert_eq!(cursor_cell(&c, 6), (0, 4));
    assert_eq!(&c.text()[c.buffer().cursor()..], "다라마바");
    assert_eq!(
        c.handle_key(key(KeyCode::Up), &ctx(6)),
        ComposerAction::Recall(RecallDirection::Older)
    );
    c.handle_key(key(KeyCode::Down), &ctx(6));
    assert_eq!(cursor_cell(&c, 6), (1, 4));
    assert_eq!(
        c.handle_key(key(KeyCode::Down), &ctx(6)),
        ComposerAction::Recall(RecallDirection::Newer)
    );
}

#[test]
fn up_keeps_the_goal_column_over_a_short_row_and_never_splits_a_wide_grapheme() {
    let mut c = Composer::new();
    type_str(&mut c, "abcdef", 40);
    c.handle_key(ctrl('j'), &ctx(40));
    type_str(&mut c, "한", 40);
    c.handle_key(ctrl('j'), &ctx(40));
    type_str(&mut c, "xyzw", 40);
    // Column 4 on the last row.
    c.handle_key(key(KeyCode::Up), &ctx(40));
    assert_eq!(
        cursor_cell(&c, 40),
        (1, 2),
        "clamped to the end of the short row"
    );
    c.handle_key(key(KeyCode::Up), &ctx(40));
    assert_eq!(cursor_cell(&c, 40), (0, 4), "goal column kept");
    // Column 1 above a row whose first grapheme is 2 cells wide lands before it.
    let mut d = Composer::new();
    type_str(&mut d, "한글", 40);
    d.handle_key(ctrl('j'), &ctx(40));
    type_str(&mut d, "a", 40);
    d.handle_key(key(KeyCode::Up), &ctx(40));
    assert_eq!(cursor_cell(&d, 40), (0, 0));
}

#[test]
fn c34_receipt_is_not_processing() {
    use pending::advance;
    let s = PendingState::WaitingToSend;
    let PendingStep::Pending(s) = advance(s, PendingEvent::SendStarted) else {
        panic!("still pending")
    };
    assert_eq!(s.label(), "전송 중");
    let step = advance(s, PendingEvent::Accepted);
    assert_eq!(step, PendingStep::Pending(PendingState::WaitingToProcess));
    assert_eq!(PendingState::WaitingToProcess.label(), "처리 대기");
    assert_eq!(
        advance(PendingState::Sending, PendingEvent::OutcomeUnknown),
        PendingStep::Pending(PendingState::ConfirmingDelivery)
    );
    assert_eq!(PendingState::ConfirmingDelivery.label(), "전송 확인 중");
    assert_eq!(
        advance(
            PendingState::WaitingToProcess,
            PendingEvent::ProcessingConfirmed
        ),
        PendingStep::InConversation
    );
    assert_eq!(
        advance(
            PendingState::Sending,
            PendingEvent::Rejected {
                reason: "403".into()
            }
        ),
        PendingStep::Rejected {
            reason: "403".into()
        }
    );
}
