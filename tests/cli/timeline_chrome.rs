#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! `masc-tui timeline FILE --chrome-trace OUT.json`: the stage trace as a Trace Event Format
//! document (Perfetto, chrome://tracing), checked against the format's rules
//! (`trace_event_format::check`) and against the trace it came from (G-1: read-path evidence,
//! one slice per ticket from dispatch to admission, G-6 tickets).

use super::trace_event_format::check;
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::keepers::KeepersSlot;
use masc_tui::cli::timeline::{Args, run_with};
use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
use masc_tui::timeline::layer::{TimelineLayer, file_subscriber};
use masc_tui::timeline::stage;
use serde_json::Value;
use std::path::Path;

fn line(ts: u64, pid: u32, stage: &str, source: &str, generation: u64, extra: &str) -> String {
    format!(
        r#"{{"ts_us":{ts},"pid":{pid},"stage":"{stage}","source":"{source}","generation":{generation},"epoch":1{extra}}}"#
    )
}

/// Two processes. In pid 7, `keepers_roster`: g1 admitted; g2 failed (timeout) and admitted
/// as a failure; g3 superseded while g4 runs (overlap), rejected; g4 admitted; g5 retired;
/// g6 unfinished. A refused demand and a restart. `save:approval` g1 admitted. In pid 8, one
/// admitted read of `board`.
pub fn sample_trace() -> String {
    let mut l = vec![r#"{"kind":"process","pid":7,"ts_us":0}"#.to_string()];
    let s = "keepers_roster";
    l.push(line(1_000, 7, "dispatch", s, 1, ""));
    l.push(line(1_100, 7, "worker_enter", s, 1, ""));
    l.push(line(1_500, 7, "worker_return", s, 1, r#","outcome":"ok""#));
    l.push(line(1_600, 7, "admit", s, 1, ""));
    l.push(line(2_000, 7, "dispatch", s, 2, ""));
    l.push(line(
        2_400,
        7,
        "worker_return",
        s,
        2,
        r#","outcome":"timeout""#,
    ));
    l.push(line(2_450, 7, "admit", s, 2, ""));
    l.push(line(3_000, 7, "dispatch", s, 3, ""));
    l.push(line(3_200, 7, "dispatch", s, 4, ""));
    l.push(line(3_400, 7, "worker_return", s, 4, r#","outcome":"ok""#));
    l.push(line(3_500, 7, "admit", s, 4, ""));
    l.push(line(3_700, 7, "worker_return", s, 3, r#","outcome":"ok""#));
    l.push(line(3_800, 7, "reject", s, 3, r#","reason":"superseded""#));
    l.push(line(4_000, 7, "dispatch", s, 5, ""));
    l.push(line(4_100, 7, "retire", s, 5, r#","reason":"withdrawn""#));
    l.push(line(
        4_150,
        7,
        "unregistered",
        s,
        5,
        r#","reason":"withdrawn""#,
    ));
    l.push(line(5_000, 7, "dispatch", s, 6, ""));
    l.push(
        r#"{"ts_us":5100,"pid":7,"stage":"refused","source":"keepers_roster","reason":"no_epoch"}"#
            .into(),
    );
    l.push(r#"{"ts_us":5200,"pid":7,"stage":"restart","source":"keepers_roster","attempt":1,"reason":"panicked"}"#.into());
    l.push(line(5_300, 7, "dispatch", "save:approval", 1, ""));
    l.push(line(
        5_600,
        7,
        "worker_return",
        "save:approval",
        1,
        r#","outcome":"ok""#,
    ));
    l.push(line(5_700, 7, "admit", "save:approval", 1, ""));
    l.push(r#"{"ts_us":9000,"pid":7,"level":"INFO","target":"x","message":"last line"}"#.into());
    l.push(r#"{"kind":"process","pid":8,"ts_us":0}"#.to_string());
    l.push(line(10, 8, "dispatch", "board", 1, ""));
    l.push(line(
        30,
        8,
        "worker_return",
        "board",
        1,
        r#","outcome":"ok""#,
    ));
    l.push(line(35, 8, "admit", "board", 1, ""));
    l.join("\n")
}

fn export(dir: &Path, trace: &str) -> (Value, String) {
    let input = dir.join("trace.jsonl");
    std::fs::write(&input, trace).unwrap();
    let output = dir.join("out.json");
    let args = Args {
        file: input,
        json: false,
        chrome_trace: Some(output.clone()),
        svg: None,
    };
    let mut printed = Vec::new();
    assert_eq!(run_with(&args, &mut printed).unwrap(), 0);
    let doc = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    (doc, String::from_utf8(printed).unwrap())
}

#[test]
fn g1_chrome_trace_is_valid_trace_event_format_with_a_track_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, printed) = export(dir.path(), &sample_trace());
    let checked = check(&doc).unwrap_or_else(|e| panic!("{e}\n{doc:#}"));
    assert!(
        printed.contains("8 tickets from 2 process(es)"),
        "{printed}"
    );
    assert_eq!(checked.processes.get(&7).unwrap(), "masc-tui (pid 7)");
    assert_eq!(checked.processes.get(&8).unwrap(), "masc-tui (pid 8)");
    let names: Vec<&str> = checked.threads.values().map(String::as_str).collect();
    // g3 still runs while g4 is dispatched: a second lane, never a crossing slice.
    assert_eq!(
        names,
        [
            "keepers_roster",
            "keepers_roster (overlap 2)",
            "save:approval",
            "board"
        ]
    );
    // One slice per ticket (outer slices carry the ticket's args).
    let tickets: Vec<_> = checked
        .slices
        .iter()
        .filter(|s| s.5.get("generation").is_some())
        .collect();
    assert_eq!(tickets.len(), 8);
    let ticket = |pid: u64, source: &str, g: u64| {
        tickets
            .iter()
            .find(|s| s.0 == pid && s.5["source"] == source && s.5["generation"] == g)
            .unwrap_or_else(|| panic!("no slice for {source} g{g}"))
    };
    // Microseconds, straight from ts_us: dispatch 1000 → admit 1600.
    let g1 = ticket(7, "keepers_roster", 1);
    assert_eq!((g1.2, g1.3, g1.4.as_str()), (1_000, 600, "admitted"));
    let g2 = ticket(7, "keepers_roster", 2);
    assert_eq!(g2.4, "admitted (failed: timeout)");
    assert_eq!(g2.5["failure_class"], "timeout");
    let g3 = ticket(7, "keepers_roster", 3);
    assert_eq!((g3.2, g3.3), (3_000, 800));
    assert_eq!(g3.4, "rejected: superseded");
    assert_ne!(
        g3.1,
        ticket(7, "keepers_roster", 4).1,
        "overlapping tickets share a lane"
    );
    let g5 = ticket(7, "keepers_roster", 5);
    assert_eq!((g5.3, g5.5["outcome"].as_str()), (100, Some("retired")));
    // Unfinished runs to the process's last line (9000).
    let g6 = ticket(7, "keepers_roster", 6);
    assert_eq!((g6.2, g6.3, g6.4.as_str()), (5_000, 4_000, "unfinished"));
    assert_eq!(ticket(7, "save:approval", 1).3, 400);
    assert_eq!(ticket(8, "board", 1).3, 25);
    // The worker return is a slice nested in its ticket: g1's worker ran 1100 → 1500, then
    // the admission 1500 → 1600.
    let nested = |name: &str, ts: u64| {
        checked
            .slices
            .iter()
            .find(|s| s.4 == name && s.2 == ts && s.1 == g1.1)
            .map(|s| s.3)
    };
    assert_eq!(nested("worker", 1_100), Some(400));
    assert_eq!(nested("admission", 1_500), Some(100));
    // Failures, rejections, retirements, refusals and restarts are instants with their reason.
    let mut instants: Vec<(u64, &str)> = checked
        .instants
        .iter()
        .map(|i| (i.2, i.3.as_str()))
        .collect();
    instants.sort();
    assert_eq!(
        instants,
        [
            (2_400, "failed: timeout"),
            (3_800, "rejected: superseded"),
            (4_100, "retired: withdrawn"),
            (5_100, "refused: no_epoch"),
            (5_200, "restart: panicked"),
        ]
    );
}

#[test]
fn the_file_layer_trace_exports_with_its_workspace_digest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
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
        stage::worker_return(&ticket, "ok");
        stage::observe(&ticket, "ok");
        stage::admit(&ticket);
    }
    let (doc, _) = export(dir.path(), &std::fs::read_to_string(&path).unwrap());
    let checked = check(&doc).unwrap();
    let slice = checked
        .slices
        .iter()
        .find(|s| s.5.get("generation").is_some())
        .unwrap();
    assert_eq!(
        slice.5["workspace"],
        stage::workspace_digest("/w/.masc").as_str()
    );
    assert_eq!(slice.5["epoch"], 2);
    assert_eq!(slice.4, "admitted");
    assert!(!serde_json::to_string(&doc).unwrap().contains("/w/.masc"));
}
