//! What may enter the draft (T.7) and the large-paste rule (C-68).
//!
//! - A typed key is filtered one scalar at a time: printable means ≥ 0x20, not 0x7F and not a
//!   C1 code point (U+0080–U+009F). Anything else is dropped (a typed Tab is a key, not text).
//! - A paste: CR, LF and CRLF become LF; every other non-printable (Tab included) becomes one
//!   space; more than 1 MiB keeps the first 1 MiB and reports how many bytes were dropped.
//! - More than 50 lines (10 × `composer_max_rows`) or more than 8 KiB does not enter the draft
//!   as text: it becomes a [`PasteSpill`] whose placeholder line
//!   `[pasted N line(s), B bytes → pasted-YYYYMMDD-HHMM-xxxxxxxx.txt]` stands in the draft.
//!   The spill travels with the draft; on send the chat runtime substitutes the placeholder
//!   (see [`super::OutgoingMessage`]).

use std::borrow::Cow;

/// `composer_max_rows` (C-19).
pub const COMPOSER_MAX_ROWS: usize = 5;
/// A paste of more lines than this spills (C-68; 10 × `composer_max_rows`).
pub const INLINE_MAX_LINES: usize = 10 * COMPOSER_MAX_ROWS;
/// A paste of more bytes than this spills (C-68).
pub const INLINE_MAX_BYTES: usize = 8 * 1024;
/// A paste is cut to this many bytes (C-68).
pub const PASTE_MAX_BYTES: usize = 1024 * 1024;

/// T.7: a typed scalar is printable when ≥ 0x20, not DEL and not C1.
pub fn is_printable(c: char) -> bool {
    let u = c as u32;
    u >= 0x20 && u != 0x7F && !(0x80..=0x9F).contains(&u)
}

/// Typed keys: the scalar if printable, else nothing (T.7).
pub fn filter_typed(c: char) -> Option<char> {
    is_printable(c).then_some(c)
}

/// Line ends to LF and other non-printables to a space (pastes and foreign text).
pub fn clean_foreign_text(text: &str) -> Cow<'_, str> {
    if text.chars().all(|c| c == '\n' || is_printable(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\n' => out.push('\n'),
            c if is_printable(c) => out.push(c),
            _ => out.push(' '),
        }
    }
    Cow::Owned(out)
}

/// A paste after normalisation and the 1 MiB cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalisedPaste {
    pub text: String,
    /// Bytes dropped by the 1 MiB cut (C-68: reported, never silent).
    pub dropped_bytes: usize,
}

/// Normalises a bracketed paste (C-68, T.7) and cuts it to [`PASTE_MAX_BYTES`] on a character
/// boundary.
pub fn normalise_paste(raw: &str) -> NormalisedPaste {
    let mut text = clean_foreign_text(raw).into_owned();
    let mut dropped_bytes = 0;
    if text.len() > PASTE_MAX_BYTES {
        let mut cut = PASTE_MAX_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        dropped_bytes = text.len() - cut;
        text.truncate(cut);
    }
    NormalisedPaste {
        text,
        dropped_bytes,
    }
}

/// Lines of a paste as MASC counts them: one more than its line feeds.
pub fn count_lines(text: &str) -> usize {
    1 + text.bytes().filter(|&b| b == b'\n').count()
}

/// The time and nonce that name a spill file: `pasted-<stamp>-<nonce>.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasteStamp {
    /// Wall time as `YYYYMMDD-HHMM`.
    pub minute: String,
    /// Eight lowercase hex digits.
    pub nonce: String,
}

impl PasteStamp {
    /// Now (UTC: the crate reads no local offset) and a random nonce.
    pub fn now() -> Self {
        let now = time::OffsetDateTime::now_utc();
        let minute = format!(
            "{:04}{:02}{:02}-{:02}{:02}",
            now.year(),
            u8::from(now.month()),
            now.day(),
            now.hour(),
            now.minute()
        );
        let nonce = format!("{:08x}", rand::random::<u32>());
        Self { minute, nonce }
    }
}

/// A large paste held beside the draft (C-68). Its placeholder line is what the draft shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasteSpill {
    /// The pasted text after normalisation and the 1 MiB cut.
    pub text: String,
    pub lines: usize,
    pub bytes: usize,
    /// `pasted-YYYYMMDD-HHMM-xxxxxxxx.txt`.
    pub file_name: String,
}

impl PasteSpill {
    /// `Some` when the paste is past either inline threshold (C-68).
    pub fn of_paste(text: &str, stamp: &PasteStamp) -> Option<Self> {
        let bytes = text.len();
        let lines = count_lines(text);
        if lines <= INLINE_MAX_LINES && bytes <= INLINE_MAX_BYTES {
            return None;
        }
        Some(Self {
            text: text.to_string(),
            lines,
            bytes,
            file_name: format!("pasted-{}-{}.txt", stamp.minute, stamp.nonce),
        })
    }

