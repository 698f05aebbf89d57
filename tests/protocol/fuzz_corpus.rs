//! The fuzz corpus kept in `tests/fuzz-corpus/<target>/`, replayed on stable
//! Rust by every test run. Each input goes through its target under `catch_unwind`: nothing may
//! panic, and every text a terminal would show (the sanitiser's output, the CLI's output of
//! `decode`, `timeline` and `final-check`) must hold no control or bidi character.
//!
//! The corpus is made by [`regenerate_fuzz_corpus`] (ignored; see docs/audits/fuzz-corpus.md):
//! hand-made hostile inputs, then a deterministic, outcome-guided mutation fuzzer that keeps an
//! input only when it shows the target a new behaviour (a new decode verdict per kind, a new
//! stream outcome, a new event kind, …).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::chat::ChatStreamReader;
use masc_tui::protocol::sse::SseFramer;
use masc_tui::sanitize::{
    is_terminal_safe, needs_escape, sanitize, sanitize_bytes, sanitize_bytes_block, to_json_string,
    to_json_string_pretty,
};
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Every fuzz target, one corpus directory each.
const TARGETS: &[&str] = &[
    "decode",
    "sse",
    "chat_stream",
    "sanitize",
    "coop_report",
    "tty_input",
    "timeline",
    "fault_plan",
];

/// Largest input the generator writes (the replay reads any size).
const MAX_INPUT: usize = 8 * 1024;
/// Generated inputs kept per target.
const MAX_GENERATED: usize = 64;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus")
}

fn assert_safe(what: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    assert!(
        is_terminal_safe(text),
        "{what}: a control or bidi character reached the output: {text:?}"
    );
}

fn bucket(n: usize) -> usize {
    match n {
        0..=2 => n,
        3..=9 => 3,
        _ => 10,
    }
}

