//! Keeper chat: the send stream (protocol.md §4.3), operation reconciliation (§4.4), the history
//! pages (§4.5), the bare-array history and the newer store's rows (§15.9).

pub mod events;
pub mod history;
pub mod journal;
pub mod operation;
pub mod post;
pub mod rows;
pub mod stream;

pub use events::{
    Acceptance, BatchBinding, ChatStreamEvent, InteractiveAdmission, InteractiveKind,
    InteractiveOutcome, OperationState, ReplyDetails, RunErrorCode, ToolApprovalRequest,
    ToolApprovalSettled, ToolCallArgs, TurnOutcome,
};
pub use history::{ChatHistoryArray, ChatHistoryPage};
pub use operation::{ChatOperationRecord, OperationProgress};
pub use post::{ChatPostAnswer, ChatTranscript, PreStreamRefusal};
pub use rows::{ChatHistoryRow, ChatRole, ChatRowKind, DroppedRow, RowCounts};
pub use stream::{ChatStreamOutcome, ChatStreamReader, ChatStreamValidator, ResumeRefusal};
