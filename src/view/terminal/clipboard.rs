//! `/copy` through OSC 52 (C-31): the terminal's clipboard escape, written by
//! masc-tui itself — the text is base64-encoded inside a sequence we build, so no byte of a
//! message (server text) ever reaches the terminal as-is.
//!
//! Whether the terminal accepts OSC 52 cannot be asked (no terminal answers a clipboard write),
//! so it is decided from the environment, conservatively:
//! - `MASC_TUI_OSC52=on` / `off` decides (the operator knows their terminal);
//! - otherwise known to accept: kitty (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`), WezTerm
//!   (`TERM_PROGRAM=WezTerm`, `WEZTERM_EXECUTABLE`), iTerm2 (`TERM_PROGRAM=iTerm.app`),
//!   Ghostty (`TERM_PROGRAM=ghostty`, `TERM=xterm-ghostty`), Alacritty (`TERM=alacritty`,
//!   `ALACRITTY_WINDOW_ID`), foot (`TERM=foot…`), Windows Terminal (`WT_SESSION`);
//! - anything else (xterm, whose `allowWindowOps` is off by default; VTE terminals, which ignore
//!   it; Apple Terminal; tmux and screen, which pass it on only when configured) is unknown, and
//!   `/copy` says so instead of writing.

/// What the environment says about OSC 52.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Osc52 {
    /// Known to accept it (the reason names the terminal or the override).
    Accepted(String),
    /// Not known to accept it (why, for the footer).
    Unknown(String),
}

/// The largest message `/copy` writes (bytes of text; terminals cap the sequence, xterm at
/// about 100 kB of base64).
pub const COPY_MAX_BYTES: usize = 74_000;

/// Decides from environment variables read through `var`.
pub fn osc52_support(var: impl Fn(&str) -> Option<String>) -> Osc52 {
    match var("MASC_TUI_OSC52").as_deref() {
        Some("on") => return Osc52::Accepted("MASC_TUI_OSC52=on".into()),
        Some("off") => return Osc52::Unknown("MASC_TUI_OSC52=off".into()),
        _ => {}
    }
    let term = var("TERM").unwrap_or_default();
    let program = var("TERM_PROGRAM").unwrap_or_default();
    let known = if var("KITTY_WINDOW_ID").is_some() || term == "xterm-kitty" {
        Some("kitty")
    } else if program == "WezTerm" || var("WEZTERM_EXECUTABLE").is_some() {
        Some("WezTerm")
    } else if program == "iTerm.app" {
        Some("iTerm2")
    } else if program == "ghostty" || term == "xterm-ghostty" {
        Some("Ghostty")
    } else if term == "alacritty" || var("ALACRITTY_WINDOW_ID").is_some() {
        Some("Alacritty")
    } else if term.starts_with("foot") {
        Some("foot")
    } else if var("WT_SESSION").is_some() {
        Some("Windows Terminal")
    } else {
        None
    };
    match known {
        Some(name) => Osc52::Accepted(name.into()),
        None => {
            let seen = match (program.as_str(), term.as_str()) {
                ("", "") => "no TERM".to_string(),
                ("", t) => format!("TERM={t}"),
                (p, _) => format!("TERM_PROGRAM={p}"),
            };
            Osc52::Unknown(seen)
        }
    }
}

/// [`osc52_support`] of this process's environment.
pub fn osc52_from_env() -> Osc52 {
    osc52_support(|k| std::env::var(k).ok())
}

/// `ESC ] 52 ; c ; <base64> BEL`: the clipboard write of `text`.
pub fn osc52_sequence(text: &str) -> Vec<u8> {
    let mut out = b"\x1b]52;c;".to_vec();
    out.extend(base64(text.as_bytes()).bytes());
    out.push(0x07);
    out
}

/// Standard base64 with padding (RFC 4648).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn issue14_osc52_only_for_terminals_known_to_accept_it() {
        assert!(matches!(
            osc52_support(env(&[("TERM", "xterm-kitty")])),
            Osc52::Accepted(_)
        ));
        assert!(matches!(
            osc52_support(env(&[("TERM_PROGRAM", "WezTerm")])),
            Osc52::Accepted(_)
        ));
        assert_eq!(
            osc52_support(env(&[("TERM", "xterm-256color")])),
            Osc52::Unknown("TERM=xterm-256color".into())
        );
        assert!(matches!(
            osc52_support(env(&[("TERM_PROGRAM", "Apple_Terminal")])),
            Osc52::Unknown(_)
        ));
        assert!(matches!(
            osc52_support(env(&[("TERM", "xterm"), ("MASC_TUI_OSC52", "on")])),
            Osc52::Accepted(_)
        ));
        assert!(matches!(
            osc52_support(env(&[("KITTY_WINDOW_ID", "1"), ("MASC_TUI_OSC52", "off")])),
            Osc52::Unknown(_)
        ));
    }

    /// The sequence is ours: a message holding escapes travels base64-encoded, so no byte of
    /// it reaches the terminal raw (T.7).
    #[test]
    fn issue14_osc52_writes_base64_never_the_message_bytes() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64("한".as_bytes()), "7ZWc");
        let seq = osc52_sequence("x\x1b]52;c;evil\x07\x1b[2J");
        assert!(seq.starts_with(b"\x1b]52;c;"));
        assert_eq!(seq.last(), Some(&0x07));
        let body = &seq[7..seq.len() - 1];
        assert!(
            body.iter()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(b))
        );
    }
}
