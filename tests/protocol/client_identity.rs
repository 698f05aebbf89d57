//! The §2.1 identity judgement, and robustness of the byte-level decoders the client feeds
//! with untrusted input (`/health` decode, SSE framing).

use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::health::{
    AdmissionAdvert, Health, HealthPaths, IdentityVerdict, Startup, canonical_base, judge_identity,
};
use masc_tui::protocol::sse::{SseFrame, SseFramer};
use proptest::prelude::*;

fn health(base: &str, root: &str) -> Health {
    Health {
        status: Some("ok".into()),
        server: Some("masc".into()),
        version: None,
        build: None,
        paths: HealthPaths {
            effective_base_path: base.into(),
            effective_masc_root: root.into(),
        },
        startup: Some(Startup {
            phase: Some("ready".into()),
            state_ready: true,
        }),
        admission: Some(AdmissionAdvert { receipts: true }),
    }
}

const BASE: &str = "/nonexistent/masc-tui-test/ws";
const ROOT: &str = "/nonexistent/masc-tui-test/ws/.masc";

#[test]
fn s2_1_match_takes_the_served_root_verbatim_and_receipt_mode() {
    assert_eq!(
        judge_identity(Some(BASE), &health(BASE, ROOT)),
        IdentityVerdict::Match {
            base_path: BASE.into(),
            masc_root: ROOT.into(),
            mode: AdmissionMode::Receipt,
        }
    );
}

#[test]
fn s2_3_no_receipt_advert_is_health_mode() {
    let mut h = health(BASE, ROOT);
    h.admission = None;
    let IdentityVerdict::Match { mode, .. } = judge_identity(Some(BASE), &h) else {
        panic!("expected a match");
    };
    assert_eq!(mode, AdmissionMode::Health);
    h.admission = Some(AdmissionAdvert { receipts: false });
    let IdentityVerdict::Match { mode, .. } = judge_identity(Some(BASE), &h) else {
        panic!("expected a match");
    };
    assert_eq!(mode, AdmissionMode::Health);
}

#[test]
fn s2_1_empty_either_side_or_empty_root_is_unread() {
    for (expected, base, root) in [
        (Some(BASE), "", ROOT),
        (Some(BASE), "  ", ROOT),
        (Some(BASE), BASE, ""),
        (Some(""), BASE, ROOT),
        (None, "", ROOT),
        (None, BASE, ""),
    ] {
        let verdict = judge_identity(expected, &health(base, root));
        assert!(
            matches!(verdict, IdentityVerdict::Unread { .. }),
            "{expected:?} {base:?} {root:?} gave {verdict:?}"
        );
    }
}

#[test]
fn s2_1_different_base_is_mismatch() {
    assert_eq!(
        judge_identity(Some("/nonexistent/other"), &health(BASE, ROOT)),
        IdentityVerdict::Mismatch {
            expected: "/nonexistent/other".into(),
            served: BASE.into(),
        }
    );
    // Paths that do not exist locally compare as raw strings.
    assert!(matches!(
        judge_identity(Some(&format!("{BASE}/")), &health(BASE, ROOT)),
        IdentityVerdict::Mismatch { .. }
    ));
}

#[test]
fn s2_1_state_ready_false_is_booting_and_no_startup_is_not() {
    let mut h = health(BASE, ROOT);
    h.startup = Some(Startup {
        phase: Some("replaying".into()),
        state_ready: false,
    });
    assert_eq!(judge_identity(Some(BASE), &h), IdentityVerdict::Booting);
    h.startup = None;
    assert!(matches!(
        judge_identity(Some(BASE), &h),
        IdentityVerdict::Match { .. }
    ));
}

#[test]
fn s2_1_a_booting_server_of_another_workspace_is_a_mismatch() {
    let mut h = health(BASE, ROOT);
    h.startup = Some(Startup {
        phase: None,
        state_ready: false,
    });
    assert!(matches!(
        judge_identity(Some("/nonexistent/other"), &h),
        IdentityVerdict::Mismatch { .. }
    ));
}

#[test]
fn s2_1_no_expected_base_accepts_the_served_one_demo_mode() {
    assert_eq!(
        judge_identity(None, &health(BASE, ROOT)),
        IdentityVerdict::Match {
            base_path: BASE.into(),
            masc_root: ROOT.into(),
            mode: AdmissionMode::Receipt,
        }
    );
}

#[cfg(unix)]
#[test]
fn s2_1_local_paths_are_compared_by_realpath() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("ws");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let canonical = canonical_base(real.to_str().unwrap());
    let served = health(&format!("{}/./", real.display()), "/r/.masc");
    let verdict = judge_identity(Some(link.to_str().unwrap()), &served);
    assert_eq!(
        verdict,
        IdentityVerdict::Match {
            base_path: canonical,
            masc_root: "/r/.masc".into(),
            mode: AdmissionMode::Receipt,
        }
    );
}

