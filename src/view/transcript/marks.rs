//! Speaker marks (§2.1), continued marks (C-22), call-state marks (C-51) and the gutter
//! labels and quote bars (§2.4). Marks are shapes, never punctuation (C-1): who spoke is
//! readable from the mark alone, with or without colour (C-3).

use super::model::{CallState, Entry, EntryKind, SkillState, Speaker};
use super::modes::OriginMode;

/// The style family of a row (the `speaker_mark` table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    User,
    Inbound,
    Keeper,
    Status,
    Local,
    Journal,
    Tool,
    Skill(SkillState),
    Thinking,
    Error,
}

impl Role {
    pub fn of(entry: &Entry) -> Self {
        match (&entry.kind, &entry.speaker) {
            (EntryKind::Failure(_), _) => Self::Error,
            (EntryKind::Gate(gate), _) if gate.failed() => Self::Error,
            (EntryKind::Gate(_), _) => Self::Status,
            (EntryKind::Thinking, _) => Self::Thinking,
            (EntryKind::ToolCall(_), _) => Self::Tool,
            (EntryKind::SkillSummary(run), _) => Self::Skill(run.state),
            (EntryKind::Journal, _) => Self::Journal,
            (EntryKind::Status, _) => Self::Status,
            (EntryKind::LocalReply, _) | (EntryKind::PendingInput { .. }, _) => Self::Local,
            (EntryKind::Utterance, Speaker::Operator) => Self::User,
            (EntryKind::Utterance, Speaker::Keeper { .. } | Speaker::Autonomous { .. }) => {
                Self::Keeper
            }
            (EntryKind::Utterance, Speaker::Inbound { .. }) => Self::Inbound,
            (EntryKind::Utterance, Speaker::Tool) => Self::Tool,
            (EntryKind::Utterance, Speaker::System) => Self::Status,
        }
    }

    /// Speech: the bodies drawn at the terminal foreground (C-4).
    pub fn is_speech(self) -> bool {
        matches!(self, Self::User | Self::Inbound | Self::Keeper)
    }

    /// Work inside a turn (the rail draws `├` / `╶` for it).
    pub fn is_work(self) -> bool {
        matches!(self, Self::Tool | Self::Skill(_) | Self::Thinking)
    }

    /// Bodies one level below the foreground (C-5).
    pub fn body_is_dim(self) -> bool {
        matches!(
            self,
            Self::Tool | Self::Skill(_) | Self::Journal | Self::Thinking
        )
    }
}

/// The speaker mark. In the bare layout the operator is `›` [S1][CF]; the detail layouts
/// (inline, row) use `▶` [S1 §상세 레이아웃].
pub fn speaker_mark(role: Role, origin: OriginMode) -> char {
    match role {
        Role::User if origin == OriginMode::Bare => '›',
        Role::User => '▶',
        Role::Inbound => '◀',
        Role::Keeper => '●',
        Role::Status => '○',
        Role::Local => '›',
        Role::Journal => '◈',
        Role::Tool => '■',
        Role::Skill(state) => skill_mark(state),
        Role::Thinking => '·',
        Role::Error => '✗',
    }
}

pub fn skill_mark(state: SkillState) -> char {
    match state {
        SkillState::Running => '◇',
        SkillState::Used => '◆',
        SkillState::NeedsLook => '△',
        SkillState::Failed => '✗',
    }
}

/// C-22: the quietest mark for a speaker continuing.
pub fn continued_mark(role: Role, origin: OriginMode) -> char {
    match role {
        Role::User | Role::Inbound | Role::Keeper | Role::Tool => '│',
        Role::Thinking => '·',
        other => speaker_mark(other, origin),
    }
}

/// C-51 call-state marks. `?` is not used (C-1, seeds win over [G9]): "no outcome recorded"
/// and "no result seen" share the hollow `○`, told apart by their words (C-49).
pub fn call_mark(state: CallState) -> char {
    match state {
        CallState::Succeeded => '✓',
        CallState::ResultReceived => '↩',
        CallState::Failed => '✗',
        CallState::ArgsStreaming => '◌',
        CallState::AwaitingResult => '▶',
        CallState::NotSeen | CallState::NoCallLog | CallState::Unrecorded => '○',
    }
}

/// The state word drawn after a call name in `Tools_results` (C-49).
pub fn call_state_words(state: CallState) -> &'static str {
    match state {
        CallState::Succeeded => "ok",
        CallState::ResultReceived => "result received",
        CallState::Failed => "failed",
        CallState::ArgsStreaming => "arguments streaming",
        CallState::AwaitingResult => "awaiting result",
        CallState::NotSeen => "not seen",
        CallState::NoCallLog => "no call-log row",
        CallState::Unrecorded => "no outcome recorded",
    }
}

/// The label of the speaker column (inline) and of origin headings (row).
pub fn role_label(role: Role, entry: &Entry) -> String {
    match role {
        Role::User => "YOU".into(),
        Role::Keeper => match &entry.speaker {
            Speaker::Keeper { name, .. } => name.to_string(),
            // C-25: a turn the Keeper ran on its own is named `AUTO`.
            Speaker::Autonomous { .. } => "AUTO".into(),
            _ => "KEEPER".into(),
        },
        Role::Inbound => match &entry.speaker {
            Speaker::Inbound(inbound) => inbound.sender.clone(),
            _ => "INBOUND".into(),
        },
        Role::Status => "STATUS".into(),
        Role::Local => "LOCAL".into(),
        Role::Journal => "JOURNAL".into(),
        Role::Tool => "TOOLS".into(),
        Role::Skill(_) => "SKILL".into(),
        Role::Thinking => "THINKING".into(),
        Role::Error => "ERROR".into(),
    }
}

/// The quote bar before the body (§2.4 item 4): others' text `│`, journal `┊`, speech blanks.
pub fn quote_bar(role: Role) -> &'static str {
    match role {
        Role::Tool | Role::Skill(_) | Role::Status | Role::Local => "│ ",
        Role::Journal => "┊ ",
        Role::User | Role::Inbound | Role::Keeper | Role::Error | Role::Thinking => "  ",
    }
}
