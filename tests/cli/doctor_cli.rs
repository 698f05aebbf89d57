//! `masc-tui doctor` as a process: exit 0 when every served route
//! decodes (also on MASC v0.24.0, whose extension routes are not served), 1 when a route fails
//! to decode, 2 when nothing answers; `--json` is one JSON document with the same verdicts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::{Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use serde_json::Value;

const TOKEN: &str = "doctor-cli-token";

async fn server(compat: Option<MascRelease>, faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        auth: AuthMode::Token(TOKEN.into()),
        compat,
        faults,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

async fn doctor(args: &[&str]) -> (i32, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_masc-tui"))
        .arg("doctor")
        .args(args)
        .env_remove("MASC_TOKEN")
        .env_remove("MASC_BASE_PATH")
        .output()
        .await
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_json_on_masc_v0_24_0_exits_0_and_names_the_routes_not_served() {
    let s = server(Some(MascRelease::V0_24_0), FaultPlan::none()).await;
    let (url, base) = (s.base_url(), s.base_path());
    let (code, out) = doctor(&[
        "--url",
        &url,
        "--token",
        TOKEN,
        "--base-path",
        &base,
        "--json",
    ])
    .await;
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["admission"], "health");
    assert_eq!(report["health"]["commit"], "e2bb55f793");
    let result = |route: &str| {
        report["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["route"] == route)
            .map(|r| r["result"].as_str().unwrap().to_string())
    };
    assert_eq!(result("task_list").as_deref(), Some("not_served"));
    assert_eq!(result("skills").as_deref(), Some("not_served"));
    assert_eq!(result("roster").as_deref(), Some("decodes"));
    assert_eq!(result("runtime_resolved").as_deref(), Some("decodes"));
    assert_eq!(result("chat_events").as_deref(), Some("not_served"));
    assert_eq!(report["summary"]["not_served"], 8);
    assert!(
        report["release"]
            .as_str()
            .is_some_and(|r| r.starts_with("MASC v0.24.0")),
        "{}",
        report["release"]
    );
    let transcript = report["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "turn_transcript")
        .unwrap();
    assert_eq!(transcript["shape"], "MASC version 1 (version=2 ignored)");
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_exits_1_with_the_json_path_when_a_route_fails_to_decode() {
    let plan = FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/gate/keepers",
        When::Every { every: true },
        Fault::Status {
            status: 200,
            body: Some(
                serde_json::json!({"count":1,"total":1,"truncated":false,"keepers":[{"name":"a","status":"running"}]}),
            ),
        },
    ));
    let s = server(None, plan).await;
    let (url, base) = (s.base_url(), s.base_path());
    let (code, out) = doctor(&["--url", &url, "--token", TOKEN, "--base-path", &base]).await;
    assert_eq!(code, 1, "{out}");
    let roster = out
        .lines()
        .find(|l| l.starts_with("GET /api/v1/gate/keepers"))
        .unwrap();
    assert!(
        roster.contains("fails to decode · unknown_variant at .keepers[0].status"),
        "{roster}"
    );
    assert!(out.contains("exit 1"));
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_exits_2_when_nothing_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (code, out) = doctor(&["--url", &url, "--token", TOKEN, "--timeout", "5"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("reachable   no"), "{out}");
}

/// `doctor --workspace NAME` reads the named workspace from the config file: its url, its
/// token from an owner-only token file, its base path (an exported `MASC_BASE_PATH` does not
/// replace it); a token file others may read is refused before anything is sent (exit 2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue30_doctor_checks_a_named_workspace_of_the_config_file() {
    use std::os::unix::fs::PermissionsExt;
    let s = server(None, FaultPlan::none()).await;
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("local.token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[workspaces.local]\nurl = \"{}\"\ntoken_file = \"local.token\"\nbase_path = \"{}\"\n",
            s.base_url(),
            s.base_path()
        ),
    )
    .unwrap();
    let run_as = |workspace: &'static str, extra: Vec<String>| {
        let config = config.clone();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_masc-tui"))
                .args(["doctor", "--config", config.to_str().unwrap()])
                .args(["--workspace", workspace, "--json"])
                .args(extra)
                .env_remove("MASC_TOKEN")
                .env("MASC_BASE_PATH", "/somewhere/else")
                .output()
                .await
                .unwrap();
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8(out.stdout).unwrap(),
                String::from_utf8(out.stderr).unwrap(),
            )
        }
    };
    let run = |extra: Vec<String>| run_as("local", extra);
    let (code, out, err) = run(Vec::new()).await;
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["url"], s.base_url());
    assert!(
        report["identity"].to_string().contains(&s.base_path()),
        "{report}"
    );
    // A flag still wins: another base path is a mismatch (exit 1).
    let (code, _, _) = run(vec!["--base-path".into(), "/not/this/one".into()]).await;
    assert_eq!(code, 1);
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (code, out, err) = run(Vec::new()).await;
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "nothing sent, nothing reported: {out}");
    assert!(
        err.contains(&format!("chmod 600 {}", token_file.display())),
        "{err}"
    );
    let (code, _, err) = run_as("qa", Vec::new()).await;
    assert_eq!(code, 2);
    assert!(err.contains("no workspace named \"qa\""), "{err}");
    s.shutdown().await;
}