#[test]
fn s3_health_decode_accepts_older_servers_and_names_missing_fields() {
    let older = br#"{"status":"ok","paths":{"effective_base_path":"/a","effective_masc_root":"/a/.masc"},"extra":1}"#;
    let h = Health::decode(older).unwrap();
    assert!(!h.is_booting());
    assert_eq!(h.admission_mode(), AdmissionMode::Health);
    let err = Health::decode(br#"{"paths":{"effective_base_path":"/a","effective_masc_root":"/a/.masc"},"startup":{"state_ready":"yes"}}"#).unwrap_err();
    assert_eq!(err.path, ".startup.state_ready");
}

fn frames_of(chunks: &[&[u8]]) -> Option<(Vec<SseFrame>, bool)> {
    let mut framer = SseFramer::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        frames.extend(framer.push(chunk).ok()?);
    }
    Some((frames, framer.has_partial()))
}

const SAMPLE_STREAM: &str = "data: {\"type\":\"CUSTOM\",\"timestamp\":1.0}\n\n: c\nid: 3\r\ndata: a\ndata: b\n\nevent: x\ndata: 작업\n\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary bytes in arbitrary chunks never panic the framer.
    #[test]
    fn sse_framer_never_panics_on_garbage(bytes in proptest::collection::vec(any::<u8>(), 0..2048),
                                          cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut framer = SseFramer::new();
        let mut last = 0;
        for p in points.into_iter().chain(std::iter::once(bytes.len())) {
            if framer.push(&bytes[last..p]).is_err() { break; }
            last = p;
        }
        let _ = framer.has_partial();
    }

    /// Framing does not depend on how the bytes are chunked (§4.3: frames across chunks).
    #[test]
    fn sse_framing_is_chunking_invariant(split in 0..SAMPLE_STREAM.len(), split2 in 0..SAMPLE_STREAM.len()) {
        let bytes = SAMPLE_STREAM.as_bytes();
        let (a, b) = (split.min(split2), split.max(split2));
        let whole = frames_of(&[bytes]).unwrap();
        let parts = frames_of(&[&bytes[..a], &bytes[a..b], &bytes[b..]]).unwrap();
        prop_assert_eq!(&whole, &parts);
        prop_assert_eq!(whole.0.len(), 3);
        prop_assert!(!whole.1);
    }

    /// A truncated stream yields a prefix of the frames; cut inside a `data:` line, it
    /// reports a partial event.
    #[test]
    fn sse_truncation_yields_a_prefix(cut in 0..SAMPLE_STREAM.len()) {
        let bytes = SAMPLE_STREAM.as_bytes();
        let (all, _) = frames_of(&[bytes]).unwrap();
        if let Some((frames, partial)) = frames_of(&[&bytes[..cut]]) {
            prop_assert!(frames.len() <= all.len());
            prop_assert_eq!(&frames[..], &all[..frames.len()]);
            if cut > 0 && bytes[cut - 1] != b'\n' && bytes[..cut].ends_with(b"data: a") {
                prop_assert!(partial);
            }
            if frames.len() == all.len() { prop_assert!(!partial); }
        }
    }

    /// Garbled bytes (flipped at random positions) never panic the framer.
    #[test]
    fn sse_garbled_stream_never_panics(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16)) {
        let mut bytes = SAMPLE_STREAM.as_bytes().to_vec();
        for (i, b) in flips { let at = i.index(bytes.len()); bytes[at] = b; }
        let _ = frames_of(&[&bytes]);
    }

    /// `/health` decode never panics on random, truncated or garbled bodies.
    #[test]
    fn health_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = Health::decode(&bytes);
    }

    #[test]
    fn health_decode_of_truncated_or_garbled_valid_body_never_panics(
        cut in 0..HEALTH_SAMPLE.len(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6)
    ) {
        let mut bytes = HEALTH_SAMPLE.as_bytes()[..cut].to_vec();
        if !bytes.is_empty() {
            for (i, b) in flips { let at = i.index(bytes.len()); bytes[at] = b; }
        }
        let truncated_clean = cut < HEALTH_SAMPLE.len();
        let result = Health::decode(&bytes);
        if truncated_clean && bytes == HEALTH_SAMPLE.as_bytes()[..cut] {
            // A strict prefix of the JSON object is never a valid document.
            prop_assert!(result.is_err());
        }
    }
}

const HEALTH_SAMPLE: &str = r#"{"status":"ok","server":"masc","version":"0.22.0","build":{"binary_commit":"341791ff6f"},"paths":{"effective_base_path":"/home/op/demo","effective_masc_root":"/home/op/demo/.masc"},"startup":{"phase":"ready","state_ready":true},"uptime":"18m 44s","admission":{"receipts":true}}"#;

#[test]
fn health_sample_decodes() {
    let h = Health::decode(HEALTH_SAMPLE.as_bytes()).unwrap();
    assert_eq!(
        judge_identity(Some("/home/op/demo"), &h),
        IdentityVerdict::Match {
            base_path: canonical_base("/home/op/demo"),
            masc_root: "/home/op/demo/.masc".into(),
            mode: AdmissionMode::Receipt
        }
    );
}
