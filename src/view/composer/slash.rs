//! The closed slash-command grammar (C-59…C-62, C-66).
//!
//! A draft whose first character is `/` is a command, never a message. The command word must
//! match a name or alias exactly (no prefix match, C-66); anything else is a typed
//! [`SlashError`], reported on the footer (C-64) and never sent. Arguments are closed too:
//! enumerated choices are checked, commands without arguments refuse extra text, required
//! text is required.

use std::fmt;

/// `/thinking [hidden|folded|full]` (C-66; the Ctrl-R axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingChoice {
    Hidden,
    Folded,
    Full,
}

/// `/tools [compact|results|full]` (C-66; the Ctrl-D axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsChoice {
    Compact,
    Results,
    Full,
}

/// `/preset [save|restore|show]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetChoice {
    Save,
    Restore,
    Show,
}

/// A parsed command. `None` arguments mean "not given" (the screen's default for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    Help,
    Errors,
    About,
    Addons,
    Play,
    Metrics,
    Settings,
    Diff,
    Patch,
    Cost,
    Preview,
    Links,
    Copy,
    Embeds,
    Changes,
    Activity,
    Keeper(Option<String>),
    Queue,
    RunNext,
    Priority,
    Approve,
    Deny,
    Interrupt(Option<String>),
    Steer(String),
    Thinking(Option<ThinkingChoice>),
    Tools(Option<ToolsChoice>),
    Memory,
    FleetMemory,
    Find(Option<String>),
    Context,
    Image,
    Attach(String),
    Ref(Option<String>),
    Preset(Option<PresetChoice>),
    Task,
}

/// What a command accepts after its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgShape {
    None,
    /// One optional word (a Keeper name).
    OptionalName,
    /// Optional free text (the rest of the draft).
    OptionalText,
    /// Required free text (the rest of the draft).
    RequiredText,
    /// One optional word out of a fixed set.
    Choice(&'static [&'static str]),
}

/// One entry of the grammar: what the menu shows and what the parser accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub args: ArgShape,
    /// Argument hint for the menu's first column (`[name]`, `<text>`).
    pub arg_hint: &'static str,
    pub description: &'static str,
}

const THINKING: &[&str] = &["hidden", "folded", "full"];
const TOOLS: &[&str] = &["compact", "results", "full"];
const PRESET: &[&str] = &["save", "restore", "show"];

const fn spec(
    name: &'static str,
    aliases: &'static [&'static str],
    args: ArgShape,
    arg_hint: &'static str,
    description: &'static str,
) -> CommandSpec {
    CommandSpec {
        name,
        aliases,
        args,
        arg_hint,
        description,
    }
}

