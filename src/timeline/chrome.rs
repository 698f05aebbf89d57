//! The timeline as a Chrome trace (the Trace Event Format, JSON object form), for Perfetto UI
//! and `chrome://tracing`.
//!
//! - one process per traced masc-tui process (`pid`), named by a `process_name` metadata event;
//! - one thread track per source (`tid`), named by `thread_name`; a source whose tickets
//!   overlap in time (a superseded read still in flight) gets a second lane, because complete
//!   slices on one track must nest and never cross;
//! - one complete slice (`ph: "X"`) per ticket, from dispatch to its end (admission,
//!   rejection or retirement; an unfinished ticket runs to the process's last line), named by
//!   its outcome; inside it a `worker` slice (worker start → worker return) and an `admission`
//!   slice (worker return → admission);
//! - an instant event (`ph: "i"`, thread scope) for every failure, rejection, retirement,
//!   refused demand and restart, named with its reason.
//!
//! Timestamps and durations are microseconds (`ts_us` of the trace, which is monotonic within
//! one process).

use super::stage::Stage;
use super::tickets::{
    Ending, Marker, ProcessTimeline, TicketInterval, Timeline, lanes, ticket_kind,
};
use serde_json::{Value, json};

/// The name of a ticket's slice: its outcome, and why when it was not applied.
fn ticket_name(t: &TicketInterval) -> String {
    match (&t.ending, &t.failure_class) {
        (Ending::Admitted, Some(class)) => format!("admitted (failed: {class})"),
        (Ending::Admitted, None) => "admitted".to_string(),
        (ending, _) => match ending.reason() {
            Some(reason) => format!("{}: {reason}", ending.outcome()),
            None => ending.outcome().to_string(),
        },
    }
}

/// The word a marker's stage is shown with.
pub fn marker_word(stage: Stage) -> &'static str {
    match stage {
        Stage::WorkerReturn => "failed",
        Stage::Reject => "rejected",
        Stage::Retire => "retired",
        Stage::Refused => "refused",
        Stage::Restart => "restart",
        other => other.as_str(),
    }
}

fn ticket_args(t: &TicketInterval) -> Value {
    let mut args = serde_json::Map::new();
    args.insert("source".into(), t.key.source.clone().into());
    args.insert("generation".into(), t.key.generation.into());
    if let Some(epoch) = t.epoch {
        args.insert("epoch".into(), epoch.into());
    }
    if let Some(ws) = &t.workspace {
        args.insert("workspace".into(), ws.clone().into());
    }
    args.insert("outcome".into(), t.ending.outcome().into());
    if let Some(reason) = t.ending.reason() {
        args.insert("reason".into(), reason.into());
    }
    if let Some(class) = &t.failure_class {
        args.insert("failure_class".into(), class.clone().into());
    }
    Value::Object(args)
}

fn complete(name: &str, cat: &str, pid: u32, tid: u64, ts: u64, end: u64, args: Value) -> Value {
    json!({
        "name": name,
        "cat": cat,
        "ph": "X",
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": end.saturating_sub(ts),
        "args": args,
    })
}

fn ticket_events(t: &TicketInterval, pid: u32, tid: u64, last_us: u64, out: &mut Vec<Value>) {
    let cat = ticket_kind(&t.key.source);
    let end = t.end_us.unwrap_or(last_us).max(t.dispatch_us);
    out.push(complete(
        &ticket_name(t),
        cat,
        pid,
        tid,
        t.dispatch_us,
        end,
        ticket_args(t),
    ));
    let Some(returned) = t.worker_return_us.filter(|r| *r <= end) else {
        return;
    };
    let started = t
        .worker_enter_us
        .filter(|e| *e >= t.dispatch_us && *e <= returned)
        .unwrap_or(t.dispatch_us);
    let outcome = t.failure_class.as_deref().unwrap_or("ok");
    out.push(complete(
        "worker",
        cat,
        pid,
        tid,
        started,
        returned,
        json!({ "outcome": outcome }),
    ));
    if t.end_us.is_some() {
        out.push(complete(
            "admission",
            cat,
            pid,
            tid,
            returned,
            end,
            json!({ "outcome": t.ending.outcome() }),
        ));
    }
}

fn marker_event(m: &Marker, pid: u32, tid: u64) -> Value {
    let mut args = serde_json::Map::new();
    args.insert("reason".into(), m.reason.clone().into());
    if let Some(g) = m.generation {
        args.insert("generation".into(), g.into());
    }
    json!({
        "name": format!("{}: {}", marker_word(m.stage), m.reason),
        "cat": m.stage.as_str(),
        "ph": "i",
        "s": "t",
        "pid": pid,
        "tid": tid,
        "ts": m.ts_us,
        "args": Value::Object(args),
    })
}

fn metadata(name: &str, pid: u32, tid: Option<u64>, args: Value) -> Value {
    let mut event = json!({ "name": name, "ph": "M", "pid": pid, "args": args });
    if let (Some(tid), Some(obj)) = (tid, event.as_object_mut()) {
        obj.insert("tid".into(), tid.into());
    }
    event
}

fn process_events(pid: Option<u32>, process: &ProcessTimeline, out: &mut Vec<Value>) {
    let pid_number = pid.unwrap_or(0);
    let label = match pid {
        Some(p) => format!("masc-tui (pid {p})"),
        None => "masc-tui".to_string(),
    };
    out.push(metadata(
        "process_name",
        pid_number,
        None,
        json!({ "name": label }),
    ));
    let mut next_tid: u64 = 1;
    let mut slices = Vec::new();
    for source in process.sources() {
        let tickets = process.tickets.get(source).map_or(&[][..], Vec::as_slice);
        let (assigned, lane_count) = lanes(tickets, process.last_us);
        let first_tid = next_tid;
        for lane in 0..lane_count.max(1) {
            let tid = first_tid + lane as u64;
            let name = if lane == 0 {
                source.to_string()
            } else {
                format!("{source} (overlap {})", lane + 1)
            };
            out.push(metadata(
                "thread_name",
                pid_number,
                Some(tid),
                json!({ "name": name }),
            ));
            out.push(metadata(
                "thread_sort_index",
                pid_number,
                Some(tid),
                json!({ "sort_index": tid }),
            ));
        }
        next_tid = first_tid + lane_count.max(1) as u64;
        for (ticket, lane) in tickets.iter().zip(assigned) {
            ticket_events(
                ticket,
                pid_number,
                first_tid + lane as u64,
                process.last_us,
                &mut slices,
            );
        }
        for marker in process.markers.get(source).map_or(&[][..], Vec::as_slice) {
            slices.push(marker_event(marker, pid_number, first_tid));
        }
    }
    // Per track by time, a longer slice before the ones it contains: viewers that nest by file
    // order (chrome://tracing) and those that sort (Perfetto) draw the same tree.
    slices.sort_by_key(|e| {
        let n = |k: &str| e.get(k).and_then(Value::as_u64).unwrap_or(0);
        (n("tid"), n("ts"), std::cmp::Reverse(n("dur")))
    });
    out.extend(slices);
}

/// The whole timeline as a Trace Event Format document.
pub fn chrome_trace(timeline: &Timeline) -> Value {
    let mut events = Vec::new();
    for (pid, process) in &timeline.processes {
        process_events(*pid, process, &mut events);
    }
    json!({
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": { "generator": "masc-tui timeline" },
    })
}
