//! Board votes (protocol-15-operator.md §15.6 `POST /api/v1/tools/masc_board_vote`) and their
//! §15.12 outcomes; the voter's own vote on a post detail read with `voter=` (§15.6).
//!
//! One vote per (voter, post): the same direction again is MASC's idempotent answer ("Already
//! voted"), the other direction flips the vote. There is no un-vote. The voter is never in the
//! body: MASC takes it from the request actor (`X-MASC-Agent`, masc-tui's name).

use super::board::ToolEnvelope;
pub use super::board::{OwnVote, VoteDirection};
use super::decode::WireDecode;
use super::outcome::{ROUTE_NOT_SERVED, SaveOutcome, common_case, refusal, unlisted};
use super::routes::{NotFoundMeaning, RouteFamily, classify_404};
use serde_json::Value;
use std::convert::Infallible;

pub const BOARD_VOTE_PATH: &str = "/api/v1/tools/masc_board_vote";

/// The request a vote answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardVoteRequest {
    pub post_id: String,
    pub direction: VoteDirection,
}

impl BoardVoteRequest {
    /// `{"post_id", "direction"}`: nothing else (the voter is the request actor).
    pub fn body(&self) -> Value {
        serde_json::json!({"post_id": self.post_id, "direction": self.direction.as_str()})
    }
}

/// An applied vote: the direction MASC recorded and the score its message names (up-votes
/// minus down-votes; `None` when the message carries no score MASC's way). The score a screen
/// shows comes from the detail re-read, this is only what the reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoteRecorded {
    pub direction: VoteDirection,
    pub score: Option<i64>,
}

/// §15.12: applied "Vote recorded", unchanged "Already voted (idempotent)", not applied any
/// 400 `{ok:false}`, unknown a 2xx that is not the tool envelope. A conflict cannot happen.
pub type BoardVoteOutcome = SaveOutcome<VoteRecorded, Infallible>;

/// What a 2xx tool message says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum VoteReply {
    Recorded(VoteRecorded),
    Already,
}

/// Reads MASC's message (`"↑ Vote recorded. New score: +3"`, `"↓ Already voted (idempotent).
/// Score: -1"`, a note in brackets possibly appended). A reply for the other direction, or one
/// that is neither, is `Err` with why.
fn read_reply(message: &str, req: &BoardVoteRequest) -> Result<VoteReply, &'static str> {
    let text = message.trim_start();
    if let Some(arrow) = text.chars().next().and_then(VoteDirection::of_arrow)
        && arrow != req.direction
    {
        return Err("a reply for the other direction");
    }
    if text.contains("Already voted") {
        return Ok(VoteReply::Already);
    }
    if text.contains("Vote recorded") {
        return Ok(VoteReply::Recorded(VoteRecorded {
            direction: req.direction,
            score: score_of(text),
        }));
    }
    Err("a tool message that is neither recorded nor already voted")
}

/// The signed integer after the last `score:` (any case).
fn score_of(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind("score:")? + "score:".len();
    let rest = text.get(at..)?.trim_start();
    let end = rest
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '+' || *c == '-'))))
        .map_or(rest.len(), |(i, _)| i);
    rest.get(..end)?.parse().ok()
}