/// The command set of C-66, in menu order.
pub const COMMANDS: &[CommandSpec] = &[
    spec("help", &[], ArgShape::None, "", "모든 단축키와 명령"),
    spec("errors", &[], ArgShape::None, "", "최근 오류 보기"),
    spec("about", &["splash"], ArgShape::None, "", "이 콘솔에 대해"),
    spec("addons", &[], ArgShape::None, "", "애드온 목록"),
    spec("play", &[], ArgShape::None, "", "재생 애드온 열기"),
    spec("metrics", &["telemetry"], ArgShape::None, "", "지표 보기"),
    spec("settings", &[], ArgShape::None, "", "Keeper 설정"),
    spec("diff", &[], ArgShape::None, "", "이번 턴의 파일 변경"),
    spec("patch", &["review"], ArgShape::None, "", "패치 검토"),
    spec("cost", &[], ArgShape::None, "", "관측된 사용량과 비용"),
    spec("preview", &[], ArgShape::None, "", "준비 미리보기"),
    spec("links", &[], ArgShape::None, "", "대화 속 링크"),
    spec("copy", &[], ArgShape::None, "", "마지막 답 원문 복사"),
    spec("embeds", &[], ArgShape::None, "", "첨부된 내용 보기"),
    spec("changes", &[], ArgShape::None, "", "파일 변경 목록"),
    spec("activity", &[], ArgShape::None, "", "Activity 열기"),
    spec(
        "keeper",
        &[],
        ArgShape::OptionalName,
        "[name]",
        "대화 대상 Keeper 바꾸기",
    ),
    spec("queue", &[], ArgShape::None, "", "대기 입력 열기"),
    spec(
        "run-next",
        &[],
        ArgShape::None,
        "",
        "대기 입력 하나 바로 실행",
    ),
    spec(
        "priority",
        &["autonext"],
        ArgShape::None,
        "",
        "대기 입력 자동 진행",
    ),
    spec("approve", &[], ArgShape::None, "", "보류된 호출 승인"),
    spec("deny", &[], ArgShape::None, "", "보류된 호출 거절"),
    spec(
        "interrupt",
        &[],
        ArgShape::OptionalName,
        "[name]",
        "진행 중인 턴 중단",
    ),
    spec(
        "steer",
        &[],
        ArgShape::RequiredText,
        "<text>",
        "진행 중인 턴에 방향 주기",
    ),
    spec(
        "thinking",
        &[],
        ArgShape::Choice(THINKING),
        "[hidden|folded|full]",
        "추론 표시",
    ),
    spec(
        "tools",
        &[],
        ArgShape::Choice(TOOLS),
        "[compact|results|full]",
        "도구 표시",
    ),
    spec("memory", &[], ArgShape::None, "", "Memory 저널"),
    spec("fleet-memory", &[], ArgShape::None, "", "공유 메모리"),
    spec(
        "find",
        &[],
        ArgShape::OptionalText,
        "[text]",
        "대화에서 찾기",
    ),
    spec("context", &[], ArgShape::None, "", "컨텍스트 살펴보기"),
    spec("image", &[], ArgShape::None, "", "클립보드 이미지 붙이기"),
    spec("attach", &[], ArgShape::RequiredText, "<path>", "파일 첨부"),
    spec("ref", &[], ArgShape::OptionalText, "[text]", "출처 참조"),
    spec(
        "preset",
        &[],
        ArgShape::Choice(PRESET),
        "[save|restore|show]",
        "보기 설정 묶음",
    ),
    spec("task", &[], ArgShape::None, "", "원본 Task 열기"),
];

/// Why a command draft was not run. Never sent as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlashError {
    /// `/word` that is not a command (also `/` alone).
    #[error("알 수 없는 명령: /{0}")]
    Unknown(String),
    #[error("/{command}: 인자가 필요합니다 ({hint})")]
    MissingArgument {
        command: &'static str,
        hint: &'static str,
    },
    #[error("/{command}: 인자를 받지 않습니다 ({given})")]
    UnexpectedArgument {
        command: &'static str,
        given: String,
    },
    #[error("/{command}: {given} 은(는) 쓸 수 없습니다 ({hint})")]
    InvalidArgument {
        command: &'static str,
        given: String,
        hint: &'static str,
    },
}

impl CommandSpec {
    pub fn matches_word(&self, word: &str) -> bool {
        self.name == word || self.aliases.contains(&word)
    }

    /// `name` or `name/alias` prefix for the menu filter (the grammar itself never matches a
    /// prefix).
    pub fn offered_for(&self, typed: &str) -> bool {
        self.name.starts_with(typed) || self.aliases.iter().any(|a| a.starts_with(typed))
    }

    /// What Tab/Enter put into the draft: `/name`, plus a space when arguments follow.
    pub fn insertion(&self) -> String {
        match self.args {
            ArgShape::None => format!("/{}", self.name),
            _ => format!("/{} ", self.name),
        }
    }
}

/// The command spec for an exact word.
pub fn lookup(word: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.matches_word(word))
}

/// Whether a draft is a command attempt (first character `/`).
pub fn is_command_draft(text: &str) -> bool {
    text.starts_with('/')
}

/// Splits `/word rest` into the word and the trimmed rest.
fn split_command(text: &str) -> (&str, &str) {
    let body = text.strip_prefix('/').unwrap_or(text);
    match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], body[i..].trim()),
        None => (body, ""),
    }
}

fn choice<T: Copy>(
    spec: &CommandSpec,
    rest: &str,
    table: &[(&str, T)],
) -> Result<Option<T>, SlashError> {
    if rest.is_empty() {
        return Ok(None);
    }
    table
        .iter()
        .find(|(word, _)| *word == rest)
        .map(|(_, v)| Some(*v))
        .ok_or_else(|| SlashError::InvalidArgument {
            command: spec.name,
            given: rest.to_string(),
            hint: spec.arg_hint,
        })
}

