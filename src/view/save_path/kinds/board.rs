//! The Board's kinds: a composed post (§8.4).

use super::book_at;
use crate::actors::board::compose::BoardPost;
use crate::view::save_path::SaveCompanion;

impl SaveCompanion for BoardPost {
    book_at!(board.composed);
    const BUSY: &'static str = "this draft is already being sent";
}
