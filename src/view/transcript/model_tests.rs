//! Unit tests of the transcript model (the id index, entry sizes, shared strings).
use crate::protocol::chat::ChatRole;

use super::*;
use std::collections::HashMap;

fn say(id: &str, text: &str) -> Entry {
    Entry::new(id, Speaker::Operator, EntryKind::Utterance, text)
}

/// The index of ids answers as a map of copied ids would — the newest entry of
/// a repeated id, in-place replacement, removal and prepending re-index — over a generated
/// sequence of changes, checked against a scan of the entries after each one.
#[test]
fn c31_id_index_finds_the_newest_entry_of_each_id() {
    let mut t = Transcript::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for step in 0..3_000u64 {
        let id = format!("m{}", next(400));
        match next(6) {
            0 | 1 => {
                t.push(say(&id, &format!("push {step}")));
            }
            2 => {
                t.upsert(say(&id, &format!("upsert {step}")));
            }
            3 => {
                t.remove(&id);
            }
            4 => {
                let rows: Vec<ChatHistoryRow> = (0..3)
                    .map(|k| ChatHistoryRow {
                        id: format!("m{}", next(400)),
                        role: ChatRole::User,
                        kind: None,
                        content: format!("older {step}.{k}"),
                        ts: Some(1.0),
                        turn_ref: None,
                        tool_call_id: None,
                        tool_call_name: None,
                        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
                    })
                    .collect();
                t.prepend_history(&rows, "alpha");
            }
            _ => {
                t.update(&id, |e| e.text.push('!'));
            }
        }
        for probe in [id.as_str(), "m0", "m7", "absent"] {
            let scanned = t.entries().iter().rposition(|e| e.id == probe);
            let found = t.by_id.get(t.entries(), probe);
            assert_eq!(found, scanned, "step {step}, id {probe}");
            assert_eq!(
                t.get(probe).map(|e| &e.text),
                scanned.map(|i| &t.entries()[i].text)
            );
        }
    }
    assert!(t.len() > 100, "{}", t.len());
}

/// An entry is 168 bytes, so in its `Arc` (two counts, 16 bytes) it is a
/// 184-byte request: malloc's 192-byte block (216 bytes were a 240-byte block). The
/// Keeper's name shared and the inbound sender boxed keep the speaker at 24 bytes, the
/// failure's texts boxed keep the kind at 32.
#[test]
fn issue15_entry_fits_a_192_byte_block() {
    use std::mem::size_of;
    assert_eq!(size_of::<Speaker>(), 24);
    assert_eq!(size_of::<FailureOrigin>(), 24);
    assert_eq!(size_of::<EntryKind>(), 32);
    assert_eq!(size_of::<Origin>(), 16);
    assert_eq!(size_of::<Option<Arc<str>>>(), 16);
    assert_eq!(size_of::<CompactString>(), 24);
    assert!(size_of::<Entry>() <= 168, "{}", size_of::<Entry>());
    // MASC's message ids (`100000`, `u42`, `c7`) and turn references
    // (`trace-rondo#4`) fit inline: no allocation of their own.
    let e = Entry::new(
        "trace-rondo#4:tool:12",
        Speaker::Tool,
        EntryKind::Journal,
        "",
    );
    assert!(!e.id.is_heap_allocated());
}

fn keeper(name: &str) -> Speaker {
    Speaker::Keeper {
        name: name.into(),
        owner: true,
    }
}

fn name_of(e: &Entry) -> Option<&Arc<str>> {
    match &e.speaker {
        Speaker::Keeper { name, .. } => Some(name),
        _ => None,
    }
}

/// Consecutive entries with equal Keeper names, turn references and request ids
/// point at one copy of each; a different one is its own copy and becomes the one shared.
#[test]
fn issue15_equal_names_and_turns_share_one_copy() {
    let mut t = Transcript::new();
    for i in 0..4 {
        t.push(
            Entry::new(format!("k{i}"), keeper("alpha"), EntryKind::Utterance, "hi")
                .with_turn(format!("trace-alpha#{}", i / 2))
                .with_request("tui-1"),
        );
    }
    let e = t.entries();
    let shared = |a: usize, b: usize, f: fn(&Entry) -> Option<&Arc<str>>| {
        Arc::ptr_eq(f(&e[a]).unwrap(), f(&e[b]).unwrap())
    };
    fn turn(e: &Entry) -> Option<&Arc<str>> {
        e.turn_ref.as_ref()
    }
    fn request(e: &Entry) -> Option<&Arc<str>> {
        e.origin.request_id.as_ref()
    }
    assert!((1..4).all(|i| shared(0, i, name_of)));
    assert!((1..4).all(|i| shared(0, i, request)));
    assert!(shared(0, 1, turn) && shared(2, 3, turn));
    assert!(!shared(1, 2, turn));
    assert_eq!(e[1].turn_ref.as_deref(), Some("trace-alpha#0"));
    assert_eq!(e[2].turn_ref.as_deref(), Some("trace-alpha#1"));
    // History pages share the same way, appended or prepended.
    let row = |id: &str, role, turn: &str| ChatHistoryRow {
        id: id.into(),
        role,
        kind: None,
        content: "x".into(),
        ts: Some(1.0),
        turn_ref: Some(turn.into()),
        tool_call_id: None,
        tool_call_name: None,
        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
    };
    let page = [
        row("h1", ChatRole::Assistant, "trace-alpha#9"),
        row("h2", ChatRole::Assistant, "trace-alpha#9"),
    ];
    let mut h = Transcript::new();
    h.extend_history(&page, "alpha");
    h.prepend_history(&[row("h0", ChatRole::Assistant, "trace-alpha#9")], "alpha");
    let e = h.entries();
    assert!((1..3).all(|i| Arc::ptr_eq(name_of(&e[0]).unwrap(), name_of(&e[i]).unwrap())));
    assert!((1..3).all(|i| Arc::ptr_eq(
        e[0].turn_ref.as_ref().unwrap(),
        e[i].turn_ref.as_ref().unwrap()
    )));
}

