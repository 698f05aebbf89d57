//! The one sanitiser (T.7 plus bidi controls) for everything that reaches a terminal: the TUI's
//! cells (`view::text` re-exports it) and everything the CLI prints.
//!
//! - Text: C0 bytes (except the line feed of multi-line output), DEL and C1 code points, and
//!   the bidi controls become inert literal escapes (`\x1B`, `\u009B`, `\u202E`); invalid
//!   UTF-8 bytes become `\xNN`. See [`sanitize`], [`sanitize_bytes`], [`sanitize_block`].
//! - JSON: [`to_json_string`] / [`to_json_string_pretty`] write standard JSON whose string
//!   contents escape every C0, DEL, C1 and bidi control as `\uXXXX`, so a JSON consumer gets
//!   the exact value back and a terminal showing the raw output sees no control at all.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Bidirectional formatting controls that could reorder the rest of a row (Trojan-Source style):
/// embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069, and the marks U+200E, U+200F,
/// U+061C. They are shown as inert `\uXXXX` text.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Whether `c` is escaped by the sanitiser: C0, DEL, C1 or a bidi control.
pub fn needs_escape(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || u == 0x7F || (0x80..=0x9F).contains(&u) || is_bidi_control(c)
}

fn push_escaped(out: &mut String, c: char) {
    let u = c as u32;
    // Writing to a String cannot fail; the result is ignored deliberately.
    let _ = if u < 0x20 || u == 0x7F {
        write!(out, "\\x{u:02X}")
    } else {
        write!(out, "\\u{u:04X}")
    };
}

/// T.7 for text that is already UTF-8: C0 and DEL become `\xNN`, C1 code points become
/// `\u00NN`, bidi controls become `\uXXXX`; everything else passes unchanged.
/// Borrowed when nothing needs escaping (the common case costs no allocation).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    // Nothing to escape: a byte scan, no char decoding (the common case, kept cheap).
    if nothing_to_escape(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// No character of `text` [`needs_escape`], decided by a byte scan (no char decoding). In UTF-8
/// such a character is a byte below 0x20 or 0x7F (C0, DEL), or a sequence led by 0xC2 (C1: `C2
/// 80`–`C2 9F`), 0xD8 (U+061C: `D8 9C`) or 0xE2 (U+200E/F: `E2 80 8E`/`8F`; U+202A–E: `E2 80
/// AA`–`AE`; U+2066–9: `E2 81 A6`–`A9`). Those lead bytes never occur inside another character's
/// sequence, so every other byte can be skipped. Tested against `needs_escape` for every `char`.
fn nothing_to_escape(text: &str) -> bool {
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        let clean = match c {
            0x20..=0x7E => true,
            0x00..=0x1F | 0x7F => false,
            0xC2 => !matches!(b.get(i + 1), Some(0x80..=0x9F)),
            0xD8 => b.get(i + 1) != Some(&0x9C),
            0xE2 => !matches!(
                (b.get(i + 1), b.get(i + 2)),
                (Some(0x80), Some(0x8E | 0x8F | 0xAA..=0xAE)) | (Some(0x81), Some(0xA6..=0xA9))
            ),
            _ => true,
        };
        if !clean {
            return false;
        }
    }
    true
}

/// T.7 for raw bytes: like [`sanitize`], and every byte that is not part of valid UTF-8
/// (including a lone 0x80–0x9F byte) becomes `\xNN`.
pub fn sanitize_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&sanitize(chunk.valid()));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// Sanitises a multi-line body per line so authored line breaks survive (C-72, T.7).
pub fn sanitize_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| sanitize_line(line).into_owned())
        .collect()
}

/// One line of a body split on `\n`, as [`sanitize_lines`] sanitises it (the CR before the
/// line feed dropped).
pub fn sanitize_line(line: &str) -> Cow<'_, str> {
    sanitize(line.strip_suffix('\r').unwrap_or(line))
}

/// Multi-line output for a terminal (the CLI's text reports): every line sanitised, the line
/// feeds between them kept (a CR before a line feed is dropped, any other CR is escaped).
pub fn sanitize_block(text: &str) -> String {
    sanitize_lines(text).join("\n")
}

