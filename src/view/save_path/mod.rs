//! The one way a save leaves the view: a [`SaveRequest`] (a typed intent of one kind, behind a
//! small trait object so a command can carry any kind), checked and registered by [`submit`],
//! then cast to the save hub. Key handling never awaits: the cast is the only effect outside the
//! model, so tests and benches call the same function the view actor calls.
//!
//! Each kind has a companion on the view side ([`SaveCompanion`], in [`kinds`]): the book its
//! saves are kept in (the model's `SaveBook`, or the chat pane for a chat send), its "already in
//! flight" rule (the intent key, and H-11's one operation per Keeper for sandbox, assignment
//! and settings), its pre-checks against what the model shows (§11: a bind the status already
//! shows is unchanged, not sent), its words, and what the model does after a submit (a decision
//! made in a chat shows there at once). [`submit`] checks them in this order, in one place:
//!
//! 1. a confirmed workspace (K-5: a save is made under the epoch the operator saw);
//! 2. the companion's admission ([`SaveCompanion::admit`]: pre-checks, exclusivity);
//! 3. the same intent in flight in the book: shared, not sent again;
//! 4. the preview: a request not yet confirmed whose companion previews it
//!    ([`SaveCompanion::preview`]: old → new per field from the model's current value, the
//!    unified diff of a file it rewrites, what it removes) is staged — nothing registered,
//!    nothing sent — and the caller opens the confirmation layer (`screens::confirm`), whose
//!    confirming key submits the same request marked confirmed ([`SaveRequest::confirmed`]);
//!    the companion may keep the save here for now ([`SaveCompanion::hold`]);
//! 5. registered in the book (so its receipt has a place to land), then cast to the hub; a hub
//!    that is not running settles it here as not sent;
//! 6. the companion's reaction ([`SaveCompanion::after_submit`]).
//!
//! Where the stages before the commit are: a preview of the change (old → new from the
//! model's current value, [`SaveCompanion::preview`]) is staged for its confirming key before
//! step 5; the commit is step 5 (the outbox row is durable before anything leaves, never
//! resent).
//!
//! After the receipt, three stages read every kind through [`kinds::ALL`]:
//! - [`settle`]: the receipt is confirmed by a re-read of what it changed
//!   ([`SaveCompanion::confirm`]), or said not to be within the kind's bound;
//! - [`journal`]: every save of the session (the books keep each with its phase and settle
//!   state) and every outbox row of earlier sessions, as rows;
//! - [`undo`]: a new request made by the companion from a settled save
//!   ([`SaveCompanion::undo`]), submitted through [`submit`] like any other (previewed and
//!   confirmed like any other).

pub mod companion;
pub mod diff;
pub mod journal;
pub mod kinds;
mod preview;
mod refusal;
mod request;
pub mod settle;
mod stage;
mod submit;
pub mod undo;

pub use companion::{SaveCompanion, SaveLedger};
pub use preview::{Change, Preview, PreviewRow, shown};
pub use refusal::{Refused, SaveRefusal};
pub use request::{SaveRequest, Staged, Submitted, notice};
pub use stage::SubmitStage;
pub use submit::submit;
