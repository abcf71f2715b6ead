//! Parsers of option values that come from the spec model (an adapter, a backend) or have a
//! shape (`KEY=VALUE`): a mistake is a usage error (exit 2) at parse time, with the values
//! accepted and svcgen's one "did you mean", as clap gives for its own enums.

use crate::support::suggest::did_you_mean;
use clap::ValueEnum;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use std::path::{Path, PathBuf};

/// The option as clap shows it (`--format <FORMAT>`, `<SHELL>`), else `fallback`.
fn flag_of(arg: Option<&clap::Arg>, fallback: &str) -> String {
    arg.map_or_else(|| fallback.to_string(), ToString::to_string)
}

/// The usage error of a value that is not one of `names`, with the closest one if any.
pub fn invalid_value(cmd: &clap::Command, flag: &str, text: &str, names: &[&str]) -> clap::Error {
    let mut message = format!(
        "invalid value '{text}' for '{flag}'\n  [possible values: {}]\n",
        names.join(", ")
    );
    if let Some(near) = did_you_mean(text, names.iter().copied()) {
        message.push_str(&format!("\n  tip: did you mean '{near}'?\n"));
    }
    clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone())
}

/// One of a list of values read from the model (every edition's: an edition's own check comes
/// later, where the edition is known).
#[derive(Clone)]
pub struct ChoiceParser {
    flag: &'static str,
    values: Vec<&'static str>,
}

impl ChoiceParser {
    pub fn new(flag: &'static str, values: Vec<&'static str>) -> ChoiceParser {
        ChoiceParser { flag, values }
    }
}

impl TypedValueParser for ChoiceParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value.to_string_lossy();
        if self.values.iter().any(|v| *v == text) {
            return Ok(text.into_owned());
        }
        Err(invalid_value(
            cmd,
            &flag_of(arg, self.flag),
            &text,
            &self.values,
        ))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values.iter().map(|v| PossibleValue::new(*v))))
    }
}

/// `KEY=VALUE` (`--set`) or `KEY=PATH` (`--set-file`): a value without `=` is a usage error
/// naming the form, so that `--set key 5433` does not read `5433` as a profile. Only the key is
/// echoed (the text has no `=`, so it holds no value to mask).
#[derive(Clone)]
pub struct AssignmentParser {
    pub flag: &'static str,
    pub form: &'static str,
}

impl TypedValueParser for AssignmentParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let Some(text) = value.to_str() else {
            let message = format!(
                "{} needs {}: the value is not UTF-8\n",
                self.flag, self.form
            );
            return Err(clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone()));
        };
        match text.split_once('=') {
            Some((key, _)) if !key.trim().is_empty() => Ok(text.to_string()),
            _ => {
                let shown = crate::support::escape::one_line(text);
                let message = format!(
                    "{flag} needs {form}, got '{shown}'\n\n  tip: write it as one word: {flag} {example}\n",
                    flag = self.flag,
                    form = self.form,
                    example = if text.is_empty() {
                        self.form.to_string()
                    } else {
                        format!("{shown}=…")
                    },
                );
                Err(clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone()))
            }
        }
    }
}

/// A `ValueEnum` option (`--format`, `--color`, `--from`, `-t`, a shell) read with svcgen's one
/// "did you mean": clap's own tip names a far value (`docker` → `docs`) or none for a case
/// slip (`--edition a`), so every option with a fixed set of values answers the same way.
pub struct EnumParser<E>(std::marker::PhantomData<E>);

impl<E> Clone for EnumParser<E> {
    fn clone(&self) -> Self {
        EnumParser(std::marker::PhantomData)
    }
}

/// The parser of a `ValueEnum` type (see [`EnumParser`]).
pub fn enum_of<E>() -> EnumParser<E> {
    EnumParser(std::marker::PhantomData)
}

impl<E: ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for EnumParser<E> {
    type Value = E;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<E, clap::Error> {
        let text = value.to_string_lossy();
        if let Ok(found) = E::from_str(&text, false) {
            return Ok(found);
        }
        let names: Vec<String> = self
            .possible_values()
            .into_iter()
            .flatten()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        Err(invalid_value(cmd, &flag_of(arg, "value"), &text, &names))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            E::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// What a path option names, so that a path that cannot be one is a usage error naming the
/// option, before any work (the bounded reader and the writer check again when they open it:
/// this only makes the first answer name the option and say what it takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRole {
    /// A file read (`-f`, `--profile`); `-` is standard input.
    ReadFile,
    /// A folder read (`--templates`).
    ReadFolder,
    /// A file written (`-o`); `-` is standard output, a missing folder on the way is created.
    WriteFile,
    /// A folder written (`--out-dir`), created when missing.
    WriteFolder,
}

/// Parses a path option of a [`PathRole`].
#[derive(Clone)]
pub struct PathParser(pub PathRole);

impl TypedValueParser for PathParser {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<PathBuf, clap::Error> {
        let path = PathBuf::from(value);
        let Some((problem, accepted)) = path_problem(self.0, &path) else {
            return Ok(path);
        };
        let shown = crate::support::escape::one_line(&path.to_string_lossy());
        let message = format!(
            "invalid value '{shown}' for '{}': {problem}\n\n  tip: {accepted}\n",
            flag_of(arg, "PATH")
        );
        Err(clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone()))
    }
}

/// Why `path` cannot serve as `role`, and what would: `None` when it can (or when only opening
/// it can tell, as for a file that cannot be read).
fn path_problem(role: PathRole, path: &Path) -> Option<(String, &'static str)> {
    if super::is_stdio(path) {
        // `-`: the command's own check says what it means for it (`--out-dir -` is refused there).
        return None;
    }
    let meta = std::fs::metadata(path);
    match role {
        PathRole::ReadFile => match meta {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((
                "no such file".to_string(),
                "give the path of an existing file (relative paths start at the current folder)",
            )),
            Ok(m) if m.is_dir() => Some((
                "is a folder, not a file".to_string(),
                "give the path of a file in it",
            )),
            Ok(m) if !m.is_file() => Some((
                "is not a regular file (a FIFO, socket or device)".to_string(),
                "give a regular file: svcgen reads its inputs whole",
            )),
            _ => None,
        },
        PathRole::ReadFolder => match meta {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((
                "no such folder".to_string(),
                "give an existing folder (relative paths start at the current folder)",
            )),
            Ok(m) if !m.is_dir() => Some((
                "is not a folder".to_string(),
                "give the folder that holds the files, not a file",
            )),
            _ => None,
        },
        PathRole::WriteFile => match meta {
            Ok(m) if m.is_dir() => Some((
                "is a folder, not a file".to_string(),
                "name the file to write (DIR/NAME), or use --out-dir where the command has it",
            )),
            Ok(_) => None,
            Err(_) => file_on_the_way(path),
        },
        PathRole::WriteFolder => match meta {
            Ok(m) if !m.is_dir() => Some((
                "is a file, not a folder".to_string(),
                "name a folder: it is created when missing",
            )),
            Ok(_) => None,
            Err(_) => file_on_the_way(path),
        },
    }
}

/// A missing path whose nearest existing ancestor is a file: no folder can be made there.
fn file_on_the_way(path: &Path) -> Option<(String, &'static str)> {
    let existing = path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| std::fs::symlink_metadata(a).is_ok())?;
    (!existing.is_dir()).then(|| {
        (
            format!(
                "cannot create the folder: {} is a file, not a folder",
                crate::support::escape::one_line(&existing.to_string_lossy())
            ),
            "name a path under a folder (missing folders are created)",
        )
    })
}