/// Parses a command draft (C-66). The caller has checked [`is_command_draft`].
pub fn parse(text: &str) -> Result<SlashCommand, SlashError> {
    let (word, rest) = split_command(text);
    let spec = lookup(word).ok_or_else(|| SlashError::Unknown(word.to_string()))?;
    let text_arg = || (!rest.is_empty()).then(|| rest.to_string());
    match spec.args {
        ArgShape::None if !rest.is_empty() => {
            return Err(SlashError::UnexpectedArgument {
                command: spec.name,
                given: rest.to_string(),
            });
        }
        ArgShape::OptionalName if rest.contains(char::is_whitespace) => {
            return Err(SlashError::InvalidArgument {
                command: spec.name,
                given: rest.to_string(),
                hint: spec.arg_hint,
            });
        }
        ArgShape::RequiredText if rest.is_empty() => {
            return Err(SlashError::MissingArgument {
                command: spec.name,
                hint: spec.arg_hint,
            });
        }
        _ => {}
    }
    Ok(match spec.name {
        "help" => SlashCommand::Help,
        "errors" => SlashCommand::Errors,
        "about" => SlashCommand::About,
        "addons" => SlashCommand::Addons,
        "play" => SlashCommand::Play,
        "metrics" => SlashCommand::Metrics,
        "settings" => SlashCommand::Settings,
        "diff" => SlashCommand::Diff,
        "patch" => SlashCommand::Patch,
        "cost" => SlashCommand::Cost,
        "preview" => SlashCommand::Preview,
        "links" => SlashCommand::Links,
        "copy" => SlashCommand::Copy,
        "embeds" => SlashCommand::Embeds,
        "changes" => SlashCommand::Changes,
        "activity" => SlashCommand::Activity,
        "keeper" => SlashCommand::Keeper(text_arg()),
        "queue" => SlashCommand::Queue,
        "run-next" => SlashCommand::RunNext,
        "priority" => SlashCommand::Priority,
        "approve" => SlashCommand::Approve,
        "deny" => SlashCommand::Deny,
        "interrupt" => SlashCommand::Interrupt(text_arg()),
        "steer" => SlashCommand::Steer(rest.to_string()),
        "thinking" => SlashCommand::Thinking(choice(
            spec,
            rest,
            &[
                ("hidden", ThinkingChoice::Hidden),
                ("folded", ThinkingChoice::Folded),
                ("full", ThinkingChoice::Full),
            ],
        )?),
        "tools" => SlashCommand::Tools(choice(
            spec,
            rest,
            &[
                ("compact", ToolsChoice::Compact),
                ("results", ToolsChoice::Results),
                ("full", ToolsChoice::Full),
            ],
        )?),
        "memory" => SlashCommand::Memory,
        "fleet-memory" => SlashCommand::FleetMemory,
        "find" => SlashCommand::Find(text_arg()),
        "context" => SlashCommand::Context,
        "image" => SlashCommand::Image,
        "attach" => SlashCommand::Attach(rest.to_string()),
        "ref" => SlashCommand::Ref(text_arg()),
        "preset" => SlashCommand::Preset(choice(
            spec,
            rest,
            &[
                ("save", PresetChoice::Save),
                ("restore", PresetChoice::Restore),
                ("show", PresetChoice::Show),
            ],
        )?),
        "task" => SlashCommand::Task,
        other => return Err(SlashError::Unknown(other.to_string())),
    })
}

impl SlashCommand {
    /// The command's word as typed (`interrupt` for `/interrupt alpha`).
    pub fn word(&self) -> &'static str {
        match self {
            Self::Help => "help",
            Self::Errors => "errors",
            Self::About => "about",
            Self::Addons => "addons",
            Self::Play => "play",
            Self::Metrics => "metrics",
            Self::Settings => "settings",
            Self::Diff => "diff",
            Self::Patch => "patch",
            Self::Cost => "cost",
            Self::Preview => "preview",
            Self::Links => "links",
            Self::Copy => "copy",
            Self::Embeds => "embeds",
            Self::Changes => "changes",
            Self::Activity => "activity",
            Self::Keeper(_) => "keeper",
            Self::Queue => "queue",
            Self::RunNext => "run-next",
            Self::Priority => "priority",
            Self::Approve => "approve",
            Self::Deny => "deny",
            Self::Interrupt(_) => "interrupt",
            Self::Steer(_) => "steer",
            Self::Thinking(_) => "thinking",
            Self::Tools(_) => "tools",
            Self::Memory => "memory",
            Self::FleetMemory => "fleet-memory",
            Self::Find(_) => "find",
            Self::Context => "context",
            Self::Image => "image",
            Self::Attach(_) => "attach",
            Self::Ref(_) => "ref",
            Self::Preset(_) => "preset",
            Self::Task => "task",
        }
    }
}

