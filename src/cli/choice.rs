//! Parsers of option values that come from the spec model (an adapter, a backend) or have a
//! shape (`KEY=VALUE`): a mistake is a usage error (exit 2) at parse time, with the values
//! accepted and svcgen's one "did you mean", as clap gives for its own enums.

use crate::support::suggest::did_you_mean;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

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
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value.to_string_lossy();
        if self.values.iter().any(|v| *v == text) {
            return Ok(text.into_owned());
        }
        Err(invalid_value(cmd, self.flag, &text, &self.values))
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