    /// Sizes an operator can act on: lines to recognise the paste, bytes because a line count
    /// says nothing about one long line.
    pub fn described(&self) -> String {
        format!("{} line(s), {} bytes", self.lines, self.bytes)
    }

    /// The line that stands in the draft (C-68).
    pub fn placeholder(&self) -> String {
        format!("[pasted {} → {}]", self.described(), self.file_name)
    }

    /// The line that tells the Keeper where the file is, for a runtime that delivered the
    /// file into the Keeper's working directory (MASC's staged delivery).
    pub fn message_line(&self) -> String {
        format!(
            "[The operator pasted {}. It is in your working directory as {} -- read that file \
             for the text.]",
            self.described(),
            self.file_name
        )
    }

    /// `text` with this spill's placeholder replaced by `replacement`; `None` when the
    /// placeholder is no longer in the text (the operator deleted or edited it).
    pub fn substituted(&self, text: &str, replacement: &str) -> Option<String> {
        let placeholder = self.placeholder();
        let at = text.find(&placeholder)?;
        let mut out = String::with_capacity(text.len() - placeholder.len() + replacement.len());
        out.push_str(&text[..at]);
        out.push_str(replacement);
        out.push_str(&text[at + placeholder.len()..]);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> PasteStamp {
        PasteStamp {
            minute: "20261019-0930".into(),
            nonce: "a1b2c3d4".into(),
        }
    }

    #[test]
    fn t7_typed_filter_is_per_scalar() {
        assert_eq!(filter_typed('a'), Some('a'));
        assert_eq!(filter_typed('한'), Some('한'));
        assert_eq!(filter_typed(' '), Some(' '));
        for c in [
            '\t', '\n', '\r', '\x1b', '\x7f', '\u{80}', '\u{9b}', '\u{9f}', '\0',
        ] {
            assert_eq!(filter_typed(c), None, "{c:?}");
        }
        assert_eq!(filter_typed('\u{a0}'), Some('\u{a0}'));
    }

    #[test]
    fn c68_line_ends_become_lf_and_controls_spaces() {
        let p = normalise_paste("a\r\nb\rc\nd\te\x1b[0m\u{85}f\x7f");
        assert_eq!(p.text, "a\nb\nc\nd e [0m f ");
        assert_eq!(p.dropped_bytes, 0);
    }

    #[test]
    fn c68_more_than_one_mib_keeps_the_first_mib_on_a_char_boundary() {
        // 3-byte syllables: 1 MiB is not a multiple of 3, so the cut falls inside one.
        let raw = "한".repeat(PASTE_MAX_BYTES / 3 + 10);
        let p = normalise_paste(&raw);
        assert!(p.text.len() <= PASTE_MAX_BYTES);
        assert!(p.text.len() > PASTE_MAX_BYTES - 3);
        assert_eq!(p.text.len() + p.dropped_bytes, raw.len());
    }

    #[test]
    fn c68_thresholds_are_exclusive() {
        let fifty = vec!["x"; INLINE_MAX_LINES].join("\n");
        assert_eq!(count_lines(&fifty), 50);
        assert!(PasteSpill::of_paste(&fifty, &stamp()).is_none());
        let fifty_one = vec!["x"; INLINE_MAX_LINES + 1].join("\n");
        assert!(PasteSpill::of_paste(&fifty_one, &stamp()).is_some());
        assert!(PasteSpill::of_paste(&"y".repeat(INLINE_MAX_BYTES), &stamp()).is_none());
        let big = PasteSpill::of_paste(&"y".repeat(INLINE_MAX_BYTES + 1), &stamp());
        assert!(big.is_some());
    }

    #[test]
    fn c68_placeholder_names_lines_bytes_and_file() {
        let spill = PasteSpill::of_paste(&"z".repeat(9000), &stamp()).unwrap();
        assert_eq!(
            spill.placeholder(),
            "[pasted 1 line(s), 9000 bytes → pasted-20261019-0930-a1b2c3d4.txt]"
        );
        let drafted = format!("see {} please", spill.placeholder());
        assert_eq!(
            spill.substituted(&drafted, "BODY").as_deref(),
            Some("see BODY please")
        );
        assert_eq!(spill.substituted("placeholder deleted", "BODY"), None);
    }

    #[test]
    fn stamp_shape() {
        let s = PasteStamp::now();
        assert_eq!(s.minute.len(), 13);
        assert_eq!(s.minute.as_bytes()[8], b'-');
        assert_eq!(s.nonce.len(), 8);
        assert!(s.nonce.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
