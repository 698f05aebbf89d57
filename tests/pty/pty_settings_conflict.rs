//! Two operators on one `masc-tui serve` edit the same Keeper's settings (protocol.md §9.6 CAS;
//! sources.md H-6, H-7): A turns autoboot off in a scripted `$EDITOR` and holds its preview
//! while B turns proactive over and saves. A's save meets the revision conflict, whose answer
//! carries only revisions: A reads the settings again and the three views open (yours, theirs,
//! what an overwrite loses) — never a silent overwrite of B. An overwrite shows B's line it
//! would lose and needs its own key; the rebase sends A's key on the fresh revision, and the
//! next `e` shows both changes.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;
use std::path::Path;

/// A scripted editor: copies every file it is opened on to `<dir>/open.<n>`; on its first run
/// applies `first_edit` (a sed script) to the file.
fn editor(dir: &Path, first_edit: &str) -> String {
    let captures = dir.join("captures");
    std::fs::create_dir_all(&captures).expect("captures dir");
    let script = dir.join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "n=$(ls '{cap}' | wc -l | tr -d ' ')\n\
             cp \"$1\" '{cap}'/open.$n\n\
             if [ \"$n\" = 0 ]; then\n\
               sed -e '{first_edit}' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n\
             fi\n",
            cap = captures.display()
        ),
    )
    .expect("editor script");
    format!("sh {}", script.display())
}

fn opened(dir: &Path, n: u32) -> String {
    std::fs::read_to_string(dir.join("captures").join(format!("open.{n}")))
        .expect("the editor's copy")
}

fn line_of<'t>(text: &'t str, key: &str) -> &'t str {
    text.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in\n{text}"))
}

#[test]
fn pty_h6_two_operators_a_settings_conflict_shows_three_views_and_the_rebase_keeps_both() {
    let served = Served::start();
    let a_dir = tempfile::tempdir().expect("temp dir");
    let b_dir = tempfile::tempdir().expect("temp dir");
    let mut a = PtySession::demo(DemoOptions {
        connect: Some(served.connect.clone()),
        visual: Some(editor(
            a_dir.path(),
            "s/^autoboot_enabled = true/autoboot_enabled = false/",
        )),
        ..DemoOptions::default()
    });
    // B turns proactive over, whichever way it stands.
    let mut b = PtySession::demo(DemoOptions {
        connect: Some(served.connect.clone()),
        visual: Some(editor(
            b_dir.path(),
            "/^proactive_enabled/{s/true/false/;t;s/false/true/}",
        )),
        ..DemoOptions::default()
    });
    a.wait_for_roster();
    b.wait_for_roster();

    // A's edit is previewed and held there.
    a.send(b"e");
    a.wait_for_text("autoboot_enabled: true → false");
    a.wait_for_text("Enter to save rondo's settings");
    assert_eq!(served.requests("POST"), 0, "nothing sent before Enter");

    // B saves meanwhile.
    b.send(b"e");
    b.wait_for_text("Enter to save rondo's settings");
    b.send(b"\r");
    b.wait_for_text("rondo: settings proactive_enabled: saved");
    let b_proactive = opened(b_dir.path(), 0);
    let theirs_was = line_of(&b_proactive, "proactive_enabled").to_string();
    let theirs_now = if theirs_was.contains("true") {
        theirs_was.replace("true", "false")
    } else {
        theirs_was.replace("false", "true")
    };

    // A confirms: the revision moved — a fresh read, then the three views with B's change.
    a.send(b"\r");
    a.wait_for_text("rondo's settings changed on the server (now @");
    a.wait_for_text("2 their changes");
    a.wait_for_text(&format!("+{theirs_now}"));
    a.send(b"1");
    a.wait_for_text("+autoboot_enabled = false");

    // An overwrite first shows what of B's is lost; another key goes back to the three views.
    a.send(b"o");
    a.wait_for_text("o again to overwrite rondo's settings with your draft");
    a.wait_for_text(&format!("-{theirs_now}"));
    a.send(b"n");
    a.wait_for_text("1 yours · 2 theirs");
    assert_eq!(
        a.trace_count("worker_return", "save:keeper_settings"),
        1,
        "only the conflicted save left A"
    );

    // Rebase: A's key on the fresh revision, previewed, then committed.
    a.send(b"r");
    a.wait_for_text("r again to save rondo's settings");
    a.send(b"r");
    a.wait_for_text("rondo: settings autoboot_enabled: saved");
    assert_eq!(a.trace_count("worker_return", "save:keeper_settings"), 2);

    // The next `e` opens on both changes: A's autoboot, B's proactive.
    a.send(b"e");
    a.wait_for("the second edit", |_| {
        a_dir.path().join("captures").join("open.1").exists()
    });
    let second = opened(a_dir.path(), 1);
    assert!(second.contains("autoboot_enabled = false"), "{second}");
    assert_eq!(
        line_of(&second, "proactive_enabled"),
        theirs_now,
        "{second}"
    );
    a.wait_for_text("unchanged, nothing sent");

    a.quit_q_q();
    b.quit_q_q();
}