/// What the operator reads on the footer: `/word`, never a Rust debug value such as
/// `Interrupt(None)`.
impl fmt::Display for SlashCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}", self.word())
    }
}

/// The menu's candidates for a draft still on its command word: specs offered for the typed
/// prefix, in grammar order. `None` when the draft is not on a command word (C-59).
pub fn candidates(text: &str) -> Option<Vec<&'static CommandSpec>> {
    let typed = text.strip_prefix('/')?;
    if typed.contains(char::is_whitespace) {
        return None;
    }
    Some(COMMANDS.iter().filter(|c| c.offered_for(typed)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue14_a_command_reads_as_its_word_never_a_debug_value() {
        for (typed, shown) in [
            ("/interrupt", "/interrupt"),
            ("/interrupt alpha", "/interrupt"),
            ("/run-next", "/run-next"),
            ("/fleet-memory", "/fleet-memory"),
            ("/find 배포", "/find"),
        ] {
            let command = parse(typed).expect(typed);
            assert_eq!(command.to_string(), shown);
            assert_eq!(
                parse(&command.to_string()).map(|c| c.word()),
                Ok(command.word())
            );
        }
    }

    #[test]
    fn c66_every_spec_parses_by_name_and_alias() {
        for spec in COMMANDS {
            let needs = matches!(spec.args, ArgShape::RequiredText);
            let draft = if needs {
                format!("/{} x", spec.name)
            } else {
                format!("/{}", spec.name)
            };
            assert!(parse(&draft).is_ok(), "{draft}");
            for alias in spec.aliases {
                assert_eq!(
                    parse(&format!("/{alias}")),
                    parse(&format!("/{}", spec.name))
                );
            }
        }
    }

    #[test]
    fn c66_names_are_unique() {
        let mut words: Vec<&str> = COMMANDS
            .iter()
            .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
            .collect();
        let n = words.len();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), n);
    }

    #[test]
    fn c66_exact_word_no_prefix_match() {
        assert_eq!(parse("/hel"), Err(SlashError::Unknown("hel".into())));
        assert_eq!(parse("/helpme"), Err(SlashError::Unknown("helpme".into())));
        assert_eq!(parse("/"), Err(SlashError::Unknown(String::new())));
        assert_eq!(parse("/HELP"), Err(SlashError::Unknown("HELP".into())));
    }

    #[test]
    fn c66_arguments_are_closed() {
        assert_eq!(
            parse("/thinking full"),
            Ok(SlashCommand::Thinking(Some(ThinkingChoice::Full)))
        );
        assert_eq!(parse("/thinking"), Ok(SlashCommand::Thinking(None)));
        assert!(matches!(
            parse("/thinking loud"),
            Err(SlashError::InvalidArgument {
                command: "thinking",
                ..
            })
        ));
        assert!(matches!(
            parse("/help me"),
            Err(SlashError::UnexpectedArgument {
                command: "help",
                ..
            })
        ));
        assert!(matches!(
            parse("/steer   "),
            Err(SlashError::MissingArgument {
                command: "steer",
                ..
            })
        ));
        assert_eq!(
            parse("/steer 방향을\n바꿔 줘"),
            Ok(SlashCommand::Steer("방향을\n바꿔 줘".into()))
        );
        assert_eq!(
            parse("/interrupt alpha"),
            Ok(SlashCommand::Interrupt(Some("alpha".into())))
        );
        assert!(parse("/interrupt alpha beta").is_err());
    }

    #[test]
    fn c59_candidates_filter_by_prefix_of_name_or_alias() {
        let names = |t: &str| -> Vec<&str> {
            candidates(t)
                .unwrap_or_default()
                .iter()
                .map(|c| c.name)
                .collect()
        };
        assert_eq!(
            names("/"),
            COMMANDS.iter().map(|c| c.name).collect::<Vec<_>>()
        );
        assert_eq!(names("/th"), vec!["thinking"]);
        assert_eq!(names("/spl"), vec!["about"]);
        assert_eq!(names("/zz"), Vec::<&str>::new());
        assert!(candidates("/steer now").is_none());
        assert!(candidates("hello").is_none());
    }
}
