//! Keeper chat: the send stream (protocol.md §4.3), operation reconciliation (§4.4) and the
//! history pages (§4.5).

pub mod events;
pub mod history;
pub mod operation;
pub mod post;
pub mod stream;

pub use events::{
    Acceptance, BatchBinding, ChatStreamEvent, InteractiveAdmission, InteractiveKind,
    InteractiveOutcome, OperationState, ReplyDetails, RunErrorCode, ToolCallArgs, TurnOutcome,
};
pub use history::{ChatHistoryPage, ChatHistoryRow, ChatRole, ChatRowKind};
pub use operation::{ChatOperationRecord, OperationProgress};
pub use post::{ChatPostAnswer, ChatTranscript, PreStreamRefusal};
pub use stream::{ChatStreamOutcome, ChatStreamReader, ChatStreamValidator, ResumeRefusal};
