//! Random edit sequences never panic, the cursor stays on a grapheme boundary, no control
//! character (other than the LF of a newline) enters the buffer (T.7), and the painted cursor
//! stays inside the composer (C-71).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::view::composer::render;
use masc_tui::view::composer::{Composer, ComposerAction, ComposerView, PasteStamp};
use masc_tui::view::theme::Theme;
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::Instant;
use unicode_segmentation::GraphemeCursor;

#[derive(Debug, Clone)]
enum Op {
    Key(KeyCode, KeyModifiers),
    Paste(String),
    Resize(u16),
}

fn piece() -> impl Strategy<Value = char> {
    prop_oneof![
        proptest::char::range('a', 'e'),
        Just(' '),
        Just('한'),
        Just('\u{1100}'), // conjoining L
        Just('\u{1161}'), // conjoining V
        Just('\u{301}'),  // combining acute
        Just('\u{200D}'), // ZWJ
        Just('👨'),
        Just('🏽'),
        Just('🇰'),
        Just('🇷'),
        Just('\u{FE0F}'),
        Just('\t'),
        Just('\r'),
        Just('\n'),
        Just('\u{1b}'),
        Just('\u{9b}'),
        Just('\u{7f}'),
        Just('/'),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let code = prop_oneof![
        piece().prop_map(KeyCode::Char),
        Just(KeyCode::Char('j')),
        Just(KeyCode::Char('w')),
        Just(KeyCode::Char('k')),
        Just(KeyCode::Char('u')),
        Just(KeyCode::Char('a')),
        Just(KeyCode::Enter),
        Just(KeyCode::Backspace),
        Just(KeyCode::Delete),
        Just(KeyCode::Left),
        Just(KeyCode::Right),
        Just(KeyCode::Up),
        Just(KeyCode::Down),
        Just(KeyCode::Home),
        Just(KeyCode::End),
        Just(KeyCode::Tab),
        Just(KeyCode::Esc),
    ];
    let mods = prop_oneof![
        4 => Just(KeyModifiers::NONE),
        2 => Just(KeyModifiers::CONTROL),
        1 => Just(KeyModifiers::ALT),
        1 => Just(KeyModifiers::SHIFT),
    ];
    prop_oneof![
        8 => (code, mods).prop_map(|(c, m)| Op::Key(c, m)),
        1 => proptest::collection::vec(piece(), 0..40)
            .prop_map(|v| Op::Paste(v.into_iter().collect())),
        1 => (3u16..50).prop_map(Op::Resize),
    ]
}

fn on_boundary(text: &str, at: usize) -> bool {
    text.is_char_boundary(at)
        && GraphemeCursor::new(at, text.len(), true)
            .is_boundary(text, 0)
            .unwrap_or(false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_keep_the_invariants(ops in proptest::collection::vec(op(), 1..80)) {
        let now = Instant::now();
        let mut c = Composer::new();
        let mut area = Rect::new(0, 0, 20, 14);
        let stamp = PasteStamp { minute: "20261019-0930".into(), nonce: "00000000".into() };
        let v = ComposerView {
            theme: Theme::default(),
            pending: &[],
            placeholder: render::DEFAULT_PLACEHOLDER,
            turn_in_flight: false,
            now,
        };
        for op in ops {
            let layout = render::plan(area, &c, &v, 3);
            let ctx = layout.key_context(now);
            match op {
                Op::Key(code, mods) => {
                    let before = c.text().to_string();
                    let action = c.handle_key(KeyEvent::new(code, mods), &ctx);
                    if let ComposerAction::Send(m) = &action {
                        prop_assert!(!m.drafted_text().trim().is_empty());
                        prop_assert!(!m.drafted_text().starts_with('/'));
                    }
                    if matches!(action, ComposerAction::Unchanged | ComposerAction::Unhandled
                        | ComposerAction::Recall(_) | ComposerAction::SlashRejected(_)) {
                        prop_assert_eq!(c.text(), before.as_str());
                    }
                }
                Op::Paste(s) => {
                    c.paste(&s, &stamp, &ctx);
                }
                Op::Resize(w) => area.width = w,
            }
            let text = c.text();
            prop_assert!(on_boundary(text, c.buffer().cursor()), "cursor {} in {:?}", c.buffer().cursor(), text);
            prop_assert!(text.chars().all(|ch| ch == '\n' || !ch.is_control()), "{:?}", text);
            let c1 = text.chars().any(|ch| ('\u{80}'..='\u{9f}').contains(&ch));
            prop_assert!(!c1, "C1 in {:?}", text);
            let layout = render::plan(area, &c, &v, 3);
            let mut buf = Buffer::empty(area);
            if let Some((x, y)) = render::render(&c, &v, &layout, &mut buf) {
                prop_assert!(x < area.width && y < area.height);
                prop_assert!(y > layout.input.y && y < layout.input.y + layout.input.height);
            }
        }
    }
}
