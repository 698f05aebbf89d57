//! Unit tests of the roster rows and marks.
use super::*;

#[test]
fn columns_fill_the_width() {
    for w in [60usize, 80, 120, 200] {
        let c = Columns::for_width(w);
        assert_eq!(FIXED_W + c.lifecycle + c.task, w);
    }
}

#[test]
fn s0_c1_unknown_roster_marks_are_shapes_never_punctuation() {
    let row = |v: serde_json::Value| -> KeeperRow { serde_json::from_value(v).expect("row") };
    let unknown = row(serde_json::json!({"name": "a", "status": "idle"}));
    let odd = row(serde_json::json!({
        "name": "b", "status": "idle", "proactive_enabled": true,
        "meta": {"sandbox_profile": "firecracker"}
    }));
    assert_eq!(flag(None), "○");
    assert_eq!(proactive(&unknown), "○");
    assert_eq!(sandbox(&odd), "○");
    assert_eq!(sandbox(&unknown), "-");
    assert_eq!(proactive(&odd), "✓");
    for mark in [
        flag(None),
        proactive(&unknown),
        sandbox(&odd),
        sandbox(&unknown),
    ] {
        assert!(!mark.chars().any(|c| c == '?' || c == '!'), "{mark}");
    }
}

#[test]
fn turn_age_formats_and_absent_is_dash() {
    assert_eq!(turn_age(None, 100.0), "-");
    assert_eq!(turn_age(Some(90.0), 100.0), "10s");
    assert_eq!(turn_age(Some(0.0), 7200.0), "2h");
    assert_eq!(turn_age(Some(f64::NAN), 1.0), "-");
}
