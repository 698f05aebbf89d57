//! The timeline report: per source, what was dispatched and what became of it, and how long the
//! worker and the admission took (G-1: this is read-path evidence, never Task progress).
//!
//! Pairing is by (process, source, generation) and only within one process: a file holding
//! several processes (concatenated traces) never subtracts times across them.

use super::record::StageRecord;
use super::trace_lines::{TraceLine, read_trace};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

/// p50/p95 of one latency, in microseconds (nearest rank); `None` when nothing paired.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Latency {
    pub pairs: u64,
    pub p50_us: Option<u64>,
    pub p95_us: Option<u64>,
}

impl Latency {
    fn from_samples(mut samples: Vec<u64>) -> Self {
        samples.sort_unstable();
        Self {
            pairs: samples.len() as u64,
            p50_us: percentile(&samples, 50),
            p95_us: percentile(&samples, 95),
        }
    }
}

/// Nearest-rank percentile of sorted samples.
pub fn percentile(sorted: &[u64], p: u32) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len() as u64;
    let rank = (u64::from(p) * n).div_ceil(100).max(1);
    let idx = usize::try_from(rank - 1)
        .unwrap_or(usize::MAX)
        .min(sorted.len() - 1);
    sorted.get(idx).copied()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SourceReport {
    pub source: String,
    pub dispatched: u64,
    pub admitted: u64,
    pub rejected: BTreeMap<String, u64>,
    pub retired: BTreeMap<String, u64>,
    /// Worker results that were errors, by `ClientError` class.
    pub failed: BTreeMap<String, u64>,
    /// Demands refused before a ticket existed, by reason.
    pub refused: BTreeMap<String, u64>,
    pub restarts: u64,
    /// Dispatched but never admitted, rejected or retired (still in the denominator).
    pub unfinished: u64,
    pub dispatch_to_worker_return: Latency,
    pub worker_return_to_admit: Latency,
    /// Dispatches per minute over the trace's span (`None` for a span under a second).
    pub dispatched_per_minute: Option<f64>,
}

/// The HTTP reads of one route family (the client's `masc_tui::request` events).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RouteRequests {
    pub route: String,
    pub requests: u64,
    /// Answered 304 (nothing sent but headers).
    pub not_modified: u64,
    /// Answered neither 2xx nor 304.
    pub failed: u64,
    /// Response body bytes.
    pub bytes: u64,
    /// Over the trace's span (`None` for a span under a second).
    pub per_minute: Option<f64>,
    pub bytes_per_minute: Option<f64>,
    /// Hand-off to the decode pool until the value was back (G-8), decoded bodies only.
    pub decode_wait: Latency,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub sources: Vec<SourceReport>,
    /// HTTP reads per route family, with rates per minute.
    pub requests: Vec<RouteRequests>,
    pub stage_records: u64,
    /// `masc_tui::request` events (not counted in `other_lines`).
    pub request_lines: u64,
    pub other_lines: u64,
    pub unparsed_lines: u64,
    pub processes: u64,
    /// Microseconds between the first and the last line of each process, summed.
    pub span_us: u64,
}

/// `count` per minute over `span_us` (`None` under a second of trace).
fn per_minute(count: u64, span_us: u64) -> Option<f64> {
    (span_us >= 1_000_000).then(|| count as f64 * 60_000_000.0 / span_us as f64)
}

#[derive(Default)]
struct RouteTally {
    requests: u64,
    not_modified: u64,
    failed: u64,
    bytes: u64,
    waits: Vec<u64>,
}

impl RouteTally {
    fn add(&mut self, fields: &serde_json::Value) {
        let number = |k: &str| fields.get(k).and_then(serde_json::Value::as_u64);
        self.requests += 1;
        match number("status") {
            Some(304) => self.not_modified += 1,
            Some(s) if (200..300).contains(&s) => {}
            _ => self.failed += 1,
        }
        self.bytes += number("bytes").unwrap_or(0);
        if let Some(wait) = number("decode_wait_us") {
            self.waits.push(wait);
        }
    }
}

type TicketKey = (Option<u32>, String, u64);

