//! The supervision drill: a real panic inside an actor handler, so the tested restart path is
//! the one a bug would take. Only reachable with `RuntimeConfig::fault_drills`.

use crate::actors::contract::SourceKey;

/// Carried by the drill panic so the payload says what it was.
#[derive(Debug)]
pub struct InjectedPanic(pub SourceKey);

/// `SourceControl::InjectPanic` in any source: the drill when drills are on, else a warning.
pub fn inject_panic(drills: bool, source: SourceKey) {
    if drills {
        panic_drill(source);
    }
    tracing::warn!(
        target: "masc_tui::read",
        source = %source,
        "panic drill ignored: fault drills are off"
    );
}

#[allow(clippy::panic)]
fn panic_drill(source: SourceKey) -> ! {
    std::panic::panic_any(InjectedPanic(source))
}