/// Sharing never changes what an entry says. Over a generated sequence of
/// pushes, upserts, history pages appended and prepended and removals, with Keeper names,
/// turn references and request ids drawn from small sets that overlap in text (a turn
/// reference spelled as another Keeper's name), every entry keeps the name, turn and
/// request it was made with; and no copy is shared with another transcript.
#[test]
fn issue15_shared_strings_never_mix_keepers_turns_or_requests() {
    let names = ["alpha", "beta", "trace-beta#1"];
    let turns = ["trace-alpha#1", "trace-beta#1", "alpha", "trace-alpha#2"];
    let requests = ["tui-1", "tui-2", "trace-alpha#1"];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as usize
    };
    // (name, turn, request) each entry was made with, by id.
    type Made<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);
    let mut made: HashMap<String, Made> = HashMap::new();
    let mut t = Transcript::new();
    let mut other = Transcript::new();
    for step in 0..2_000 {
        let id = format!("m{}", next(300));
        let name = (next(4) > 0).then(|| names[next(names.len() as u64)]);
        let turn = (next(5) > 0).then(|| turns[next(turns.len() as u64)]);
        let request = (next(3) == 0).then(|| requests[next(requests.len() as u64)]);
        let speaker = name.map_or(Speaker::Operator, keeper);
        let mut e = Entry::new(id.as_str(), speaker, EntryKind::Utterance, "t");
        if let Some(turn) = turn {
            e = e.with_turn(turn);
        }
        if let Some(request) = request {
            e = e.with_request(request);
        }
        match next(5) {
            0 | 1 => {
                made.insert(id.clone(), (name, turn, request));
                t.upsert(e);
            }
            2 => {
                other.push(e);
            }
            3 => {
                let name = names[next(names.len() as u64)];
                let turn = turns[next(turns.len() as u64)];
                let rows: Vec<ChatHistoryRow> = (0..3)
                    .map(|k| ChatHistoryRow {
                        id: format!("h{step}.{k}"),
                        role: ChatRole::Assistant,
                        kind: None,
                        content: "older".into(),
                        ts: Some(1.0),
                        turn_ref: Some(turn.into()),
                        tool_call_id: None,
                        tool_call_name: None,
                        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
                    })
                    .collect();
                for r in &rows {
                    made.insert(r.id.clone(), (Some(name), Some(turn), None));
                }
                if next(2) == 0 {
                    t.prepend_history(&rows, name);
                } else {
                    t.extend_history(&rows, name);
                }
            }
            _ => {
                if t.remove(&id).is_some() {
                    made.remove(&id);
                }
            }
        }
        for e in t.entries() {
            let Some(&(name, turn, request)) = made.get(e.id.as_str()) else {
                panic!("step {step}: entry {} was never made", e.id);
            };
            assert_eq!(name_of(e).map(|n| &**n), name, "step {step}, {}", e.id);
            assert_eq!(e.turn_ref.as_deref(), turn, "step {step}, {}", e.id);
            assert_eq!(e.origin.request_id.as_deref(), request, "step {step}");
        }
    }
    let strings = |t: &Transcript| -> Vec<Arc<str>> {
        t.entries()
            .iter()
            .flat_map(|e| {
                [
                    name_of(e),
                    e.turn_ref.as_ref(),
                    e.origin.request_id.as_ref(),
                ]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
            })
            .collect()
    };
    let (mine, theirs) = (strings(&t), strings(&other));
    assert!(mine.len() > 100 && theirs.len() > 100);
    assert!(
        mine.iter()
            .all(|a| theirs.iter().all(|b| !Arc::ptr_eq(a, b)))
    );
}

/// What one of 100k entries costs before its strings (the tool call and the
/// skill run are boxed; every other kind is small).
#[test]
fn entry_stays_compact() {
    assert!(
        std::mem::size_of::<EntryKind>() <= 40,
        "{}",
        std::mem::size_of::<EntryKind>()
    );
    assert!(
        std::mem::size_of::<Entry>() <= 216,
        "{}",
        std::mem::size_of::<Entry>()
    );
}
