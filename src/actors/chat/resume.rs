//! Resuming a cut chat stream (protocol.md §4.3, newer MASC: a re-POST of the same
//! `request_id` with `since_seq`), and admitting every event of the turn once.
//!
//! Detected, never assumed: a stream offers a resume only when every event after its
//! acceptance carried a journal sequence (`id: <seq>`, newer MASC) — an older MASC writes
//! none, and refuses an undeclared `since_seq` with 400. A resume is asked only for an
//! accepted operation (the acceptance proves it exists, so the re-POST of the same id creates
//! nothing; §14.15 names such a re-POST `replayed`); anything else falls back to §4.4
//! reconciliation.

use crate::protocol::sse::SseFrame;

/// How many times one send re-opens its cut stream before falling back to reconciliation.
pub const MAX_RESUMES: u32 = 3;

/// What the journal sequence of one frame says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameAdmission {
    /// Not seen before: validate it.
    Fresh,
    /// At or below the newest sequence already admitted: a replay; dropped (each event of a
    /// turn is admitted once).
    Duplicate { seq: u64 },
}

/// The journal sequences one send's streams carried.
#[derive(Debug, Clone, Default)]
pub struct StreamJournal {
    newest: Option<u64>,
    /// An event after the acceptance came without a usable sequence: no resume is offered.
    unjournaled: bool,
}

impl StreamJournal {
    /// Judge one frame of the turn's own events (a resumed stream's acceptance is not one of
    /// them: it is validated without this).
    pub fn admit(&mut self, frame: &SseFrame) -> FrameAdmission {
        if frame.data.is_empty() {
            return FrameAdmission::Fresh;
        }
        let seq = frame
            .id
            .as_deref()
            .and_then(|id| id.trim().parse::<u64>().ok());
        match (seq, self.newest) {
            (Some(seq), Some(newest)) if seq <= newest => FrameAdmission::Duplicate { seq },
            (Some(seq), _) => {
                self.newest = Some(seq);
                FrameAdmission::Fresh
            }
            (None, _) => {
                self.unjournaled = true;
                FrameAdmission::Fresh
            }
        }
    }

    /// The `since_seq` of a resume, when the streams so far offer one.
    pub fn since_seq(&self) -> Option<u64> {
        if self.unjournaled {
            return None;
        }
        self.newest
    }
}

/// The body of a resume: the same send, verbatim, with `since_seq`. No admission intent: a
/// resume asks for nothing new (§14.15).
pub fn resume_body(
    request_id: &str,
    keeper: &str,
    text: &str,
    since_seq: u64,
) -> serde_json::Value {
    serde_json::json!({
        "request_id": request_id,
        "name": keeper,
        "message": text,
        "since_seq": since_seq,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: Option<&str>) -> SseFrame {
        SseFrame {
            id: id.map(str::to_string),
            event: None,
            data: "{}".into(),
        }
    }

    /// §4.3: a replayed sequence is dropped; a stream without `id:` offers no resume.
    #[test]
    fn s4_3_replayed_sequences_are_duplicates_and_unjournaled_streams_offer_no_resume() {
        let mut j = StreamJournal::default();
        assert_eq!(j.since_seq(), None);
        for n in 1..=4 {
            assert_eq!(j.admit(&frame(Some(&n.to_string()))), FrameAdmission::Fresh);
        }
        assert_eq!(j.since_seq(), Some(4));
        assert_eq!(
            j.admit(&frame(Some("3"))),
            FrameAdmission::Duplicate { seq: 3 }
        );
        assert_eq!(j.admit(&frame(Some("5"))), FrameAdmission::Fresh);
        assert_eq!(j.since_seq(), Some(5));
        let mut older = StreamJournal::default();
        older.admit(&frame(None));
        older.admit(&frame(None));
        assert_eq!(older.since_seq(), None);
        let mut mixed = StreamJournal::default();
        mixed.admit(&frame(Some("1")));
        mixed.admit(&frame(Some("x")));
        assert_eq!(mixed.since_seq(), None, "an unusable id is no journal");
    }
}
