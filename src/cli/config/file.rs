//! The config file's text → a validated [`ConfigFile`], or the first problem with the line
//! and the key it is on. Strict: an unknown key is an error (a misspelt `token_fiel` silently
//! ignored would start a session without the token the operator meant to give).

use super::ConfigError;
use crate::cli::args::{StartSurface, ThemeName};
use clap::ValueEnum;
use ratatui::style::Color;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml_edit::{Document, Item, TableLike};

/// A value and the line of the file it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At<T> {
    pub value: T,
    pub line: usize,
    /// The dotted key it was read under (`workspaces.prod.url`).
    pub key: String,
}

/// The languages the console speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "en",
        }
    }
}

/// Where a named workspace's token comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSpec {
    /// `token_file`: read at start and again after a 401; must be owner-only.
    File(PathBuf),
    /// `token_env`: the named environment variable.
    Env(String),
    /// `token_command`: its standard output (an array runs without a shell; a string runs
    /// through `sh -c`).
    Command(Vec<String>),
    /// `token`: written in the file itself (accepted with a warning; the file must then be
    /// owner-only).
    Inline(String),
}

/// One `[workspaces.NAME]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkspaceEntry {
    pub name: String,
    /// The line of its table header (or first key).
    pub line: usize,
    pub url: At<String>,
    pub token: Option<At<TokenSpec>>,
    pub base_path: Option<At<PathBuf>>,
    pub colour: Option<At<Color>>,
}

/// The `[defaults]` table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Defaults {
    pub workspace: Option<At<String>>,
    pub theme: Option<At<ThemeName>>,
    pub lang: Option<At<Lang>>,
    pub start: Option<At<StartSurface>>,
}

/// A parsed, validated config file.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub defaults: Defaults,
    /// In file order.
    pub workspaces: Vec<WorkspaceEntry>,
}

impl ConfigFile {
    pub fn workspace(&self, name: &str) -> Option<&WorkspaceEntry> {
        self.workspaces.iter().find(|w| w.name == name)
    }

    /// The first token written in the file itself, if any (the file must then be owner-only).
    pub fn inline_token(&self) -> Option<&At<TokenSpec>> {
        self.workspaces
            .iter()
            .filter_map(|w| w.token.as_ref())
            .find(|t| matches!(t.value, TokenSpec::Inline(_)))
    }

    /// The names of the configured workspaces, comma separated (for refusals).
    pub fn names(&self) -> String {
        if self.workspaces.is_empty() {
            return "none".into();
        }
        let names: Vec<&str> = self.workspaces.iter().map(|w| w.name.as_str()).collect();
        names.join(", ")
    }
}

const TOP_KEYS: &[&str] = &["defaults", "workspaces"];
const DEFAULT_KEYS: &[&str] = &["workspace", "theme", "lang", "start"];
const WORKSPACE_KEYS: &[&str] = &[
    "url",
    "token_file",
    "token_env",
    "token_command",
    "token",
    "base_path",
    "colour",
    "color",
];
const TOKEN_KEYS: &[&str] = &["token_file", "token_env", "token_command", "token"];

