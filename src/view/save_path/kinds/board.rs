//! The Board's kinds: a composed post (§8.4) and a vote on a post (§15.6), previewed with the
//! vote masc-tui holds on it now and the post's score.

use super::book_at;
use crate::actors::board::BOARD;
use crate::actors::board::compose::BoardPost;
use crate::actors::board::vote::{BoardVote, VoteIntent};
use crate::view::model::Model;
use crate::view::save_path::settle::{Check, Confirm};
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, SaveCompanion};
use crate::view::saves::SaveEntry;

impl SaveCompanion for BoardPost {
    book_at!(board.saves.composed);
    const BUSY: &'static str = "this draft is already being sent";

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a post is published to the Board: MASC has no route to withdraw it")
    }
}

impl SaveCompanion for BoardVote {
    book_at!(board.saves.votes);
    const BUSY: &'static str = "a vote on this post is already in flight";

    fn asked(intent: &VoteIntent) -> String {
        format!("vote {}", intent.direction.as_str())
    }

    /// The open post's detail re-read shows the reader's own vote in that direction (§15.6:
    /// the score and `current_vote` come from the re-read, never from the reply).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let intent = &entry.intent;
        let check = match model
            .board
            .post
            .as_ref()
            .filter(|p| p.post_id == intent.post_id)
            .and_then(|p| p.detail.value_since(mark))
        {
            None => Check::NotYet,
            Some(detail) => match &detail.own_vote {
                Some(own) if own.current == Some(intent.direction) => Check::Shown,
                Some(own) => Check::Differs(format!(
                    "your vote {} (score {})",
                    own.current.map_or("none", |d| d.as_str()),
                    detail.post.votes
                )),
                None => Check::Differs("no vote of yours on the post".into()),
            },
        };
        let check = match model
            .board
            .post
            .as_ref()
            .filter(|p| p.post_id == intent.post_id)
        {
            Some(post) => check.or_failed(&post.detail, mark),
            None => check,
        };
        Some(Confirm::by_sources(check, &[BOARD]))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("MASC keeps every vote: a vote cannot be withdrawn")
    }

    fn preview(model: &Model, intent: &VoteIntent) -> Option<Preview> {
        let detail = model
            .board
            .post
            .as_ref()
            .filter(|p| p.post_id == intent.post_id)
            .and_then(|p| p.detail.fetched.last());
        let now = detail.and_then(|d| d.value.own_vote.as_ref()).map(|v| {
            v.current
                .map_or_else(|| "(none)".to_string(), |d| d.as_str().to_string())
        });
        let mut preview = Preview::titled(format!(
            "vote {} on post {}",
            intent.direction.as_str(),
            intent.post_id
        ))
        .change(Change::new(
            "masc-tui's vote",
            now,
            intent.direction.as_str(),
        ));
        if let Some(d) = detail {
            preview = preview.note(format!(
                "votes now {}; the score shown after comes from a re-read",
                d.value.post.votes
            ));
        }
        Some(preview)
    }
}
