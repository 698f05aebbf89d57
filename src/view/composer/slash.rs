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

/// A parsed command. `None` arguments mean "not given" (the screen's default for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    Help,
    Copy,
    Keeper(Option<String>),
    Queue,
    RunNext,
    Approve,
    Deny,
    Interrupt(Option<String>),
    Steer(String),
    Thinking(Option<ThinkingChoice>),
    Tools(Option<ToolsChoice>),
    Find(Option<String>),
    Context,
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
    /// What it does, in the seeds' Korean (the menu's words).
    pub description: &'static str,
    /// What it does, in English (the help's words).
    pub help: &'static str,
}

const THINKING: &[&str] = &["hidden", "folded", "full"];
const TOOLS: &[&str] = &["compact", "results", "full"];

const fn spec(
    name: &'static str,
    aliases: &'static [&'static str],
    args: ArgShape,
    arg_hint: &'static str,
    (description, help): (&'static str, &'static str),
) -> CommandSpec {
    CommandSpec {
        name,
        aliases,
        args,
        arg_hint,
        description,
        help,
    }
}

/// The commands of C-66 masc-tui runs, in menu order: the menu offers only these.
pub const COMMANDS: &[CommandSpec] = &[
    spec(
        "help",
        &[],
        ArgShape::None,
        "",
        ("모든 단축키와 명령", "every key and command of the chat"),
    ),
    spec(
        "copy",
        &[],
        ArgShape::None,
        "",
        (
            "마지막 답 원문 복사",
            "copy the found or newest reply (OSC 52)",
        ),
    ),
    spec(
        "keeper",
        &[],
        ArgShape::OptionalName,
        "[name]",
        (
            "대화 대상 Keeper 바꾸기",
            "chat with another Keeper (alone: back to the list)",
        ),
    ),
    spec(
        "queue",
        &[],
        ArgShape::None,
        "",
        ("대기 입력 열기", "inputs not yet started (Esc closes)"),
    ),
    spec(
        "run-next",
        &[],
        ArgShape::None,
        "",
        ("대기 입력 하나 바로 실행", "run the next queued input now"),
    ),
    spec(
        "approve",
        &[],
        ArgShape::None,
        "",
        (
            "보류된 호출 승인",
            "approve the oldest held call or approval (twice)",
        ),
    ),
    spec(
        "deny",
        &[],
        ArgShape::None,
        "",
        (
            "보류된 호출 거절",
            "deny the oldest held call or approval (twice)",
        ),
    ),
    spec(
        "interrupt",
        &[],
        ArgShape::OptionalName,
        "[name]",
        ("진행 중인 턴 중단", "interrupt the running turn"),
    ),
    spec(
        "steer",
        &[],
        ArgShape::RequiredText,
        "<text>",
        ("진행 중인 턴에 방향 주기", "steer the running turn"),
    ),
    spec(
        "thinking",
        &[],
        ArgShape::Choice(THINKING),
        "[hidden|folded|full]",
        ("추론 표시", "reasoning shown (alone: the next mode)"),
    ),
    spec(
        "tools",
        &[],
        ArgShape::Choice(TOOLS),
        "[compact|results|full]",
        ("도구 표시", "tool calls shown (alone: the next mode)"),
    ),
    spec(
        "find",
        &[],
        ArgShape::OptionalText,
        "[text]",
        (
            "대화에서 찾기",
            "highlight text; n older, N newer match (alone: clear)",
        ),
    ),
    spec(
        "context",
        &[],
        ArgShape::None,
        "",
        (
            "컨텍스트 살펴보기",
            "the chat target's context (Esc closes)",
        ),
    ),
];

/// The words of C-66 masc-tui does not run: typed, they say so (never "unknown", never sent);
/// the menu does not offer them.
pub const NOT_RUN: &[&str] = &[
    "errors",
    "about",
    "splash",
    "addons",
    "play",
    "metrics",
    "telemetry",
    "settings",
    "diff",
    "patch",
    "review",
    "cost",
    "preview",
    "links",
    "embeds",
    "changes",
    "activity",
    "priority",
    "autonext",
    "memory",
    "fleet-memory",
    "image",
    "attach",
    "ref",
    "preset",
    "task",
];

/// Why a command draft was not run. Never sent as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlashError {
    /// `/word` that is not a command (also `/` alone).
    #[error("알 수 없는 명령: /{0}")]
    Unknown(String),
    /// A command of C-66 this console does not run.
    #[error("/{0}: masc-tui does not run this command")]
    NotRun(String),
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
    let spec = lookup(word).ok_or_else(|| match NOT_RUN.contains(&word) {
        true => SlashError::NotRun(word.to_string()),
        false => SlashError::Unknown(word.to_string()),
    })?;
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
        "copy" => SlashCommand::Copy,
        "keeper" => SlashCommand::Keeper(text_arg()),
        "queue" => SlashCommand::Queue,
        "run-next" => SlashCommand::RunNext,
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
        "find" => SlashCommand::Find(text_arg()),
        "context" => SlashCommand::Context,
        other => return Err(SlashError::Unknown(other.to_string())),
    })
}

impl SlashCommand {
    /// The command's word as typed (`interrupt` for `/interrupt alpha`).
    pub fn word(&self) -> &'static str {
        match self {
            Self::Help => "help",
            Self::Copy => "copy",
            Self::Keeper(_) => "keeper",
            Self::Queue => "queue",
            Self::RunNext => "run-next",
            Self::Approve => "approve",
            Self::Deny => "deny",
            Self::Interrupt(_) => "interrupt",
            Self::Steer(_) => "steer",
            Self::Thinking(_) => "thinking",
            Self::Tools(_) => "tools",
            Self::Find(_) => "find",
            Self::Context => "context",
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
            ("/context", "/context"),
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

    /// The menu offers only what the chat runs; C-66's other words say they
    /// are not run here (never "unknown", never sent).
    #[test]
    fn c66_the_menu_offers_only_commands_masc_tui_runs() {
        let offered: Vec<&str> = candidates("/")
            .unwrap_or_default()
            .iter()
            .map(|c| c.name)
            .collect();
        for word in [
            "errors",
            "about",
            "addons",
            "play",
            "metrics",
            "settings",
            "diff",
            "memory",
            "fleet-memory",
            "image",
            "attach",
        ] {
            assert!(!offered.contains(&word), "/{word} offered");
            assert_eq!(
                parse(&format!("/{word}")),
                Err(SlashError::NotRun(word.into()))
            );
        }
        for word in [
            "help",
            "interrupt",
            "steer",
            "approve",
            "deny",
            "run-next",
            "keeper",
            "thinking",
            "tools",
            "find",
            "copy",
            "queue",
            "context",
        ] {
            assert!(offered.contains(&word), "/{word} not offered");
        }
        assert_eq!(offered.len(), COMMANDS.len());
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
        assert_eq!(names("/co"), vec!["copy", "context"]);
        assert_eq!(names("/zz"), Vec::<&str>::new());
        assert!(candidates("/steer now").is_none());
        assert!(candidates("hello").is_none());
    }
}
