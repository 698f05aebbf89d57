//! Chat transcript projection: density and fold modes, tool folding, failures, skills,
//! pending input, hidden coop reports, the live stream, and windowing (chat-screen.md §2.5–§2.9,
//! C-28, C-67; coop-report.md).

use masc_tui::protocol::chat::{ChatStreamEvent, ReplyDetails, ToolCallArgs, TurnOutcome};
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    CallState, Entry, EntryKind, FailureOrigin, JournalMode, LiveTurn, OriginMode, PendingState,
    ReasoningMode, ScrollPosition, SkillRun, SkillState, Speaker, ToolCall, ToolVisibility,
    Transcript, TranscriptView, ViewModes, ViewToggle,
};
use ratatui::text::Line;

const T0: f64 = 1_787_000_000.0;

fn keeper() -> Speaker {
    Speaker::Keeper {
        name: "alpha".into(),
        owner: true,
    }
}

fn text(line: &Line<'_>) -> String {
    line.spans
        .iter()
        .map(|s| s.content.as_ref())
        .collect::<String>()
        .trim_end()
        .to_string()
}

fn frame(v: &mut TranscriptView, w: u16, h: u16, scroll: ScrollPosition) -> Vec<String> {
    v.render(w, h, scroll).iter().map(text).collect()
}

fn view(entries: Vec<Entry>, modes: ViewModes) -> TranscriptView {
    let mut t = Transcript::new();
    for e in entries {
        t.push(e);
    }
    let mut v = TranscriptView::new(t, Theme::default());
    v.set_modes(modes);
    v
}