#[derive(Default)]
struct TicketTimes {
    dispatch: Option<u64>,
    worker_return: Option<u64>,
    admit: Option<u64>,
    ended: bool,
}

/// Reads a JSONL trace and builds the report.
pub fn read_report(input: impl BufRead) -> std::io::Result<Report> {
    let mut report = Report::default();
    let mut per_source: BTreeMap<String, SourceReport> = BTreeMap::new();
    let mut tickets: HashMap<TicketKey, TicketTimes> = HashMap::new();
    let mut processes = std::collections::BTreeSet::new();
    let mut routes: BTreeMap<String, RouteTally> = BTreeMap::new();
    let mut spans: HashMap<Option<u32>, (u64, u64)> = HashMap::new();

    read_trace(input, |stamp, line| {
        if let Some(ts) = stamp.ts_us {
            let span = spans.entry(stamp.pid).or_insert((ts, ts));
            span.0 = span.0.min(ts);
            span.1 = span.1.max(ts);
        }
        match line {
            TraceLine::Process => {
                processes.insert(stamp.pid);
            }
            TraceLine::Request(fields) => {
                let route = fields
                    .get("route")
                    .and_then(|r| r.as_str())
                    .unwrap_or("unspecified")
                    .to_string();
                routes.entry(route).or_default().add(&fields);
                report.request_lines += 1;
            }
            TraceLine::Other => report.other_lines += 1,
            TraceLine::Unparsed => report.unparsed_lines += 1,
            TraceLine::Stage(record) => {
                processes.insert(record.pid);
                report.stage_records += 1;
                apply(&record, &mut per_source, &mut tickets);
            }
        }
    })?;

    let mut to_return: HashMap<String, Vec<u64>> = HashMap::new();
    let mut to_admit: HashMap<String, Vec<u64>> = HashMap::new();
    for ((_, source, _), times) in &tickets {
        let Some(dispatch) = times.dispatch else {
            continue;
        };
        let entry = per_source.entry(source.clone()).or_default();
        if !times.ended {
            entry.unfinished += 1;
        }
        if let Some(ret) = times.worker_return {
            to_return
                .entry(source.clone())
                .or_default()
                .push(ret.saturating_sub(dispatch));
            if let Some(admit) = times.admit {
                to_admit
                    .entry(source.clone())
                    .or_default()
                    .push(admit.saturating_sub(ret));
            }
        }
    }
    for (source, entry) in &mut per_source {
        entry.source = source.clone();
        entry.dispatch_to_worker_return =
            Latency::from_samples(to_return.remove(source).unwrap_or_default());
        entry.worker_return_to_admit =
            Latency::from_samples(to_admit.remove(source).unwrap_or_default());
    }
    report.span_us = spans.values().map(|(a, b)| b - a).sum();
    let span = report.span_us;
    for entry in per_source.values_mut() {
        entry.dispatched_per_minute = per_minute(entry.dispatched, span);
    }
    report.sources = per_source.into_values().collect();
    report.requests = routes
        .into_iter()
        .map(|(route, t)| RouteRequests {
            route,
            requests: t.requests,
            not_modified: t.not_modified,
            failed: t.failed,
            bytes: t.bytes,
            per_minute: per_minute(t.requests, span),
            bytes_per_minute: per_minute(t.bytes, span),
            decode_wait: Latency::from_samples(t.waits),
        })
        .collect();
    report.processes = processes.len() as u64;
    Ok(report)
}

fn bump(map: &mut BTreeMap<String, u64>, key: Option<&str>) {
    *map.entry(key.unwrap_or("unspecified").to_string())
        .or_default() += 1;
}

