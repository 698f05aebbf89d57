//! The config file (issue 30 item 1) through the binary: `config check` prints what a session
//! resolves, each value with its origin and tokens masked; a malformed file names its line and
//! key and starts nothing; flags beat the environment beat the file; a token file or a
//! token-holding config file others may read is refused with the `chmod` that fixes it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch config home: `<dir>/config/masc-tui/config.toml` is the standard place.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn config_path(&self) -> PathBuf {
        self.dir
            .path()
            .join("config")
            .join("masc-tui")
            .join("config.toml")
    }

    /// Writes the standard config file (mode 0600).
    fn write_config(&self, text: &str) -> PathBuf {
        let path = self.config_path();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        set_mode(&path, 0o600);
        path
    }

    /// A token file beside the config file with `mode`.
    fn token_file(&self, name: &str, token: &str, mode: u32) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, format!("{token}\n")).unwrap();
        set_mode(&path, mode);
        path
    }

    fn bin(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_masc-tui"));
        for var in [
            "RUST_LOG",
            "MASC_TUI_STATE_DIR",
            "MASC_TOKEN",
            "MASC_HOST",
            "MASC_HTTP_PORT",
            "MASC_BASE_PATH",
            "MASC_TUI_THEME",
            "MASC_TUI_WORKSPACE",
            "MASC_TUI_CONFIG",
            "MASC_TUI_START",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("XDG_CONFIG_HOME", self.dir.path().join("config"));
        cmd.env("XDG_STATE_HOME", self.dir.path().join("state"));
        cmd.stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let out: Output = self
            .bin()
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn check(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let mut all = vec!["config", "check"];
        all.extend_from_slice(args);
        self.run(&all, env)
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The value and origin `config check` printed on the row labelled `label`.
fn row<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no {label} row in:\n{report}"))
}

const TWO_WORKSPACES: &str = r#"
[defaults]
workspace = "staging"
theme = "light"
start = "board"

[workspaces.staging]
url = "http://127.0.0.1:18001/"
token_env = "STAGING_TOKEN"
base_path = "/srv/masc/staging"
colour = "yellow"

[workspaces.prod]
url = "https://masc.example.org"
token_command = ["printf", "prod-secret-token"]
"#;

#[test]
fn issue30_a_malformed_config_names_its_line_and_key_and_starts_nothing() {
    let home = Home::new();
    let cases: &[(&str, &str, &[&str])] = &[
        // TOML syntax: the line of the broken text.
        (
            "[defaults]\ntheme = \"dark\"\n\n[workspaces.a]\nurl = \"http://h:1\nbase_path = 3\n",
            "line 5",
            &[],
        ),
        // An unknown key, with its line and dotted name.
        (
            "[workspaces.a]\nurl = \"http://h:1\"\ntoken_fiel = \"x\"\n",
            "line 3, key workspaces.a.token_fiel: unknown key",
            &["token_file"],
        ),
        // A value that is not one of the allowed.
        (
            "[defaults]\n\ntheme = \"sepia\"\n",
            "line 3, key defaults.theme",
            &["dark, light or high-contrast"],
        ),
        // Two token sources.
        (
            "[workspaces.a]\nurl = \"http://h:1\"\ntoken_env = \"A\"\ntoken_file = \"t\"\n",
            "key workspaces.a.",
            &["give one token source"],
        ),
        // Not a URL.
        (
            "[workspaces.a]\nurl = \"ftp://h/\"\n",
            "line 2, key workspaces.a.url",
            &["not an http or https URL"],
        ),
        // The default names no configured workspace.
        (
            "[defaults]\nworkspace = \"b\"\n[workspaces.a]\nurl = \"http://h:1\"\n",
            "line 2, key defaults.workspace",
            &["configured: a"],
        ),
        // A workspace without a url.
        (
            "[workspaces.a]\n\ntoken_env = \"A\"\n",
            "line 1, key workspaces.a: has no url",
            &[],
        ),
    ];
    for (text, expected, also) in cases {
        let path = home.write_config(text);
        // The check and the session alike: exit 2, the line and key named, nothing started
        // (no state directory claimed).
        for args in [vec!["config", "check"], vec![]] {
            let (code, stdout, stderr) = home.run(&args, &[]);
            assert_eq!(code, 2, "{args:?} {text:?}: {stderr}");
            assert!(stdout.is_empty(), "nothing half-printed: {stdout}");
            assert!(
                stderr.contains(&path.display().to_string()),
                "names the file: {stderr}"
            );
            assert!(stderr.contains(expected), "{text:?}: {stderr}");
            for word in *also {
                assert!(stderr.contains(word), "{text:?}: {stderr}");
            }
        }
        assert!(
            !home.dir.path().join("state").exists(),
            "refused before the state directory was claimed"
        );
    }
}

#[test]
fn issue30_config_check_prints_every_value_with_its_origin_and_masks_tokens() {
    let home = Home::new();
    let path = home.write_config(TWO_WORKSPACES);
    let (code, out, err) = home.check(&[], &[("STAGING_TOKEN", "staging-secret-token")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(row(&out, "config").contains(&path.display().to_string()));
    assert!(row(&out, "workspace").contains("staging  (config line 3, defaults.workspace)"));
    // The trailing slash is dropped; the origin is the line of the url.
    assert!(
        row(&out, "url")
            .contains("http://127.0.0.1:18001  (config line 8, workspaces.staging.url)")
    );
    let token = row(&out, "token");
    assert!(
        token.contains("token_env STAGING_TOKEN: hidden (20 chars, sha256 "),
        "{token}"
    );
    assert!(row(&out, "base").contains("/srv/masc/staging  (config line 10"));
    assert!(row(&out, "colour").contains("Yellow"));
    assert!(row(&out, "theme").contains("light  (config line 4, defaults.theme)"));
    assert!(row(&out, "start").contains("board  (config line 5, defaults.start)"));
    assert!(row(&out, "lang").contains("en  (default)"));
    // Every workspace of the file, its token probed and masked: the command ran.
    assert!(
        out.contains("token_command printf prod-secret-token: hidden (17 chars"),
        "{out}"
    );
    assert!(
        !out.contains("staging-secret-token"),
        "a token is never printed: {out}"
    );
    // The fingerprint is the token's: the same token gives the same digits, another differs.
    let fingerprint = |out: &str| {
        let at = row(out, "token").find("sha256 ").unwrap() + 7;
        row(out, "token")[at..at + 8].to_string()
    };
    let (_, again, _) = home.check(&[], &[("STAGING_TOKEN", "staging-secret-token")]);
    let (_, other, _) = home.check(&[], &[("STAGING_TOKEN", "another-token")]);
    assert_eq!(fingerprint(&out), fingerprint(&again));
    assert_ne!(fingerprint(&out), fingerprint(&other));
    assert!(out.trim_end().ends_with("ok"), "{out}");
}

#[test]
fn issue30_flags_beat_the_environment_beat_the_file() {
    let home = Home::new();
    home.write_config(TWO_WORKSPACES);
    let env = [("STAGING_TOKEN", "s")];
    // The file alone.
    let (_, out, _) = home.check(&[], &env);
    assert!(row(&out, "theme").contains("light  (config line"));
    assert!(row(&out, "workspace").contains("staging"));
    // The environment beats the file …
    let (_, out, _) = home.check(
        &[],
        &[
            ("STAGING_TOKEN", "s"),
            ("MASC_TUI_THEME", "high-contrast"),
            ("MASC_TUI_WORKSPACE", "prod"),
            ("MASC_TUI_START", "system"),
        ],
    );
    assert!(
        row(&out, "theme").contains("high-contrast  (env MASC_TUI_THEME)"),
        "{out}"
    );
    assert!(
        row(&out, "workspace").contains("prod  (env MASC_TUI_WORKSPACE)"),
        "{out}"
    );
    assert!(
        row(&out, "url").contains("https://masc.example.org  (config line 14"),
        "{out}"
    );
    assert!(
        row(&out, "start").contains("system  (env MASC_TUI_START)"),
        "{out}"
    );
    // … and a flag beats both.
    let (_, out, _) = home.check(
        &[
            "--theme",
            "dark",
            "--workspace",
            "staging",
            "--start",
            "work",
        ],
        &[
            ("STAGING_TOKEN", "s"),
            ("MASC_TUI_THEME", "high-contrast"),
            ("MASC_TUI_WORKSPACE", "prod"),
        ],
    );
    assert!(row(&out, "theme").contains("dark  (flag --theme)"), "{out}");
    assert!(
        row(&out, "workspace").contains("staging  (flag --workspace)"),
        "{out}"
    );
    assert!(row(&out, "start").contains("work  (flag --start)"), "{out}");
    // A flag beats a named workspace's own value, the rest stays the workspace's.
    let (_, out, _) = home.check(
        &["--url", "http://127.0.0.1:19999"],
        &[("MASC_TUI_WORKSPACE", "prod")],
    );
    assert!(
        row(&out, "workspace").contains("(unnamed)"),
        "--url opens an unnamed one: {out}"
    );
    let (_, out, _) = home.check(
        &["--workspace", "prod", "--url", "http://127.0.0.1:19999"],
        &[],
    );
    assert!(
        row(&out, "url").contains("http://127.0.0.1:19999  (flag --url)"),
        "{out}"
    );
    assert!(row(&out, "token").contains("token_command printf"), "{out}");
    // MASC_HOST describes an unnamed workspace: it beats the file's default …
    let (_, out, _) = home.check(&[], &[("MASC_HOST", "127.0.0.2")]);
    assert!(row(&out, "workspace").contains("(unnamed)"), "{out}");
    assert!(
        row(&out, "url").contains("http://127.0.0.2:8935  (env MASC_HOST/MASC_HTTP_PORT)"),
        "{out}"
    );
    assert!(
        out.contains("note: defaults.workspace = \"staging\" not used"),
        "{out}"
    );
    // … but a named workspace never takes the unnamed one's token or host.
    let (_, out, _) = home.check(
        &["--workspace", "prod"],
        &[("MASC_TOKEN", "local-token"), ("MASC_HOST", "127.0.0.2")],
    );
    assert!(
        row(&out, "url").contains("https://masc.example.org"),
        "{out}"
    );
    assert!(row(&out, "token").contains("token_command"), "{out}");
    assert!(
        out.contains("note: MASC_TOKEN is set but not used"),
        "{out}"
    );
    assert!(out.contains("note: MASC_HOST is set but not used"), "{out}");
    // An unknown name is refused with what is configured.
    let (code, _, err) = home.check(&["--workspace", "qa"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no workspace named \"qa\"") && err.contains("staging, prod"),
        "{err}"
    );
    // Named without any file: refused, naming where the file was looked for.
    let empty = Home::new();
    let (code, _, err) = empty.check(&["--workspace", "prod"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no config file at") && err.contains("config.toml"),
        "{err}"
    );
    // --config names another file, which must exist.
    let other = home.dir.path().join("other.toml");
    std::fs::write(&other, "[defaults]\ntheme = \"light\"\n").unwrap();
    let (code, out, _) = empty.check(&["--config", other.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}");
    assert!(row(&out, "config").contains("other.toml"));
    let (code, _, err) = empty.check(&["--config", "/nonexistent/masc.toml"], &[]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn issue30_a_token_file_others_may_read_is_refused_with_a_chmod_hint() {
    let home = Home::new();
    let open = home.token_file("open.token", "open-secret", 0o644);
    // A relative token_file is read from the config file's directory.
    let closed = home.config_path().with_file_name("closed.token");
    std::fs::create_dir_all(closed.parent().unwrap()).unwrap();
    std::fs::write(&closed, "closed-secret").unwrap();
    set_mode(&closed, 0o600);
    home.write_config(&format!(
        "[workspaces.open]\nurl = \"http://127.0.0.1:9\"\ntoken_file = \"{}\"\n\n\
         [workspaces.closed]\nurl = \"http://127.0.0.1:9\"\ntoken_file = \"closed.token\"\n\n\
         [workspaces.unset]\nurl = \"http://127.0.0.1:9\"\ntoken_env = \"MASC_TEST_UNSET_TOKEN\"\n\n\
         [workspaces.failing]\nurl = \"http://127.0.0.1:9\"\ntoken_command = \"echo no such entry >&2; exit 3\"\n",
        open.display()
    ));
    let hint = format!("chmod 600 {}", open.display());
    // The check: a finding per failing source, exit 1.
    let (code, out, err) = home.check(&["--workspace", "open"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(row(&out, "token").contains(&hint), "{out}");
    assert!(row(&out, "token").contains("mode 644"), "{out}");
    assert!(
        out.contains("environment variable MASC_TEST_UNSET_TOKEN is not set"),
        "{out}"
    );
    assert!(out.contains("exit status: 3: no such entry"), "{out}");
    assert!(out.contains("3 findings"), "{out}");
    assert!(out.contains("closed.token: hidden (13 chars"), "{out}");
    assert!(!out.contains("open-secret"), "{out}");
    // The session: refused before the terminal, exit 2, the same hint.
    let (code, _, err) = home.run(&["--workspace", "open"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&hint), "{err}");
    // Narrowed, it is accepted.
    set_mode(&open, 0o600);
    let (_, out, _) = home.check(&["--workspace", "open"], &[]);
    assert!(row(&out, "token").contains("hidden (11 chars"), "{out}");
    // A token written in the config file: accepted with a note while the file is
    // owner-only; refused once its group may read it.
    let path = home.write_config(
        "[workspaces.inline]\nurl = \"http://127.0.0.1:9\"\ntoken = \"inline-secret\"\n",
    );
    let (code, out, _) = home.check(&["--workspace", "inline"], &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "note: workspaces.inline.token (line 3) is a token written in the config file"
        ),
        "{out}"
    );
    assert!(!out.contains("inline-secret"), "{out}");
    set_mode(&path, 0o640);
    for args in [vec!["config", "check"], vec!["--workspace", "inline"]] {
        let (code, _, err) = home.run(&args, &[]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("holds a token (workspaces.inline.token, line 3)"),
            "{err}"
        );
        assert!(err.contains("readable by its group (mode 640)"), "{err}");
        assert!(
            err.contains(&format!("chmod 600 {}", path.display())),
            "{err}"
        );
    }
}
