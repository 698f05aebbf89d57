//! Key bindings as values: one [`Table`] per surface state and per layer. A binding names its
//! key(s) as the operator reads them, what it does, and the presses that reach it. The `?` help
//! and the footer are made from these tables (the footer shows the bindings with a short word,
//! the most useful first, as many as fit, then `? more`); a test offers every listed press to
//! the dispatch (each does something) and every other press of a probe set (none does).

use crate::view::text::{break_word, display_width};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key press as the dispatch receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Press {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Press {
    pub const fn key(code: KeyCode) -> Self {
        Self {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    pub const fn ch(c: char) -> Self {
        Self::key(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Self {
        Self {
            code: KeyCode::Char(c),
            mods: KeyModifiers::CONTROL,
        }
    }

    /// The press as a key event (Shift-Tab carries its Shift, as terminals send it).
    pub fn event(self) -> KeyEvent {
        let mods = match self.code {
            KeyCode::BackTab => self.mods | KeyModifiers::SHIFT,
            _ => self.mods,
        };
        KeyEvent::new(self.code, mods)
    }

    /// Whether `key` is this press (Shift on a character is the character's own).
    pub fn matches(self, key: &KeyEvent) -> bool {
        let mods = key.modifiers - KeyModifiers::SHIFT;
        key.code == self.code && mods == self.mods - KeyModifiers::SHIFT
    }
}

/// Key codes the bindings use, for the tables below.
pub const ENTER: Press = Press::key(KeyCode::Enter);
pub const ESC: Press = Press::key(KeyCode::Esc);
pub const UP: Press = Press::key(KeyCode::Up);
pub const DOWN: Press = Press::key(KeyCode::Down);
pub const LEFT: Press = Press::key(KeyCode::Left);
pub const RIGHT: Press = Press::key(KeyCode::Right);
pub const HOME: Press = Press::key(KeyCode::Home);
pub const END: Press = Press::key(KeyCode::End);
pub const PAGE_UP: Press = Press::key(KeyCode::PageUp);
pub const PAGE_DOWN: Press = Press::key(KeyCode::PageDown);
pub const TAB: Press = Press::key(KeyCode::Tab);
pub const BACK_TAB: Press = Press::key(KeyCode::BackTab);

/// One binding: the key(s) as shown, what it does, the presses that reach it, and the short
/// word the footer shows (`""`: help only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub keys: &'static str,
    pub does: &'static str,
    pub presses: &'static [Press],
    pub short: &'static str,
}

/// A binding shown in the help only.
pub const fn bind(keys: &'static str, presses: &'static [Press], does: &'static str) -> Binding {
    Binding {
        keys,
        does,
        presses,
        short: "",
    }
}

impl Binding {
    /// The same binding, also on the footer as `keys short`.
    pub const fn footer(self, short: &'static str) -> Self {
        Self { short, ..self }
    }

    /// Whether `key` reaches this binding.
    pub fn matches(&self, key: &KeyEvent) -> bool {
        self.presses.iter().any(|p| p.matches(key))
    }
}

/// The bindings of one surface state or one layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub title: &'static str,
    pub bindings: &'static [Binding],
}

impl Table {
    /// Whether a binding of the table takes `key`.
    pub fn binds(&self, key: &KeyEvent) -> bool {
        self.bindings.iter().any(|b| b.matches(key))
    }

    pub fn rows(&self) -> Vec<(String, String)> {
        self.bindings
            .iter()
            .map(|b| (b.keys.to_string(), b.does.to_string()))
            .collect()
    }
}

/// The keys that reach the tab ring from every surface and from every layer that passes them.
pub const RING: Table = Table {
    title: "Global keys",
    bindings: &[
        bind(
            "Tab / Shift-Tab",
            &[TAB, BACK_TAB],
            "next / previous surface",
        )
        .footer("surfaces"),
        bind("r", &[Press::ch('r')], "refresh this surface's data").footer("refresh"),
        bind(
            "L",
            &[Press::ch('L')],
            "saves journal: every save, its receipt and settle state, undo",
        ),
        bind("A", &[Press::ch('A')], "Activity: the live observer feed"),
        bind(
            "W",
            &[Press::ch('W')],
            "workspaces: every configured one, its connection and what waits there",
        ),
        bind(
            ":",
            &[Press::ch(':')],
            "command palette: go to a surface, pane or Keeper, or any key here by what it does",
        ),
        bind("?", &[Press::ch('?')], "this help (Esc or ? closes)"),
        bind(
            "q q",
            &[Press::ch('q')],
            "quit (any other key after q cancels)",
        ),
    ],
};

/// The keys that work everywhere, the chat's composer included.
pub const ALWAYS: Table = Table {
    title: "Everywhere",
    bindings: &[
        bind("Ctrl-C", &[Press::ctrl('c')], "quit"),
        bind("Ctrl-Z", &[Press::ctrl('z')], "suspend (fg resumes)"),
    ],
};

/// A section of the help: a title and its rows (keys, what they do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: String,
    pub rows: Vec<(String, String)>,
}

impl From<&Table> for Section {
    fn from(table: &Table) -> Self {
        Self {
            title: table.title.to_string(),
            rows: table.rows(),
        }
    }
}

/// The footer's end on every surface: how to quit, and where the rest is.
pub const FOOTER_END: &str = "q q quit · ? more";

/// The footer's form of a binding's keys: the first group before a comma, without the spaces
/// around `/` (`j / k, Down / Up` → `j/k`); of two named keys only the first (`Enter / Right`
/// → `Enter`).
pub fn footer_keys(keys: &str) -> String {
    let first = keys.split(", ").next().unwrap_or(keys);
    let parts: Vec<&str> = first.split(" / ").collect();
    if parts.len() == 2 && parts.iter().all(|p| p.chars().count() > 1) {
        return parts[0].to_string();
    }
    parts.join("/")
}

/// The footer's key hints of `tables`, in table order, as many whole entries as fit in `width`
/// cells, then [`FOOTER_END`] (the help lists what the footer leaves out).
pub fn footer_hints(tables: &[&Table], width: usize) -> String {
    let end = if display_width(FOOTER_END) <= width {
        FOOTER_END
    } else {
        "? more"
    };
    let mut out = String::new();
    let entries = tables
        .iter()
        .flat_map(|t| t.bindings.iter())
        .filter(|b| !b.short.is_empty())
        .map(|b| format!("{} {}", footer_keys(b.keys), b.short));
    for entry in entries {
        let next = display_width(&out) + display_width(&entry) + 3;
        if next + display_width(end) > width {
            continue;
        }
        out.push_str(&entry);
        out.push_str(" · ");
    }
    out.push_str(end);
    out
}

/// Wraps `text` to `width` cells at spaces: a word is cut only when it alone is wider than
/// `width`.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0usize;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let w = display_width(word);
        if used > 0 && used + 1 + w > width {
            out.push(std::mem::take(&mut line));
            used = 0;
        }
        if w > width {
            break_word(word, width, &mut line, &mut used, &mut out);
            continue;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += w;
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_whole_within_the_width() {
        let text = "re-read metadata, live context, metrics of the selected Keeper";
        for width in [10usize, 17, 30, 80] {
            let lines = wrap_words(text, width);
            for line in &lines {
                assert!(display_width(line) <= width, "{line:?} > {width}");
            }
            assert_eq!(lines.join(" "), text, "no word lost or cut at {width}");
        }
        assert_eq!(wrap_words("한국어 단어", 7), vec!["한국어", "단어"]);
    }

    #[test]
    fn footer_fits_whole_entries_then_more() {
        let wide = footer_hints(&[&RING], 200);
        assert_eq!(wide, "Tab surfaces · r refresh · q q quit · ? more");
        let narrow = footer_hints(&[&RING], 30);
        assert!(display_width(&narrow) <= 30, "{narrow}");
        assert!(narrow.ends_with(FOOTER_END), "{narrow}");
        assert!(!narrow.contains("Tab surfaces"), "{narrow}");
        assert_eq!(footer_hints(&[&RING], 10), "? more");
        assert_eq!(footer_keys("j / k, Down / Up"), "j/k");
        assert_eq!(footer_keys("Enter / Right"), "Enter");
        assert_eq!(footer_keys("c / m"), "c/m");
        assert_eq!(footer_keys("Enter / x / a"), "Enter/x/a");
    }

    #[test]
    fn a_press_matches_its_key_with_or_without_shift() {
        let upper = KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT);
        assert!(Press::ch('L').matches(&upper));
        assert!(!Press::ch('L').matches(&KeyEvent::new(KeyCode::Char('L'), KeyModifiers::CONTROL)));
        assert!(BACK_TAB.matches(&BACK_TAB.event()));
        assert!(RING.binds(&Press::ch('?').event()));
    }
}