/// Runs one input through `target`, checks its properties (panicking on a violation) and
/// returns the behaviours it showed (the generator keeps inputs that show a new one).
fn run_target(target: &str, bytes: &[u8]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    match target {
        "decode" => {
            for kind in masc_tui::protocol::kinds::KINDS {
                let verdict = match masc_tui::protocol::kinds::decode_kind(kind, bytes) {
                    None => "unknown".to_string(),
                    Some(Ok(_)) => "decoded".to_string(),
                    Some(Err(e)) => {
                        format!("{}@{}", e.reason(), e.path.split('[').next().unwrap_or(""))
                    }
                };
                seen.insert(format!("{kind}:{verdict}"));
                // What `masc-tui decode` prints for it.
                let args = masc_tui::cli::decode::Args {
                    kind: kind.to_string(),
                    file: "-".into(),
                };
                let (mut out, mut err) = (Vec::new(), Vec::new());
                masc_tui::cli::decode::run_with(&args, &mut &bytes[..], &mut out, &mut err)
                    .unwrap();
                assert_safe(&format!("decode --as {kind} stdout"), &out);
                assert_safe(&format!("decode --as {kind} stderr"), &err);
            }
        }
        "sse" => {
            for chunk in [bytes.len().max(1), 7, 1] {
                let mut framer = SseFramer::new();
                let mut frames = 0;
                let mut failed = false;
                for piece in bytes.chunks(chunk) {
                    match framer.push(piece) {
                        Ok(f) => {
                            frames += f.len();
                            for frame in f {
                                seen.insert(format!(
                                    "id={} event={} data_lines={}",
                                    frame.id.is_some(),
                                    frame.event.is_some(),
                                    bucket(frame.data.lines().count())
                                ));
                            }
                        }
                        Err(_) => {
                            failed = true;
                            break;
                        }
                    }
                }
                seen.insert(format!(
                    "chunk={} frames={} failed={failed} partial={}",
                    chunk.min(8),
                    bucket(frames),
                    framer.has_partial()
                ));
            }
        }
        "chat_stream" => {
            for (request, keeper) in [(Some("tui-1"), Some("rondo")), (None, None)] {
                let mut whole = ChatStreamReader::new(request, keeper);
                let verdict = whole.push(bytes).and_then(|events| {
                    seen.insert(format!("events={}", bucket(events.len())));
                    whole.finish()
                });
                let label = match &verdict {
                    Ok(outcome) => format!("{outcome:?}")
                        .split([' ', '{', '('])
                        .next()
                        .unwrap_or("")
                        .to_string(),
                    Err(e) => e.reason().to_string(),
                };
                seen.insert(format!("{}:{label}", request.is_some()));
                // Chunked feeding reaches the same verdict.
                let mut chunked = ChatStreamReader::new(request, keeper);
                let mut result = Ok(());
                for piece in bytes.chunks(5) {
                    if result.is_ok() {
                        result = chunked.push(piece).map(|_| ());
                    }
                }
                let chunked_verdict = result.and_then(|_| chunked.finish());
                assert_eq!(verdict, chunked_verdict, "chunking changed the verdict");
            }
        }
        "sanitize" => {
            let one_line = sanitize_bytes(bytes);
            assert!(
                !one_line.chars().any(needs_escape),
                "sanitize_bytes left a control: {one_line:?}"
            );
            assert_safe(
                "sanitize_bytes_block",
                sanitize_bytes_block(bytes).as_bytes(),
            );
            let text = String::from_utf8_lossy(bytes);
            let cow = sanitize(&text);
            assert!(
                !cow.chars().any(needs_escape),
                "sanitize left a control: {cow:?}"
            );
            for json in [
                to_json_string(&*text),
                to_json_string_pretty(&serde_json::json!({"v": &*text})),
            ] {
                let json = json.unwrap();
                assert_safe("to_json_string", json.as_bytes());
            }
            let back: String = serde_json::from_str(&to_json_string(&*text).unwrap()).unwrap();
            assert_eq!(back, text, "the JSON value survives exactly");
            let mut previous = "start";
            for c in text.chars() {
                let class = match c as u32 {
                    0x0A => "lf",
                    0x00..=0x1F => "c0",
                    0x7F => "del",
                    0x80..=0x9F => "c1",
                    _ if needs_escape(c) => "bidi",
                    0x20..=0x7E => "ascii",
                    _ => "other",
                };
                seen.insert(format!("{previous}>{class}"));
                previous = class;
            }
            if std::str::from_utf8(bytes).is_err() {
                seen.insert("invalid_utf8".into());
            }
        }
        "coop_report" => {
            let Ok(text) = std::str::from_utf8(bytes) else {
                seen.insert("not_utf8".into());
                return seen;
            };
            let analysis = masc_tui::protocol::coop_report::analyse(text);
            seen.insert(format!(
                "reports={} invalid={} leaks={} spans={}",
                bucket(analysis.reports.len()),
                bucket(analysis.invalid_reports.len()),
                bucket(analysis.leaks.len()),
                bucket(analysis.spans.len())
            ));
            for leak in &analysis.leaks {
                seen.insert(format!("leak:{}", leak.cause.name()));
            }
            for invalid in &analysis.invalid_reports {
                seen.insert(format!("invalid:{}", invalid.cause.name()));
            }
            for json in [false, true] {
                let args = masc_tui::cli::final_check::Args { input: None, json };
                let mut out = Vec::new();
                masc_tui::cli::final_check::run_on(&args, bytes, &mut out).unwrap();
                assert_safe("final-check", &out);
            }
        }
        "tty_input" => {
            for event in masc_tui::view::terminal::tty_input::parse_all(bytes) {
                use crossterm::event::Event;
                let shape = match &event {
                    Event::Key(k) => format!(
                        "key {:?} {:?} {:?}",
                        std::mem::discriminant(&k.code),
                        k.modifiers,
                        k.kind
                    ),
                    Event::Mouse(m) => format!("mouse {:?} {:?}", m.kind, m.modifiers),
                    Event::Paste(p) => format!("paste {}", bucket(p.len())),
                    other => format!("{other:?}"),
                };
                seen.insert(shape);
            }
            // Byte by byte, as a slow terminal delivers it.
            let mut parser = masc_tui::view::terminal::tty_input::InputParser::default();
            for b in bytes {
                parser.advance(std::slice::from_ref(b), true);
                while parser.next_event().is_some() {}
            }
            parser.advance(&[], false);
        }
        "timeline" => {
            let report = masc_tui::timeline::report::read_report(bytes).unwrap();
            seen.insert(format!(
                "records={} unparsed={} other={} sources={}",
                bucket(report.stage_records as usize),
                bucket(report.unparsed_lines as usize),
                bucket(report.other_lines as usize),
                bucket(report.sources.len())
            ));
            let mut out = Vec::new();
            masc_tui::cli::out::text(&mut out, &masc_tui::timeline::report::render_text(&report))
                .unwrap();
            masc_tui::cli::out::json(&mut out, &report).unwrap();
            assert_safe("timeline", &out);
        }
        "fault_plan" => {
            let text = String::from_utf8_lossy(bytes);
            match masc_tui::server::faults::FaultPlan::from_json(&text) {
                Ok(plan) => {
                    seen.insert(format!("ok rules={}", bucket(plan.rules.len())));
                    let mut engine = masc_tui::server::faults::FaultEngine::new(plan);
                    for (m, p) in [
                        ("GET", "/api/v1/gate/keepers"),
                        ("POST", "/api/v1/keepers/chat/stream"),
                    ] {
                        let fired = engine.decide(m, p, "limit=1");
                        seen.insert(format!("fired={}", bucket(fired.len())));
                    }
                }
                Err(e) => {
                    // The message without its quoted details and position.
                    let message = e.to_string();
                    let head = message.split(['`', '"', ',']).next().unwrap_or("");
                    seen.insert(format!("err:{:?}:{head}", e.classify()));
                }
            }
        }
        other => panic!("unknown fuzz target {other}"),
    }
    seen
}

