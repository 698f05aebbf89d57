#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The timeline report on synthetic traces (G-1: read-path evidence only), and a round trip
//! through the file layer.

use masc_tui::actors::contract::Ticket;
use masc_tui::actors::keepers::{KeepersSlot, ROSTER};
use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
use masc_tui::timeline::layer::{TimelineLayer, file_subscriber};
use masc_tui::timeline::report::{Report, read_report, render_text};
use masc_tui::timeline::stage;
use std::io::Write;

fn line(ts: u64, pid: u32, stage: &str, source: &str, generation: u64, extra: &str) -> String {
    format!(
        r#"{{"ts_us":{ts},"pid":{pid},"stage":"{stage}","source":"{source}","generation":{generation},"epoch":1{extra}}}"#
    )
}

fn report_of(lines: &[String]) -> Report {
    read_report(lines.join("\n").as_bytes()).unwrap()
}

#[test]
fn counts_unfinished_rejections_and_failures_per_source() {
    let mut lines = vec![r#"{"kind":"process","pid":7,"ts_us":0}"#.to_string()];
    // g1: admitted; g2: failed then admitted as a failure; g3: rejected; g4: retired;
    // g5: dispatched, worker returned, never admitted (unfinished).
    for g in 1..=5 {
        lines.push(line(g * 1000, 7, "dispatch", "keepers_roster", g, ""));
    }
    lines.push(line(
        1500,
        7,
        "worker_return",
        "keepers_roster",
        1,
        r#","outcome":"ok""#,
    ));
    lines.push(line(1600, 7, "admit", "keepers_roster", 1, ""));
    lines.push(line(
        2500,
        7,
        "worker_return",
        "keepers_roster",
        2,
        r#","outcome":"timeout""#,
    ));
    lines.push(line(2600, 7, "admit", "keepers_roster", 2, ""));
    lines.push(line(
        3500,
        7,
        "worker_return",
        "keepers_roster",
        3,
        r#","outcome":"ok""#,
    ));
    lines.push(line(
        3600,
        7,
        "reject",
        "keepers_roster",
        3,
        r#","reason":"stale_epoch""#,
    ));
    lines.push(line(
        4100,
        7,
        "retire",
        "keepers_roster",
        4,
        r#","reason":"superseded""#,
    ));
    lines.push(line(
        5500,
        7,
        "worker_return",
        "keepers_roster",
        5,
        r#","outcome":"status_500""#,
    ));
    lines.push(r#"{"ts_us":9,"pid":7,"level":"INFO","target":"x","message":"m"}"#.to_string());
    lines.push("not json".to_string());
    let r = report_of(&lines);
    assert_eq!(r.processes, 1);
    assert_eq!((r.other_lines, r.unparsed_lines), (1, 1));
    let s = &r.sources[0];
    assert_eq!(s.source, "keepers_roster");
    assert_eq!((s.dispatched, s.admitted, s.unfinished), (5, 2, 1));
    assert_eq!(s.rejected.get("stale_epoch"), Some(&1));
    assert_eq!(s.retired.get("superseded"), Some(&1));
    assert_eq!(s.failed.get("timeout"), Some(&1));
    assert_eq!(s.failed.get("status_500"), Some(&1));
    // dispatch→worker_return: g1 500, g2 500, g3 500, g5 500 µs.
    assert_eq!(s.dispatch_to_worker_return.pairs, 4);
    assert_eq!(s.dispatch_to_worker_return.p50_us, Some(500));
    // worker_return→admit pairs only admitted tickets: g1, g2 (100 µs each).
    assert_eq!(s.worker_return_to_admit.pairs, 2);
    assert_eq!(s.worker_return_to_admit.p95_us, Some(100));
    let text = render_text(&r);
    assert!(text.contains("unfinished 1"), "{text}");
}

#[test]
fn percentiles_are_nearest_rank_over_paired_tickets() {
    let mut lines = Vec::new();
    // 20 tickets with worker latencies 1..=20 ms.
    for g in 1..=20u64 {
        lines.push(line(g * 100_000, 1, "dispatch", "s", g, ""));
        lines.push(line(
            g * 100_000 + g * 1000,
            1,
            "worker_return",
            "s",
            g,
            r#","outcome":"ok""#,
        ));
    }
    let r = report_of(&lines);
    let lat = &r.sources[0].dispatch_to_worker_return;
    assert_eq!(lat.pairs, 20);
    assert_eq!(lat.p50_us, Some(10_000));
    assert_eq!(lat.p95_us, Some(19_000));
    // Never admitted: all 20 are unfinished and stay in the denominator.
    assert_eq!(r.sources[0].unfinished, 20);
    assert_eq!(r.sources[0].dispatched, 20);
}

#[test]
fn times_are_never_subtracted_across_processes() {
    // Same source and generation in two processes: dispatch in pid 1, return in pid 2.
    let lines = vec![
        r#"{"kind":"process","pid":1,"ts_us":0}"#.to_string(),
        r#"{"ts_us":100,"stage":"dispatch","source":"s","generation":1,"epoch":1}"#.to_string(),
        r#"{"kind":"process","pid":2,"ts_us":0}"#.to_string(),
        r#"{"ts_us":5,"stage":"worker_return","source":"s","generation":1,"epoch":1,"outcome":"ok"}"#.to_string(),
    ];
    let r = report_of(&lines);
    assert_eq!(r.processes, 2);
    assert_eq!(r.sources[0].dispatch_to_worker_return.pairs, 0);
    assert_eq!(r.sources[0].unfinished, 1);
}

#[test]
fn the_file_layer_writes_records_the_report_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/trace.jsonl");
    let layer = TimelineLayer::create(&path).unwrap();
    let ticket = Ticket {
        slot: KeepersSlot::Roster,
        generation: 3,
        scope: ReadScope {
            workspace: WorkspaceId("/w/.masc".into()),
            epoch: 2,
        },
    };
    {
        let _g = tracing::subscriber::set_default(file_subscriber(layer));
        stage::dispatch(&ticket);
        stage::worker_enter(&ticket);
        stage::worker_return(&ticket, "receipt_missing");
        stage::observe(&ticket, "receipt_missing");
        stage::reject(&ticket, "stale_epoch");
        stage::refused(&ROSTER, "no_epoch");
        tracing::info!(target: "masc_tui::other", "plain event");
        tracing::debug!(target: "masc_tui::other", "below the file level");
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["kind"], "process");
    let dispatch = &lines[1];
    assert_eq!(dispatch["stage"], "dispatch");
    assert_eq!(dispatch["source"], "keepers_roster");
    assert_eq!(dispatch["generation"], 3);
    assert_eq!(dispatch["epoch"], 2);
    // The workspace as its digest, so exports tell workspaces apart without the path (G-10).
    assert_eq!(
        dispatch["workspace"],
        stage::workspace_digest("/w/.masc").as_str()
    );
    assert!(dispatch["ts_us"].is_u64());
    // ts_us is monotonic within the process.
    let ts: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l["ts_us"].as_u64().unwrap())
        .collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]));
    let plain = lines.last().unwrap();
    assert_eq!(plain["level"], "INFO");
    assert_eq!(plain["message"], "plain event");
    assert!(!text.contains("below the file level"));
    // No workspace path reaches a stage record (G-10).
    assert!(!text.contains("/w/.masc"));

    let r = read_report(std::io::BufReader::new(std::fs::File::open(&path).unwrap())).unwrap();
    let s = &r.sources[0];
    assert_eq!((s.dispatched, s.unfinished), (1, 0));
    assert_eq!(s.failed.get("receipt_missing"), Some(&1));
    assert_eq!(s.rejected.get("stale_epoch"), Some(&1));
    assert_eq!(s.refused.get("no_epoch"), Some(&1));
}