fn call(id: &str, name: &str, state: CallState, result: &str) -> Entry {
    Entry::new(
        id,
        Speaker::Tool,
        EntryKind::ToolCall(Box::new(ToolCall {
            call_id: Some(id.into()),
            name: name.into(),
            state,
            args: Some(r#"{"path":"src/main.rs"}"#.into()),
            duration_ms: Some(16),
            turn_stopped: None,
        })),
        result,
    )
    .with_ts(T0)
    .with_turn("turn-1")
}

fn four_tools() -> Vec<Entry> {
    vec![
        call("c1", "read_file", CallState::Succeeded, "fn main() {}"),
        call("c2", "read_file", CallState::ResultReceived, "ok"),
        call("c3", "web_fetch", CallState::Failed, "connection refused"),
        call("c4", "glob", CallState::Succeeded, "a.rs\nb.rs"),
    ]
}

#[test]
fn c48_three_or_more_calls_fold_into_an_inventory_header_and_failure_stays() {
    let mut v = view(four_tools(), ViewModes::default());
    let r = frame(&mut v, 100, 10, ScrollPosition::FromTop(0));
    assert_eq!(
        r[0],
        "   ✗ Tools 4 · read_file 2 · web_fetch 1 · glob 1 · 3 returned · 4 details folded"
    );
    assert_eq!(
        r[1], "   ✗ 1 failed: web_fetch",
        "C-8: the failure never folds"
    );
    assert_eq!(r.iter().filter(|l| !l.is_empty()).count(), 2);
}

#[test]
fn c48_two_calls_never_fold_and_the_failure_is_named() {
    let mut v = view(
        vec![
            call("c1", "read_file", CallState::Succeeded, "x"),
            call("c3", "web_fetch", CallState::Failed, "refused"),
        ],
        ViewModes::default(),
    );
    let r = frame(&mut v, 100, 4, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   ✓ read_file · src/main.rs · 16ms");
    assert_eq!(r[1], "   ✗ 1 failed: web_fetch");
    assert!(!r.iter().any(|l| l.contains("Tools 2")), "{r:?}");
}

#[test]
fn c48_unreturned_and_in_progress_calls_keep_their_own_rows_and_marks() {
    let mut v = view(
        vec![
            call("c1", "read_file", CallState::Succeeded, ""),
            call("c2", "grep", CallState::AwaitingResult, ""),
            call("c3", "glob", CallState::ArgsStreaming, ""),
        ],
        ViewModes::default(),
    );
    let r = frame(&mut v, 100, 5, ScrollPosition::FromTop(0));
    assert!(
        r[0].starts_with("   ▶ Tools 3 ·") && r[0].contains("1 returned"),
        "{r:?}"
    );
    assert_eq!(r[1], "   ▶ grep · awaiting result");
    assert_eq!(r[2], "   ◌ glob · arguments streaming");
}

#[test]
fn c49_results_mode_shows_received_state_and_short_result() {
    let mut modes = ViewModes::default();
    modes.toggle(ViewToggle::Tools);
    assert_eq!(modes.tools, ToolVisibility::Results);
    let mut v = view(four_tools(), modes);
    let r = frame(&mut v, 100, 6, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   ✓ read_file · ok · fn main() {}");
    assert_eq!(
        r[1], "   ↩ read_file · result received · ok",
        "↩ is not success"
    );
    assert_eq!(r[2], "   ✗ web_fetch · failed · connection refused");
    assert_eq!(r[3], "   ✓ glob · ok · a.rs");
}

#[test]
fn c47_full_mode_draws_call_rows_arguments_and_results() {
    let modes = ViewModes {
        tools: ToolVisibility::Full,
        ..ViewModes::default()
    };
    let mut v = view(four_tools(), modes);
    let r = frame(&mut v, 100, 20, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   ✓ read_file · ok · 16ms");
    assert!(r[1].contains("↳ {\"path\":\"src/main.rs\"}"), "{r:?}");
    assert!(r[2].contains("fn main() {}"));
    assert!(
        r.iter().any(|l| l.contains("b.rs")),
        "every result line in full: {r:?}"
    );
}

#[test]
fn c46_c47_finished_skill_summary_and_proof_only_in_full() {
    let skill = Entry::new(
        "s1",
        keeper(),
        EntryKind::SkillSummary(Box::new(SkillRun {
            name: "deploy".into(),
            state: SkillState::Used,
            delivered: true,
            used_tools: true,
            actions: 3,
            use_id: Some("use-9".into()),
        })),
        "",
    )
    .with_turn("turn-7");
    let mut v = view(vec![skill.clone()], ViewModes::default());
    let r = frame(&mut v, 100, 3, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   ◆ 전달됨, 도구 씀 · deploy · 3 action");
    assert!(!r.iter().any(|l| l.contains("proof")));
    let mut v = view(
        vec![skill],
        ViewModes {
            tools: ToolVisibility::Full,
            ..ViewModes::default()
        },
    );
    let r = frame(&mut v, 100, 3, ScrollPosition::FromTop(0));
    assert_eq!(r[1], "     ↳ proof · turn=turn-7 · use=use-9");
}

#[test]
fn c38_reasoning_folded_full_hidden() {
    let thinking = Entry::new(
        "t1",
        keeper(),
        EntryKind::Thinking,
        "step one\n\nstep two\nstep three",
    )
    .with_ts(T0);
    let answer = Entry::new("k1", keeper(), EntryKind::Utterance, "done").with_ts(T0);
    let mut v = view(vec![thinking, answer], ViewModes::default());
    let r = frame(&mut v, 80, 6, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   · Reasoning · 3 lines folded · Ctrl-R");
    v.toggle(ViewToggle::Reasoning);
    let r = frame(&mut v, 80, 8, ScrollPosition::FromTop(0));
    assert_eq!(
        &r[0..4],
        ["   · step one", "", "     step two", "     step three"]
    );
    v.toggle(ViewToggle::Reasoning);
    assert_eq!(v.modes().reasoning, ReasoningMode::Hidden);
    let r = frame(&mut v, 80, 4, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "●  done");
    // One non-blank line is shown, not folded.
    let single = Entry::new("t2", keeper(), EntryKind::Thinking, "just one").with_ts(T0);
    let mut v = view(vec![single], ViewModes::default());
    assert_eq!(
        frame(&mut v, 80, 3, ScrollPosition::FromTop(0))[0],
        "   · just one"
    );
}

#[test]
fn ctrl_n_journal_hidden_summary_full() {
    let journal = Entry::new(
        "j1",
        Speaker::System,
        EntryKind::Journal,
        "first note\nsecond note",
    )
    .with_ts(T0);
    let mut v = view(vec![journal], ViewModes::default());
    assert!(
        frame(&mut v, 80, 3, ScrollPosition::FromTop(0))
            .iter()
            .all(String::is_empty)
    );
    v.toggle(ViewToggle::Journal);
    assert_eq!(v.modes().journal, JournalMode::Summary);
    assert_eq!(
        frame(&mut v, 80, 3, ScrollPosition::FromTop(0)),
        ["   ◈ first note"]
    );
    v.toggle(ViewToggle::Journal);
    assert_eq!(
        frame(&mut v, 80, 3, ScrollPosition::FromTop(0)),
        ["   ◈ first note", "     second note"]
    );
}

#[test]
fn c8_c52_failure_never_folds_and_keeps_the_full_message_in_every_mode() {
    let message = format!("provider error: {} END", "x".repeat(300));
    for tools in [
        ToolVisibility::Compact,
        ToolVisibility::Results,
        ToolVisibility::Full,
    ] {
        for reasoning in [ReasoningMode::Folded, ReasoningMode::Hidden] {
            for origin in [OriginMode::Bare, OriginMode::Inline, OriginMode::Row] {
                let modes = ViewModes {
                    tools,
                    reasoning,
                    origin,
                    ..ViewModes::default()
                };
                let f = Entry::new(
                    "f1",
                    Speaker::System,
                    EntryKind::Failure(FailureOrigin::Run { code: None }),
                    message.clone(),
                );
                let mut v = view(vec![f], modes);
                let all = frame(&mut v, 60, 20, ScrollPosition::FromTop(0)).join("");
                assert!(
                    all.contains("END") && all.contains("failed"),
                    "{modes:?}: {all}"
                );
                assert!(!all.contains('~') && !all.contains('…'), "never cut");
            }
        }
    }
}

#[test]
fn c32_c35_pending_inputs_with_one_label_each_and_a_separate_rejection_row() {
    let p1 = Entry::new(
        "r-1",
        Speaker::Operator,
        EntryKind::PendingInput {
            state: PendingState::WaitingToSend,
            rejection: None,
        },
        "first",
    )
    .with_request("req-000111");
    let p2 = Entry::new(
        "r-2",
        Speaker::Operator,
        EntryKind::PendingInput {
            state: PendingState::ConfirmingDelivery,
            rejection: Some("owner stopping".into()),
        },
        "second",
    );
    let mut v = view(vec![p1, p2], ViewModes::default());
    let r = frame(&mut v, 80, 6, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "›  대기 입력 2건");
    assert_eq!(r[1], "     전송 대기 · first");
    assert_eq!(r[2], "     전송 확인 중 · second");
    assert!(
        r[3].contains("✗") && r[3].contains("owner stopping") && !r[2].contains("owner"),
        "{r:?}"
    );
    assert!(
        !r.iter().any(|l| l.contains("req-000111")),
        "C-30: ids only in details"
    );
    v.toggle(ViewToggle::Details);
    let r = frame(&mut v, 80, 8, ScrollPosition::FromTop(0));
    assert!(r.iter().any(|l| l.contains("request req-000111")), "{r:?}");
}

const CLEAN_REPORT: &str = "아빠, 배포 끝났어. {repo} 에 올렸어.\n\n[coop-report]: <{\"coop_reports\":[{\"binding_id\":\"bind-7\",\"outcome\":\"done\",\"body\":\"Deployed the hook.\",\"for_dad\":\"배포 끝\",\"evidence\":{}}]}>\n";

#[test]
fn s2_hidden_coop_report_is_a_folded_status_row_expanded_with_ctrl_d() {
    let k = Entry::new("k1", keeper(), EntryKind::Utterance, CLEAN_REPORT).with_ts(T0);
    let mut v = view(vec![k], ViewModes::default());
    let r = frame(&mut v, 100, 8, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "●  아빠, 배포 끝났어. {repo} 에 올렸어.");
    assert!(
        !r.iter()
            .any(|l| l.contains("coop_reports") || l.contains("[coop-report]")),
        "link reference definition invisible: {r:?}"
    );
    let status = r
        .iter()
        .find(|l| l.contains("보고 ·"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(status, "   ○ 보고 · done · bind-7 · Ctrl-D");
    assert!(!r.iter().any(|l| l.contains("Deployed the hook")));
    v.toggle(ViewToggle::Tools);
    let r = frame(&mut v, 100, 10, ScrollPosition::FromTop(0));
    assert!(r.iter().any(|l| l.contains("for_dad: 배포 끝")), "{r:?}");
    assert!(
        r.iter().any(|l| l.contains("body: Deployed the hook.")),
        "{r:?}"
    );
}

#[test]
fn s2_leaking_report_line_gets_a_visible_warning_row() {
    // F2: no blank line before the report line: it renders as part of the paragraph.
    let leaky = "아빠, 끝났어.\n[coop-report]: <{\"coop_reports\":[{\"binding_id\":\"b\",\"outcome\":\"done\",\"body\":\"x\",\"for_dad\":\"y\",\"evidence\":{}}]}>\n";
    let k = Entry::new("k1", keeper(), EntryKind::Utterance, leaky).with_ts(T0);
    let mut v = view(vec![k], ViewModes::default());
    let r = frame(&mut v, 100, 10, ScrollPosition::FromTop(0));
    // The chat never shows the report JSON; the warning row names the line that
    // would leak in other renderers.
    assert!(
        !r.iter().any(|l| l.contains("coop_reports")),
        "the leaked line is not painted in the chat: {r:?}"
    );
    let warning = r
        .iter()
        .find(|l| l.contains("경고"))
        .cloned()
        .unwrap_or_default();
    assert!(
        warning.contains("no_blank_line_before") && warning.contains("2행"),
        "{r:?}"
    );
    assert!(
        !r.iter().any(|l| l.contains("보고 · done")),
        "a leaked report is not 'hidden'"
    );
}

#[test]
fn link_reference_definitions_are_invisible_in_any_body() {
    let body = "see [the docs][d]\n\n[d]: https://example.com/docs \"Docs\"\n[unused]: <https://x.invalid>";
    let k = Entry::new("k1", keeper(), EntryKind::Utterance, body).with_ts(T0);
    let mut v = view(
        vec![k],
        ViewModes {
            origin: OriginMode::Inline,
            ..ViewModes::default()
        },
    );
    let all = frame(&mut v, 100, 6, ScrollPosition::FromTop(0)).join("\n");
    assert!(all.contains("see the docs"), "{all}");
    assert!(
        !all.contains("[d]:") && !all.contains("unused") && !all.contains("x.invalid"),
        "{all}"
    );
}

#[test]
fn c28_c67_huge_newest_message_keeps_first_row_and_newest_body() {
    let body: String = (0..500).map(|i| format!("line {i}\n")).collect();
    let k = Entry::new("k1", keeper(), EntryKind::Utterance, body).with_ts(T0);
    let mut v = view(
        vec![
            Entry::new("u1", Speaker::Operator, EntryKind::Utterance, "dump"),
            k,
        ],
        ViewModes::default(),
    );
    let r = frame(&mut v, 80, 10, ScrollPosition::Newest);
    assert_eq!(r.len(), 10);
    assert_eq!(r[0], "●  line 0");
    assert_eq!(r[1], "   ⋯ 491 chat rows hidden · PgUp to reveal");
    assert_eq!(r[9], "   line 499");
    assert_eq!(v.last_frame().hidden_middle, 491);
}

#[test]
fn window_slices_agree_with_the_whole_transcript_in_every_origin_mode() {
    let mut entries = Vec::new();
    for i in 0..60 {
        let turn = format!("turn-{}", i / 3);
        let who = if i % 3 == 0 {
            Speaker::Operator
        } else {
            keeper()
        };
        let text = format!("message {i} {}", "가나다 ".repeat(i % 7 * 5));
        entries.push(
            Entry::new(format!("m{i}"), who, EntryKind::Utterance, text)
                .with_ts(T0 + i as f64 * 17.0)
                .with_turn(turn),
        );
        if i % 5 == 0 {
            entries.push(call(
                &format!("c{i}"),
                "read_file",
                CallState::Succeeded,
                "r",
            ));
        }
    }
    for origin in [OriginMode::Bare, OriginMode::Inline, OriginMode::Row] {
        let mut v = view(
            entries.clone(),
            ViewModes {
                origin,
                ..ViewModes::default()
            },
        );
        let total = v.total_rows(72);
        let all = frame(&mut v, 72, total as u16, ScrollPosition::FromTop(0));
        assert_eq!(all.len(), total);
        for (top, h) in [(0usize, 7u16), (13, 9), (total - 5, 5), (40, 20)] {
            let slice = frame(&mut v, 72, h, ScrollPosition::FromTop(top));
            assert_eq!(
                slice,
                all[top..(top + h as usize).min(total)],
                "{origin:?} FromTop({top})"
            );
            let back = total - top - h as usize;
            let slice = frame(&mut v, 72, h, ScrollPosition::Back(back));
            assert_eq!(slice, all[top..top + h as usize], "{origin:?} Back({back})");
        }
        let newest = frame(&mut v, 72, 12, ScrollPosition::Newest);
        assert_eq!(newest, all[total - 12..]);
    }
}

#[test]
fn c50_live_stream_and_history_use_the_same_projection() {
    let mut t = Transcript::new();
    let mut live = LiveTurn::new("req-1", "alpha");
    let events = vec![
        ChatStreamEvent::ThinkingDelta {
            delta: Some("plan a\nplan b".into()),
        },
        ChatStreamEvent::ToolCallStart {
            tool_call_id: Some("tc1".into()),
            tool_call_name: "read_file".into(),
        },
        ChatStreamEvent::ToolCallArgs {
            tool_call_id: "tc1".into(),
            args: ToolCallArgs::Delta("{\"path\":\"a.rs\"}".into()),
        },
        ChatStreamEvent::ToolCallEnd {
            tool_call_id: "tc1".into(),
        },
        ChatStreamEvent::ToolResultReady,
        ChatStreamEvent::ToolCallStart {
            tool_call_id: Some("tc2".into()),
            tool_call_name: "grep".into(),
        },
        ChatStreamEvent::TextStart {
            message_id: "msg-1".into(),
        },
        ChatStreamEvent::TextDelta {
            message_id: "msg-1".into(),
            delta: "hello ".into(),
        },
        ChatStreamEvent::TextDelta {
            message_id: "msg-1".into(),
            delta: "world".into(),
        },
        ChatStreamEvent::TextEnd {
            message_id: "msg-1".into(),
        },
        ChatStreamEvent::ReplyDetails(ReplyDetails {
            reply: "hello world".into(),
            turn_outcome: TurnOutcome("visible_reply".into()),
            turn_ref: "turn-xyz".into(),
        }),
        ChatStreamEvent::RunFinished,
    ];
    for e in &events {
        live.apply(&mut t, e, T0);
    }
    let mut v = TranscriptView::new(t, Theme::default());
    let r = frame(&mut v, 80, 8, ScrollPosition::FromTop(0));
    assert_eq!(r[0], "   · Reasoning · 2 lines folded · Ctrl-R");
    assert_eq!(r[1], "   ↩ read_file · a.rs");
    assert_eq!(
        r[2], "   ○ grep · not seen",
        "a call without a result at the end was not seen"
    );
    assert_eq!(r[4], "●  hello world");
    assert!(
        v.transcript()
            .entries()
            .iter()
            .all(|e| e.turn_ref.as_deref() == Some("turn-xyz"))
    );
}

#[test]
fn c26_only_opened_modes_are_named_and_cycles_return_to_default() {
    let mut m = ViewModes::default();
    for key in [
        ViewToggle::Origin,
        ViewToggle::Tools,
        ViewToggle::Reasoning,
        ViewToggle::Journal,
    ] {
        m.toggle(key);
    }
    assert_eq!(
        m.opened_badges(),
        [
            "metadata",
            "tool results",
            "reasoning full",
            "journal summary"
        ]
    );
    for key in [
        ViewToggle::Origin,
        ViewToggle::Origin,
        ViewToggle::Tools,
        ViewToggle::Tools,
        ViewToggle::Reasoning,
        ViewToggle::Reasoning,
        ViewToggle::Journal,
        ViewToggle::Journal,
    ] {
        m.toggle(key);
    }
    assert_eq!(m, ViewModes::default());
    assert_eq!(OriginMode::Bare.cycle(), OriginMode::Inline);
    assert_eq!(OriginMode::Inline.cycle(), OriginMode::Row);
}

#[test]
fn chunked_huge_body_rows_match_its_source_lines_across_chunk_boundaries() {
    // ~120 KiB: paragraphs of 9 lines separated by blank lines, so chunks split at blanks.
    let mut src = Vec::new();
    for i in 0..11_999 {
        src.push(if i % 10 == 9 {
            String::new()
        } else {
            format!("row {i} text")
        });
    }
    let body = src.join("\n");
    assert!(body.len() > 100 * 1024);
    let k = Entry::new("k1", keeper(), EntryKind::Utterance, body).with_ts(T0);
    let mut v = view(vec![k], ViewModes::default());
    assert_eq!(
        v.total_rows(80),
        src.len(),
        "one row per source line, blank gaps kept"
    );
    for top in [0usize, 1_631, 3_999, 8_000, 11_989] {
        let r = frame(&mut v, 80, 10, ScrollPosition::FromTop(top));
        for (j, line) in r.iter().enumerate() {
            let expected = &src[top + j];
            let shown = line.trim_start_matches("●  ").trim_start();
            assert_eq!(shown, expected.as_str(), "row {}", top + j);
        }
    }
}