fn apply(
    r: &StageRecord,
    per_source: &mut BTreeMap<String, SourceReport>,
    tickets: &mut HashMap<TicketKey, TicketTimes>,
) {
    let entry = per_source.entry(r.source.clone()).or_default();
    let ticket = r
        .generation
        .map(|g| tickets.entry((r.pid, r.source.clone(), g)).or_default());
    match r.stage.as_str() {
        "dispatch" => {
            entry.dispatched += 1;
            if let Some(t) = ticket {
                t.dispatch.get_or_insert(r.ts_us);
            }
        }
        "worker_return" => {
            if let Some(outcome) = r.outcome.as_deref().filter(|o| *o != "ok") {
                bump(&mut entry.failed, Some(outcome));
            }
            if let Some(t) = ticket {
                t.worker_return.get_or_insert(r.ts_us);
            }
        }
        "admit" => {
            entry.admitted += 1;
            if let Some(t) = ticket {
                t.admit.get_or_insert(r.ts_us);
                t.ended = true;
            }
        }
        "reject" => {
            bump(&mut entry.rejected, r.reason.as_deref());
            if let Some(t) = ticket {
                t.ended = true;
            }
        }
        "retire" => {
            bump(&mut entry.retired, r.reason.as_deref());
            if let Some(t) = ticket {
                t.ended = true;
            }
        }
        "refused" => bump(&mut entry.refused, r.reason.as_deref()),
        "restart" => entry.restarts += 1,
        _ => {}
    }
}

fn ms(us: Option<u64>) -> String {
    match us {
        Some(us) => format!("{:.1}", us as f64 / 1000.0),
        None => "-".to_string(),
    }
}

fn counts(map: &BTreeMap<String, u64>) -> String {
    map.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn rate(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

/// Plain-text rendering, one block per source, then the HTTP reads per route.
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} stage records from {} process(es); {} other lines, {} unparsed\n",
        report.stage_records, report.processes, report.other_lines, report.unparsed_lines
    ));
    out.push_str(&format!(
        "trace span {:.1} s\n",
        report.span_us as f64 / 1_000_000.0
    ));
    for s in &report.sources {
        let rejected: u64 = s.rejected.values().sum();
        let retired: u64 = s.retired.values().sum();
        let failed: u64 = s.failed.values().sum();
        out.push_str(&format!(
            "\n{}\n  dispatched {}  admitted {}  rejected {}  retired {}  failed {}  unfinished {}  restarts {}\n",
            s.source, s.dispatched, s.admitted, rejected, retired, failed, s.unfinished, s.restarts
        ));
        for (label, map) in [
            ("rejected", &s.rejected),
            ("retired", &s.retired),
            ("failed", &s.failed),
            ("refused", &s.refused),
        ] {
            if !map.is_empty() {
                out.push_str(&format!("  {label}: {}\n", counts(map)));
            }
        }
        out.push_str(&format!(
            "  dispatch→worker_return ms  p50 {}  p95 {}  ({} pairs)\n",
            ms(s.dispatch_to_worker_return.p50_us),
            ms(s.dispatch_to_worker_return.p95_us),
            s.dispatch_to_worker_return.pairs
        ));
        out.push_str(&format!(
            "  worker_return→admit ms     p50 {}  p95 {}  ({} pairs)\n",
            ms(s.worker_return_to_admit.p50_us),
            ms(s.worker_return_to_admit.p95_us),
            s.worker_return_to_admit.pairs
        ));
        out.push_str(&format!(
            "  dispatches per minute {}\n",
            rate(s.dispatched_per_minute)
        ));
    }
    if !report.requests.is_empty() {
        let total: u64 = report.requests.iter().map(|r| r.requests).sum();
        let bytes: u64 = report.requests.iter().map(|r| r.bytes).sum();
        out.push_str(&format!(
            "\nHTTP reads per route ({} requests, {} body bytes; {} per minute, {} bytes per minute)\n",
            total,
            bytes,
            rate(per_minute(total, report.span_us)),
            rate(per_minute(bytes, report.span_us)),
        ));
        for r in &report.requests {
            out.push_str(&format!(
                "  {:<28} {:>6} req  {:>7}/min  304 {:>5}  failed {:>4}  {:>9} B  {:>9} B/min  decode_wait ms p50 {} p95 {}\n",
                r.route,
                r.requests,
                rate(r.per_minute),
                r.not_modified,
                r.failed,
                r.bytes,
                rate(r.bytes_per_minute),
                ms(r.decode_wait.p50_us),
                ms(r.decode_wait.p95_us),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), Some(10));
        assert_eq!(percentile(&v, 95), Some(19));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }
}
