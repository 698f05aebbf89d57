#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! A checker for the Trace Event Format rules Perfetto's and chrome://tracing's JSON importers
//! rely on (the format document "Trace Event Format", Google, 2016): the object form with
//! `traceEvents`; every event a known phase with a name and an integer `pid`/`tid`; `ts` and
//! `dur` in microseconds, non-negative numbers; `B`/`E` matched per thread, last opened first
//! closed, with the same name; complete (`X`) and `B`/`E` slices on one thread nesting, never
//! crossing; instant events scoped `g`, `p` or `t`; every process and thread named by `M`
//! metadata events.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What a valid document holds, for the tests' own assertions.
#[derive(Debug, Default)]
pub struct Checked {
    /// Thread names by (pid, tid).
    pub threads: BTreeMap<(u64, u64), String>,
    /// Process names by pid.
    pub processes: BTreeMap<u64, String>,
    /// Complete slices: (pid, tid, ts, dur, name, args).
    pub slices: Vec<(u64, u64, u64, u64, String, Value)>,
    /// Instant events: (pid, tid, ts, name, args).
    pub instants: Vec<(u64, u64, u64, String, Value)>,
}

/// (pid, tid).
type Thread = (u64, u64);

const PHASES: &[&str] = &[
    "B", "E", "X", "i", "I", "C", "b", "n", "e", "s", "t", "f", "P", "N", "O", "D", "M", "R",
];

fn int(e: &Value, k: &str) -> Result<u64, String> {
    e.get(k)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("`{k}` is not a non-negative integer in {e}"))
}

/// Checks `doc` against the rules above.
pub fn check(doc: &Value) -> Result<Checked, String> {
    let events = doc
        .get("traceEvents")
        .and_then(Value::as_array)
        .ok_or("no traceEvents array")?;
    if let Some(unit) = doc.get("displayTimeUnit")
        && unit != "ms"
        && unit != "ns"
    {
        return Err(format!("displayTimeUnit {unit}"));
    }
    let mut checked = Checked::default();
    let mut used: BTreeSet<(u64, u64)> = BTreeSet::new();
    // Per thread: (start, end, name) of every slice, for the nesting check.
    let mut per_thread: BTreeMap<Thread, Vec<(u64, u64, String)>> = BTreeMap::new();
    let mut open: BTreeMap<Thread, Vec<(u64, String)>> = BTreeMap::new();
    for e in events {
        let ph = e
            .get("ph")
            .and_then(Value::as_str)
            .ok_or("event without ph")?;
        if !PHASES.contains(&ph) {
            return Err(format!("unknown phase {ph}"));
        }
        let name = e
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("event without a name: {e}"))?
            .to_string();
        let pid = int(e, "pid")?;
        if ph == "M" {
            let label = e["args"]["name"].as_str().map(str::to_string);
            match name.as_str() {
                "process_name" => {
                    checked
                        .processes
                        .insert(pid, label.ok_or("process_name without args.name")?);
                }
                "thread_name" => {
                    let tid = int(e, "tid")?;
                    checked
                        .threads
                        .insert((pid, tid), label.ok_or("thread_name without args.name")?);
                }
                _ => {}
            }
            continue;
        }
        let tid = int(e, "tid")?;
        let ts = e
            .get("ts")
            .and_then(Value::as_f64)
            .filter(|t| *t >= 0.0)
            .ok_or_else(|| format!("`ts` is not a non-negative number in {e}"))?;
        // Microseconds as integers here: the trace's own clock is whole microseconds.
        let ts = int(e, "ts").map_err(|_| format!("ts {ts} is not whole µs"))?;
        used.insert((pid, tid));
        match ph {
            "X" => {
                let dur = int(e, "dur")?;
                per_thread
                    .entry((pid, tid))
                    .or_default()
                    .push((ts, ts + dur, name.clone()));
                checked
                    .slices
                    .push((pid, tid, ts, dur, name, e["args"].clone()));
            }
            "B" => open.entry((pid, tid)).or_default().push((ts, name)),
            "E" => {
                let (start, opened) = open
                    .entry((pid, tid))
                    .or_default()
                    .pop()
                    .ok_or_else(|| format!("E without B on {pid}/{tid} at {ts}"))?;
                if ts < start || (!name.is_empty() && name != opened) {
                    return Err(format!(
                        "E {name} at {ts} does not close B {opened} at {start}"
                    ));
                }
                per_thread
                    .entry((pid, tid))
                    .or_default()
                    .push((start, ts, opened));
            }
            "i" | "I" => {
                let scope = e.get("s").and_then(Value::as_str).unwrap_or("t");
                if !["g", "p", "t"].contains(&scope) {
                    return Err(format!("instant scope {scope}"));
                }
                checked
                    .instants
                    .push((pid, tid, ts, name, e["args"].clone()));
            }
            _ => {}
        }
    }
    if let Some(((pid, tid), left)) = open.iter().find(|(_, v)| !v.is_empty()) {
        return Err(format!("{} B without E on {pid}/{tid}", left.len()));
    }
    for ((pid, tid), mut slices) in per_thread {
        slices.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
        let mut stack: Vec<(u64, u64, String)> = Vec::new();
        for (s, e, name) in slices {
            while stack
                .last()
                .is_some_and(|(_, end, _)| *end <= s && !(*end == s && e == s))
            {
                stack.pop();
            }
            if let Some((ps, pe, pname)) = stack.last()
                && e > *pe
            {
                return Err(format!(
                    "on {pid}/{tid} {name} [{s},{e}] crosses {pname} [{ps},{pe}]"
                ));
            }
            stack.push((s, e, name));
        }
    }
    for (pid, tid) in &used {
        if !checked.processes.contains_key(pid) {
            return Err(format!("pid {pid} has no process_name"));
        }
        if !checked.threads.contains_key(&(*pid, *tid)) {
            return Err(format!("{pid}/{tid} has no thread_name"));
        }
    }
    Ok(checked)
}

#[test]
fn the_checker_refuses_crossing_slices_unnamed_threads_and_unmatched_ends() {
    let named = |extra: Vec<Value>| {
        let mut events = vec![
            serde_json::json!({"name":"process_name","ph":"M","pid":1,"args":{"name":"p"}}),
            serde_json::json!({"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"t"}}),
        ];
        events.extend(extra);
        serde_json::json!({ "traceEvents": events })
    };
    let x = |ts: u64, dur: u64| serde_json::json!({"name":"x","ph":"X","pid":1,"tid":1,"ts":ts,"dur":dur});
    assert!(check(&named(vec![x(0, 10), x(2, 3), x(10, 5)])).is_ok());
    assert!(
        check(&named(vec![x(0, 10), x(5, 10)]))
            .unwrap_err()
            .contains("crosses")
    );
    let unnamed = serde_json::json!({"name":"x","ph":"X","pid":1,"tid":2,"ts":0,"dur":1});
    assert!(
        check(&named(vec![unnamed]))
            .unwrap_err()
            .contains("thread_name")
    );
    let end = serde_json::json!({"name":"x","ph":"E","pid":1,"tid":1,"ts":3});
    assert!(
        check(&named(vec![end]))
            .unwrap_err()
            .contains("E without B")
    );
    let fractional = serde_json::json!({"name":"x","ph":"X","pid":1,"tid":1,"ts":0.5,"dur":1});
    assert!(check(&named(vec![fractional])).is_err());
}