#[test]
fn the_cli_prints_the_report_as_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "{}", line(10, 3, "dispatch", "keepers_roster", 1, "")).unwrap();
    writeln!(
        f,
        "{}",
        line(
            30,
            3,
            "worker_return",
            "keepers_roster",
            1,
            r#","outcome":"ok""#
        )
    )
    .unwrap();
    writeln!(f, "{}", line(70, 3, "admit", "keepers_roster", 1, "")).unwrap();
    drop(f);
    let bin = env!("CARGO_BIN_EXE_masc-tui");
    let out = std::process::Command::new(bin)
        .args(["timeline", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sources"][0]["admitted"], 1);
    assert_eq!(v["sources"][0]["worker_return_to_admit"]["p50_us"], 40);
    let out = std::process::Command::new(bin)
        .args(["timeline", path.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("keepers_roster"), "{text}");
    let missing = std::process::Command::new(bin)
        .args(["timeline", dir.path().join("absent").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!missing.status.success());
}

/// Idle network, G-8: the client's one event per HTTP read is counted per route
/// family with its 304s, failures, body bytes and rates per minute over the trace's span, and
/// the decode wait of decoded bodies; it is neither a stage record nor an "other" line.
#[test]
fn issue15_requests_per_route_per_minute_and_decode_wait() {
    fn read(ts: u64, route: &str, status: u16, bytes: u64, wait: Option<u64>) -> String {
        let timing = wait.map_or(String::new(), |w| {
            format!(r#","decode_wait_us":{w},"decode_us":{}"#, w / 2)
        });
        format!(
            r#"{{"ts_us":{ts},"pid":7,"level":"INFO","target":"masc_tui::request","message":"read","fields":{{"route":"{route}","status":{status},"bytes":{bytes},"conditional":true{timing}}}}}"#
        )
    }
    let mut lines = vec![r#"{"kind":"process","pid":7,"ts_us":0}"#.to_string()];
    // Two minutes of trace: 6 roster reads (4 of them 304), 2 health reads (one failed).
    for i in 0..6u64 {
        let (status, bytes, wait) = if i < 2 {
            (200, 1000, Some(400 + i * 100))
        } else {
            (304, 0, None)
        };
        lines.push(read(i * 20_000_000, "gate_keepers", status, bytes, wait));
    }
    lines.push(read(30_000_000, "health", 200, 300, Some(50)));
    lines.push(read(60_000_000, "health", 503, 10, None));
    lines.push(line(70_000_000, 7, "dispatch", "keepers_roster", 1, ""));
    lines.push(
        r#"{"ts_us":120000000,"pid":7,"level":"INFO","target":"masc_tui::other","message":"x"}"#
            .to_string(),
    );
    let r = report_of(&lines);
    assert_eq!(r.span_us, 120_000_000);
    assert_eq!((r.request_lines, r.other_lines, r.stage_records), (8, 1, 1));
    let roster = r
        .requests
        .iter()
        .find(|q| q.route == "gate_keepers")
        .unwrap();
    assert_eq!(
        (
            roster.requests,
            roster.not_modified,
            roster.failed,
            roster.bytes
        ),
        (6, 4, 0, 2000)
    );
    assert_eq!(roster.per_minute, Some(3.0));
    assert_eq!(roster.bytes_per_minute, Some(1000.0));
    assert_eq!(roster.decode_wait.pairs, 2);
    let health = r.requests.iter().find(|q| q.route == "health").unwrap();
    assert_eq!((health.requests, health.failed, health.bytes), (2, 1, 310));
    assert_eq!(r.sources[0].dispatched_per_minute, Some(0.5));
    let text = render_text(&r);
    assert!(text.contains("HTTP reads per route (8 requests, 2310 body bytes; 4.0 per minute"));
}
