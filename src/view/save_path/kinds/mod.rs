//! Every save kind's companion, by the surface that keeps its book. A new kind's companion is a
//! few lines in its surface's file here (or a file of its own and one `mod` line).

mod board;
mod chat;
mod decisions;
pub mod keepers;
mod system;
mod work;

/// Implements [`super::SaveCompanion`]'s book accessors for a kind kept in a `SaveBook` field
/// of the model (the usual case: the book is always there).
macro_rules! book_at {
    ($($field:ident).+) => {
        type Book = crate::view::saves::SaveBook<Self>;

        fn book<'m>(
            model: &'m crate::view::model::Model,
            _intent: &Self::Intent,
        ) -> Option<&'m Self::Book> {
            Some(&model.$($field).+)
        }

        fn book_mut<'m>(
            model: &'m mut crate::view::model::Model,
            _intent: &Self::Intent,
        ) -> Option<&'m mut Self::Book> {
            Some(&mut model.$($field).+)
        }
    };
}
use book_at;
