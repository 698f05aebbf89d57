//! The settings editor `e` end to end (change a setting and see it after the
//! re-read; a 409 conflict shows the conflict and a second `e` restores only the changed
//! field): `masc-tui demo` in a pseudo-terminal with a scripted `$EDITOR` that keeps a copy of
//! every file it is opened on and edits it like an operator would.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;
use std::path::{Path, PathBuf};

/// A scripted editor: copies the file it is opened on to `<dir>/open.<n>`, then (when `edit`
/// holds for that run) turns autoboot off.
fn editor(dir: &Path, edit_runs: &[u32]) -> (String, PathBuf) {
    let captures = dir.join("captures");
    std::fs::create_dir_all(&captures).expect("captures dir");
    let script = dir.join("editor.sh");
    let runs = edit_runs
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ");
    std::fs::write(
        &script,
        format!(
            "n=$(ls '{cap}' | wc -l | tr -d ' ')\n\
             cp \"$1\" '{cap}'/open.$n\n\
             for r in {runs}; do\n\
               if [ \"$r\" = \"$n\" ]; then\n\
                 sed 's/^autoboot_enabled = true/autoboot_enabled = false/' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n\
               fi\n\
             done\n",
            cap = captures.display()
        ),
    )
    .expect("editor script");
    (format!("sh {}", script.display()), captures)
}

fn opened(captures: &Path, n: u32) -> String {
    std::fs::read_to_string(captures.join(format!("open.{n}"))).expect("the editor's copy")
}

/// The A (autoboot) cell of the roster row of `name`.
fn autoboot_cell(screen: &vt100::Screen, name: &str) -> Option<char> {
    let row = row_of(screen, &format!("{name} "))?;
    let chars: Vec<char> = row_text(screen, row).chars().collect();
    let name_chars: Vec<char> = name.chars().collect();
    let at = chars
        .windows(name_chars.len())
        .position(|w| w == name_chars.as_slice())?;
    // KEEPER is 16 cells wide, then one gap.
    chars.get(at + 17).copied()
}

/// H-1, H-3, H-4, §9.6: `e` on rondo opens the editor on its settings; turning autoboot off
/// saves once; the roster, re-read after the receipt, shows A off; a second `e` re-reads and
/// the file says `autoboot_enabled = false`.
#[test]
fn pty_h4_e_changes_a_setting_and_the_reread_shows_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (visual, captures) = editor(dir.path(), &[0]);
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(visual),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.wait_for("rondo's A on", |s| {
        autoboot_cell(s.parser.screen(), "rondo") == Some('✓')
    });
    session.send(b"e");
    // The save path's preview: the changed key old → new first; Enter sends it.
    session.wait_for_text("autoboot_enabled: true → false");
    session.wait_for_text("Enter to save rondo's settings");
    session.send(b"\r");
    session.wait_for_text("rondo: settings autoboot_enabled: saved");
    let first = opened(&captures, 0);
    assert!(first.contains("autoboot_enabled = true"), "{first}");
    session.wait_for("rondo's A off after the re-read", |s| {
        autoboot_cell(s.parser.screen(), "rondo") == Some('·')
    });
    session.send(b"e");
    session.wait_for("the second edit", |_| captures.join("open.1").exists());
    let second = opened(&captures, 1);
    assert!(second.contains("autoboot_enabled = false"), "{second}");
    session.wait_for_text("unchanged, nothing sent");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// H-6, H-7: the first save meets a 409 revision conflict — the three views open on a fresh
/// read, `Esc` keeps the edit, the line says so and that `e` restores; the second `e` re-reads and the editor opens with only autoboot put back (marked
/// restored, every other line as the server has it now), and saving it applies.
#[test]
fn pty_h6_h7_a_conflict_shows_and_a_second_e_restores_only_the_changed_field() {
    let rev = r#"{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}"#;
    let plan = format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"/api/v1/keepers/rondo/config"}},"when":{{"nth":1}},"fault":{{"status":409,"body":{{"ok":false,"keeper":"rondo","config_applied":false,"runtime_sync":false,"error":{{"code":"keeper_config_revision_conflict","expected":{rev},"observed":{rev}}}}}}}}}]}}"#
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let (visual, captures) = editor(dir.path(), &[0]);
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(visual),
        faults: Some(plan),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.send(b"e");
    session.wait_for_text("Enter to save rondo's settings");
    session.send(b"\r");
    // The conflict's answer carries only revisions: the settings are read again and the three
    // views open; `Esc` keeps the edit for the next `e`.
    session.wait_for_text("rondo's settings changed on the server");
    session.send(b"\x1b");
    session.wait_for_text("conflict: changed since the editor opened");
    session.wait_for_text("e restores your edit");
    // The roster row under the closed layer may be repainted a frame later than the line.
    session.wait_for("rondo's roster row", |s| {
        autoboot_cell(s.parser.screen(), "rondo").is_some()
    });
    assert_eq!(
        autoboot_cell(session.seen().parser.screen(), "rondo"),
        Some('✓'),
        "not applied"
    );

    session.send(b"e");
    session.wait_for_text("Enter to save rondo's settings");
    session.send(b"\r");
    session.wait_for_text("rondo: settings autoboot_enabled: saved");
    let first = opened(&captures, 0);
    let second = opened(&captures, 1);
    assert!(second.contains("autoboot_enabled = false"), "{second}");
    assert!(
        second.contains("# Restored from your unsaved edit: autoboot_enabled"),
        "{second}"
    );
    // Only the changed field differs from the first file (the rest is as the server has it).
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("autoboot_enabled"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&second));
    session.wait_for("rondo's A off", |s| {
        autoboot_cell(s.parser.screen(), "rondo") == Some('·')
    });
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
