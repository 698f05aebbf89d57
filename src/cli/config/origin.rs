//! Where each value of a session came from: a flag, the environment, the config file (line
//! and key) or the default. The command line's own record (clap's value sources) is kept
//! beside the parsed arguments, because the parsed struct alone cannot tell a flag from its
//! environment variable.

use clap::parser::ValueSource;
use std::fmt;

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag (its spelling).
    Flag(&'static str),
    /// An environment variable (its name).
    Env(&'static str),
    /// The config file: the line and the dotted key.
    File { line: usize, key: String },
    /// The built-in default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag(flag) => write!(f, "flag {flag}"),
            Self::Env(name) => write!(f, "env {name}"),
            Self::File { line, key } => write!(f, "config line {line}, {key}"),
            Self::Default => f.write_str("default"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Sourced<T> {
    pub(super) fn new(value: T, origin: Origin) -> Self {
        Self { value, origin }
    }

    pub(super) fn from_file(at: &super::At<T>) -> Self
    where
        T: Clone,
    {
        Self::new(
            at.value.clone(),
            Origin::File {
                line: at.line,
                key: at.key.clone(),
            },
        )
    }
}

/// Whether each argument of a parsed command line came from the command line or the
/// environment (clap's own record, kept from the matches: the parsed struct alone cannot tell).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins(Vec<(String, ValueSource)>);

impl Origins {
    pub fn of(matches: &clap::ArgMatches) -> Self {
        Self(
            matches
                .ids()
                .filter_map(|id| {
                    let id = id.as_str();
                    matches
                        .value_source(id)
                        .map(|source| (id.to_string(), source))
                })
                .collect(),
        )
    }

    /// Whether `id` was given through its environment variable.
    pub fn from_env(&self, id: &str) -> bool {
        self.0
            .iter()
            .any(|(i, s)| i == id && *s == ValueSource::EnvVariable)
    }

    /// The origin of a given argument: its recorded source, or (a struct built without the
    /// matches, as in unit tests) the flag.
    pub(super) fn of_arg(&self, id: &str, flag: &'static str, env: &'static str) -> Origin {
        match self.0.iter().find(|(i, _)| i == id).map(|(_, s)| *s) {
            Some(ValueSource::EnvVariable) => Origin::Env(env),
            Some(ValueSource::DefaultValue) => Origin::Default,
            _ => Origin::Flag(flag),
        }
    }
}