/// The §15.12 classifier of `POST /api/v1/tools/masc_board_vote`.
pub fn classify_board_vote(status: u16, body: &[u8], req: &BoardVoteRequest) -> BoardVoteOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match ToolEnvelope::decode(body) {
            Ok(env) if env.ok => match read_reply(&env.message, req) {
                Ok(VoteReply::Recorded(detail)) => SaveOutcome::Applied {
                    detail,
                    warning: None,
                },
                Ok(VoteReply::Already) => SaveOutcome::Unchanged,
                Err(why) => SaveOutcome::unknown(format!("{status} with {why}")),
            },
            Ok(_) => SaveOutcome::unknown(format!("{status} tool envelope with ok:false")),
            Err(_) => SaveOutcome::unknown(format!("{status} that is not the tool envelope")),
        },
        404 if classify_404(RouteFamily::BoardVote, body) == NotFoundMeaning::NotServed => {
            SaveOutcome::not_applied(ROUTE_NOT_SERVED)
        }
        400 => SaveOutcome::not_applied(refusal(status, body)),
        _ => unlisted(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::outcome::SaveClass;

    fn req(direction: VoteDirection) -> BoardVoteRequest {
        BoardVoteRequest {
            post_id: "post-1001".into(),
            direction,
        }
    }

    fn classify(status: u16, body: &str, direction: VoteDirection) -> BoardVoteOutcome {
        classify_board_vote(status, body.as_bytes(), &req(direction))
    }

    #[test]
    fn s15_6_the_body_names_the_post_and_direction_only() {
        assert_eq!(
            req(VoteDirection::Down).body(),
            serde_json::json!({"post_id": "post-1001", "direction": "down"})
        );
        assert_eq!(VoteDirection::parse(" UP "), Some(VoteDirection::Up));
        assert_eq!(VoteDirection::parse("sideways"), None);
    }

    #[test]
    fn s15_12_recorded_is_applied_with_the_reply_score() {
        let o = classify(
            200,
            r#"{"ok":true,"message":"↑ Vote recorded. New score: +3"}"#,
            VoteDirection::Up,
        );
        assert_eq!(
            o,
            SaveOutcome::Applied {
                detail: VoteRecorded {
                    direction: VoteDirection::Up,
                    score: Some(3)
                },
                warning: None
            }
        );
        let o = classify(
            200,
            r#"{"ok":true,"message":"↓ Vote recorded. New score: -2 [flipped from up]"}"#,
            VoteDirection::Down,
        );
        assert!(matches!(
            o,
            SaveOutcome::Applied {
                detail: VoteRecorded {
                    score: Some(-2),
                    ..
                },
                ..
            }
        ));
    }

    #[test]
    fn s15_12_already_voted_is_unchanged() {
        let o = classify(
            200,
            r#"{"ok":true,"message":"↑ Already voted (idempotent). Score: +3"}"#,
            VoteDirection::Up,
        );
        assert_eq!(o, SaveOutcome::Unchanged);
    }

    #[test]
    fn s15_12_a_400_is_not_applied_with_the_servers_words() {
        let o = classify(
            400,
            r#"{"ok":false,"message":"Post not found: post-9"}"#,
            VoteDirection::Up,
        );
        assert_eq!(o.save_class(), SaveClass::NotApplied);
        assert_eq!(o.reason(), Some("HTTP 400: Post not found: post-9"));
    }

    #[test]
    fn s15_12_a_2xx_that_is_not_the_envelope_or_names_the_other_direction_is_unknown() {
        for (body, direction) in [
            (r#"{"voted":true}"#, VoteDirection::Up),
            ("ok", VoteDirection::Up),
            (r#"{"ok":false,"message":"x"}"#, VoteDirection::Up),
            (
                r#"{"ok":true,"message":"↓ Vote recorded. New score: +1"}"#,
                VoteDirection::Up,
            ),
            (r#"{"ok":true,"message":"thanks"}"#, VoteDirection::Up),
        ] {
            assert_eq!(
                classify(200, body, direction).save_class(),
                SaveClass::OutcomeUnknown,
                "{body}"
            );
        }
    }

    #[test]
    fn s15_12_an_unknown_route_404_is_not_served_and_a_5xx_unknown() {
        let o = classify(404, "404 Not Found", VoteDirection::Up);
        assert_eq!(o.reason(), Some(ROUTE_NOT_SERVED));
        assert_eq!(
            classify(500, "{}", VoteDirection::Up).save_class(),
            SaveClass::OutcomeUnknown
        );
        assert_eq!(
            classify(401, "{}", VoteDirection::Up).save_class(),
            SaveClass::NotApplied
        );
    }

    #[test]
    fn s15_6_own_vote_reads_both_keys_tolerantly() {
        let obj = |s: &str| match serde_json::from_str::<Value>(s).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert_eq!(OwnVote::read(&obj(r#"{"id":"p"}"#)), None);
        assert_eq!(
            OwnVote::read(&obj(r#"{"current_vote":"down","has_voted":true}"#)),
            Some(OwnVote {
                current: Some(VoteDirection::Down),
                has_voted: true
            })
        );
        assert_eq!(
            OwnVote::read(&obj(r#"{"current_vote":null,"has_voted":false}"#)),
            Some(OwnVote {
                current: None,
                has_voted: false
            })
        );
        assert_eq!(OwnVote::read(&obj(r#"{"current_vote":"meh"}"#)), None);
        assert_eq!(OwnVote::read(&obj(r#"{"has_voted":"yes"}"#)), None);
    }
}