/// [`sanitize_block`] for raw bytes: lines split on the line feed, each line through
/// [`sanitize_bytes`] (a CR before the line feed is dropped).
pub fn sanitize_bytes_block(bytes: &[u8]) -> String {
    bytes
        .split(|b| *b == b'\n')
        .map(|line| sanitize_bytes(line.strip_suffix(b"\r").unwrap_or(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A serde_json formatter that escapes C0, DEL, C1 and bidi controls in strings as `\uXXXX`
/// (serde_json itself leaves DEL, C1 and bidi raw and writes some C0 as short escapes).
struct SafeFormatter<F> {
    inner: F,
}

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if needs_escape(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04X}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape;
        let byte = match char_escape {
            CharEscape::Quote => return writer.write_all(b"\\\""),
            CharEscape::ReverseSolidus => return writer.write_all(b"\\\\"),
            CharEscape::Solidus => return writer.write_all(b"\\/"),
            CharEscape::Backspace => 0x08,
            CharEscape::FormFeed => 0x0C,
            CharEscape::LineFeed => 0x0A,
            CharEscape::CarriageReturn => 0x0D,
            CharEscape::Tab => 0x09,
            CharEscape::AsciiControl(b) => b,
        };
        write!(writer, "\\u{byte:04X}")
    }

    // Everything else is the inner formatter's (compact or pretty layout).
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.inner.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.inner.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_object_value(w)
    }
}

fn to_json_with<T, F>(value: &T, inner: F) -> serde_json::Result<String>
where
    T: ?Sized + serde::Serialize,
    F: serde_json::ser::Formatter,
{
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SafeFormatter { inner });
    value.serialize(&mut ser)?;
    // The formatter writes only `str` fragments and ASCII escapes, so this never fails; the
    // lossy path keeps the function total anyway.
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Compact JSON with every control and bidi character in strings escaped as `\uXXXX`.
pub fn to_json_string<T: ?Sized + serde::Serialize>(value: &T) -> serde_json::Result<String> {
    to_json_with(value, serde_json::ser::CompactFormatter)
}

/// Pretty JSON (two-space indent) with every control and bidi character in strings escaped as
/// `\uXXXX`.
pub fn to_json_string_pretty<T: ?Sized + serde::Serialize>(
    value: &T,
) -> serde_json::Result<String> {
    to_json_with(value, serde_json::ser::PrettyFormatter::new())
}

/// Whether `text` is safe to print as is: no C0 other than the line feed, no DEL, C1 or bidi
/// control (the property the fuzz corpus checks on every sanitised output).
pub fn is_terminal_safe(text: &str) -> bool {
    !text.chars().any(|c| c != '\n' && needs_escape(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// T.7: the byte scan finds exactly the characters `needs_escape` names, alone
    /// and between ASCII, Korean and emoji neighbours.
    #[test]
    fn t7_byte_scan_agrees_with_needs_escape_for_every_char() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let expected = !needs_escape(c);
            let mut b = [0u8; 4];
            let alone = c.encode_utf8(&mut b);
            assert_eq!(nothing_to_escape(alone), expected, "{c:?}");
            let framed = format!("a한{c}🙂\u{2029}");
            assert_eq!(nothing_to_escape(&framed), expected, "{c:?} framed");
        }
        assert!(nothing_to_escape(""));
        assert!(!nothing_to_escape("ok\u{202E}ko"));
    }

    #[test]
    fn t7_c0_del_and_c1_become_literal_escapes() {
        assert_eq!(sanitize("a\x1b[31mb"), "a\\x1B[31mb");
        assert_eq!(sanitize("x\x7fy"), "x\\x7Fy");
        assert_eq!(sanitize("\u{9b}31m"), "\\u009B31m");
        assert_eq!(sanitize("tab\there"), "tab\\x09here");
        assert!(matches!(sanitize("plain 한글 🙂"), Cow::Borrowed(_)));
    }

    #[test]
    fn t7_invalid_utf8_and_lone_c1_bytes_become_hex() {
        assert_eq!(sanitize_bytes(b"ok\x9b31m\xff"), "ok\\x9B31m\\xFF");
        assert_eq!(sanitize_bytes("한".as_bytes()), "한");
        assert_eq!(sanitize_bytes(b"\xc2\x9b"), "\\u009B");
    }

    #[test]
    fn bidi_controls_are_neutralised() {
        let s = sanitize("admin\u{202E}gpj.exe\u{2066}x\u{2069}\u{200F}\u{061C}");
        assert!(!s.chars().any(is_bidi_control));
        assert!(s.contains("\\u202E"));
        assert!(s.contains("\\u061C"));
    }

    #[test]
    fn c72_lines_survive_and_are_each_sanitised() {
        assert_eq!(sanitize_lines("a\r\n\x07b"), vec!["a", "\\x07b"]);
        assert_eq!(
            sanitize_block("a\r\n\x1b]0;t\x07\nc\rd"),
            "a\n\\x1B]0;t\\x07\nc\\x0Dd"
        );
        assert_eq!(sanitize_bytes_block(b"a\r\n\x9b\xff\n"), "a\n\\x9B\\xFF\n");
    }

    #[test]
    fn issue16_json_escapes_c0_c1_and_bidi_as_u_escapes() {
        let v = json!({"k\u{9b}": "a\u{1b}[2J\u{9b}31m\u{202e}\u{7f}\n\t\"\\/ 한"});
        for text in [
            to_json_string(&v).unwrap(),
            to_json_string_pretty(&v).unwrap(),
        ] {
            assert!(
                text.chars().all(|c| c == '\n' || !needs_escape(c)),
                "raw control in {text:?}"
            );
            assert!(text.contains("\\u001B[2J\\u009B31m\\u202E\\u007F\\u000A\\u0009"));
            assert!(text.contains("\\u009B\""), "keys too: {text}");
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back, v, "the value survives exactly");
        }
        assert_eq!(to_json_string(&json!([1, "a"])).unwrap(), r#"[1,"a"]"#);
        assert!(
            to_json_string_pretty(&json!({"a": [1]}))
                .unwrap()
                .contains("\n  \"a\": [")
        );
    }
}
