//! The spec model: every variable of the Admin UI container, per edition, as data.
//!
//! The model is `schemas/spec.toml`, parsed and checked at build time (`build.rs`) and written out
//! as code that builds these types once per run. It is the one source of truth: resolution, the
//! renderers, docs, the JSON Schema, `explain`, `init`, import/lint, the language server and the
//! CLI's lists of values all read it, so a variable's name, default or allowed values are never
//! written in Rust code. When a group applies is decided here too ([`Condition::applies`]).

mod condition;
mod start;
mod types;

pub use condition::{Applies, Condition, Lookup};
pub use start::{Lasts, LockCheck, StartFacts, StartWait};
pub use types::{
    Address, ApiObject, BackendRule, Consumer, ContainerFacts, DefaultValue, Edition, EditionInfo,
    FileKind, Group, ImageFacts, ImageFile, ImagePath, ImageVar, MisfitDefault, MovingTag, Setting,
    StartupChecks, Unit, UserGroups, Var, VarType, WaitedEntry, WrittenPath,
};

use std::sync::OnceLock;

/// The model's text, for the tests that check the baked model against it.
#[cfg(test)]
const SPEC_TOML: &str = include_str!("../../schemas/spec.toml");

/// The whole spec model: editions, groups and variables in the spec's order.
#[derive(Debug)]
pub struct Model {
    pub backends: BackendRule,
    /// How the container reads values (true words, legacy name prefixes).
    pub container: ContainerFacts,
    /// Facts about the real image, not the spec: paths it reads and writes beyond the spec.
    pub image: ImageFacts,
    /// Facts about the image: how it starts, wait by wait.
    pub start: StartFacts,
    /// Deployment settings (`deploy.*`), in order.
    pub settings: Vec<Setting>,
    pub editions: Vec<EditionInfo>,
    pub groups: Vec<Group>,
    pub vars: Vec<Var>,
}

impl Model {
    /// The model baked into the binary, read on first use.
    pub fn get() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            // The baked model is checked by the test suite; failing here is a build defect.
            Model::baked().expect("the baked schemas/spec.toml is a valid spec model")
        })
    }

    /// Reads the model `build.rs` baked from `schemas/spec.toml`. The checks across variables
    /// are not repeated at each start: the test suite checks that this model is the one
    /// [`Model::parse`] (every check) makes of the same text.
    fn baked() -> Result<Model, String> {
        types::baked::spec().into_model_trusted()
    }

    /// Parses a model from its TOML text and checks its internal consistency.
    pub fn parse(text: &str) -> Result<Model, String> {
        let raw: types::RawModel = toml::from_str(text).map_err(|e| e.to_string())?;
        raw.into_model()
    }

    /// The variables of one edition, in output order.
    pub fn vars_of(&self, edition: Edition) -> impl Iterator<Item = &Var> {
        self.vars
            .iter()
            .filter(move |v| v.editions.contains(&edition))
    }

    /// The entry of a profile key in an edition, if that edition has it.
    pub fn var_by_key(&self, key: &str, edition: Edition) -> Option<&Var> {
        self.vars_of(edition).find(|v| v.key == key)
    }

    /// Every entry (any edition) with this profile key.
    pub fn entries_by_key<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Var> {
        self.vars.iter().filter(move |v| v.key == key)
    }

    /// Every entry (any edition) with this env name.
    pub fn entries_by_env<'a>(&'a self, env: &'a str) -> impl Iterator<Item = &'a Var> {
        self.vars.iter().filter(move |v| v.env == env)
    }

    /// The deployment setting with this key.
    pub fn setting(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.key == key)
    }

    /// The group with this id.
    pub fn group(&self, id: &str) -> &Group {
        self.groups
            .iter()
            .find(|g| g.id == id)
            .expect("groups of variables are checked when the model is parsed")
    }

    /// The edition's facts (image tag).
    pub fn edition(&self, edition: Edition) -> &EditionInfo {
        self.editions
            .iter()
            .find(|e| e.id == edition)
            .expect("both editions are checked when the model is parsed")
    }

    /// Every distinct env name, in model order.
    pub fn env_names(&self) -> Vec<&str> {
        distinct(self.vars.iter().map(|v| v.env.as_str()))
    }

    /// The "did you mean" over the baked model's env names, prepared once per process:
    /// preparing it costs more than resolving a profile, and every unknown name of a large file
    /// or of a batch of profiles is compared with the same names.
    pub fn env_suggester() -> &'static crate::support::suggest::Suggester<'static> {
        static SUGGESTER: OnceLock<crate::support::suggest::Suggester<'static>> = OnceLock::new();
        SUGGESTER.get_or_init(|| crate::support::suggest::Suggester::new(Model::get().env_names()))
    }

    /// Every distinct profile key, in model order.
    pub fn keys(&self) -> Vec<&str> {
        distinct(self.vars.iter().map(|v| v.key.as_str()))
    }

    /// Variables that select groups (`config.adapter`, ...), in model order, for one edition.
    pub fn selectors(&self, edition: Edition) -> impl Iterator<Item = &Var> {
        self.vars_of(edition).filter(|v| v.selector)
    }

    /// The object of a `kubernetes` adapter whose name or namespace the variable `key` gives.
    pub fn api_object_of(&self, key: &str) -> Option<&ApiObject> {
        (self.container.api_objects.iter()).find(|o| o.name == key || o.namespace == key)
    }

    /// The model's row of `[image] reads` for the variable `env` in the image of `edition`.
    pub fn image_read(&self, env: &str, edition: Edition) -> Option<&types::ImageVar> {
        (self.image.reads.iter()).find(|r| r.env == env && r.editions.contains(&edition))
    }

    /// What the real image reads from `env`, a variable outside the spec (the model's facts about
    /// the image: `[image] ssa_file`, `sql_password_file`, `reads`, the Couchbase client's own
    /// variables, the `image_name` of `[container] api_objects`), in the image of `edition`: import, lint and `[env]` say it instead of a near spec name.
    pub fn image_reads(&self, env: &str, edition: Edition) -> Option<String> {
        let ssa = &self.image.ssa_file;
        if ssa.env == env && ssa.editions.contains(&edition) {
            return Some(format!(
                "the path of the SSA file the image refuses to start without (image default {})",
                ssa.path
            ));
        }
        let sql = &self.image.sql_password_file;
        if sql.env == env && sql.editions.contains(&edition) {
            return Some(format!(
                "the path of the file the SQL client reads its password from (image default {}; \
                 profile key `{}`)",
                sql.path, sql.key
            ));
        }
        if let Some(what) = self.image.couchbase.reads(env) {
            return Some(what);
        }
        if let Some(read) = self.image_read(env, edition) {
            return Some(match read.default.is_empty() {
                true => format!("{} (not set in the image)", read.what),
                false => format!("{} (image default `{}`)", read.what, read.default),
            });
        }
        self.container.api_objects.iter().find_map(|object| {
            let image = object.image_name.as_ref().filter(|i| i.env == env)?;
            let spec = self.var_by_key(&object.name, edition)?;
            Some(format!(
                "the name of the object ({}) its kubernetes adapter reads, where the spec documents {} (image default `{}`)",
                object.resource, spec.env, image.default
            ))
        })
    }

    /// The first variable whose type is the hybrid mapping, for one edition.
    pub fn var_of_type(&self, edition: Edition, ty: VarType) -> Option<&Var> {
        self.vars_of(edition).find(|v| v.ty == ty)
    }
}

