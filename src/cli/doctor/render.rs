//! The doctor's human report: `/health` and the identity first, then one line per route, the
//! counts and the exit code. Every server-controlled string in the report is already
//! sanitised; the CLI's writer escapes the rest on the way out.

use super::report::Report;

/// The human report. Every server-controlled string in `report` is already sanitised.
pub fn render_text(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let h = &report.health;
    let _ = writeln!(out, "masc-tui doctor · {}", report.url);
    if !h.reachable {
        let _ = writeln!(
            out,
            "reachable   no · {}",
            h.error.as_deref().unwrap_or("no answer")
        );
        let _ = writeln!(out, "exit 2 (unreachable)");
        return out;
    }
    let _ = writeln!(
        out,
        "reachable   yes · /health {} in {} ms",
        h.status.unwrap_or_default(),
        h.latency_ms.unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "server      {} {} · {}",
        h.server.as_deref().unwrap_or("(no server field)"),
        h.version.as_deref().unwrap_or("(no version)"),
        match (&h.commit, h.commit_field) {
            (Some(c), Some(field)) => format!("{field} {c}"),
            _ => "no build commit".to_string(),
        }
    );
    let _ = writeln!(out, "release     {}", report.release);
    if let Some(i) = &report.identity {
        let _ = writeln!(out, "identity    {} · {}", i.verdict, i.detail);
    }
    let _ = writeln!(
        out,
        "workspace   base {} · root {} · {}",
        h.base_path.as_deref().unwrap_or("?"),
        h.masc_root.as_deref().unwrap_or("?"),
        h.startup.as_deref().unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "admission   {}",
        match report.admission {
            Some("receipts") => "receipt mode: every read must carry the workspace receipt (§2.2)",
            _ =>
                "health mode: no workspace receipts advertised; reads are admitted by /health only (§2.3)",
        }
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<56} {:<8} {:<8} RESULT",
        "ROUTE", "AUTH", "NO TOKEN"
    );
    for r in &report.routes {
        let mut line = format!(
            "{:<56} {:<8} {:<8} {}",
            format!("{} {}", r.method, r.template),
            r.auth,
            r.without_token.as_deref().unwrap_or("-"),
            r.result.as_str()
        );
        if !r.detail.is_empty() {
            let _ = write!(line, " · {}", r.detail);
        }
        if !r.shape.is_empty() {
            let _ = write!(line, " · shape: {}", r.shape);
        }
        if let Some(etag) = &r.etag {
            let _ = write!(line, " · etag {etag}");
        }
        if let Some(receipt) = &r.receipt
            && report.admission == Some("receipts")
        {
            let _ = write!(line, " · receipt {receipt}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let s = &report.summary;
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "summary     {} decode · {} not served · {} served with an object 404 · {} warming · {} fail to decode · {} failed · {} unauthorised · {} not probed",
        s.decodes,
        s.not_served,
        s.object_not_found,
        s.warming,
        s.fails_to_decode,
        s.failed,
        s.unauthorised,
        s.not_probed
    );
    let _ = writeln!(
        out,
        "exit {}{}",
        report.exit_code,
        match report.exit_code {
            0 => " (every served route decodes)",
            1 => " (some routes fail)",
            _ => " (unreachable or unauthorised)",
        }
    );
    out
}