fn corpus_files(target: &str) -> Vec<PathBuf> {
    let dir = corpus_dir().join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The replay: every corpus input of every target, no panic, every property held.
#[test]
fn issue16_fuzz_corpus_replays_without_panics_or_leaks() {
    let mut failures = Vec::new();
    let mut total = 0;
    for target in TARGETS {
        let files = corpus_files(target);
        assert!(
            files.len() >= 8,
            "{target}: the corpus holds {} inputs (regenerate it, docs/audits/fuzz-corpus.md)",
            files.len()
        );
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            total += 1;
            let outcome = catch_unwind(AssertUnwindSafe(|| run_target(target, &bytes)));
            if let Err(panic) = outcome {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {why}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The generator.

/// Fragments the mutator inserts: terminal attacks, JSON and SSE structure, edge numbers.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b]0;title\x07",
    b"\x1b]52;c;ZXZpbA==\x07",
    b"\x1b]8;;http://evil.example\x1b\\",
    b"\x1b[2J",
    b"\x1b[6n",
    b"\xc2\x9b31m",
    b"\x9b",
    b"\xe2\x80\xae",
    b"\xe2\x81\xa6",
    b"\x7f",
    b"\r",
    b"\n",
    b"\n\n",
    b"\r\n",
    b"\x00",
    b"\xff\xfe",
    b"\xed\xa0\x80",
    b"data: ",
    b"id: 99999999999999999999\n",
    b":comment\n",
    b"event: x\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\u0000",
    b"\\ud800",
    b",",
    b":",
    b"null",
    b"true",
    b"-0",
    b"1e999",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"\"coop_reports\":[{}]",
    b"[coop-report]: <",
    b">",
    b"```",
    b"\x1b[200~",
    b"\x1b[201~",
    b"\x1b[<0;1;1M",
    b"\x1b[M",
    b"\x1b[1;5A",
    b"\x1bO",
    b"\x1b[27;5;9~",
    b"\x1b[97;1u",
    "한글🙂".as_bytes(),
];

/// A small deterministic PRNG (xorshift64*), so the generator needs no crate and its runs
/// repeat.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(8) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 | 2 => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                out.splice(at..at, f.iter().copied());
            }
            3 if !out.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                let start = at.min(end);
                out.drain(start..end);
            }
            4 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + 1 + rng.below(32)).min(out.len());
                let piece = out[start..end].to_vec();
                out.splice(at..at, piece);
            }
            5 => out.truncate(at),
            6 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(64)).min(other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            _ => {
                let f = [b"[", b"{"][rng.below(2)];
                let depth = 1 + rng.below(200);
                let nested: Vec<u8> = f.iter().copied().cycle().take(depth).collect();
                out.splice(at..at, nested);
            }
        }
    }
    out.truncate(MAX_INPUT);
    out
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Hand-made hostile inputs per target (written as `hand-<n>.bin`).
fn hand_made(target: &str) -> Vec<Vec<u8>> {
    let hostile = "\u{1b}]0;pwned\u{7}\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{9b}31m\u{202e}evil\u{2066}\u{7f}\r";
    // The issue's 50,000-deep JSON for the decoders; 2,000 deep elsewhere (same code paths,
    // a smaller corpus).
    let depth = if target == "decode" { 50_000 } else { 2_000 };
    let deep_array = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let deep_object = "{\"a\":".repeat(depth / 10) + "1" + &"}".repeat(depth / 10);
    let mut common: Vec<Vec<u8>> = vec![
        Vec::new(),
        hostile.as_bytes().to_vec(),
        b"\xff\xfe\xfd\x9b\xc2".to_vec(),
        deep_array.into_bytes(),
        deep_object.into_bytes(),
        format!("{{\"{hostile}\":\"{hostile}\"}}").into_bytes(),
    ];
    let specific: Vec<String> = match target {
        "decode" => vec![
            format!(r#"{{"count":1,"total":1,"truncated":false,"candle":{{"status":"off"}},"keepers":[{{"name":"{h}","agent_name":"{h}","status":"active","runtime_class":"keeper","keepalive_running":true,"autoboot_enabled":true,"proactive_enabled":false,"runtime_id":"{h}","meta":{{}},"created_at":"{h}","updated_at":"x"}}]}}"#, h = hostile.replace('\u{1b}', "\\u001b").replace('\u{7}', "\\u0007").replace('\r', "\\r")),
            r#"{"count":18446744073709551616,"total":-1,"truncated":"no","keepers":null}"#.into(),
            r#"{"status":"initializing","message":"Server is warming up"}"#.into(),
            r#"{"error":"not initialized"}"#.into(),
            r#"{"posts":[{"id":"\u001b]0;x\u0007","title":"\u009b31m","votes":1e999}],"count":1,"limit":50,"offset":0,"sort_by":"hot"}"#.into(),
        ],
        "sse" | "chat_stream" => vec![
            "data: {\"type\":\"CUSTOM\",\"threadId\":\"default\",\"timestamp\":1,\"name\":\"KEEPER_CHAT_OPERATION_ACCEPTED\",\"value\":{\"operation_id\":\"tui-1\",\"state\":\"Queued\",\"queued_count\":0}}\n\n".into(),
            "data: {\"type\":\"CUSTOM\",\"threadId\":\"default\",\"timestamp\":1,\"name\":\"KEEPER_CHAT_OPERATION_ACCEPTED\",\"value\":{\"operation_id\":\"tui-1\",\"state\":\"Queued\",\"queued_count\":0}}\n\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"threadId\":\"keeper:rondo\",\"runId\":\"keeper-operation-run-tui-1\",\"timestamp\":1,\"messageId\":\"m\",\"delta\":\"\\u001b]52;c;eA==\\u0007\"}\n\n".into(),
            format!("data: {hostile}\n\n"),
            "data: a\r\ndata: b\r\n\r\n:c\n\nid: 1\nid: 2\nevent: \u{9b}\n\n".into(),
            "data:".repeat(2000),
            "\n".repeat(5000),
        ],
        "coop_report" => vec![
            format!("아빠 {hostile}\n\n[coop-report]: <{{\"coop_reports\":[{{\"binding_id\":\"{h}\",\"outcome\":\"done\",\"body\":\"{h}\",\"for_dad\":\"{h}\",\"evidence\":{{}}}}]}}>\n", h = "\\u001b]0;x\\u0007\\u202e"),
            "prose\n[coop-report]: <{\"coop_reports\":[]}>\n```\n[coop-read]: <COOP_READ 1>\n```\n".into(),
            "[coop-report]: <".repeat(500),
            "{\"coop_reports\":".repeat(300),
        ],
        "tty_input" => vec![
            "\u{1b}[200~pasted \u{1b}]0;x\u{7} text\u{1b}[201~".into(),
            "\u{1b}[M \u{0}\u{0}\u{1b}[M\u{ff}\u{ff}\u{ff}".into(),
            "\u{1b}[<99999999999;1;1M\u{1b}[<0;-1;1m".into(),
            "\u{1b}[99999999999;99999999999u\u{1b}[1;99999A".into(),
            "\u{1b}[?999999999u\u{1b}[?1;2c\u{1b}[12;40R".into(),
            "\u{1b}\u{1b}\u{1b}[\u{1b}O".into(),
            // Regressions the fuzzer found in crossterm's parser (a 0 coordinate underflowed
            // and panicked in debug builds): cursor reports and mouse reports at 0.
            "\u{1b}[12;0R\u{1b}[0;0R\u{1b}[0R".into(),
            "\u{1b}[0;0;0M\u{1b}[<0;0;0M\u{1b}[<0;0;0m".into(),
        ],
        "timeline" => vec![
            format!("{{\"kind\":\"process\",\"pid\":7,\"ts_us\":0}}\n{{\"ts_us\":1,\"pid\":7,\"stage\":\"dispatch\",\"source\":\"connector_names:{h}\",\"generation\":1,\"epoch\":1}}\n{{\"ts_us\":2,\"pid\":7,\"stage\":\"reject\",\"source\":\"s\",\"generation\":1,\"epoch\":1,\"reason\":\"{h}\"}}\n", h = "\\u001b]0;x\\u0007\\u009b\\u202e"),
            "{\"ts_us\":18446744073709551615,\"stage\":\"dispatch\",\"source\":\"a\",\"generation\":18446744073709551615}\n{\"ts_us\":0,\"stage\":\"admit\",\"source\":\"a\",\"generation\":18446744073709551615}\n".into(),
            "{\"kind\":\"process\",\"pid\":-1}\n{\"stage\":null}\n".into(),
        ],
        "fault_plan" => vec![
            r#"{"rules":[{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":18446744073709551615},"fault":{"status":99999,"delay_ms":18446744073709551615}}]}"#.into(),
            r#"{"rules":[{"match":{"path":"/"},"fault":{"sse_cut_after":0,"truncate_at":0,"drop":"after_apply","receipt":"duplicate","echo":"wrong"}}]}"#.into(),
            r#"{"rules":[{"bogus":1}]}"#.into(),
        ],
        _ => Vec::new(),
    };
    common.extend(specific.into_iter().map(String::into_bytes));
    common
}

/// Seeds beyond the hand-made inputs: the MASC fixtures for the decoders and streams.
fn fixture_seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| match target {
            "decode" | "fault_plan" => p.extension().is_some_and(|e| e == "json"),
            "sse" | "chat_stream" => p.extension().is_some_and(|e| e == "sse"),
            _ => false,
        })
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() <= MAX_INPUT)
        .collect()
}

