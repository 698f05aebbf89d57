//! One test per §11 table row (protocol.md §11), named `<write kind>_<outcome>`.

mod config;
mod interactive;
mod keeper_ops;

use super::SaveOutcome;

fn class<A, C>(o: &SaveOutcome<A, C>) -> &'static str {
    o.class()
}