/// The first of each text, in order: a variable has one entry per edition, and its name and key
/// are listed once.
fn distinct<'a>(texts: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for text in texts {
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// A valid environment variable name: a letter or `_`, then letters, digits and `_` (every
/// variable of the model has one; the loader, value types and import check names with it).
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baked_model_is_the_model_of_the_text() {
        let text = Model::parse(SPEC_TOML).unwrap();
        assert_eq!(format!("{:?}", Model::get()), format!("{text:?}"));
    }

    #[test]
    fn embedded_model_parses() {
        let model = Model::get();
        assert_eq!(model.env_names().len(), 71);
    }

    #[test]
    fn a_var_with_an_unknown_group_is_rejected() {
        let text = SPEC_TOML.replacen("group = \"config\"\n", "group = \"nope\"\n", 1);
        let err = Model::parse(&text).unwrap_err();
        assert!(err.contains("nope"), "{err}");
    }

    #[test]
    fn a_default_outside_the_allowed_values_is_rejected() {
        let text = SPEC_TOML.replacen("default = \"consul\"", "default = \"etcd\"", 1);
        let err = Model::parse(&text).unwrap_err();
        assert!(err.contains("etcd"), "{err}");
    }

    /// A consumer is a row the model checks: named ids exist, each row is used, its character
    /// sets can be read, and only a text value can have one.
    #[test]
    fn consumer_rows_are_checked() {
        let bad = [
            (
                "consumers = [\"http-header-value\"]",
                "consumers = [\"http-header\"]",
                "no [[consumer]] has the id `http-header`",
            ),
            (
                "consumers = [\"http-header-value\"]\n",
                "",
                "consumer http-header-value is named by no variable",
            ),
            (
                "only = [\"A-Z\", ",
                "only = [\"Z-A\", ",
                "single characters or ranges",
            ),
            (
                "type = \"bool\"\ndefault = \"false\"\nmeaning = \"Whether to verify the certificate\"",
                "type = \"bool\"\ndefault = \"false\"\nconsumers = [\"json-string\"]\nmeaning = \"x\"",
                "only a text value can have consumers",
            ),
        ];
        for (from, to, wanted) in bad {
            assert!(SPEC_TOML.contains(from), "{from}");
            let err = Model::parse(&SPEC_TOML.replacen(from, to, 1)).unwrap_err();
            assert!(err.contains(wanted), "{err}");
        }
    }
}