/// Parses and validates `text`, read from `path` (relative token files are taken from the
/// file's directory; `~/` is the home directory).
pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    let doc = Document::parse(text).map_err(|err| ConfigError::Syntax {
        path: path.to_path_buf(),
        line: line_of(text, err.span()),
        message: err.message().trim().to_string(),
    })?;
    let reader = Reader { path, text };
    let root = doc.as_table();
    reader.only_known(root, "", TOP_KEYS)?;
    let mut workspaces = Vec::new();
    if let Some((key, item)) = root.get_key_value("workspaces") {
        let table = reader.table("workspaces", item, reader.key_line(key, item))?;
        for (name, entry) in table.iter() {
            let (entry_key, _) = table
                .get_key_value(name)
                .ok_or_else(|| reader.invalid(1, "workspaces", "unreadable entry"))?;
            let dotted = format!("workspaces.{name}");
            let line = reader.key_line(entry_key, entry);
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(reader.invalid(
                    line,
                    &dotted,
                    "a workspace name is letters, digits, '-' and '_' (it is typed after \
                     --workspace)",
                ));
            }
            let table = reader.table(&dotted, entry, line)?;
            workspaces.push(reader.workspace(name, line, table)?);
        }
    }
    let mut defaults = Defaults::default();
    if let Some((key, item)) = root.get_key_value("defaults") {
        let table = reader.table("defaults", item, reader.key_line(key, item))?;
        reader.only_known(table, "defaults", DEFAULT_KEYS)?;
        defaults.workspace = reader.string(table, "defaults", "workspace")?;
        if let Some(picked) = &defaults.workspace
            && !workspaces.iter().any(|w| w.name == picked.value)
        {
            let known: Vec<&str> = workspaces.iter().map(|w| w.name.as_str()).collect();
            return Err(reader.invalid(
                picked.line,
                &picked.key,
                &format!(
                    "no workspace named {:?} is configured (configured: {})",
                    picked.value,
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        }
        defaults.theme = reader.choice(
            table,
            "defaults",
            "theme",
            |s| ThemeName::from_str(s, false).ok(),
            "dark, light or high-contrast",
        )?;
        defaults.lang = reader.choice(
            table,
            "defaults",
            "lang",
            |s| (s == "en").then_some(Lang::En),
            "en (the only language this version speaks)",
        )?;
        defaults.start = reader.choice(
            table,
            "defaults",
            "start",
            |s| StartSurface::from_str(s, false).ok(),
            "overview, work, keepers, board or system",
        )?;
    }
    Ok(ConfigFile {
        path: path.to_path_buf(),
        defaults,
        workspaces,
    })
}

/// The 1-based line a byte span starts on (line 1 when the parser gave no span).
fn line_of(text: &str, span: Option<Range<usize>>) -> usize {
    let start = span.map_or(0, |s| s.start).min(text.len());
    text.as_bytes()[..start]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Reader<'_> {
    fn invalid(&self, line: usize, key: &str, problem: &str) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            line,
            key: key.to_string(),
            problem: problem.to_string(),
        }
    }

    /// The first key of `table` (under `parent`, "" at the top) that is not in `known`.
    fn only_known(
        &self,
        table: &dyn TableLike,
        parent: &str,
        known: &[&str],
    ) -> Result<(), ConfigError> {
        let Some((key, item)) = table.iter().find(|(key, _)| !known.contains(key)) else {
            return Ok(());
        };
        let line = table
            .get_key_value(key)
            .map_or(1, |(k, _)| self.key_line(k, item));
        let dotted = if parent.is_empty() {
            key.to_string()
        } else {
            format!("{parent}.{key}")
        };
        Err(self.invalid(
            line,
            &dotted,
            &format!("unknown key (known here: {})", known.join(", ")),
        ))
    }

    fn key_line(&self, key: &toml_edit::Key, item: &Item) -> usize {
        line_of(self.text, key.span().or_else(|| item.span()))
    }

    fn value_line(&self, table: &dyn TableLike, key: &str) -> usize {
        match table.get_key_value(key) {
            Some((k, item)) => line_of(self.text, item.span().or_else(|| k.span())),
            None => 1,
        }
    }

    fn table<'i>(
        &self,
        dotted: &str,
        item: &'i Item,
        line: usize,
    ) -> Result<&'i dyn TableLike, ConfigError> {
        item.as_table_like().ok_or_else(|| {
            self.invalid(
                line,
                dotted,
                &format!("must be a table, not {}", item.type_name()),
            )
        })
    }

    fn string(
        &self,
        table: &dyn TableLike,
        parent: &str,
        key: &str,
    ) -> Result<Option<At<String>>, ConfigError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        let line = self.value_line(table, key);
        let dotted = format!("{parent}.{key}");
        match item.as_str() {
            Some(s) if !s.trim().is_empty() => Ok(Some(At {
                value: s.to_string(),
                line,
                key: dotted,
            })),
            Some(_) => Err(self.invalid(line, &dotted, "must not be empty")),
            None => Err(self.invalid(
                line,
                &dotted,
                &format!("must be a string, not {}", item.type_name()),
            )),
        }
    }

    fn choice<T>(
        &self,
        table: &dyn TableLike,
        parent: &str,
        key: &str,
        pick: impl Fn(&str) -> Option<T>,
        allowed: &str,
    ) -> Result<Option<At<T>>, ConfigError> {
        let Some(text) = self.string(table, parent, key)? else {
            return Ok(None);
        };
        match pick(&text.value) {
            Some(value) => Ok(Some(At {
                value,
                line: text.line,
                key: text.key,
            })),
            None => Err(self.invalid(
                text.line,
                &text.key,
                &format!("{:?} is not one of: {allowed}", text.value),
            )),
        }
    }

    fn workspace(
        &self,
        name: &str,
        line: usize,
        table: &dyn TableLike,
    ) -> Result<WorkspaceEntry, ConfigError> {
        let parent = format!("workspaces.{name}");
        self.only_known(table, &parent, WORKSPACE_KEYS)?;
        let Some(url) = self.string(table, &parent, "url")? else {
            return Err(self.invalid(line, &parent, "has no url"));
        };
        let url = At {
            value: self.url(&url)?,
            ..url
        };
        let given: Vec<&str> = TOKEN_KEYS
            .iter()
            .copied()
            .filter(|k| table.contains_key(k))
            .collect();
        if given.len() > 1 {
            let second = given[1];
            return Err(self.invalid(
                self.value_line(table, second),
                &format!("{parent}.{second}"),
                &format!(
                    "give one token source, not {} (token_file, token_env or token_command)",
                    given.join(" and ")
                ),
            ));
        }
        let token = match given.first().copied() {
            None => None,
            Some("token_command") => Some(self.command(table, &parent)?),
            Some(key) => match self.string(table, &parent, key)? {
                None => None,
                Some(text) => {
                    let value = match key {
                        "token_file" => TokenSpec::File(self.file_path(&text.value)),
                        "token_env" if !is_env_name(&text.value) => {
                            return Err(self.invalid(
                                text.line,
                                &text.key,
                                &format!("{:?} is not an environment variable name", text.value),
                            ));
                        }
                        "token_env" => TokenSpec::Env(text.value.clone()),
                        _ => TokenSpec::Inline(text.value.clone()),
                    };
                    Some(At {
                        value,
                        line: text.line,
                        key: text.key,
                    })
                }
            },
        };
        let base_path = match self.string(table, &parent, "base_path")? {
            Some(text) => {
                let path = expand_home(&text.value);
                if !path.is_absolute() {
                    return Err(self.invalid(
                        text.line,
                        &text.key,
                        "must be an absolute path (or start with ~/)",
                    ));
                }
                Some(At {
                    value: path,
                    line: text.line,
                    key: text.key,
                })
            }
            None => None,
        };
        if table.contains_key("colour") && table.contains_key("color") {
            return Err(self.invalid(
                self.value_line(table, "color"),
                &format!("{parent}.color"),
                "give colour or color, not both",
            ));
        }
        let colour_key = if table.contains_key("color") {
            "color"
        } else {
            "colour"
        };
        let colour = self.choice(
            table,
            &parent,
            colour_key,
            |s| s.parse::<Color>().ok(),
            "a colour name (red, light-blue …), a 0-255 index or #rrggbb",
        )?;
        Ok(WorkspaceEntry {
            name: name.to_string(),
            line,
            url,
            token,
            base_path,
            colour,
        })
    }

    fn url(&self, text: &At<String>) -> Result<String, ConfigError> {
        let trimmed = text.value.trim().trim_end_matches('/');
        match reqwest::Url::parse(trimmed) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
                Ok(trimmed.to_string())
            }
            Ok(url) => Err(self.invalid(
                text.line,
                &text.key,
                &format!(
                    "{:?} is not an http or https URL ({})",
                    text.value,
                    url.scheme()
                ),
            )),
            Err(err) => Err(self.invalid(
                text.line,
                &text.key,
                &format!("{:?} is not a URL: {err}", text.value),
            )),
        }
    }

    fn command(&self, table: &dyn TableLike, parent: &str) -> Result<At<TokenSpec>, ConfigError> {
        let key = format!("{parent}.token_command");
        let line = self.value_line(table, "token_command");
        let item = table.get("token_command");
        let argv: Option<Vec<String>> = match item {
            Some(item) if item.as_str().is_some() => item
                .as_str()
                .filter(|s| !s.trim().is_empty())
                .map(|s| vec!["sh".to_string(), "-c".to_string(), s.to_string()]),
            Some(item) => item.as_array().and_then(|array| {
                array
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
                    .filter(|argv| argv.first().is_some_and(|p| !p.is_empty()))
            }),
            None => None,
        };
        match argv {
            Some(argv) => Ok(At {
                value: TokenSpec::Command(argv),
                line,
                key,
            }),
            None => Err(self.invalid(
                line,
                &key,
                "must be a command line (a string run by sh -c) or a non-empty array of strings \
                 (run without a shell)",
            )),
        }
    }

    /// `~/…` from the home directory; a relative path from the config file's directory.
    fn file_path(&self, text: &str) -> PathBuf {
        let path = expand_home(text);
        if path.is_absolute() {
            return path;
        }
        self.path
            .parent()
            .map_or_else(|| path.clone(), |dir| dir.join(&path))
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `~` and `~/…` from `$HOME`; anything else as written.
pub fn expand_home(text: &str) -> PathBuf {
    let home = || {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    if text == "~" {
        if let Some(home) = home() {
            return home;
        }
    } else if let Some(rest) = text.strip_prefix("~/")
        && let Some(home) = home()
    {
        return home.join(rest);
    }
    PathBuf::from(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<ConfigFile, ConfigError> {
        parse(Path::new("/etc/masc/config.toml"), text)
    }

    #[test]
    fn inline_and_dotted_tables_read_like_headers_with_their_own_lines() {
        let file = parsed(
            "workspaces.a = { url = \"http://h:1\", token_env = \"A_TOKEN\" }\n\
             \n\
             [workspaces.b]\n\
             url = \"https://b.example/masc/\"\n\
             token_command = \"pass show b\"\n\
             token_file_note = 1\n",
        );
        let Err(ConfigError::Invalid { line, key, .. }) = file else {
            panic!("{file:?}");
        };
        assert_eq!((line, key.as_str()), (6, "workspaces.b.token_file_note"));
        let file = parsed(
            "workspaces.a = { url = \"http://h:1\", token_env = \"A_TOKEN\" }\n\
             \n\
             [workspaces.b]\n\
             url = \"https://b.example/masc/\"\n\
             token_command = \"pass show b\"\n\
             color = \"#102030\"\n",
        )
        .unwrap();
        let a = file.workspace("a").unwrap();
        assert_eq!(a.url.value, "http://h:1");
        assert_eq!(a.url.line, 1);
        assert_eq!(
            a.token.as_ref().map(|t| &t.value),
            Some(&TokenSpec::Env("A_TOKEN".into()))
        );
        let b = file.workspace("b").unwrap();
        assert_eq!(b.url.value, "https://b.example/masc");
        assert_eq!(
            b.token.as_ref().map(|t| t.value.clone()),
            Some(TokenSpec::Command(vec![
                "sh".into(),
                "-c".into(),
                "pass show b".into()
            ]))
        );
        assert_eq!(
            b.colour.as_ref().map(|c| c.value),
            Some(Color::Rgb(16, 32, 48))
        );
        assert_eq!(file.names(), "a, b");
    }

    #[test]
    fn relative_token_files_are_beside_the_config_file_and_names_are_typeable() {
        let file =
            parsed("[workspaces.a]\nurl = \"http://h:1\"\ntoken_file = \"a.token\"\n").unwrap();
        assert_eq!(
            file.workspace("a")
                .unwrap()
                .token
                .as_ref()
                .map(|t| &t.value),
            Some(&TokenSpec::File(PathBuf::from("/etc/masc/a.token")))
        );
        let refused = parsed("[workspaces.\"a b\"]\nurl = \"http://h:1\"\n").unwrap_err();
        assert!(
            refused.to_string().contains("line 1, key workspaces.a b"),
            "{refused}"
        );
        let refused = parsed("workspaces = 3\n").unwrap_err();
        assert!(
            refused.to_string().contains("must be a table, not integer"),
            "{refused}"
        );
        let refused =
            parsed("[workspaces.a]\nurl = \"http://h:1\"\nbase_path = \"rel/dir\"\n").unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("line 3, key workspaces.a.base_path"),
            "{refused}"
        );
        let refused = parsed("[defaults]\nlang = \"ko\"\n").unwrap_err();
        assert!(
            refused.to_string().contains("line 2, key defaults.lang"),
            "{refused}"
        );
    }
}
