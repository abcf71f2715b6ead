//! What kind of file a command was given, by content (import's own detection), so that the
//! wrong file gets one error naming what it is and which command reads it, not a wall of
//! syntax errors: `validate` of a compose file, `import` of a profile.

use crate::diag::source::Sources;
use crate::model::Model;

/// The kinds of file svcgen reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A svcgen profile (TOML).
    Profile,
    /// A `.env` file.
    Dotenv,
    /// A compose file.
    Compose,
    /// Kubernetes manifests.
    Kubernetes,
}

impl Kind {
    /// The kind as said in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Profile => "a svcgen profile (TOML)",
            Kind::Dotenv => "a .env file",
            Kind::Compose => "a compose file",
            Kind::Kubernetes => "Kubernetes manifests",
        }
    }

    /// What to run on a file of this kind (`file` as the user wrote it).
    pub fn commands(self, file: &str) -> String {
        match self {
            Kind::Profile => {
                format!("`svcgen validate {file}` checks it, `svcgen render {file}` renders it")
            }
            _ => format!(
                "`svcgen import {file}` makes a profile of it, `svcgen lint {file}` checks it as it is"
            ),
        }
    }
}

/// The kind of a file by its content, when it is clearly one: a profile is TOML with a
/// profile's top-level key; compose and manifests are YAML with `services:` or `kind:`; a
/// `.env` file is `NAME=value` lines, at least one naming a variable of the spec. `None` when
/// nothing is clear (a broken profile stays a profile's problem).
pub fn kind_of(name: &str, text: &str) -> Option<Kind> {
    if is_profile(text) {
        return Some(Kind::Profile);
    }
    let mut scratch = Sources::new();
    let source = scratch.add(name, text);
    if let Ok(docs) = super::yaml::parse(text, source)
        && let Some(format) = super::format_by_content(&docs)
    {
        return Some(match format {
            super::Format::Compose => Kind::Compose,
            super::Format::Kubernetes => Kind::Kubernetes,
            super::Format::Dotenv => Kind::Dotenv,
        });
    }
    is_dotenv(text).then_some(Kind::Dotenv)
}

/// TOML whose top-level keys include one only a profile has (`edition`, `extends`, a table of
/// the spec model such as `[config]`).
fn is_profile(text: &str) -> bool {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return false;
    };
    let model = Model::get();
    table.keys().any(|key| {
        crate::resolve::RESERVED_KEYS.contains(&key.as_str()) && key != "env"
            || model
                .vars
                .iter()
                .any(|v| v.key.split('.').next() == Some(key.as_str()))
    })
}

/// Every line blank, a comment or `[export ]NAME=…`, and one NAME a variable of the spec.
fn is_dotenv(text: &str) -> bool {
    let model = Model::get();
    let mut spec_names = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((name, _)) = line.split_once('=') else {
            return false;
        };
        if !crate::resolve::is_env_name(name) {
            return false;
        }
        if model.entries_by_env(name).next().is_some() {
            spec_names += 1;
        }
    }
    spec_names > 0
}

/// What the commands that read profiles take, as [`wrong_file`] names it.
pub const PROFILE_WANTED: &str = "a svcgen profile (TOML)";

/// What `import` and `lint` take, as [`wrong_file`] names it.
pub const ENVIRONMENT_WANTED: &str = "a .env file, compose file or Kubernetes manifest";

/// The one error of a file of `kind` given where `wanted` is read.
pub fn wrong_file(file: &str, kind: Kind, wanted: &str) -> String {
    let file = crate::support::escape::one_line(file);
    format!(
        "{file} is {}, not {wanted}: {}",
        kind.describe(),
        kind.commands(&file)
    )
}

/// E0246: the file `id` of `kind`, given where `wanted` is read (at its start; `None`: a file
/// not read, refused by its name). Every command reports it so, with exit 1, as a problem
/// found in a file.
pub fn wrong_file_diagnostic(
    id: Option<crate::diag::source::SourceId>,
    file: &str,
    kind: Kind,
    wanted: &str,
) -> crate::diag::Diagnostic {
    let diagnostic =
        crate::diag::Diagnostic::new(crate::diag::Code::WrongFile, wrong_file(file, kind, wanted));
    match id {
        Some(id) => diagnostic
            .at(crate::diag::source::Origin::new(id, 0..0))
            .label(kind.describe()),
        None => diagnostic,
    }
}

/// The one diagnostic of every source of `sources` from `first` on that is a file of another
/// kind than a profile, in place of what reading it as TOML found (`None`: all are profiles,
/// or unclear).
pub fn not_profiles(
    sources: &Sources,
    first: usize,
    diags: &crate::diag::Diagnostics,
) -> Option<crate::diag::Diagnostics> {
    use crate::diag::Diagnostics;
    let mut out = Diagnostics::default();
    let mut foreign = Vec::new();
    for id in sources.ids().skip(first) {
        let source = sources.get(id);
        match kind_of(&source.name, &source.text) {
            Some(kind) if kind != Kind::Profile => {
                foreign.push(id);
                out.push(wrong_file_diagnostic(
                    Some(id),
                    &source.name,
                    kind,
                    PROFILE_WANTED,
                ));
            }
            _ => {}
        }
    }
    if foreign.is_empty() {
        return None;
    }
    out.items.extend(
        diags
            .items
            .iter()
            .filter(|d| d.origin.is_none_or(|o| !foreign.contains(&o.source)))
            .cloned(),
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_by_its_content() {
        assert_eq!(kind_of("p.toml", "edition = \"B\"\n"), Some(Kind::Profile));
        assert_eq!(
            kind_of("x", "[config]\nadapter = \"consul\"\n"),
            Some(Kind::Profile)
        );
        assert_eq!(
            kind_of("x", "services:\n  a:\n    image: x\n"),
            Some(Kind::Compose)
        );
        assert_eq!(
            kind_of("x", "kind: ConfigMap\ndata: {}\n"),
            Some(Kind::Kubernetes)
        );
        assert_eq!(
            kind_of("x", "# c\nCN_CONFIG_ADAPTER=consul\nTZ=x\n"),
            Some(Kind::Dotenv)
        );
        // Broken TOML and stray text are no clear kind.
        assert_eq!(kind_of("p.toml", "edition = \n"), None);
        assert_eq!(kind_of("x", "TZ=1\n"), None);
    }
}