/// Writes the corpus: hand-made inputs, then `MASC_TUI_FUZZ_ITERATIONS` (default 20 000)
/// mutations per target, keeping each input that shows a new behaviour (up to
/// `MAX_GENERATED`). A panicking input is kept as `crash-<hash>.bin` and fails the replay
/// until it is fixed. Run: `cargo test --test fuzz_corpus -- --ignored regenerate`.
#[test]
#[ignore = "writes tests/fuzz-corpus; run by hand (docs/audits/fuzz-corpus.md)"]
fn regenerate_fuzz_corpus() {
    let iterations: usize = std::env::var("MASC_TUI_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for target in TARGETS {
        let dir = corpus_dir().join(target);
        // A regeneration replaces the target's corpus as a whole.
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        let mut seen = BTreeSet::new();
        let mut pool: Vec<Vec<u8>> = Vec::new();
        for (i, input) in hand_made(target).into_iter().enumerate() {
            std::fs::write(dir.join(format!("hand-{i:02}.bin")), &input).unwrap();
            if let Ok(behaviours) = catch_unwind(AssertUnwindSafe(|| run_target(target, &input))) {
                seen.extend(behaviours);
            }
            if input.len() <= MAX_INPUT {
                pool.push(input);
            }
        }
        pool.extend(fixture_seeds(target));
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ fnv(target.as_bytes()));
        let (mut kept, mut crashes) = (0, 0);
        for _ in 0..iterations {
            if kept >= MAX_GENERATED {
                break;
            }
            let a = &pool[rng.below(pool.len())];
            let b = &pool[rng.below(pool.len())];
            let input = mutate(&mut rng, a, b);
            match catch_unwind(AssertUnwindSafe(|| run_target(target, &input))) {
                Ok(behaviours) => {
                    let fresh: Vec<String> = behaviours.difference(&seen).cloned().collect();
                    if !fresh.is_empty() {
                        seen.extend(fresh);
                        std::fs::write(dir.join(format!("gen-{:016x}.bin", fnv(&input))), &input)
                            .unwrap();
                        pool.push(input);
                        kept += 1;
                    }
                }
                Err(_) => {
                    crashes += 1;
                    std::fs::write(dir.join(format!("crash-{:016x}.bin", fnv(&input))), &input)
                        .unwrap();
                }
            }
        }
        eprintln!(
            "{target}: {} behaviours, {kept} inputs kept, {crashes} crashing inputs",
            seen.len()
        );
    }
    std::panic::set_hook(default_hook);
}
